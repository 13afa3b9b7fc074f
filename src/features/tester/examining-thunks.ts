/**
 * /examining's opening (spec §2, §4): where the sitting stands, the live channel, the recording-time limit.
 * Logging in to the exam system and finishing the exam are exam-thunks.ts (with the exam's machinery). Only
 * /examining loads them; what a tester page does wherever it is (exits, kick-out, interruptions) stays in
 * tester-thunks.ts.
 */
import type { AppThunk } from '../../app/store';
import { navigateTo } from '../../app/navigation';
import type { TesterDetail } from '../../api/tester';
import * as testerApi from '../../api/tester';
import {
  examErrorOccurred,
  examPhaseChanged,
  examTermAgreementChanged,
  examiningOpened,
  examiningTermLoadStarted,
  examiningTermLoaded,
  loggedInToTestSystem,
  stepReached,
  testerExited,
  testerStateChanged,
} from './tester-slice';
import { startUnloadWarning } from './exam-window';
import {
  ensureLive,
  isNetwork,
  loadTesterDetail,
  recordingDeadlineFrom,
  startWakeLock,
} from './tester-thunks';
import { TESTER_STATUS } from '@contract/constants/tester';
import { href } from '@/config/paths';

/**
 * /examining opened (PRE00004), or its retry after a failed opening: where the sitting stands, then the page
 * shows it (`examiningOpened`); nothing of the exam is shown or can be pressed before.
 */
export const examiningEntered = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  dispatch(stepReached(4));
  dispatch(examErrorOccurred(null));
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
    dispatch(examiningOpened());
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
  dispatch(examiningOpened());
  await term;
};
