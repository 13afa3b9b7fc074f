import type { AppThunk, RootState } from '../../app/store';
import { navigateTo } from '../../app/navigation';
import { isApiError, NETWORK_ERROR_STATUS } from '../../api/api-error';
import * as testerApi from '../../api/tester';
import { logoutOnUnload } from '../../api/auth';
import type { TesterDetail } from '../../api/tester';
import { getMessages, postMessage } from '../../api/messages';
import { MESSAGE_COMMANDS, parseCommand } from '@contract/constants/messages';
import { logoutRequested } from '../session/session-thunks';
import { loggedOut, logoutStarted } from '../session/session-slice';
import { headerLogoutDisabledChanged } from '../layout/layout-slice';
import { showAlert } from '../layout/layout-thunks';
import { liveStartRequested, liveStopRequested, networkErrorOccurred, selectLive } from '../live/live-slice';
import {
  chatRead,
  chatReceived,
  examPhaseChanged,
  recordingDeadlineKnown,
  recordingDeadlineOf,
  sittingClosing,
  messagePollStarted,
  messagePollStopped,
  testerDetailLoaded,
  testerExited,
  testerStateChanged,
  type ExitMode,
  type ExitState,
  selectTester,
} from './tester-slice';
import { closeExamWindow, stopUnloadWarning } from './exam-window';
import { keepScreenAwake } from '../../platform/wake-lock';
import { notifyDesktopApp } from './desktop-app-bridge';
import type { DesktopAppEndReason } from '../../platform/desktop-app';
import { TESTER_STATUS } from '@contract/constants/tester';
import { href } from '@/config/paths';
import type { TranslationKey } from '../../lib/translation-key';

export const isNetwork = (e: unknown) => isApiError(e) && e.status === NETWORK_ERROR_STATUS;

let releaseWakeLock: (() => void) | null = null;

/** Spec §4: keep the screen awake while on the exam page. */
export function startWakeLock(): void {
  releaseWakeLock ??= keepScreenAwake();
}
export function stopWakeLock(): void {
  releaseWakeLock?.();
  releaseWakeLock = null;
}

function num(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string') {
    const t = v.trim().toLowerCase();
    if (/^-?\d+$/.test(t)) return Number(t);
    if (t === 'true') return 1;
    if (t === 'false') return 0;
  }
  return null;
}

/** Spec §4 "before close": how long a planned close waits for the checker's BEFORE_CLOSE_OK. */
export const BEFORE_CLOSE_WAIT_MS = 2000;
/** How often the answer is looked for while waiting. */
export const BEFORE_CLOSE_POLL_MS = 250;

/**
 * Tells the checker that the coming disconnect is planned (spec §3 marker BEFORE_CLOSE: the checker
 * console then deletes the matching only after a delay) and waits at most {@link BEFORE_CLOSE_WAIT_MS}
 * for BEFORE_CLOSE_OK. Never throws: the close goes on without an answer.
 */
export const announceBeforeClose = (): AppThunk<Promise<boolean>> => async (_dispatch, getState) => {
  const s = getState();
  const testerId = selectTester(s).testerId;
  if (testerId === null || s.session.login === null) return false;
  const messageType: 1 | 3 = selectTester(s).testerState >= TESTER_STATUS.identificated ? 3 : 1;
  const deadline = Date.now() + BEFORE_CLOSE_WAIT_MS;
  const left = () => deadline - Date.now();
  const within = <T>(p: Promise<T>) =>
    Promise.race([p, new Promise<null>((r) => setTimeout(() => r(null), Math.max(0, left())))]);
  try {
    const posted = await within(
      postMessage({ testerId, messageType, message: MESSAGE_COMMANDS.beforeClose, kind: 'command' }),
    );
    const since = posted?.id ?? selectTester(s).lastMessageId;
    while (left() > 0) {
      const msgs = await within(getMessages(testerId, since));
      const answered = (msgs ?? []).some(
        (m) => m.kind === 'command' && parseCommand(m.message).command === MESSAGE_COMMANDS.beforeCloseOk,
      );
      if (answered) return true;
      if (left() <= 0) break;
      await new Promise((r) => setTimeout(r, Math.min(BEFORE_CLOSE_POLL_MS, Math.max(0, left()))));
    }
  } catch {
    // A failed announcement does not hold the close up.
  }
  return false;
};

