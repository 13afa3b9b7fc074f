import { matchPath } from 'react-router-dom';
import { desktopAppSetupFor } from '../app/desktop-app-guard';
import { decideAccess, FIRST_PAGE, type Actor } from '../app/permissions';
import { href, paths, type RouteDef } from '@/config/paths';

export type RouteKey = keyof typeof paths;

/** What a location shows: its page, or where the guard sends the visitor instead. */
export type RouteResolution =
  | { kind: 'page'; key: RouteKey; route: RouteDef }
  /** Somewhere else in the app, in place of this history entry ("/" → first page; not logged in → /login). */
  | { kind: 'redirect'; to: string }
  /** Outside the app (the desktop application's setup page). */
  | { kind: 'external'; url: string }
  | { kind: 'forbidden' }
  | { kind: 'notFound' };

const ID = /^[1-9][0-9]{0,17}$/;

/** Validity checks of route params (spec §2: a failed check shows the 404 page). */
const VALIDATE: Partial<Record<RouteKey, (params: Record<string, string | undefined>) => boolean>> = {
  examineeDetail: (p) => ID.test(p.id ?? ''),
  examineeReport: (p) => ID.test(p.id ?? ''),
  examineeLogin: (p) => ID.test(p.id ?? ''),
  createShorturl: (p) => p.id === undefined || ID.test(p.id),
  alerting: (p) => p.id === undefined || /^[a-z0-9-]{1,64}$/.test(p.id),
};

const KEYS = Object.keys(paths) as RouteKey[];

/** The route a path matches (a trailing slash tolerated, case-insensitive), with its params. */
export function matchRoute(
  pathname: string,
): { key: RouteKey; params: Record<string, string | undefined> } | null {
  for (const key of KEYS) {
    const m = matchPath({ path: paths[key].path, caseSensitive: false }, pathname);
    if (m) return { key, params: m.params };
  }
  return null;
}

/**
 * The one guard (STYLE habit 8), decided once per navigation: "/" goes to the actor's first page (or the
 * login page); a path matching no route, or failing its validity check, is a 404; open pages pass; without
 * login only open pages (else to /login); a page outside the actor's list is a 403; a tester page without the
 * desktop application goes to its setup page.
 */
export function resolveRoute(
  pathname: string,
  actor: Actor | null,
  userAgent: string = typeof navigator === 'undefined' ? '' : navigator.userAgent,
): RouteResolution {
  if (pathname.replace(/\/+$/, '') === '')
    return { kind: 'redirect', to: actor ? href(FIRST_PAGE[actor]) : href('login') };
  const match = matchRoute(pathname);
  if (!match || VALIDATE[match.key]?.(match.params) === false) return { kind: 'notFound' };
  const route: RouteDef = paths[match.key];
  const decision = decideAccess(route.page, actor);
  if (decision === 'login') return { kind: 'redirect', to: href('login') };
  if (decision === 'forbidden') return { kind: 'forbidden' };
  const setup = desktopAppSetupFor(route.page, userAgent);
  if (setup) return { kind: 'external', url: setup };
  return { kind: 'page', key: match.key, route };
}
