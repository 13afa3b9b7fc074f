import type { UnknownAction } from '@reduxjs/toolkit';
import type { AppThunk } from '../../app/store';
import { isApiError } from '../../api/api-error';
import { deleteAccessLimits, insertAccessLimit, listAccessLimits } from '../../api/access-limit';
import { downloadDeletePlan, listRetention, storeRetention, updateRetention } from '../../api/cleaner';
import { forceLogout, listLogins } from '../../api/logins';
import { searchLogs, type LogSearchRequest } from '../../api/log-search';
import {
  getAnalysisInitialParam,
  getAdminPermission,
  getAnalysisRequests,
  getCheckersMonitoring,
  getManagementSummary,
  liftKickOut,
  requestAnalysis,
  type AnalysisSortKey,
} from '../../api/management';
import { deleteShortUrl, listShortUrls, saveShortUrl } from '../../api/shorten-url';
import { listTemplatesForEdit, saveTemplate, type EditableTemplateKind } from '../../api/template-admin';
import { getExamineeConditions } from '../../api/examinees';
import { loadingFinished, loadingStarted } from '../layout/layout-slice';
import { confirm, showAlert } from '../layout/layout-thunks';
import { saveBlob } from '../../lib/save-file';
import {
  accessLimitsLoaded,
  adminPermissionLoaded,
  analysisHistoryFailed,
  analysisHistoryLoaded,
  analysisInitialLoaded,
  analysisSortChanged,
  loginsLoaded,
  loginsQueryChanged,
  logsLoaded,
  logsQueryChanged,
  monitoringLoaded,
  retentionLoaded,
  sectionFailed,
  sectionRequested,
  shortUrlSaved,
  shortUrlsLoaded,
  summaryLoaded,
  templateSaved,
  templatesLoaded,
  type Failure,
  type LoginsQueryState,
  type ManagementState,
  selectManagement,
} from './management-slice';
import {
  validateAccessLimit,
  validateDays,
  validateLogSearch,
  validateTemplate,
  type AccessLimitForm,
  type FieldErrors,
  type LogSearchForm,
  type TemplateForm,
} from './management-validation';
import { PARAM_FIELDS, shortUrlPayload, validateShortUrl, type ShortUrlForm } from './short-url-fields';
import type { TranslationKey } from '../../lib/translation-key';

const isParamField = (f: string) => PARAM_FIELDS.some(([name]) => name === f);

type SectionKey = Exclude<keyof ManagementState, 'savedShortUrl'>;

/** The outcome of a form submit: saved, refused by the client rules, or refused by the server. */
export type SubmitResult = { ok: true } | { ok: false; errors?: FieldErrors; failure?: Failure };

/**
 * A server validation error (`result.field`) as a form error next to its field, with the server's message;
 * `formField` maps the request field to the form's (null: not a field of this form).
 */
function serverFieldErrors(e: unknown, formField: (field: string) => string | null): FieldErrors | null {
  if (!isApiError(e) || e.field === null) return null;
  const name = formField(e.field);
  if (name === null) return null;
  // The SPA's own text of the rule's code; the server's message only for a code the SPA does not know.
  return { [name]: e.serverText ? { key: 'management:failed', text: e.serverText } : { key: e.messageKey } };
}

/**
 * The failure to show: the SPA's text of the server's error code when it knows the code (README "Error
 * codes"), else the screen's key with the server's own message for a refused request.
 */
function failureOf(e: unknown, messageKey: TranslationKey): Failure {
  if (!isApiError(e)) return { messageKey };
  if (!e.serverText) return { messageKey: e.code === 'network' ? messageKey : e.messageKey };
  if (e.status >= 400 && e.status < 500) return { messageKey, messageText: e.serverText };
  return { messageKey };
}

/** Loads one section with the loading overlay; failures are kept in the section. */
const load =
  <T>(
    key: SectionKey,
    fetch: () => Promise<T>,
    done: (v: T) => { type: string },
    failKey: TranslationKey,
  ): AppThunk<Promise<void>> =>
  async (dispatch) => {
    dispatch(sectionRequested(key));
    dispatch(loadingStarted());
    try {
      dispatch(done(await fetch()) as UnknownAction);
    } catch (e) {
      dispatch(sectionFailed({ key, failure: failureOf(e, failKey) }));
    } finally {
      dispatch(loadingFinished());
    }
  };

export const summaryRequested = (): AppThunk<Promise<void>> =>
  load('summary', getManagementSummary, summaryLoaded, 'management:loadFailed');
