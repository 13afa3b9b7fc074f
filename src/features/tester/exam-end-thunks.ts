/**
 * /exam-end's own effects (spec §2): the monitoring-info summary and its printed report. Only /exam-end loads
 * them (with the date formatting and printing they need).
 */
import type { AppThunk } from '../../app/store';
import { navigateTo } from '../../app/navigation';
import { formatStamp } from '../../lib/dates';
import { printDocument, reportFileName } from '../../platform/print';
import {
  messagePollStopped,
  summaryLoadFailed,
  summaryLoadStarted,
  summaryLoaded,
  selectTester,
} from './tester-slice';
import { closeExamWindow, examWindowOpen } from './exam-window';
import { loadTesterDetail, resumePath } from './tester-thunks';
import { TESTER_STATUS } from '@contract/constants/tester';
import { href } from '@/config/paths';

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
