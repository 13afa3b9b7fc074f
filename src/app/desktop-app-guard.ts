import { getRuntimeConfig } from '../lib/runtime-config';
import { desktopAppSetupRedirect } from '../platform/desktop-app';
import { PAGE_ACCESS, type PageId } from './permissions';

/**
 * spec §1: the tester pages require the desktop proctoring application when the deployment names one — every
 * tester page, not only the start-up (a page opened later, a reload, a new tab). The setup page to send the
 * browser to, or null when `page` may open here.
 */
export function desktopAppSetupFor(page: PageId, userAgent: string): string | null {
  if (!PAGE_ACCESS[1].includes(page)) return null;
  return desktopAppSetupRedirect(userAgent, getRuntimeConfig().desktopApp);
}
