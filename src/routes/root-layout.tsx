import { Suspense, useEffect, useMemo } from 'react';
import { useTranslation } from 'react-i18next';
import { Outlet, useLocation } from 'react-router-dom';
import { useAppStore } from '../app/hooks';
import { AppLayout } from '../features/layout/components/app-layout';
import { selectActor } from '../features/session/session-slice';
import { resolveRoute, type RouteResolution } from './guard';
import { href } from '@/config/paths';
import { RouteErrorBoundary } from './errors/route-error-page';
import { RouteLoading } from './route-loading';
import { useScrollRules } from './scroll-rules';

const LINKS = {
  login: href('login'),
  terms: href('terms'),
  privacy: href('privacy'),
  inquiry: href('inquiry'),
};

/** Sets document.body.id to the page identifier (PRE00001–PRE00007), or removes it. */
function useBodyId(bodyId: string | null): void {
  useEffect(() => {
    if (bodyId) document.body.id = bodyId;
    else document.body.removeAttribute('id');
  }, [bodyId]);
  useEffect(() => () => document.body.removeAttribute('id'), []);
}

/**
 * The root route: the app layout around the page, the body id, the title and the scroll rules. The guard
 * decides once per navigation, with the session as it is then (a logout is followed by its own navigation);
 * the page below shows what it decided (router.tsx). Only a page the guard let through carries its body id:
 * the 403 and 404 pages carry none.
 */
export function RootLayout() {
  const store = useAppStore();
  const location = useLocation();
  const resolution: RouteResolution = useMemo(
    () => resolveRoute(location.pathname, selectActor(store.getState())),
    // Once per navigation (a new history entry has a new key).
    // eslint-disable-next-line react-hooks/exhaustive-deps
    [location.key, location.pathname, store],
  );
  const route = resolution.kind === 'page' ? resolution.route : null;
  const { t } = useTranslation(['pages', 'common']);
  useBodyId(route?.bodyId ?? null);
  useScrollRules(route?.keepScroll === true);

  const title = route ? t(`titles.${route.page}`) : '';
  useEffect(() => {
    const app = t('common:appName');
    document.title = title || app;
  }, [title, t]);

  return (
    <AppLayout page={route?.page ?? null} links={LINKS}>
      <RouteErrorBoundary resetKey={location.key}>
        <Suspense fallback={<RouteLoading />}>
          <Outlet context={resolution} />
        </Suspense>
      </RouteErrorBoundary>
    </AppLayout>
  );
}
