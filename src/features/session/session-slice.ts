import { createAction, createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { Actor } from '../../app/permissions';
import type { TranslationKey } from '../../lib/translation-key';

/** The login result of spec §3, camelCase. */
export interface LoginInfo {
  accessToken: string;
  examUserName: string;
  loginId: string;
  actor: Actor;
  kicked: number | null;
  groupId: number | null;
  group: string | null;
}

export interface SessionState {
  /**
   * `loggingOut`: a deliberate logout is under way (the header's, or an examinee's exit that ends the session,
   * from its first step: telling the checker, sending the recording); the login is still usable until it ends.
   */
  status: 'loggedOut' | 'loggingIn' | 'loggedIn' | 'loggingOut';
  login: LoginInfo | null;
  /** Why the last session ended, for the login page to say (i18n key), e.g. after a 401. */
  endedReasonKey: TranslationKey | null;
}

const initialState: SessionState = { status: 'loggedOut', login: null, endedReasonKey: null };

const sessionSlice = createSlice({
  name: 'session',
  initialState,
  reducers: {
    /** The login request was sent. */
    loginStarted(state) {
      state.status = 'loggingIn';
    },
    /** The server accepted the login (status 200). */
    loggedIn(state, action: PayloadAction<LoginInfo>) {
      state.status = 'loggedIn';
      state.login = action.payload;
      state.endedReasonKey = null;
    },
    /** The login was refused or failed. */
    loginFailed(state) {
      state.status = 'loggedOut';
    },
    /**
     * A deliberate logout began. The stored session is cleared at once (session-listeners.ts), so that no page
     * reached afterwards (Back, a footer link, a reload while it runs) restores a token that is about to end;
     * a 401 meanwhile is the logout's own doing, not an expiry (app-listeners.ts).
     */
    logoutStarted(state) {
      if (state.login) state.status = 'loggingOut';
    },
    /** The session ended: by logout, a 401, a 405 on tester detail, or kick-out. */
    loggedOut(state, action: PayloadAction<{ reasonKey?: TranslationKey } | undefined>) {
      state.status = 'loggedOut';
      state.login = null;
      state.endedReasonKey = action.payload?.reasonKey ?? null;
    },
  },
});

export const { loginStarted, loggedIn, loginFailed, logoutStarted, loggedOut } = sessionSlice.actions;
export default sessionSlice.reducer;

/**
 * An examinee pressed the header's logout: the tester pages run the exit sequence of spec §4 (tell the checker,
 * send the recording, log out, leave to /close or the start-up URL) instead of a bare logout.
 */
export const testerLogoutRequested = createAction('session/testerLogoutRequested');

type WithSession = { session: SessionState };
export const selectLogin = (s: WithSession) => s.session.login;
export const selectActor = (s: WithSession): Actor | null => s.session.login?.actor ?? null;
export const selectAccessToken = (s: WithSession) => s.session.login?.accessToken ?? null;
export const selectIsLoggedIn = (s: WithSession) =>
  s.session.status === 'loggedIn' && s.session.login !== null;
