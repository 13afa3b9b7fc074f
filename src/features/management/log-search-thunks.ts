import type { AppThunk } from '../../app/store';
import { searchLogs, type LogSearchRequest } from '../../api/log-search';
import { logsLoaded, logsQueryChanged, selectManagement } from './management-slice';
import { load, type SubmitResult } from './management-requests';
import { validateLogSearch, type LogSearchForm } from './management-validation';

/** The /logview page's thunk: the log search and its pages. */

/** Rows per page of the log search (spec §9 scroll area of 400px; the server allows 10–200). */
export const LOG_PAGE_SIZE = 50;

/**
 * Searches the logs (/logview): with a form, validates it and starts at page 1; with only a page, pages the
 * search shown.
 */
export const logSearchRequested =
  (input: { form: LogSearchForm } | { page: number }): AppThunk<Promise<SubmitResult>> =>
  async (dispatch, getState) => {
    let q: LogSearchRequest;
    if ('form' in input) {
      const errors = validateLogSearch(input.form);
      if (Object.keys(errors).length) return { ok: false, errors };
      const f = input.form;
      q = {
        from: f.from.replace('T', ' '),
        to: f.to.replace('T', ' '),
        source: f.source,
        actor: f.actor === '' ? null : Number(f.actor),
        loginId: f.loginId.trim(),
        level: f.level,
        text: f.text.trim(),
        page: 1,
        maxDisplayCount: LOG_PAGE_SIZE,
      };
    } else {
      const current = selectManagement(getState()).logs.query;
      if (!current) return { ok: false };
      q = { ...current, page: input.page };
    }
    dispatch(logsQueryChanged(q));
    let failed = false;
    await dispatch(
      load(
        'logs',
        async () => {
          try {
            const r = await searchLogs(q);
            return { list: r.list, count: r.count, pageCount: r.pageCount, page: r.page };
          } catch (e) {
            failed = true;
            throw e;
          }
        },
        logsLoaded,
        'management:logview.failed',
      ),
    );
    return failed ? { ok: false } : { ok: true };
  };
