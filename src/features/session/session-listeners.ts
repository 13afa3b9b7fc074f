import type { AppStartListening } from '../../app/listener';
import { loggedIn, loggedOut, logoutStarted } from './session-slice';
import { clearSession, saveSession } from './session-storage';

/** Keeps the saved session in step with the store. */
export function addSessionListeners(startListening: AppStartListening): void {
  startListening({ actionCreator: loggedIn, effect: (action) => saveSession(action.payload) });
  startListening({ actionCreator: logoutStarted, effect: () => clearSession() });
  startListening({ actionCreator: loggedOut, effect: () => clearSession() });
}
