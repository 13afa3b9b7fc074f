import type { AppThunk, RootState } from '../../app/store';
import { navigateTo } from '../../app/navigation';
import { isApiError, NETWORK_ERROR_STATUS } from '../../api/api-error';
import * as testerApi from '../../api/tester';
import type { TesterDetail } from '../../api/tester';
import { acquireLocalMedia } from '../../media/devices';
import { getMessages, postMessage } from '../../api/messages';
import { MESSAGE_COMMANDS, parseCommand } from '@contract/constants/messages';
import { unlockSound } from '../../platform/attention';
import { checkPopupAllowed } from '../../platform/popup-check';
import { logoutRequested } from '../session/session-thunks';
import { loggedOut } from '../session/session-slice';
import { headerLogoutDisabledChanged } from '../layout/layout-slice';
import { confirm, showAlert } from '../layout/layout-thunks';
import { liveStartRequested, liveStopRequested, networkErrorOccurred, selectLive } from '../live/live-slice';
import {
  chatRead,
  chatReceived,
  devicesChecked,
  envNextFailed,
  envNextStarted,
  envNextSucceeded,
  envTermLoadStarted,
  envTermLoaded,
  examErrorOccurred,
  examPhaseChanged,
  examTermAgreementChanged,
  examWindowAttachedChanged,
  recordingDeadlineKnown,
  recordingDeadlineOf,
  sittingClosing,
  examiningTermLoadStarted,
  examiningTermLoaded,
  loggedInToTestSystem,
  messagePollStarted,
  messagePollStopped,
  popupChecked,
  stepReached,
  summaryLoadFailed,
  summaryLoadStarted,
  summaryLoaded,
  testerDetailLoaded,
  testerExited,
  testerStateChanged,
  type ExitMode,
  type ExitState,
  envResumeChecking,
  envResumeChecked,
  selectTester,
} from './tester-slice';
import {
  closeExamWindow,
  examWindowOpen,
  openExamWindow,
  startUnloadWarning,
  stopUnloadWarning,
} from './exam-window';
import { keepScreenAwake } from '../../platform/wake-lock';
import { notifyDesktopApp } from './desktop-app-bridge';
import type { DesktopAppEndReason } from '../../platform/desktop-app';
import { formatStamp } from '../../lib/dates';
import { printDocument, reportFileName } from '../../platform/print';
import { TESTER_STATUS } from '@contract/constants/tester';
import { href } from '@/config/paths';
import type { TranslationKey } from '../../lib/translation-key';

const isNetwork = (e: unknown) => isApiError(e) && e.status === NETWORK_ERROR_STATUS;

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
  if (testerId === null || s.session.status !== 'loggedIn') return false;
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
function flag(
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

/** Asks for the camera and microphone (spec §2 camera check, microphone check). */
export const checkDevices = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  const r = await acquireLocalMedia();
  dispatch(
    devicesChecked({
      camera: r.camera.ok ? null : r.camera.code,
      microphone: r.microphone.ok ? null : r.microphone.code,
    }),
  );
  const t = selectTester(getState());
  if (t.camera === 2 && t.microphone === 2 && t.stepBar === 1) dispatch(stepReached(2));
};

/** The popup-block check of /env-setting (platform/popup-check.ts). */
export const checkPopup = (): AppThunk<Promise<void>> => async (dispatch) => {
  dispatch(popupChecked(checkPopupAllowed()));
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

/**
 * /env-setting opened: who am I — and, for a sitting already under way, straight back to where it was — then
 * the terms, the device and popup checks.
 */
export const envSettingEntered = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  dispatch(stepReached(1));
  dispatch(envResumeChecking());
  const { termTemplateId, envSettingTerm, lang } = getState().startup.params;
  dispatch(envTermLoadStarted());
  const templateId =
    envSettingTerm !== null && envSettingTerm !== -1 ? envSettingTerm : (termTemplateId ?? -1);
  const term = testerApi
    .getEnvSettingTerm(templateId, lang || 'ja')
    .then((body) => dispatch(envTermLoaded({ body, failed: false })))
    .catch(() => dispatch(envTermLoaded({ body: '', failed: true })));
  const detail = await dispatch(loadTesterDetail()).catch(() => undefined);
  const resume = detail ? resumePath(detail, getState()) : null;
  if (resume) {
    navigateTo(resume, { replace: true });
    return;
  }
  dispatch(envResumeChecked());
  await dispatch(checkDevices());
  await dispatch(checkPopup());
  await term;
};

/**
 * Next on /env-setting: confirms the session, starts transmission (spec §1: the live channel) and goes to
 * the identity check chosen by the sitting (monitor, AI, or none → the exam page). A network error asks
 * the examinee to press Next again (spec §8).
 */
