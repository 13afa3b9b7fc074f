import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { loggedOut } from '../session/session-slice';
import type { TranslationKey } from '../../lib/translation-key';

/**
 * The examinee's wider view (README "The wider view"): the entire screen shared before and during the exam,
 * and guided room scans (before the exam, and whenever the checker asks). Media objects stay in media/; this
 * holds what the pages show.
 */

/**
 * The screen share: `idle` (not asked yet), `asking` (the browser's picker is open), `shared`, `ended` (it was
 * shared and stopped: the exam is held until it is shared again).
 */
export type ScreenShareStatus = 'idle' | 'asking' | 'shared' | 'ended';

/**
 * A room scan: `idle`, `instructions` (the dialog shows what to do; the examinee starts it), `starting`,
 * `scanning` (recording, the countdown runs), `finishing` (the scan is being completed).
 */
export type RoomScanPhase = 'idle' | 'instructions' | 'starting' | 'scanning' | 'finishing';

export interface WiderViewSliceState {
  /** The server's answer about the sitting arrived (GET tester/wider_view). */
  loaded: boolean;
  /** The sitting's start-up flags. */
  required: { screen: boolean; roomScan: boolean; phone: boolean };
  screen: {
    status: ScreenShareStatus;
    /** i18n key of why the last attempt failed (a window instead of the screen, a refusal, …), or null. */
    errorKey: TranslationKey | null;
  };
  roomScan: {
    phase: RoomScanPhase;
    /** The scan under way (or asked for), from the server. */
    scanId: number | null;
    /** The checker asked for it (during the exam); false for the scan before the exam. */
    requestedByChecker: boolean;
    /** Completed scans of the sitting. */
    done: number;
    /** When the scan started (epoch ms): the countdown counts from it. */
    startedAt: number | null;
    errorKey: TranslationKey | null;
  };
}

export const initialWiderViewState: WiderViewSliceState = {
  loaded: false,
  required: { screen: false, roomScan: false, phone: false },
  screen: { status: 'idle', errorKey: null },
  roomScan: {
    phase: 'idle',
    scanId: null,
    requestedByChecker: false,
    done: 0,
    startedAt: null,
    errorKey: null,
  },
};

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

type WithWiderView = { widerView?: WiderViewSliceState };
const of = (s: WithWiderView) => s.widerView ?? initialWiderViewState;

export const selectWiderView = (s: WithWiderView) => of(s);

/**
 * What the exam waits for (get_mc_token refuses it too): the entire screen shared (is_screen_record) and a room
 * scan done before the exam (is_room_scan), and no room scan under way. `null` when nothing is missing.
 */
export function selectExamBlocker(s: WithWiderView): 'screen' | 'roomScan' | 'scanning' | null {
  const w = of(s);
  if (w.required.screen && w.screen.status !== 'shared') return 'screen';
  if (w.required.roomScan && w.roomScan.done === 0) return 'roomScan';
  if (w.roomScan.phase !== 'idle') return 'scanning';
  return null;
}

/** Whether the room scan dialog shows: from the instructions until the scan is completed. */
export const selectRoomScanOpen = (s: WithWiderView): boolean => of(s).roomScan.phase !== 'idle';

/** Exam phases in which a share that ended holds the exam. */
const HELD_PHASES = new Set(['examing', 'interrupted', 'opening']);

/**
 * Whether the exam is held by a screen share that ended (the blocking dialog shows): the sitting requires the
 * screen, it was shared and is not now, and the exam is under way (`examPhase`, the tester slice's).
 */
export function selectScreenShareHeld(s: WithWiderView, examPhase: string): boolean {
  const w = of(s);
  return (
    w.required.screen &&
    w.screen.status !== 'shared' &&
    w.screen.status !== 'idle' &&
    HELD_PHASES.has(examPhase)
  );
}
