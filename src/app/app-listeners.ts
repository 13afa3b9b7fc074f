import type { AppStartListening } from './listener';
import type { AppThunkDispatch, RootState } from './store';
import { onApiError, setAccessTokenProvider } from '../api/client';
import { NETWORK_ERROR_STATUS, type ApiError } from '../api/api-error';
import { sendClientLog } from '../api/logs';
import { apiErrorRecorded } from '../features/errors/errors-slice';
import { loggedOut, selectAccessToken } from '../features/session/session-slice';
import { navigateTo } from './navigation';
import { SYSTEM_ERROR_PATH, href } from '@/config/paths';
import { addSessionListeners } from '../features/session/session-listeners';
import { addLayoutListeners } from '../features/layout/layout-thunks';
import { ACTOR } from '@contract/constants/common';

let unsubscribeApi: (() => void) | null = null;

/**
 * Connects the API client to the store and wires every feature's listeners. The error rules of spec §6 and
 * §8 live here, in one place: record every error; 401 → logout and login page; 405 on tester detail →
 * logged out; 500 for a tester not logged in to the test system → /alerting/system-error; with the debug
 * flag (start-up isDebug), a 401 or 405 sends an auth-error log and a network error a network-error log.
 */
export function addAppListeners(
  startListening: AppStartListening,
  store: { getState: () => RootState; dispatch: AppThunkDispatch },
): void {
  setAccessTokenProvider(() => selectAccessToken(store.getState()));
  unsubscribeApi?.();
  unsubscribeApi = onApiError((err) => {
    store.dispatch(apiErrorRecorded({ ...err.toSerializable(), at: Date.now() }));
    const state = store.getState();
    if ((state.startup.params.isDebug ?? 0) > 0) sendDebugLog(err);
    const actor = state.session.login?.actor ?? null;
    // A 401 during a deliberate logout is that logout's own doing: it ends the session itself, not an expiry.
    if (err.status === 401 && state.session.login && state.session.status !== 'loggingOut') {
      // A session ended on purpose (a login in another window, logout elsewhere, the recording-time limit)
      // says so in words; otherwise it expired.
      const reasonKey =
        err.code === 'session_superseded' || err.code === 'session_ended'
          ? err.messageKey
          : 'errors:sessionExpired';
      store.dispatch(loggedOut({ reasonKey }));
      navigateTo(href('login'), { replace: true });
    } else if (err.status === 405 && err.endpoint === 'tester/detail' && state.session.login) {
      store.dispatch(loggedOut({ reasonKey: 'errors:testerLoggedOut' }));
      navigateTo(href('login'), { replace: true });
    } else if (err.status >= 500 && actor === ACTOR.tester && !loggedInToTestSystem(state)) {
      navigateTo(SYSTEM_ERROR_PATH, { replace: true });
    }
  });
  addSessionListeners(startListening);
  addLayoutListeners(startListening);
}

/** spec §8: with the debug flag set, auth and network failures are logged to the server with their own tag. */
function sendDebugLog(err: ApiError): void {
  const tag =
    err.status === 401 || err.status === 405
      ? 'auth-error'
      : err.status === NETWORK_ERROR_STATUS
        ? 'network-error'
        : null;
  if (!tag) return;
  void sendClientLog({
    type: 'error',
    module: 'api',
    details: `${err.endpoint}: ${err.status} ${err.message}`,
    tag1: tag,
  });
}

/** Whether the tester has logged in to the external test system (the tester slice, once present, says so). */
function loggedInToTestSystem(state: RootState): boolean {
  return state.tester?.loggedInToTestSystem === true;
}
