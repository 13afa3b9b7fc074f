/**
 * /examining's exam actions (spec §2, §4): logging in to the exam system, finishing the exam, and the
 * recording-time limit. They load with the exam's machinery (exam-listeners.ts imports them), which the page
 * registers before it opens the sitting, so the page's buttons find them loaded; not before the first render.
 */
import type { AppThunk } from '../../app/store';
import { navigateTo } from '../../app/navigation';
import * as testerApi from '../../api/tester';
import { unlockSound } from '../../platform/attention';
import { confirm, showAlert } from '../layout/layout-thunks';
import { liveStopRequested } from '../live/live-slice';
import {
  examErrorOccurred,
  examPhaseChanged,
  examWindowAttachedChanged,
  loggedInToTestSystem,
  messagePollStopped,
  selectTester,
  testerStateChanged,
} from './tester-slice';
import { closeExamWindow, openExamWindow, startUnloadWarning, stopUnloadWarning } from './exam-window';
import { notifyDesktopApp } from './desktop-app-bridge';
import { announceBeforeClose, exitRequested, isNetwork, loginIdOf, stopWakeLock } from './tester-thunks';
import { TESTER_STATUS } from '@contract/constants/tester';
import { href } from '@/config/paths';

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

/** Recording time exceeded (maxRectime): logged out with a message (spec §4, §8). */
export const recordingTimeExceeded = (): AppThunk<Promise<void>> => async (dispatch) => {
  void dispatch(showAlert({ type: 'caution', messageKey: 'tester:errors.recordingTimeExceeded' }));
  await dispatch(
    exitRequested('logout', { exit: 'loggedOut', messageKey: 'tester:errors.recordingTimeExceeded' }),
  );
};