/** Asks whether the caller's IP may use the proctor functions (admin_permission, /management menu). */
export const adminPermissionRequested = (): AppThunk<Promise<void>> =>
  load('adminPermission', getAdminPermission, adminPermissionLoaded, 'management:loadFailed');
export const accessLimitsRequested = (): AppThunk<Promise<void>> =>
  load('accessLimits', listAccessLimits, accessLimitsLoaded, 'management:loadFailed');
export const retentionRequested = (): AppThunk<Promise<void>> =>
  load('retention', listRetention, retentionLoaded, 'management:loadFailed');
export const shortUrlsRequested = (): AppThunk<Promise<void>> =>
  load('shortUrls', listShortUrls, shortUrlsLoaded, 'management:loadFailed');
export const monitoringRequested = (): AppThunk<Promise<void>> =>
  load('monitoring', getCheckersMonitoring, monitoringLoaded, 'management:loadFailed');

/** Loads the logins list after applying a filter, sort or page change. */
export const loginsRequested =
  (patch: Partial<LoginsQueryState> = {}): AppThunk<Promise<void>> =>
  async (dispatch, getState) => {
    dispatch(loginsQueryChanged(patch));
    const q = selectManagement(getState()).logins.query;
    await dispatch(
      load(
        'logins',
        async () => {
          const r = await listLogins(q);
          return { list: r.list, count: r.count, pageCount: r.pageCount };
        },
        loginsLoaded,
        'management:loadFailed',
      ),
    );
  };

/** Forced logout of one user after a confirmation. */
export const forceLogoutRequested =
  (userId: number, loginId: string): AppThunk<Promise<void>> =>
  async (dispatch) => {
    const ok = await dispatch(
      confirm({ messageKey: 'management:logins.confirmForceLogout', messageValues: { loginId } }),
    );
    if (!ok) return;
    try {
      await forceLogout(userId);
      await dispatch(showAlert({ type: 'success', messageKey: 'management:logins.forceLogoutDone' }));
    } catch (e) {
      await dispatch(
        showAlert({ type: 'error', titleKey: 'management:logins.forceLogoutFailed', ...textOf(e) }),
      );
    }
    await dispatch(loginsRequested());
  };

function textOf(e: unknown): { messageText: string } | { messageKey: TranslationKey } {
  if (!isApiError(e)) return { messageKey: 'management:failed' };
  if (!e.serverText) return { messageKey: e.messageKey };
  return e.status >= 400 && e.status < 500
    ? { messageText: e.serverText }
    : { messageKey: 'management:failed' };
}

/** Adds an access-limit rule (spec §5 rules first; a 409 lock-out refusal comes back as its message). */
export const accessLimitSubmitted =
  (form: AccessLimitForm): AppThunk<Promise<SubmitResult>> =>
  async (dispatch) => {
    const errors = validateAccessLimit(form);
    if (Object.keys(errors).length) return { ok: false, errors };
    try {
      await insertAccessLimit({
        server: form.server.trim(),
        ip: form.ip.trim(),
        domain: form.domain.trim(),
        actor: Number(form.actor),
      });
    } catch (e) {
      const fieldErrors = serverFieldErrors(e, (f) =>
        ['server', 'ip', 'domain', 'actor'].includes(f) ? f : null,
      );
      if (fieldErrors) return { ok: false, errors: fieldErrors };
      return { ok: false, failure: failureOf(e, 'management:accessLimit.insertFailed') };
    }
    await dispatch(accessLimitsRequested());
    return { ok: true };
  };

/** Deletes the selected access-limit rows (at least one, spec §5). */
export const accessLimitsDeleted =
  (ids: number[]): AppThunk<Promise<SubmitResult>> =>
  async (dispatch) => {
    if (ids.length === 0) return { ok: false, errors: { ids: { key: 'validation:selectOne' } } };
    const ok = await dispatch(
      confirm({ messageKey: 'management:accessLimit.confirmDelete', messageValues: { count: ids.length } }),
    );
    if (!ok) return { ok: false };
    try {
      await deleteAccessLimits(ids);
    } catch (e) {
      return { ok: false, failure: failureOf(e, 'management:accessLimit.deleteFailed') };
    }
    await dispatch(accessLimitsRequested());
    return { ok: true };
  };

/** The exam groups a retention row can be added for (testers/conditions). */
export const retentionGroupsRequested =
  (): AppThunk<Promise<{ id: number; name: string; code: string }[]>> => async () => {
    try {
      return (await getExamineeConditions()).groups;
    } catch {
      return [];
    }
  };