/**
 * Sends a chat text to the monitor (webrtc_message type 1 during the identity check, 3 during the exam);
 * returns whether it was stored. Sending counts as having read the chat.
 */
export const chatSent =
  (text: string, messageType: 1 | 3): AppThunk<Promise<boolean>> =>
  async (dispatch, getState) => {
    const testerId = selectTester(getState()).testerId;
    const message = text.trim();
    if (testerId === null || !message) return false;
    try {
      const m = await postMessage({ testerId, messageType, message });
      if (m)
        dispatch(
          chatReceived([{ id: m.id, sendType: m.sendType, message: m.message, createdAt: m.createdAt }]),
        );
      dispatch(chatRead(selectTester(getState()).chatItems[0]?.id ?? 0));
      return true;
    } catch (e) {
      if (isNetwork(e)) dispatch(networkErrorOccurred());
      void dispatch(
        showAlert({
          type: 'error',
          messageKey: isNetwork(e) ? 'tester:chat.errors.network' : 'tester:chat.errors.send',
        }),
      );
      return false;
    }
  };

/** A start-up flag of the sitting (server copy first, then the client's start-up parameters). */
export function flag(
  detail: TesterDetail | null,
  state: RootState,
  snake: string,
  camel: keyof RootState['startup']['params'],
): number | null {
  const server = detail ? num(detail.startupParameters[snake]) : null;
  if (server !== null) return server;
  return num(state.startup.params[camel]);
}

/**
 * The recording-time limit of spec §4 from a tester/detail answer: the sitting's maximum recording time (the
 * server's copy of max_rectime first) counted from its first recording start, so a reload or a new login does not
 * reset it.
 */
export const recordingDeadlineFrom =
  (detail: TesterDetail): AppThunk<void> =>
  (dispatch, getState) => {
    const max = flag(detail, getState(), 'max_rectime', 'maxRectime');
    dispatch(
      recordingDeadlineKnown(
        recordingDeadlineOf(detail.recordingStartedAt, detail.serverTime, max, Date.now()),
      ),
    );
  };

/** Loads tester/detail and stores who the examinee is; returns the detail. */
export const loadTesterDetail = (): AppThunk<Promise<TesterDetail>> => async (dispatch) => {
  const d = await testerApi.getTesterDetail();
  dispatch(
    testerDetailLoaded({
      testerId: d.testerId || d.userId,
      status: d.status,
      rejected: d.rejected === 1,
      kicked: d.kicked === 1,
    }),
  );
  return d;
};

/**
 * Where a sitting that is already under way continues (a new tab, a crashed browser, a reload, a JT start-up
 * again): past the identity check → the exam page; matched and waiting for the identity check → the check the
 * sitting uses; otherwise null (the examinee starts at /env-setting). A kicked or finished sitting has its own
 * pages (the exam page says the examinee was removed; a finished one opens a new sitting at login).
 */
export function resumePath(detail: TesterDetail, state: RootState): string | null {
  if (detail.status >= TESTER_STATUS.finishExam || detail.status < TESTER_STATUS.matched) return null;
  if (detail.kicked === 1 || detail.status >= TESTER_STATUS.identificated) return href('examining');
  if (flag(detail, state, 'is_auth', 'isAuth') === 0) return href('examining');
  return flag(detail, state, 'is_ai_auth', 'isAiAuth') === 1
    ? href('identificationAi')
    : href('identification');
}