export const envNextPressed = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  dispatch(envNextStarted());
  let detail: TesterDetail;
  try {
    detail = await dispatch(loadTesterDetail());
  } catch (e) {
    dispatch(envNextFailed(isNetwork(e) ? 'networkError' : 'failed'));
    return;
  }
  const state = getState();
  dispatch(
    liveStartRequested({
      testerId: selectTester(state).testerId ?? detail.testerId,
      matchingTimeout: state.startup.params.matchingTimeout,
    }),
  );
  dispatch(envNextSucceeded());
  const isAuth = flag(detail, state, 'is_auth', 'isAuth');
  const isAiAuth = flag(detail, state, 'is_ai_auth', 'isAiAuth');
  if (detail.status >= TESTER_STATUS.identificated || isAuth === 0) navigateTo(href('examining'));
  else if (isAiAuth === 1) navigateTo(href('identificationAi'));
  else navigateTo(href('identification'));
};

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

/** /examining opened (PRE00004). */
export const examiningEntered = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  dispatch(stepReached(4));
  const { termTemplateId, lang } = getState().startup.params;
  dispatch(examiningTermLoadStarted());
  const term = testerApi
    .getExaminingTerm(termTemplateId ?? -1, lang || 'ja')
    .then((body) => dispatch(examiningTermLoaded({ body, failed: false })))
    .catch(() => dispatch(examiningTermLoaded({ body: '', failed: true })));
  let detail: TesterDetail;
  try {
    detail = await dispatch(loadTesterDetail());
  } catch (e) {
    dispatch(examErrorOccurred(isNetwork(e) ? 'examining:errors.network' : 'examining:errors.detail'));
    await term;
    return;
  }
  if (detail.kicked === 1) {
    dispatch(testerExited({ exit: 'kickedOut', messageKey: 'tester:kick.removed' }));
    await term;
    return;
  }
  if (detail.status === TESTER_STATUS.finishExam) {
    navigateTo(href('examEnd'), { replace: true });
    return;
  }
  dispatch(recordingDeadlineFrom(detail));
  await dispatch(ensureLive());
  startWakeLock();
  if (detail.status === TESTER_STATUS.identificated || detail.status < TESTER_STATUS.identificated) {
    try {
      const r = await testerApi.postTesterStatus(TESTER_STATUS.beforeExam);
      dispatch(testerStateChanged(r.status));
    } catch {
      // The state stays; opening the exam system retries the transition.
    }
  } else if (detail.status === TESTER_STATUS.examing || detail.status === TESTER_STATUS.interruptionExam) {
    // Back to a running exam (a reload, a crash, a new login): the notes were agreed to before it started.
    dispatch(examTermAgreementChanged(true));
    dispatch(loggedInToTestSystem());
    dispatch(examPhaseChanged(detail.status === TESTER_STATUS.examing ? 'examing' : 'interrupted'));
    startUnloadWarning();
  }
  await term;
};

/**
 * "Log in to the exam system": get_mc_token (mode 2 for an MC+ start-up, is_mc_startup 1; else mode 1),
 * opens window_open_url in the exam window, then the exam starts (tester state 5, process start 0) or
 * resumes after an interruption (process restart 1).
 */
export const examSystemLoginRequested = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  const s = getState();
  if (!selectTester(s).examTermAgreed) return;
  // A click: from now on a monitor's message can be heard while the exam window covers this one.
  unlockSound();
  dispatch(examErrorOccurred(null));
  dispatch(examPhaseChanged('opening'));
  const resuming = selectTester(s).testerState === TESTER_STATUS.interruptionExam;
  // The exam is running but this page lost its window (a reload, a crash, a new login): log in again.
  const relogin = selectTester(s).testerState === TESTER_STATUS.examing;
  const mode: 1 | 2 = s.startup.params.isMcStartup === 1 ? 2 : 1;
  try {
    // The server gives the exam-system link only to a sitting ready for the exam (state 4 or later).
    if (selectTester(getState()).testerState < TESTER_STATUS.beforeExam) {
      const r = await testerApi.postTesterStatus(TESTER_STATUS.beforeExam);
      dispatch(testerStateChanged(r.status));
    }
    const token = await testerApi.getMcToken(mode);
    if (!openExamWindow(token.windowOpenUrl)) {
      dispatch(examErrorOccurred('examining:errors.popupBlocked'));
      dispatch(examPhaseChanged(resuming ? 'interrupted' : relogin ? 'examing' : 'ready'));
      return;
    }
    dispatch(loggedInToTestSystem());
    dispatch(examWindowAttachedChanged(true));
    const r = await testerApi.postTesterStatus(TESTER_STATUS.examing);
    dispatch(testerStateChanged(r.status));
    const p = s.startup.params;
    // spec §3 exam process: start 0, restart 1, relogin 4.
    const process = resuming ? 1 : relogin ? 4 : 0;
    const body = { process, loginId: p.loginId, termSetCode: p.termSetCode, eai: p.eai };
    await testerApi.postExamProcess('test', body);
    await testerApi.postExamProcess('exam', body);
    dispatch(examPhaseChanged('examing'));
    startUnloadWarning();
  } catch (e) {
    dispatch(examErrorOccurred(isNetwork(e) ? 'examining:errors.network' : 'examining:errors.examSystem'));
    dispatch(
      examPhaseChanged(
        resuming ? 'interrupted' : selectTester(getState()).loggedInToTestSystem ? 'examing' : 'ready',
      ),
    );
  }
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

