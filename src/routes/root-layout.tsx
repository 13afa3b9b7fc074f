import { useEffect, useLayoutEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import {
  Outlet,
  ScrollRestoration,
  useLocation,
  useMatches,
  useNavigationType,
  type UIMatch,
} from 'react-router-dom';
import { AppLayout } from '../features/layout/components/app-layout';
import { href, type RouteDef } from './paths';

const LINKS = {
  login: href('login'),
  terms: href('terms'),
  privacy: href('privacy'),
  inquiry: href('inquiry'),
};

/**
 * The route on screen: the deepest match with a route handle whose loader passed. A guard or validity
 * check that throws leaves the match without loader data (`undefined`; a passing guard returns null), and
 * the error page shows instead — it must not carry the page's body id.
 */
export function currentRoute(matches: UIMatch[]): RouteDef | null {
  for (let i = matches.length - 1; i >= 0; i -= 1) {
    const m = matches[i];
    const route = (m?.handle as { route?: RouteDef } | undefined)?.route;
    if (route) return m?.data === undefined ? null : route;
  }
  return null;
}

/** Sets document.body.id to the page identifier (PRE00001–PRE00007), or removes it. */
function useBodyId(bodyId: string | null): void {
  useEffect(() => {
    if (bodyId) document.body.id = bodyId;
    else document.body.removeAttribute('id');
  }, [bodyId]);
  useEffect(() => () => document.body.removeAttribute('id'), []);
}

/**
 * Spec §2 scrolling: ScrollRestoration scrolls to top on navigation, restores the saved position on
 * back/forward and scrolls to a #hash target. A route with `keepScroll` undoes the scroll-to-top: this
 * layout effect runs after ScrollRestoration's (children first) and before paint.
 */
function useKeepScroll(keepScroll: boolean): void {
  const lastY = useRef(0);
  const location = useLocation();
  const navType = useNavigationType();
  useEffect(() => {
    const onScroll = () => {
      lastY.current = window.scrollY;
    };
    window.addEventListener('scroll', onScroll, { passive: true });
    return () => window.removeEventListener('scroll', onScroll);
  }, []);
  useLayoutEffect(() => {
    if (keepScroll && navType !== 'POP' && !location.hash) window.scrollTo(0, lastY.current);
    // Only on a new location.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [location.key]);
}

/** The root route: the app layout around the page, the body id and the scroll rules. */
export function RootLayout() {
  const matches = useMatches();
  const route = currentRoute(matches);
  const { t } = useTranslation(['pages', 'common']);
  useBodyId(route?.bodyId ?? null);
  useKeepScroll(route?.keepScroll === true);

  const title = route ? t(`titles.${route.page}`) : '';
  useEffect(() => {
    const app = t('common:appName');
    document.title = title || app;
  }, [title, t]);

  return (
    <AppLayout page={route?.page ?? null} links={LINKS}>
      <Outlet />
      <ScrollRestoration />
    </AppLayout>
  );
}