/** A tester page after env-setting: make sure transmission and the message poll run (also after reload). */
export const ensureLive = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  const s = getState();
  const testerId = selectTester(s).testerId;
  if (testerId === null || selectTester(s).exit !== 'none') return;
  if (!selectLive(s).polling) {
    dispatch(liveStartRequested({ testerId, matchingTimeout: s.startup.params.matchingTimeout }));
  }
  dispatch(messagePollStarted());
};

/** The exam window was closed before the exam ended: interruption (tester state 6, process suspend 3). */
export const examInterrupted = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  if (selectTester(getState()).examPhase !== 'examing') return;
  dispatch(examPhaseChanged('interrupted'));
  try {
    const r = await testerApi.postTesterStatus(TESTER_STATUS.interruptionExam);
    dispatch(testerStateChanged(r.status));
    await testerApi.postExamProcess('exam', { process: 3, loginId: getState().startup.params.loginId });
  } catch {
    // The page still shows the interruption; finishing or resuming corrects the server state.
  }
};

/** Recording phases in which the recorder or its uploads still work. */
const RECORDING_BUSY = ['starting', 'recording', 'uploading', 'waiting-network'];
/** How long a planned exit waits for the recording to be sent before it leaves anyway. */
export const EXIT_RECORDING_WAIT_MS = 60_000;
const EXIT_RECORDING_POLL_MS = 200;

function recordingPhase(state: RootState): string | null {
  return state.recording?.phase ?? null;
}

/**
 * A planned close stops the recording and sends what it recorded while the session still exists (the server
 * completes it from what arrived otherwise): waits at most EXIT_RECORDING_WAIT_MS, with the upload alert shown.
 */
const finishRecordingBeforeExit = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  dispatch(sittingClosing());
  const deadline = Date.now() + EXIT_RECORDING_WAIT_MS;
  while (RECORDING_BUSY.includes(recordingPhase(getState()) ?? '') && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, EXIT_RECORDING_POLL_MS));
  }
};

let exiting = false;

/**
 * What ends the session if the page goes away while an exit runs its first steps (the checker is told and the
 * recording sent first, which takes about 2 s): the same request, sent with keepalive as the page goes, so
 * that leaving or pressing Back at once on a shared computer does not leave the session alive. Nothing for an
 * exit that keeps the session.
 */
function endSessionOnLeave(mode: ExitMode): (() => void) | null {
  if (mode === 'logout') return logoutOnUnload;
  if (mode === 'kickOutMyself') return () => testerApi.kickOutOnUnload('PUT_MYSELF');
  if (mode === 'kickOutMyselfAi') return () => testerApi.kickOutOnUnload('PUT_MYSELF_AI');
  return null;
}

/** The examinee's login id (the session's, else the start-up's). */
export function loginIdOf(state: RootState): string {
  return state.session.login?.loginId ?? state.startup.params.loginId;
}

/** How an exit is told to the desktop application. */
function endReasonOf(mode: ExitMode, after?: { messageKey: TranslationKey }): DesktopAppEndReason {
  if (mode === 'kickOutMyselfAi') return 'aiForcedLogout';
  if (after?.messageKey === 'tester:errors.recordingTimeExceeded') return 'recordingTimeExceeded';
  if (mode === 'logout' || mode === 'kickOutMyself') return 'logout';
  return 'sessionEnded';
}

/** How long the page may keep a closing desktop application waiting. */
export const DESKTOP_CLOSING_WAIT_MS = 10_000;

/**
 * The desktop application announced it closes: tell the checker the disconnect is planned, mark a running exam
 * interrupted (it can be resumed), stop the recording and send what fits in the time the application gives
 * (the rest stays on the device for the next page), then let the application close.
 */
export const desktopAppClosing = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  await dispatch(announceBeforeClose());
  if (selectTester(getState()).examPhase === 'examing') await dispatch(examInterrupted());
  dispatch(sittingClosing());
  const deadline = Date.now() + DESKTOP_CLOSING_WAIT_MS;
  while (RECORDING_BUSY.includes(recordingPhase(getState()) ?? '') && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, EXIT_RECORDING_POLL_MS));
  }
  notifyDesktopApp({ type: 'closingReady' });
};

