/**
 * The examinee's wider view (README "The wider view"): sharing the entire screen, watching the share end, and
 * the guided room scan (start, countdown, stop, complete). Recording the screen and the scan is the recording
 * feature's (it follows screenShared / screenShareEnded and roomScanStarted / roomScanStopped).
 */
import type { AppThunk } from '../../app/store';
import { isApiError, NETWORK_ERROR_STATUS } from '../../api/api-error';
import * as api from '../../api/wider-view';
import { logger } from '../../lib/logger';
import { ScreenShareError, onShareEnded, shareEntireScreen } from '../../media/screen-share';
import { SCREEN_STREAM_ID, getStream, registerStream, releaseStream } from '../../media/stream-registry';
import { selectStreamRecording } from '../recording/recording-slice';
import {
  roomScanCompleted,
  roomScanFailed,
  roomScanStartAsked,
  roomScanStarted,
  roomScanStopped,
  screenShareAsked,
  screenShareEnded,
  screenShareFailed,
  screenShared,
  selectWiderView,
  widerViewLoaded,
} from './wider-view-slice';
import type { TranslationKey } from '../../lib/translation-key';

const isNetwork = (e: unknown) => isApiError(e) && e.status === NETWORK_ERROR_STATUS;
/** Reports that failed on the network are sent again this many times, this far apart. */
const REPORT_ATTEMPTS = 5;
const REPORT_RETRY_MS = 2000;
const wait = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Calls `fn`, again after a network failure (the screen share's reports must reach the checker). */
async function withRetry<T>(fn: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fn();
    } catch (e) {
      if (!isNetwork(e) || attempt >= REPORT_ATTEMPTS) throw e;
      await wait(REPORT_RETRY_MS);
    }
  }
}

/** Stops watching the share that is registered now (a new share, the end of the exam). */
let unwatch: (() => void) | null = null;

/**
 * Reads where the sitting's wider view stands (the exam page opened, a reload, a new login). A screen that was
 * shared before this page is not shared in it: the server is told so, and the page asks again.
 */
export const widerViewRequested = (): AppThunk<Promise<void>> => async (dispatch) => {
  let state: api.WiderViewState;
  try {
    state = await api.getWiderViewState();
  } catch (e) {
    // An API without the wider view, or the network: nothing is asked of the examinee.
    logger.debug('widerView', 'state not loaded', e instanceof Error ? e.message : String(e));
    return;
  }
  const sharedHere =
    getStream(SCREEN_STREAM_ID)
      ?.getVideoTracks()
      .some((t) => t.readyState === 'live') ?? false;
  dispatch(
    widerViewLoaded({
      required: {
        screen: state.screen.required,
        roomScan: state.roomScan.required,
        phone: state.phone.required,
      },
      // 'ended' too: a page reloaded while the exam was held for a share that had ended holds it still.
      screenWasShared: state.screen.state !== null && !sharedHere,
      roomScan: {
        done: state.roomScan.done,
        current: state.roomScan.current
          ? { id: state.roomScan.current.id, requestedByChecker: state.roomScan.current.requestedByChecker }
          : null,
      },
    }),
  );
  if (state.screen.required && state.screen.state === 'shared' && !sharedHere) {
    // The exam, if it runs, is held until the screen is shared again (tester listeners).
    dispatch(screenShareEnded());
    // This page never held the share: the screen recording of the page before it is left for the server.
    await api.reportScreenShare('ended', undefined, true).catch(() => undefined);
  }
};

/** i18n key of a failed share. */
function shareErrorKey(e: unknown): TranslationKey {
  if (e instanceof ScreenShareError) return `widerView:screen.errors.${e.reason}`;
  return isNetwork(e) ? 'widerView:screen.errors.network' : 'widerView:screen.errors.failed';
}

/**
 * "Share the entire screen" (a click: the browser's picker needs it): the entire screen only, registered for
 * the live view and the recording, reported to the server (which tells the checker), and watched for its end.
 */
export const screenShareRequested = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  const wasShared = selectWiderView(getState()).screen.status === 'ended';
  dispatch(screenShareAsked());
  let stream: MediaStream;
  try {
    stream = await shareEntireScreen();
  } catch (e) {
    dispatch(screenShareFailed({ errorKey: shareErrorKey(e), wasShared }));
    return;
  }
  unwatch?.();
  registerStream(SCREEN_STREAM_ID, stream);
  unwatch = onShareEnded(stream, () => void dispatch(screenShareStopped()));
  try {
    await withRetry(() => api.reportScreenShare('shared', 'monitor'));
  } catch (e) {
    // The server does not know: it would not open the exam. Stop, so the examinee tries again.
    unwatch?.();
    unwatch = null;
    releaseStream(SCREEN_STREAM_ID);
    dispatch(screenShareFailed({ errorKey: shareErrorKey(e), wasShared }));
    return;
  }
  dispatch(screenShared());
};

/**
 * The share stopped (the browser's "stop sharing", the screen gone): the stream is released, the page holds the
 * exam (tester listeners), and the server is told (it logs it and tells the checker).
 */
export const screenShareStopped = (): AppThunk<Promise<void>> => async (dispatch) => {
  unwatch?.();
  unwatch = null;
  releaseStream(SCREEN_STREAM_ID);
  dispatch(screenShareEnded());
  await withRetry(() => api.reportScreenShare('ended')).catch((e: unknown) =>
    logger.error('widerView', 'the end of the screen share was not reported', String(e)),
  );
};

/** The exam is over (or the session): the share is no longer needed; nothing is reported. */
export function releaseScreenShare(): void {
  unwatch?.();
  unwatch = null;
  releaseStream(SCREEN_STREAM_ID);
}

/**
 * "Start the scan": the server opens it (the one the checker asked for, or a new one), recording starts. The
 * press has its own token, the same on retries: a scan an earlier page left under way (a reload during it) is
 * thereby closed as interrupted and a new one starts, instead of this page taking over the old one.
 */
export const roomScanStartRequested = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  if (selectWiderView(getState()).roomScan.phase !== 'instructions') return;
  dispatch(roomScanStartAsked());
  const attempt = crypto.randomUUID();
  try {
    const scan = await withRetry(() => api.startRoomScan(attempt));
    dispatch(roomScanStarted({ scanId: scan.id, at: Date.now() }));
  } catch (e) {
    dispatch(
      roomScanFailed({
        errorKey: isNetwork(e) ? 'widerView:roomScan.errors.network' : 'widerView:roomScan.errors.failed',
      }),
    );
  }
};

/**
 * The countdown ran out or the examinee pressed "stop": the scan's recording is completed (in the background)
 * and the scan reported done with it (the server logs it and tells the checker).
 */
export const roomScanStopRequested = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  const scan = selectWiderView(getState()).roomScan;
  if (!scan || (scan.phase !== 'scanning' && scan.phase !== 'finishing') || scan.scanId === null) return;
  dispatch(roomScanStopped());
  const recording = selectStreamRecording(getState(), 'room_scan');
  try {
    const done = await withRetry(() => api.completeRoomScan(scan.scanId!, recording?.recordId ?? null));
    dispatch(
      roomScanCompleted({
        done: selectWiderView(getState()).roomScan.done + (done.status === 'done' ? 1 : 0),
      }),
    );
  } catch (e) {
    dispatch(
      roomScanFailed({
        errorKey: isNetwork(e) ? 'widerView:roomScan.errors.network' : 'widerView:roomScan.errors.failed',
      }),
    );
  }
};
