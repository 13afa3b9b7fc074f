import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { defaultStartupParams, type StartupParams } from './startup-fields';

export type { StartupKey, StartupParams } from './startup-fields';

export interface StartupState {
  params: StartupParams;
  /** Progress of the start-up checks of spec §2. */
  status: 'pending' | 'checking' | 'done' | 'stopped';
  /** Last server time received (spec §3 "Server time": serverTime in the browser's time zone), or null. */
  serverTime: string | null;
  /** Server clock minus browser clock, in ms (signing dates for KVS use it); 0 until known. */
  clockOffsetMs: number;
}

const initialState: StartupState = {
  params: defaultStartupParams(),
  status: 'pending',
  serverTime: null,
  clockOffsetMs: 0,
};

const startupSlice = createSlice({
  name: 'startup',
  initialState,
  reducers: {
    /** The start-up parameters were read from the query (or restored from sessionStorage). */
    startupParamsLoaded(state, action: PayloadAction<StartupParams>) {
      state.params = action.payload;
    },
    /** The start-up checks began. */
    startupChecksStarted(state) {
      state.status = 'checking';
    },
    /** The checks passed and the app routed to its first page. */
    startupChecksPassed(state) {
      state.status = 'done';
    },
    /** The server time arrived (a failure leaves the stored time unchanged, spec §8). */
    serverTimeReceived(state, action: PayloadAction<{ serverTime: string; clockOffsetMs: number }>) {
      state.serverTime = action.payload.serverTime;
      state.clockOffsetMs = action.payload.clockOffsetMs;
    },
    /** A check failed and the app went to an alerting page. */
    startupChecksStopped(state) {
      state.status = 'stopped';
    },
  },
});

export const {
  startupParamsLoaded,
  startupChecksStarted,
  startupChecksPassed,
  startupChecksStopped,
  serverTimeReceived,
} = startupSlice.actions;
export default startupSlice.reducer;

type WithStartup = { startup: StartupState };
export const selectStartupParams = (s: WithStartup) => s.startup.params;
/** Spec §3: a session is a JT start-up when loginId is non-empty. */
export const selectIsJtStartup = (s: WithStartup) => s.startup.params.loginId !== '';
export const selectLang = (s: WithStartup) => s.startup.params.lang;
export const selectClockOffsetMs = (s: WithStartup) => s.startup.clockOffsetMs;
