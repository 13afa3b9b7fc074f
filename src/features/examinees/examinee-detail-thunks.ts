/**
 * The examinee detail and report pages' own effects: the sitting, its pass value and recordings, the printed
 * report, the pass/fail decision. The search page's are examinees-thunks.ts.
 */
import type { AppThunk } from '../../app/store';
import { getTestPass, setTestPass } from '../../api/examinees';
import { getExamineeDetail, getRecordUri } from '../../api/examinee-detail';
import { loadingFinished, loadingStarted } from '../layout/layout-slice';
import { confirm, showAlert } from '../layout/layout-thunks';
import {
  detailFailed,
  detailLoaded,
  detailRequested,
  passLoaded,
  passSaveFailed,
  passSaving,
  recordUrlLoaded,
  selectExaminees,
} from './examinees-slice';
import { failureOf } from './examinees-requests';
import { formatStamp } from '../../lib/dates';
import { printDocument, reportFileName } from '../../platform/print';

/**
 * Loads one examinee's sitting, its pass value (managers only: spec §6), and, unless `withRecordings` is
 * false (the printed report), a playback address per recording.
 */
export const detailOpened =
  (testId: number, opts: { withRecordings?: boolean } = {}): AppThunk<Promise<void>> =>
  async (dispatch, getState) => {
    dispatch(detailRequested(testId));
    dispatch(loadingStarted());
    try {
      const detail = await getExamineeDetail(testId);
      dispatch(detailLoaded(detail));
      const manager = (getState().session.login?.actor ?? 0) >= 3;
      const [pass] = await Promise.allSettled(manager ? [getTestPass(testId)] : []);
      dispatch(passLoaded(pass?.status === 'fulfilled' ? pass.value : null));
      if (opts.withRecordings === false) return;
      await Promise.all(
        detail.records.map(async (r) => {
          // A recording with nothing stored has nothing to play: no address to ask for.
          if (r.size === 0) {
            dispatch(recordUrlLoaded({ recordId: r.id, url: null }));
            return;
          }
          try {
            dispatch(recordUrlLoaded({ recordId: r.id, url: (await getRecordUri(r.id)).url }));
          } catch {
            dispatch(recordUrlLoaded({ recordId: r.id, url: null }));
          }
        }),
      );
    } catch (e) {
      dispatch(detailFailed(failureOf(e, 'examinees:detail.loadFailed')));
    } finally {
      dispatch(loadingFinished());
    }
  };

/**
 * Prints the report page (the browser's print dialog: A4, or "save as PDF"), named like the CSV files:
 * `examinee_report_{login id}_{yyyyMMddHHmmss}` in the deployment's zone (spec §9 id format).
 */
export const reportPrintRequested = (): AppThunk<Promise<void>> => async (_dispatch, getState) => {
  const loginId = selectExaminees(getState()).detail.data?.loginId ?? '';
  printDocument(reportFileName(loginId, formatStamp(Date.now())));
};

/** Sets pass or fail after a confirmation (spec §2); an existing decision is rewritten after confirming. */
export const passDecided =
  (pass: boolean): AppThunk<Promise<void>> =>
  async (dispatch, getState) => {
    const { testId, pass: current } = selectExaminees(getState()).detail;
    if (testId === null) return;
    const ok = await dispatch(
      confirm({
        messageKey: `examinees:pass.${current === null ? 'confirm' : 'rewrite'}${pass ? 'Pass' : 'Fail'}`,
      }),
    );
    if (!ok) return;
    dispatch(passSaving());
    try {
      dispatch(passLoaded(await setTestPass(testId, pass)));
      await dispatch(showAlert({ type: 'success', messageKey: 'examinees:pass.saved' }));
    } catch {
      dispatch(passSaveFailed());
      await dispatch(showAlert({ type: 'error', messageKey: 'examinees:pass.saveFailed' }));
    }
  };
