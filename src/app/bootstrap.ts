import type { RuntimeConfig } from '../lib/runtime-config';
import { setLogLevel, setLogSink } from '../lib/logger';
import { initI18n } from '../i18n';
import { setupStore } from './store';
import { createAppRouter } from '../routes/router';
import { setNavigator } from './navigation';
import { restoreSession } from '../features/session/session-storage';
import { loggedIn } from '../features/session/session-slice';
import { readStartupParams } from '../features/startup/startup-params';
import { startupParamsLoaded } from '../features/startup/startup-slice';
import { runStartupChecks, applyStartupOutcome } from './startup';
import { sendClientLog } from '../api/logs';
import { syncServerClock } from '../features/startup/server-clock';

/**
 * Start-up, in order: store, saved session, start-up parameters, language, router, then the start-up
 * checks of spec §2 (which may send the user elsewhere before the first page renders).
 */
export async function bootstrapApp(config: RuntimeConfig) {
  setLogLevel(config.logLevel);
  setLogSink((e) => void sendClientLog(e));
  const store = setupStore();
  const saved = restoreSession();
  if (saved) store.dispatch(loggedIn(saved));
  const params = readStartupParams(window.location, window.sessionStorage);
  store.dispatch(startupParamsLoaded(params));
  initI18n(params.lang);
  const router = createAppRouter(store);
  setNavigator((to, opts) => void router.navigate(to, opts));
  const outcome = await runStartupChecks(store, config);
  await applyStartupOutcome(outcome, router);
  // Not awaited: the first page does not wait for the server clock.
  void syncServerClock(store.dispatch);
  return { store, router };
}
