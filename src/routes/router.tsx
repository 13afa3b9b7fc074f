import { createBrowserRouter, redirect, type RouteObject } from 'react-router-dom';
import type { ComponentType } from 'react';
import { registerFeatures, type AppStore } from '../app/store';
import type { FeatureDef } from '../app/features';
import { paths, href, type RouteDef } from './paths';
import { FIRST_PAGE } from '../app/permissions';
import { selectActor } from '../features/session/session-slice';
import { requirePage, notFoundResponse } from './guard';
import { RootLayout } from './root-layout';
import { RouteErrorPage } from './errors/route-error-page';
import { RouteLoading } from './route-loading';

/** A page module: its component, and the features (slices, listeners, texts) it needs registered first. */
type PageModule = { default: ComponentType; features?: readonly FeatureDef[] };
type Loader = () => Promise<PageModule>;

/** Page modules, lazily loaded per route (the login route loads no media, AWS, management or examinee code). */
const PAGES: Record<keyof typeof paths, Loader> = {
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

/** Validity checks of route params (spec §2: a failed check shows the 404 page). */
const VALIDATE: Partial<Record<keyof typeof paths, (params: Record<string, string | undefined>) => boolean>> =
  {
    examineeDetail: (p) => /^[1-9][0-9]{0,17}$/.test(p.id ?? ''),
    examineeReport: (p) => /^[1-9][0-9]{0,17}$/.test(p.id ?? ''),
    examineeLogin: (p) => /^[1-9][0-9]{0,17}$/.test(p.id ?? ''),
    createShorturl: (p) => p.id === undefined || /^[1-9][0-9]{0,17}$/.test(p.id),
    alerting: (p) => p.id === undefined || /^[a-z0-9-]{1,64}$/.test(p.id),
  };

export interface RouteHandle {
  route: RouteDef;
}

export function buildRoutes(store: AppStore): RouteObject[] {
  const children: RouteObject[] = (Object.keys(paths) as (keyof typeof paths)[]).map((key) => {
    const def: RouteDef = paths[key];
    return {
      path: def.path,
      handle: { route: def } satisfies RouteHandle,
      loader: ({ params }) => {
        const valid = VALIDATE[key];
        if (valid && !valid(params)) throw notFoundResponse();
        return requirePage(store, def.page);
      },
      lazy: async () => {
        const mod = await PAGES[key]();
        if (mod.features) await registerFeatures(store, mod.features);
        return { Component: mod.default };
      },
    };
  });
  // "/" has no page of its own: the actor's first page, or the login page.
  children.unshift({
    index: true,
    element: null,
    loader: () => {
      const actor = selectActor(store.getState());
      throw redirect(actor ? href(FIRST_PAGE[actor]) : href('login'));
    },
  });
  children.push({
    path: '*',
    loader: () => {
      throw notFoundResponse();
    },
    element: null,
  });
  return [
    {
      id: 'root',
      element: <RootLayout />,
      errorElement: <RouteErrorPage />,
      hydrateFallbackElement: <RouteLoading />,
      children: [{ errorElement: <RouteErrorPage />, children }],
    },
  ];
}

export function createAppRouter(store: AppStore) {
  return createBrowserRouter(buildRoutes(store));
}