/**
 * "Finish the exam" (after a confirmation): tester state 7, process stop 2, transmission stopped, then
 * /exam-end.
 */
export const examFinishRequested = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  const ok = await dispatch(confirm({ messageKey: 'examining:finish.confirm' }));
  if (!ok) return;
  dispatch(examPhaseChanged('finishing'));
  const loginId = getState().startup.params.loginId;
  // Transmission stops as planned: the checker is told while the sitting is still open.
  await dispatch(announceBeforeClose());
  try {
    await testerApi.postExamProcess('exam', { process: 2, loginId });
    await testerApi.postExamProcess('test', { process: 2, loginId });
    const r = await testerApi.postTesterStatus(TESTER_STATUS.finishExam);
    dispatch(testerStateChanged(r.status));
  } catch (e) {
    dispatch(examErrorOccurred(isNetwork(e) ? 'examining:errors.network' : 'examining:errors.finish'));
    dispatch(examPhaseChanged('examing'));
    return;
  }
  dispatch(examPhaseChanged('finished'));
  notifyDesktopApp({ type: 'sittingEnded', loginId: loginIdOf(getState()), reason: 'finished' });
  stopUnloadWarning();
  closeExamWindow();
  stopWakeLock();
  dispatch(messagePollStopped());
  dispatch(liveStopRequested());
  navigateTo(href('examEnd'));
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

/** The examinee's login id (the session's, else the start-up's). */
function loginIdOf(state: RootState): string {
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
        dispatch(loggedOut(after ? { reasonKey: after.messageKey } : undefined));
      } else if (mode === 'logout') {
        await dispatch(logoutRequested());
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

/** Recording time exceeded (maxRectime): logged out with a message (spec §4, §8). */
export const recordingTimeExceeded = (): AppThunk<Promise<void>> => async (dispatch) => {
  void dispatch(showAlert({ type: 'caution', messageKey: 'tester:errors.recordingTimeExceeded' }));
  await dispatch(
    exitRequested('logout', { exit: 'loggedOut', messageKey: 'tester:errors.recordingTimeExceeded' }),
  );
};

/** /exam-end opened: the monitoring-info summary from tester/detail. */
export const examEndEntered = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  dispatch(summaryLoadStarted());
  try {
    const d = await dispatch(loadTesterDetail());
    // /exam-end is for a finished exam only: a sitting still under way goes back to where it is (an address typed
    // or a bookmark must not end proctoring).
    if (d.status < TESTER_STATUS.finishExam) {
      navigateTo(resumePath(d, getState()) ?? href('envSetting'), { replace: true });
      return;
    }
    dispatch(
      summaryLoaded({
        markings: d.markings.map((m) => ({
          markingAt: m.markingAt,
          label: m.label,
          message: m.message,
          score: m.score,
        })),
        markingTotalScore: d.markingTotalScore,
        records: d.records.map((r) => ({ id: r.id, startAt: r.startAt, stopAt: r.stopAt })),
        report: d,
      }),
    );
  } catch {
    dispatch(summaryLoadFailed());
  }
  dispatch(messagePollStopped());
  if (examWindowOpen()) closeExamWindow();
};

/**
 * The monitoring-info "download" of /exam-end (spec §2): the examinee's own report (what was flagged, when,
 * with the recordings), printed by the browser, where "Save as PDF" makes the file.
 */
export const summaryPrintRequested = (): AppThunk<Promise<void>> => async (_dispatch, getState) => {
  const s = getState();
  const loginId = selectTester(s).summaryReport?.loginId ?? s.session.login?.loginId ?? '';
  printDocument(reportFileName(loginId, formatStamp(Date.now())));
};
