/**
 * The examinee search page's effects: its conditions, the search and the CSV download. The detail and report
 * pages' are examinee-detail-thunks.ts.
 */
import type { AppThunk } from '../../app/store';
import { isApiError } from '../../api/api-error';
import {
  downloadExamineesCsv,
  getExamineeConditions,
  searchExaminees,
  type ExamineeSearchQuery,
} from '../../api/examinees';
import { loadingFinished, loadingStarted } from '../layout/layout-slice';
import { showAlert } from '../layout/layout-thunks';
import {
  conditionsLoaded,
  csvFinished,
  csvProgressed,
  csvStarted,
  formRejected,
  searchFailed,
  searchStarted,
  searchSucceeded,
  selectExaminees,
} from './examinees-slice';
import { hasConditions, validateSearch } from './examinees-validation';
import type { SearchForm } from './examinees-form';
import { failureOf } from './examinees-requests';
import { saveBlob } from '../../lib/save-file';

/** The search request of a form (spec §3 "Examinee search request"); empty fields are sent as ''. */
export function toQuery(f: SearchForm): Partial<ExamineeSearchQuery> {
  return {
    group: f.group,
    groupText: f.groupText.trim(),
    loginId: f.loginId.trim(),
    testName: f.testName,
    region: f.region,
    testAtDateFrom: f.dateFrom,
    testAtDateTo: f.dateTo,
    testAtTimeFrom: f.timeFrom,
    testAtTimeTo: f.timeTo,
    examName: f.examName.trim(),
    isLikeSearch: f.isLikeSearch ? 1 : 0,
    record: f.record,
    withMark: f.withMark,
    cheatingLevelFrom: f.cheatingLevelFrom.trim(),
    cheatingLevelTo: f.cheatingLevelTo.trim(),
    score: f.score.trim(),
    aiAnalysisFlag: f.aiAnalysisFlag,
    aiAnalysisBatchFlag: f.aiAnalysisBatchFlag,
    aiNamematch: f.aiNamematch.trim(),
    markId: f.markId,
  };
}

/** Loads the options of the search form once (testers/conditions). */
export const conditionsRequested = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  if (selectExaminees(getState()).conditions) return;
  try {
    dispatch(conditionsLoaded(await getExamineeConditions()));
  } catch {
    // The form still works with free text; the error is recorded by the client.
  }
};

/**
 * Runs a search. `fromForm` validates and applies the form (search button); otherwise the applied
 * conditions are searched again with a new page, sort or display count.
 *
 * A new search (conditions, sort or display count changed) is counted and read from page 1. A page move of
 * the search on screen keeps its count: a page whose cursor is known (the next page, or one visited in
 * sequence) is read after that cursor, which costs the same however deep it is; any other page is read by
 * number (OFFSET), counted again only when it lies in the second half of an exact count (the server then
 * reads it from the end). A server without cursors (no `next_cursor`) is always paged by number.
 */
export const searchRequested =
  (
    opts: {
      fromForm?: boolean;
      page?: number;
      sortKey?: number;
      sortOrder?: 0 | 1;
      maxDisplayCount?: number;
    } = {},
  ): AppThunk<Promise<void>> =>
  async (dispatch, getState) => {
    const s = selectExaminees(getState());
    let applied = s.applied ?? s.form;
    if (opts.fromForm) {
      const errors = validateSearch(s.form);
      if (Object.keys(errors).length > 0) {
        dispatch(formRejected(errors));
        return;
      }
      applied = s.form;
    }
    const next = {
      applied,
      sortKey: opts.sortKey ?? s.sortKey,
      sortOrder: opts.sortOrder ?? s.sortOrder,
      page: opts.page ?? (opts.fromForm ? 1 : s.page),
      maxDisplayCount: opts.maxDisplayCount ?? s.maxDisplayCount,
    };
    const newSearch =
      !!opts.fromForm ||
      s.status !== 'succeeded' ||
      next.sortKey !== s.sortKey ||
      next.sortOrder !== s.sortOrder ||
      next.maxDisplayCount !== s.maxDisplayCount;
    const cursor = newSearch || next.page < 2 ? undefined : s.cursors[next.page];
    // Counting again only pays for a page in the second half of an exact count (read from the end).
    const offset = (next.page - 1) * next.maxDisplayCount;
    const fromEnd = !s.countCapped && 2 * offset + next.maxDisplayCount > s.count;
    const skipCount = !newSearch && (cursor !== undefined || !fromEnd);
    dispatch(searchStarted({ ...next, newSearch }));
    dispatch(loadingStarted());
    const query = {
      ...toQuery(applied),
      sortKey: next.sortKey,
      sortOrder: next.sortOrder,
      page: next.page,
      maxDisplayCount: next.maxDisplayCount,
    };
    try {
      let r;
      try {
        r = await searchExaminees({
          ...query,
          ...(cursor ? { cursor } : {}),
          ...(skipCount ? { skipCount: 1 } : {}),
        });
      } catch (e) {
        // A cursor the server no longer accepts: the same page by number, counted.
        if (!cursor || !isApiError(e) || e.status !== 400) throw e;
        r = await searchExaminees(query);
      }
      dispatch(
        searchSucceeded({
          rows: r.testers,
          count: r.count,
          countCapped: r.countCapped,
          pageCount: r.pageCount,
          page: r.page,
          nextCursor: r.nextCursor ?? null,
        }),
      );
    } catch (e) {
      dispatch(searchFailed(failureOf(e, 'examinees:search.failed')));
    } finally {
      dispatch(loadingFinished());
    }
  };

/**
 * Downloads the search result as CSV with progress, saved under the server's file name. Errors follow
 * spec §8: no conditions; the server's message; a body that is not JSON; no response.
 */
export const csvRequested = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  const s = selectExaminees(getState());
  const applied = s.applied ?? s.form;
  if (!hasConditions(applied)) {
    await dispatch(
      showAlert({
        type: 'error',
        titleKey: 'examinees:csv.failed',
        messageKey: 'examinees:csv.noConditions',
      }),
    );
    return;
  }
  dispatch(csvStarted());
  try {
    const file = await downloadExamineesCsv(
      { ...toQuery(applied), sortKey: s.sortKey, sortOrder: s.sortOrder },
      { onProgress: (p) => dispatch(csvProgressed({ bytes: p.bytes, rows: 0, totalRows: null })) },
    );
    dispatch(csvProgressed({ bytes: file.blob.size, rows: file.totalRows ?? 0, totalRows: file.totalRows }));
    saveBlob(file.blob, file.fileName ?? 'exam_user_resultinfo_csv.csv');
    dispatch(csvFinished('succeeded'));
  } catch (e) {
    dispatch(csvFinished('failed'));
    // The client has already recorded the error (errors slice) through its listeners.
    if (!isApiError(e)) throw e;
    const shown =
      e.code === 'parse'
        ? { messageKey: 'examinees:csv.parseFailed' as const }
        : e.status === 0
          ? { messageKey: 'examinees:csv.failed' as const }
          : e.serverText
            ? { messageText: e.serverText }
            : { messageKey: e.messageKey };
    await dispatch(showAlert({ type: 'error', titleKey: 'examinees:csv.failed', ...shown }));
  }
};