/** Adds (groupId) or updates (id) a retention row; success and failure messages of spec §8. */
export const retentionSubmitted =
  (
    input: { mode: 'create'; groupId: string; days: string } | { mode: 'edit'; id: number; days: string },
  ): AppThunk<Promise<SubmitResult>> =>
  async (dispatch) => {
    const errors: FieldErrors = {};
    const days = validateDays(input.days);
    if (days) errors.duration = days;
    if (input.mode === 'create' && input.groupId === '') errors.groupId = { key: 'validation:selectOne' };
    if (Object.keys(errors).length) return { ok: false, errors };
    const prefix = input.mode === 'create' ? 'management:retention.create' : 'management:retention.edit';
    try {
      if (input.mode === 'create') await storeRetention(Number(input.groupId), Number(input.days));
      else await updateRetention(input.id, Number(input.days));
    } catch (e) {
      const f = failureOf(e, `${prefix}Failed`);
      await dispatch(
        showAlert({
          type: 'error',
          titleKey: `${prefix}Failed`,
          ...(f.messageText ? { messageText: f.messageText } : { messageKey: f.messageKey }),
        }),
      );
      return { ok: false, failure: f };
    }
    await dispatch(showAlert({ type: 'success', messageKey: `${prefix}Succeeded` }));
    await dispatch(retentionRequested());
    return { ok: true };
  };

/** Downloads the planned deletions of a date as CSV named delete_plan_csv_{key}_{yyyyMMdd}.csv. */
export const deletePlanDownloaded =
  (key: 'tester' | 'record', date: string): AppThunk<Promise<SubmitResult>> =>
  async (dispatch) => {
    const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
    if (!m)
      return {
        ok: false,
        errors: { date: { key: 'validation:date', values: { fieldKey: 'management:deletePlan.date' } } },
      };
    dispatch(loadingStarted());
    try {
      const file = await downloadDeletePlan(key, date);
      saveBlob(file.blob, `delete_plan_csv_${key}_${m[1]}${m[2]}${m[3]}.csv`);
      return { ok: true };
    } catch (e) {
      const f: Failure =
        isApiError(e) && e.code === 'parse'
          ? { messageKey: 'examinees:csv.parseFailed' }
          : failureOf(e, 'examinees:csv.failed');
      return { ok: false, failure: f };
    } finally {
      dispatch(loadingFinished());
    }
  };

/** Saves a short URL (insert, or update with `id`); the saved row's working URL is kept for display. */
export const shortUrlSubmitted =
  (form: ShortUrlForm, id?: number): AppThunk<Promise<SubmitResult>> =>
  async (dispatch) => {
    const errors = validateShortUrl(form);
    if (Object.keys(errors).length) return { ok: false, errors };
    dispatch(loadingStarted());
    try {
      dispatch(shortUrlSaved(await saveShortUrl(shortUrlPayload(form), id)));
      return { ok: true };
    } catch (e) {
      const fieldErrors = serverFieldErrors(e, (f) =>
        f === 'url_key' ? 'urlKey' : ['actor', 'target'].includes(f) || isParamField(f) ? f : null,
      );
      if (fieldErrors) return { ok: false, errors: fieldErrors };
      return { ok: false, failure: failureOf(e, 'management:shortUrl.saveFailed') };
    } finally {
      dispatch(loadingFinished());
    }
  };

/** Deletes a short URL after a confirmation. */
export const shortUrlDeleted =
  (id: number, urlKey: string): AppThunk<Promise<void>> =>
  async (dispatch) => {
    const ok = await dispatch(
      confirm({ messageKey: 'management:shortUrl.confirmDelete', messageValues: { urlKey } }),
    );
    if (!ok) return;
    try {
      await deleteShortUrl(id);
    } catch (e) {
      await dispatch(showAlert({ type: 'error', ...textOf(e) }));
    }
    await dispatch(shortUrlsRequested());
  };

/** Lifts a kick-out (tester/kick_out DELETE) after a confirmation, then reloads the monitoring lists. */
export const kickLiftRequested =
  (testerId: number, loginId: string): AppThunk<Promise<void>> =>
  async (dispatch) => {
    const ok = await dispatch(
      confirm({ messageKey: 'management:monitoring.confirmRelease', messageValues: { loginId } }),
    );
    if (!ok) return;
    try {
      await liftKickOut(testerId);
      await dispatch(showAlert({ type: 'success', messageKey: 'management:monitoring.released' }));
    } catch (e) {
      await dispatch(showAlert({ type: 'error', ...textOf(e) }));
    }
    await dispatch(monitoringRequested());
  };

