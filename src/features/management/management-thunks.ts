import type { AppThunk } from '../../app/store';
import { isApiError } from '../../api/api-error';
import { deleteAccessLimits, insertAccessLimit, listAccessLimits } from '../../api/access-limit';
import { downloadDeletePlan, listRetention, storeRetention, updateRetention } from '../../api/cleaner';
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
  monitoringLoaded,
  retentionLoaded,
  summaryLoaded,
  templateSaved,
  templatesLoaded,
  type Failure,
  selectManagement,
} from './management-slice';
import {
  validateAccessLimit,
  validateDays,
  validateTemplate,
  type AccessLimitForm,
  type FieldErrors,
  type TemplateForm,
} from './management-validation';
import {
  confirmedAction,
  failureOf,
  load,
  serverFieldErrors,
  type SubmitResult,
} from './management-requests';

export const summaryRequested = (): AppThunk<Promise<void>> =>
  load('summary', getManagementSummary, summaryLoaded, 'management:loadFailed');
/** Asks whether the caller's IP may use the proctor functions (admin_permission, /management menu). */
export const adminPermissionRequested = (): AppThunk<Promise<void>> =>
  load('adminPermission', getAdminPermission, adminPermissionLoaded, 'management:loadFailed');
export const accessLimitsRequested = (): AppThunk<Promise<void>> =>
  load('accessLimits', listAccessLimits, accessLimitsLoaded, 'management:loadFailed');
export const retentionRequested = (): AppThunk<Promise<void>> =>
  load('retention', listRetention, retentionLoaded, 'management:loadFailed');
export const monitoringRequested = (): AppThunk<Promise<void>> =>
  load('monitoring', getCheckersMonitoring, monitoringLoaded, 'management:loadFailed');

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

/** Lifts a kick-out (tester/kick_out DELETE) after a confirmation, then reloads the monitoring lists. */
export const kickLiftRequested =
  (testerId: number, loginId: string): AppThunk<Promise<void>> =>
  (dispatch) =>
    dispatch(
      confirmedAction({
        ask: { messageKey: 'management:monitoring.confirmRelease', messageValues: { loginId } },
        act: () => liftKickOut(testerId),
        doneKey: 'management:monitoring.released',
        reload: () => monitoringRequested(),
      }),
    );

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