/**
 * Leaves the tester pages in the order of spec §4 (after announcing BEFORE_CLOSE to the checker and sending the
 * recording, while the session still exists): end the session per the mode (nothing; kick-out PUT_MYSELF /
 * PUT_MYSELF_AI; or logout), stop the unload warning, run the pre-close handlers (stop transmission and polls,
 * close the exam window, release the wake lock), then navigate: a JT start-up window goes to /close, otherwise
 * the original start-up URL is loaded again. The header's logout stays disabled meanwhile; a second request
 * while one runs is ignored.
 */
export const exitRequested =
  (mode: ExitMode, after?: { exit: ExitState; messageKey: TranslationKey }): AppThunk<Promise<void>> =>
  async (dispatch, getState) => {
    if (exiting) return;
    exiting = true;
    dispatch(headerLogoutDisabledChanged(true));
    const onLeave = endSessionOnLeave(mode);
    if (onLeave) {
      window.addEventListener('pagehide', onLeave);
      // The session ends whatever happens now: it is no longer stored for a later page, and the live channel
      // sends no DISCONNECT as the page goes (it would reach the server first and tell the checker "closed,
      // maybe reloading" instead of what the examinee did).
      dispatch(logoutStarted());
    }
    const sessionEnded = () => {
      if (onLeave) window.removeEventListener('pagehide', onLeave);
    };
    try {
      const s = getState();
      const isJt = s.startup.params.loginId !== '';
      const raw = s.startup.params.rawStartupUrl;
      // A planned close: tell the checker first and send the recording (both need the session).
      await dispatch(announceBeforeClose());
      await dispatch(finishRecordingBeforeExit());
      notifyDesktopApp({ type: 'sittingEnded', loginId: loginIdOf(s), reason: endReasonOf(mode, after) });
      if (mode === 'kickOutMyself' || mode === 'kickOutMyselfAi') {
        try {
          await testerApi.kickOut(mode === 'kickOutMyself' ? 'PUT_MYSELF' : 'PUT_MYSELF_AI');
        } catch {
          // The session ends locally either way.
        }
        sessionEnded();
        dispatch(loggedOut(after ? { reasonKey: after.messageKey } : undefined));
      } else if (mode === 'logout') {
        await dispatch(logoutRequested());
        sessionEnded();
      }
      stopUnloadWarning();
      dispatch(messagePollStopped());
      dispatch(liveStopRequested());
      closeExamWindow();
      stopWakeLock();
      if (after) dispatch(testerExited(after));
      if (isJt) navigateTo(href('close'), { replace: true });
      else if (raw) window.location.assign(raw);
      else navigateTo(href('login'), { replace: true });
    } finally {
      sessionEnded();
      exiting = false;
      dispatch(headerLogoutDisabledChanged(false));
    }
  };

/**
 * KICK_OUT arrived (spec §4): stop matching, the forced close alert (JT start-up) or forced logout alert,
 * window cleanup; the page then says the examinee was forcibly removed. The recording stops and sends what it
 * holds (the session is still valid for that); the server completes it with what it has in any case.
 */
export const kickedOut = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  if (selectTester(getState()).exit === 'kickedOut') return;
  dispatch(testerExited({ exit: 'kickedOut', messageKey: 'tester:kick.removed' }));
  dispatch(examPhaseChanged('ended'));
  notifyDesktopApp({ type: 'kickedOut', loginId: loginIdOf(getState()) });
  dispatch(sittingClosing());
  dispatch(messagePollStopped());
  dispatch(liveStopRequested());
  stopUnloadWarning();
  closeExamWindow();
  stopWakeLock();
  const isJt = getState().startup.params.loginId !== '';
  await dispatch(
    showAlert({
      type: 'error',
      messageKey: isJt ? 'tester:kick.forcedClose' : 'tester:kick.forcedLogout',
    }),
  );
};
