import type { RuntimeConfig } from '../lib/runtime-config';
import { setLogLevel, setLogSink } from '../lib/logger';
import { addTexts, initI18n } from '../i18n';
import { setupStore } from './store';
import { preloadRoute } from '../routes/router';
import { navigateBeforeRender, setNavigator } from './navigation';
import { restoreSession } from '../features/session/session-storage';
import { loggedIn } from '../features/session/session-slice';
import {
  readStartupParams,
  restrictStartupLinks,
  type OpenedAddress,
} from '../features/startup/startup-params';
import { startupParamsLoaded } from '../features/startup/startup-slice';
import { runStartupChecks, applyStartupOutcome } from './startup';
import { sendClientLog } from '../api/logs';
import { loadWithHttp, preloadHttp } from '../api/client';
import { syncServerClock } from '../features/startup/server-clock';
import { ACTOR } from '@contract/constants/common';

/**
 * Start-up, in order: store, saved session, start-up parameters, language and first page (loading), then
 * the start-up checks of spec §2 (which may send the user elsewhere before the first page renders).
 */
export async function bootstrapApp(config: RuntimeConfig, opened: OpenedAddress) {
  setLogLevel(config.logLevel);
  setLogSink((e) => void sendClientLog(e));
  const store = setupStore();
  const saved = restoreSession();
  if (saved) store.dispatch(loggedIn(saved));
  const params = restrictStartupLinks(
    readStartupParams(opened, window.sessionStorage),
    config.allowedLinkOrigins,
    window.location.origin,
  );
  store.dispatch(startupParamsLoaded(params));
  // The texts of the start-up language load while the first page loads and the checks run (the page's
  // feature texts wait for them); the first render comes after all three.
  const i18nReady = initI18n(params.lang);
  // The texts of the server's error codes (errors:code.*) come with the API client's axios chunk: an ApiError
  // carrying one exists only after a response, and the client's own codes (network, timeout, parse) are core
  // texts. English ones that fail to load fall back to Japanese.
  loadWithHttp(() =>
    Promise.all([import('../i18n/locales/ja/errors/code.json'), i18nReady]).then(([m]) =>
      addTexts({ 'errors/code': m.default }).catch(() => undefined),
    ),
  );
  // A JT start-up (spec §2) logs in during the checks: the API client's axios chunk loads meanwhile.
  if (params.actor === ACTOR.tester && params.loginId !== '') preloadHttp();
  // Until the router mounts (app.tsx), navigations change the history entry it will read.
  setNavigator(navigateBeforeRender);
  void preloadRoute(store, window.location.pathname);
  const outcome = await runStartupChecks(store, config);
  await applyStartupOutcome(outcome, { navigate: navigateBeforeRender });
  // The page the checks settled on (a page load is shared, so the one started above is not loaded twice).
  await Promise.all([i18nReady, preloadRoute(store, window.location.pathname)]);
  // Not awaited: the first page does not wait for the server clock.
  void syncServerClock(store.dispatch);
  return { store };
}
