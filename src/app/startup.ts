import type { AppStore } from './store';
import type { RuntimeConfig } from '../lib/runtime-config';
import { logger } from '../lib/logger';
import { FIRST_PAGE, OPEN_PAGES, UndefinedActorError, isActor, type Actor } from './permissions';
import { href } from '@/config/paths';
import { matchRoute } from '../routes/guard';
import {
  startupChecksPassed,
  startupChecksStarted,
  startupChecksStopped,
} from '../features/startup/startup-slice';
import { selectActor, selectIsLoggedIn } from '../features/session/session-slice';
import { loginRequested } from '../features/session/session-thunks';
import { BROWSER_CHECK_ALERTING_ID, checkEnvironment } from '../platform/browser-check';
import { checkPopupAllowed } from '../platform/popup-check';
import { checkStorageCapacity } from '../platform/storage-check';
import { isPC } from '../platform/device';
import { registerServiceWorker } from '../platform/service-worker';
import { isChildWindow, openChildWindow } from '../platform/child-window';
import { desktopAppSetupRedirect } from '../platform/desktop-app';
import { ACTOR } from '@contract/constants/common';

/** Where the start-up checks send the user. */
export type StartupOutcome =
  /** A check failed: show this alerting page and stop (spec §2 steps 3–5). */
  | { kind: 'stop'; to: string }
  /** Redirect the current window to `to`. */
  | { kind: 'navigate'; to: string }
  /** Open `to` in a full-size child window and close this one (actor 1, isMcStartup 0). */
  | { kind: 'childWindow'; to: string }
  /** Leave the current page as it is (a refresh of a page the user may see). */
  | { kind: 'stay' }
  /** Leave the SPA for another site: the desktop application's setup page (spec §1). */
  | { kind: 'external'; url: string };

/** The browser facilities the checks use; tests inject fakes. */
export interface StartupEnv {
  location: Pick<Location, 'pathname' | 'search'>;
  userAgent: string;
  maxTouchPoints: number;
  registerServiceWorker(): Promise<boolean>;
  checkPopup(): boolean;
  checkStorage(): boolean;
  isChildWindow(): boolean;
}

/** What applying an outcome needs besides the router; tests inject fakes. */
export interface StartupApplyEnv {
  openChildWindow(url: string): boolean;
  assign(url: string): void;
}

export const POPUP_BLOCK_PATH = href('alerting', { id: 'popup-block' });
export const STORAGE_BLOCK_PATH = href('alerting', { id: 'storage-block' });

export function browserStartupEnv(): StartupEnv {
  return {
    location: window.location,
    userAgent: navigator.userAgent,
    maxTouchPoints: navigator.maxTouchPoints ?? 0,
    registerServiceWorker: () => registerServiceWorker(),
    checkPopup: () => checkPopupAllowed(),
    checkStorage: () => checkStorageCapacity(),
    isChildWindow: () => isChildWindow(),
  };
}

const browserApplyEnv = (): StartupApplyEnv => ({
  openChildWindow: (url) => openChildWindow(url),
  assign: (url) => window.location.replace(url),
});

function normalisePath(pathname: string): string {
  // spec §2: "A trailing slash is tolerated".
  const p = pathname.replace(/\/+$/, '');
  return p === '' ? '/' : p;
}

/**
 * The start-up checks of spec §2, in order, before any page renders:
 *
 * 1. The query was read by bootstrap (readStartupParams, which logs a missing query); the store has it.
 * 2. Service-worker registration; a failure is only logged.
 * 3. Browser/OS check (spec §5) → `/alerting/excluded-…` and stop.
 *    3b. Desktop application (spec §1): a tester start-up whose user agent lacks the application's token,
 *    when the deployment configures one, goes to the setup page. It runs right after the browser check,
 *    because without the application the tester page cannot be used, so the later checks would be moot.
 * 4. Actor 1 only: popup check → `/alerting/popup-block` and stop.
 * 5. PC only: storage test → `/alerting/storage-block` and stop.
 * 6. Routing (decisions, as the spec leaves them open):
 *    - An actor outside 1–5 in the parameters logs 'undefined actor specified' and goes to /login.
 *    - Already logged in (a refresh, or the child window, which inherits session storage): stay on a real
 *      page; on '/' go to the logged-in actor's first page.
 *    - Not logged in, on an open page other than /login (e.g. /terms opened from the footer in a new
 *      window, /close, /alerting/…): stay, since those pages are meant to be seen without login.
 *    - A "valid start-up" for actor 1 is a JT start-up (loginId non-empty, spec §3): log in directly with
 *      loginId/password from the parameters (spec §2) and go to the first page; if the login fails, /login.
 *    - Anything else: /login.
 *    For actor 1 with isMcStartup 0 the target opens in a full-size child window and this window closes;
 *    except inside that child window itself (recognised by its window name), which redirects in place.
 */
