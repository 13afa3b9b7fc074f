import type { TranslationKey } from '../../lib/translation-key';

/**
 * The wider view's state and selectors, apart from its slice: the exam page reads them from its first render,
 * before the slice (and the rest of the wider view) is registered with the exam's machinery; until then the
 * state is the initial one (nothing asked of the examinee yet).
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

export type WithWiderView = { widerView?: WiderViewSliceState };
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
