import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { loggedOut } from '../session/session-slice';
import type { TranslationKey } from '../../lib/translation-key';
import { initialWiderViewState, type WiderViewSliceState } from './wider-view-selectors';

export * from './wider-view-selectors';

/**
 * The examinee's wider view (README "The wider view"): the entire screen shared before and during the exam,
 * and guided room scans (before the exam, and whenever the checker asks). Media objects stay in media/; this
 * holds what the pages show.
 */

const widerViewSlice = createSlice({
  name: 'widerView',
  initialState: initialWiderViewState,
  reducers: {
    /**
     * The server said where the sitting stands (after a reload, a new login): which parts it has, the scans done,
     * a scan the checker asked for. A screen shared before a reload is no longer shared in this page.
     */
    widerViewLoaded(
      state,
      action: PayloadAction<{
        required: WiderViewSliceState['required'];
        screenWasShared: boolean;
        roomScan: { done: number; current: { id: number; requestedByChecker: boolean } | null };
      }>,
    ) {
      const { required, roomScan } = action.payload;
      state.loaded = true;
      state.required = required;
      if (state.screen.status === 'idle' && action.payload.screenWasShared) state.screen.status = 'ended';
      state.roomScan.done = roomScan.done;
      if (roomScan.current && state.roomScan.phase === 'idle') {
        state.roomScan.phase = 'instructions';
        state.roomScan.scanId = roomScan.current.id;
        state.roomScan.requestedByChecker = roomScan.current.requestedByChecker;
      }
    },
    /** The examinee pressed "share the entire screen": the browser's picker opens. */
    screenShareAsked(state) {
      state.screen.status = 'asking';
      state.screen.errorKey = null;
    },
    /** The entire screen is shared (and the server knows). */
    screenShared(state) {
      state.screen.status = 'shared';
      state.screen.errorKey = null;
    },
    /** Sharing failed (a window or a tab chosen, refused, unsupported, the network): the key says why. */
    screenShareFailed(state, action: PayloadAction<{ errorKey: TranslationKey; wasShared: boolean }>) {
      state.screen.status = action.payload.wasShared ? 'ended' : 'idle';
      state.screen.errorKey = action.payload.errorKey;
    },
    /** The share stopped (the browser's "stop sharing", the screen gone): the exam is held until shared again. */
    screenShareEnded(state) {
      if (state.screen.status === 'shared' || state.screen.status === 'asking') state.screen.status = 'ended';
    },
    /** The room-scan dialog opens: before the exam (the examinee's step) or because the checker asked. */
    roomScanOpened(state, action: PayloadAction<{ scanId: number | null; requestedByChecker: boolean }>) {
      if (state.roomScan.phase !== 'idle') return;
      state.roomScan.phase = 'instructions';
      state.roomScan.scanId = action.payload.scanId;
      state.roomScan.requestedByChecker = action.payload.requestedByChecker;
      state.roomScan.errorKey = null;
    },
    /** The examinee pressed "start the scan". */
    roomScanStartAsked(state) {
      state.roomScan.phase = 'starting';
      state.roomScan.errorKey = null;
    },
    /** The server opened the scan: recording and the countdown run. */
    roomScanStarted(state, action: PayloadAction<{ scanId: number; at: number }>) {
      state.roomScan.phase = 'scanning';
      state.roomScan.scanId = action.payload.scanId;
      state.roomScan.startedAt = action.payload.at;
    },
    /** The countdown ran out, or the examinee pressed "stop": the scan is being completed. */
    roomScanStopped(state) {
      if (state.roomScan.phase === 'scanning') state.roomScan.phase = 'finishing';
    },
    /** The scan is complete (logged on the server, the checker told). */
    roomScanCompleted(state, action: PayloadAction<{ done: number }>) {
      state.roomScan = { ...initialWiderViewState.roomScan, done: action.payload.done };
    },
    /** Starting or completing the scan failed: the dialog stays with the reason, to try again. */
    roomScanFailed(state, action: PayloadAction<{ errorKey: TranslationKey }>) {
      state.roomScan.phase = state.roomScan.phase === 'finishing' ? 'finishing' : 'instructions';
      state.roomScan.errorKey = action.payload.errorKey;
    },
  },
  extraReducers: (b) => {
    b.addCase(loggedOut, () => initialWiderViewState);
  },
});

export const {
  widerViewLoaded,
  screenShareAsked,
  screenShared,
  screenShareFailed,
  screenShareEnded,
  roomScanOpened,
  roomScanStartAsked,
  roomScanStarted,
  roomScanStopped,
  roomScanCompleted,
  roomScanFailed,
} = widerViewSlice.actions;
export default widerViewSlice.reducer;