export async function runStartupChecks(
  store: AppStore,
  config: RuntimeConfig,
  env: StartupEnv = browserStartupEnv(),
): Promise<StartupOutcome> {
  store.dispatch(startupChecksStarted());
  const stop = (outcome: StartupOutcome): StartupOutcome => {
    store.dispatch(startupChecksStopped());
    return outcome;
  };
  const params = store.getState().startup.params;
  const sessionActor = selectActor(store.getState());
  const isTester = params.actor === ACTOR.tester || sessionActor === ACTOR.tester;

  // 2. Never blocks: registerServiceWorker logs its own failure.
  try {
    await env.registerServiceWorker();
  } catch (e) {
    logger.error('startup', 'service worker registration failed', e instanceof Error ? e.message : e);
  }

  // 3.
  const browser = checkEnvironment(
    { userAgent: env.userAgent, maxTouchPoints: env.maxTouchPoints },
    config.extraAllowedEnvironments,
  );
  if (browser.code !== 0) {
    logger.error('startup', `unsupported environment (code ${browser.code})`, browser);
    return stop({ kind: 'stop', to: href('alerting', { id: BROWSER_CHECK_ALERTING_ID[browser.code] }) });
  }

  // 3b.
  if (isTester) {
    const setupUrl = desktopAppSetupRedirect(env.userAgent, config.desktopApp);
    if (setupUrl) return stop({ kind: 'external', url: setupUrl });
  }

  // 4.
  if (isTester && !env.checkPopup()) return stop({ kind: 'stop', to: POPUP_BLOCK_PATH });

  // 5.
  if (isPC(env.userAgent, env.maxTouchPoints) && !env.checkStorage())
    return stop({ kind: 'stop', to: STORAGE_BLOCK_PATH });

  // 6.
  const outcome = await route(store, env);
  store.dispatch(startupChecksPassed());
  return outcome;
}

async function route(store: AppStore, env: StartupEnv): Promise<StartupOutcome> {
  const params = store.getState().startup.params;
  const path = normalisePath(env.location.pathname);
  const login = href('login');

  if (params.actor !== null && !isActor(params.actor)) {
    logger.error('startup', new UndefinedActorError(params.actor).message);
    return path === login ? { kind: 'stay' } : { kind: 'navigate', to: login };
  }

  const target = (to: string, actor: Actor | null): StartupOutcome => {
    if (actor === ACTOR.tester && params.isMcStartup === 0 && !env.isChildWindow())
      return { kind: 'childWindow', to };
    return to === path ? { kind: 'stay' } : { kind: 'navigate', to };
  };

  if (selectIsLoggedIn(store.getState())) {
    const actor = selectActor(store.getState());
    if (path !== '/' || actor === null) return { kind: 'stay' };
    return target(href(FIRST_PAGE[actor]), actor);
  }

  if (path !== '/' && path !== login && isOpenPath(path)) return { kind: 'stay' };
  // spec §2: a path matching no route shows the 404 page, logged in or not.
  if (path !== '/' && !isKnownPath(path)) return { kind: 'stay' };

  if (params.actor === ACTOR.tester && params.loginId !== '') {
    const result = await store.dispatch(
      loginRequested({ loginId: params.loginId, password: params.password }),
    );
    if (loginRequested.fulfilled.match(result))
      return target(href(FIRST_PAGE[result.payload.actor]), result.payload.actor);
    logger.error('startup', 'JT start-up login failed', result.payload ?? result.error.message);
  }
  return target(login, params.actor === ACTOR.tester ? ACTOR.tester : null);
}

/** Whether `path` matches one of the routes of spec §2 (a trailing slash tolerated). */
function isKnownPath(path: string): boolean {
  return matchRoute(path) !== null;
}

/** Whether `path` is one of the open pages of spec §6 other than login (`/alerting/{id}` included). */
function isOpenPath(path: string): boolean {
  return OPEN_PAGES.some((page) => {
    if (page === 'login') return false;
    const base = href(page);
    return path === base || path.startsWith(`${base}/`);
  });
}

/**
 * Carries out an outcome. A blocked child window (the popup check passed moments ago, so rarely) falls back
 * to the popup-block page; after opening the child, this window shows the close page in case the browser
 * refuses to close a window that no script opened.
 */
export async function applyStartupOutcome(
  outcome: StartupOutcome,
  router: { navigate(to: string, opts?: { replace?: boolean }): Promise<void> | void },
  env: StartupApplyEnv = browserApplyEnv(),
): Promise<void> {
  switch (outcome.kind) {
    case 'stay':
      return;
    case 'stop':
    case 'navigate':
      await router.navigate(outcome.to, { replace: true });
      return;
    case 'external':
      env.assign(outcome.url);
      return;
    case 'childWindow':
      if (env.openChildWindow(outcome.to)) await router.navigate(href('close'), { replace: true });
      else await router.navigate(POPUP_BLOCK_PATH, { replace: true });
      return;
  }
}
