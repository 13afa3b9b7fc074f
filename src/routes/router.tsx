import { createElement, use, useEffect, type ComponentType } from 'react';
import { Navigate, Route, Routes, useLocation, useOutletContext } from 'react-router-dom';
import { useAppStore } from '../app/hooks';
import { registerFeatures, type AppStore } from '../app/store';
import type { FeatureDef, JapaneseTexts } from '../app/features';
import { addTexts } from '../i18n';
import { selectActor } from '../features/session/session-slice';
import { paths } from '@/config/paths';
import { resolveRoute, type RouteKey, type RouteResolution } from './guard';
import { RootLayout } from './root-layout';
import { RouteLoading } from './route-loading';
import { ForbiddenContent } from './errors/forbidden-content';
import { NotFoundContent } from './errors/not-found-content';

/**
 * A page module: its component, the features (slices, listeners, texts) it needs registered first, and the
 * texts of its own views.
 */
type PageModule = { default: ComponentType; features?: readonly FeatureDef[]; texts?: JapaneseTexts };

/** Page modules, lazily loaded per route (the login route loads no media, AWS, management or examinee code). */
const PAGES: Record<RouteKey, () => Promise<PageModule>> = {
  login: () => import('./open/login-page'),
  redirect: () => import('./open/redirect-page'),
  iframe: () => import('./open/iframe-page'),
  alerting: () => import('./open/alerting-page'),
  terms: () => import('./open/terms-page'),
  privacy: () => import('./open/privacy-page'),
  inquiry: () => import('./open/inquiry-page'),
  close: () => import('./open/close-page'),
  envSetting: () => import('./tester/env-setting-page'),
  identification: () => import('./tester/identification-page'),
  identificationAi: () => import('./tester/identification-ai-page'),
  examining: () => import('./tester/examining-page'),
  examEnd: () => import('./tester/exam-end-page'),
  monitoring: () => import('./checker/monitoring-page'),
  management: () => import('./management/management-page'),
  examinees: () => import('./management/examinees-page'),
  examineeDetail: () => import('./management/examinee-detail-page'),
  examineeReport: () => import('./management/examinee-report-page'),
  examineeLogin: () => import('./management/examinee-login-page'),
  checkersMonitoring: () => import('./management/checkers-monitoring-page'),
  accessLimit: () => import('./management/access-limit-page'),
  logview: () => import('./management/logview-page'),
  deleteSetting: () => import('./management/delete-setting-page'),
  deletePlan: () => import('./management/delete-plan-page'),
  logins: () => import('./management/logins-page'),
  createShorturl: () => import('./management/create-shorturl-page'),
  createShorturlList: () => import('./management/create-shorturl-list-page'),
  analysisRequest: () => import('./management/analysis-request-page'),
  editTerms: () => import('./management/edit-terms-page'),
  accounts: () => import('./management/accounts-page'),
  phone: () => import('./open/phone-page'),
};

/** One page load; a settled promise also carries React's `status`/`value`, so `use` reads it at once. */
interface PageLoad {
  promise: Promise<ComponentType>;
  failed: boolean;
  /** The navigation it was made for: a failed load is retried by the next navigation, not by a re-render. */
  locationKey: string;
}
const loads = new WeakMap<AppStore, Map<RouteKey, PageLoad>>();

/**
 * Loads a page module and registers its features with the store, once per store and page. A load that
 * failed (e.g. an old chunk after a deploy) is tried again by a later navigation.
 */
export function loadPage(store: AppStore, key: RouteKey, locationKey = ''): Promise<ComponentType> {
  let byKey = loads.get(store);
  if (!byKey) loads.set(store, (byKey = new Map()));
  const known = byKey.get(key);
  if (known && (!known.failed || known.locationKey === locationKey)) return known.promise;
  const promise = PAGES[key]().then(async (mod) => {
    await Promise.all([registerFeatures(store, mod.features ?? []), addTexts(mod.texts ?? {})]);
    return mod.default;
  });
  const load: PageLoad = { promise, failed: false, locationKey };
  promise.then(
    (value) => Object.assign(promise, { status: 'fulfilled', value }),
    (reason: unknown) => {
      load.failed = true;
      Object.assign(promise, { status: 'rejected', reason });
    },
  );
  byKey.set(key, load);
  return promise;
}

/**
 * Loads the page of `pathname` when the guard lets the current actor see it, so the first render finds
 * it ready (no loading screen in between). Never rejects: a failure shows on the page's error boundary.
 */
export async function preloadRoute(store: AppStore, pathname: string): Promise<void> {
  const r = resolveRoute(pathname, selectActor(store.getState()));
  if (r.kind === 'page') await loadPage(store, r.key).catch(() => undefined);
}

/** The page of a loaded route; suspends until its module and features are in. */
function LoadedPage({ pageKey }: { pageKey: RouteKey }) {
  const store = useAppStore();
  const { key } = useLocation();
  // A settled load is read at once (React's `use` reads `status`/`value`), so a preloaded page never suspends.
  // The component is the page module's own (one per page key), not made here.
  return createElement(use(loadPage(store, pageKey, key)));
}

/** Leaves the app for `url` (the desktop application's setup page). */
function External({ url }: { url: string }) {
  useEffect(() => window.location.assign(url), [url]);
  return <RouteLoading />;
}

/** What the location shows, as the root layout resolved it for this navigation. */
function RouteOutcome() {
  const resolution = useOutletContext<RouteResolution>();
  switch (resolution.kind) {
    case 'page':
      return <LoadedPage pageKey={resolution.key} />;
    case 'redirect':
      return <Navigate to={resolution.to} replace />;
    case 'external':
      return <External url={resolution.url} />;
    case 'forbidden':
      return <ForbiddenContent />;
    case 'notFound':
      return <NotFoundContent />;
  }
}

/**
 * Every route of spec §2 under the root layout. Declarative routes: the guard, the lazy pages and the error
 * pages are ours (guard.ts, loadPage, errors/), so the router's data APIs (loaders, route objects), about
 * 16 KB gzip on every page, are not in the bundle.
 */
export function AppRoutes() {
  return (
    <Routes>
      <Route element={<RootLayout />}>
        <Route index element={<RouteOutcome />} />
        {(Object.keys(paths) as RouteKey[]).map((key) => (
          <Route key={key} path={paths[key].path} element={<RouteOutcome />} />
        ))}
        <Route path="*" element={<RouteOutcome />} />
      </Route>
    </Routes>
  );
}