/** Loads the analysis page: initial parameters, then the history. */
export const analysisPageOpened = (): AppThunk<Promise<void>> => async (dispatch) => {
  await dispatch(load('analysis', getAnalysisInitialParam, analysisInitialLoaded, 'management:loadFailed'));
  await dispatch(analysisHistoryRequested());
};

/**
 * Reads the request history in the sort order of the screen (a new order when given). Quiet: it runs again
 * while requests are in progress, so it does not show the loading overlay; a failure is shown above the table.
 * spec §5: postponed while the initial domain or env is missing (asked for again, quietly, each time).
 */
export const analysisHistoryRequested =
  (sort?: { key: AnalysisSortKey; order: 0 | 1 }): AppThunk<Promise<void>> =>
  async (dispatch, getState) => {
    if (sort) dispatch(analysisSortChanged(sort));
    const ready = () => {
      const initial = selectManagement(getState()).analysis.data.initial;
      return !!initial?.domain && !!initial.env;
    };
    if (!ready()) {
      try {
        dispatch(analysisInitialLoaded(await getAnalysisInitialParam()));
      } catch {
        // Still missing: the history waits for the next turn.
      }
      if (!ready()) return;
    }
    const { key, order } = selectManagement(getState()).analysis.data.sort;
    try {
      dispatch(analysisHistoryLoaded(await getAnalysisRequests({ sortKey: key, sortOrder: order })));
    } catch (e) {
      dispatch(analysisHistoryFailed(failureOf(e, 'management:analysis.historyFailed')));
    }
  };

/** Submits a data-extraction request for the selected examinees (spec §5: one must be selected). */
export const analysisSubmitted =
  (input: { inseq: string; status: string; testIds: number[] }): AppThunk<Promise<SubmitResult>> =>
  async (dispatch) => {
    const errors: FieldErrors = {};
    if (input.testIds.length === 0) errors.testers = { key: 'validation:noExamineeSelected' };
    if (input.inseq.trim() === '')
      errors.inseq = { key: 'validation:required', values: { fieldKey: 'management:analysis.inseq' } };
    if (input.status === '') errors.status = { key: 'validation:selectOne' };
    if (Object.keys(errors).length) return { ok: false, errors };
    try {
      await requestAnalysis({
        inseq: input.inseq.trim(),
        status: Number(input.status),
        testIds: input.testIds,
      });
    } catch (e) {
      return {
        ok: false,
        failure: failureOf(e, 'management:analysis.failed'),
      };
    }
    await dispatch(showAlert({ type: 'success', messageKey: 'management:analysis.submitted' }));
    await dispatch(analysisHistoryRequested());
    return { ok: true };
  };

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

/** Loads every stored template (/edit-terms). */
export const templatesRequested = (): AppThunk<Promise<void>> =>
  load('templates', listTemplatesForEdit, templatesLoaded, 'management:loadFailed');

/**
 * Saves the template of the form (client rules first, then the server's, shown next to their field); the
 * success and failure messages are alerts.
 */
export const templateSubmitted =
  (form: TemplateForm): AppThunk<Promise<SubmitResult>> =>
  async (dispatch) => {
    const errors = validateTemplate(form);
    if (Object.keys(errors).length) return { ok: false, errors };
    dispatch(loadingStarted());
    try {
      dispatch(
        templateSaved(
          await saveTemplate({
            kind: form.kind as EditableTemplateKind,
            templateId: Number(form.templateId),
            lang: form.lang,
            title: form.title.trim(),
            body: form.body,
            footerUrl: form.footerUrl.trim(),
          }),
        ),
      );
    } catch (e) {
      const fieldErrors = serverFieldErrors(e, (f) =>
        f === 'template_id'
          ? 'templateId'
          : f === 'footer_url'
            ? 'footerUrl'
            : ['title', 'body'].includes(f)
              ? f
              : null,
      );
      const failure = failureOf(e, 'management:terms.saveFailed');
      await dispatch(
        showAlert({
          type: 'error',
          titleKey: 'management:terms.saveFailed',
          ...(failure.messageText
            ? { messageText: failure.messageText }
            : { messageKey: failure.messageKey }),
        }),
      );
      return fieldErrors ? { ok: false, errors: fieldErrors } : { ok: false, failure };
    } finally {
      dispatch(loadingFinished());
    }
    await dispatch(showAlert({ type: 'success', messageKey: 'management:terms.saved' }));
    return { ok: true };
  };
