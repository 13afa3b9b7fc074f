import { redirect, redirectDocument } from 'react-router-dom';
import { desktopAppSetupFor } from '../app/desktop-app-guard';
import { decideAccess, type PageId } from '../app/permissions';
import type { AppStore } from '../app/store';
import { selectActor } from '../features/session/session-slice';
import { href } from './paths';

/** Thrown as a Response so the route's error element shows the 403 or 404 page. */
export function forbiddenResponse(): Response {
  return new Response('Forbidden', { status: 403, statusText: 'Forbidden' });
}
export function notFoundResponse(): Response {
  return new Response('This page could not be found', { status: 404, statusText: 'Not Found' });
}

/**
 * The one guard (STYLE habit 8): open pages pass; without login only open pages (else to /login); a page
 * outside the actor's list is a 403.
 */
export function requirePage(
  store: Pick<AppStore, 'getState'>,
  page: PageId,
  userAgent: string = typeof navigator === 'undefined' ? '' : navigator.userAgent,
): null {
  const decision = decideAccess(page, selectActor(store.getState()));
  if (decision === 'login') throw redirect(href('login'));
  if (decision === 'forbidden') throw forbiddenResponse();
  const setup = desktopAppSetupFor(page, userAgent);
  if (setup) throw redirectDocument(setup);
  return null;
}
