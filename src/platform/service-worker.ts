import { logger } from '../lib/logger';

/** The service worker script, served from public/sw.js. */
export const SERVICE_WORKER_URL = '/sw.js';

/**
 * Spec §2 start-up check 2: registers the service worker. A failure is only logged and never blocks.
 *
 * @param nav - the navigator to use (injectable for tests).
 * @returns whether the registration succeeded.
 */
export async function registerServiceWorker(nav: Navigator = navigator): Promise<boolean> {
  if (!('serviceWorker' in nav) || !nav.serviceWorker) {
    logger.debug('platform', 'service workers are not supported here');
    return false;
  }
  try {
    await nav.serviceWorker.register(SERVICE_WORKER_URL, { scope: '/' });
    return true;
  } catch (e) {
    logger.error('platform', 'service worker registration failed', e instanceof Error ? e.message : e);
    return false;
  }
}
