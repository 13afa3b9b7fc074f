import type { AppThunk, AppThunkDispatch } from '../../app/store';
import { isApiError } from '../../api/api-error';
import {
  createGroup,
  importAccounts,
  listAccounts,
  listGroups,
  resetAccountPassword,
  setAccountDisabled,
  type AccountsQuery,
} from '../../api/accounts';
import { loadingFinished, loadingStarted } from '../layout/layout-slice';
import { confirm } from '../layout/layout-thunks';
import { saveBlob } from '../../lib/save-file';
import {
  groupsFailed,
  groupsLoaded,
  importDone,
  importPreviewed,
  listFailed,
  listLoaded,
  listRequested,
  passwordReset,
  passwordsSaved,
  queryChanged,
  type Failure,
  selectAccounts,
} from './accounts-slice';
import type { TranslationKey } from '../../lib/translation-key';

/** The outcome of an action the page reports next to its form. */
export type ActionResult = { ok: true } | { ok: false; failure?: Failure };

function failureOf(e: unknown, messageKey: TranslationKey): Failure {
  if (isApiError(e) && e.status >= 400 && e.status < 500) return { messageKey, messageText: e.message };
  return { messageKey };
}

async function withOverlay<T>(dispatch: AppThunkDispatch, fn: () => Promise<T>): Promise<T> {
  dispatch(loadingStarted());
  try {
    return await fn();
  } finally {
    dispatch(loadingFinished());
  }
}

/** Loads the accounts list after a filter or page change. */
export const accountsRequested =
  (patch: Partial<AccountsQuery> = {}): AppThunk<Promise<void>> =>
  async (dispatch, getState) => {
    dispatch(queryChanged(patch));
    dispatch(listRequested());
    try {
      const page = await withOverlay(dispatch, () => listAccounts(selectAccounts(getState()).query));
      dispatch(listLoaded(page));
    } catch (e) {
      dispatch(listFailed(failureOf(e, 'management:loadFailed')));
    }
  };

export const groupsRequested = (): AppThunk<Promise<void>> => async (dispatch) => {
  try {
    dispatch(groupsLoaded(await withOverlay(dispatch, listGroups)));
  } catch (e) {
    dispatch(groupsFailed(failureOf(e, 'management:loadFailed')));
  }
};

/** Creates an exam group; the code and name are checked by the server (its message is shown). */
export const groupSubmitted =
  (code: string, name: string): AppThunk<Promise<ActionResult>> =>
  async (dispatch) => {
    if (!code.trim() || !name.trim())
      return { ok: false, failure: { messageKey: 'accounts:groups.required' } };
    try {
      await withOverlay(dispatch, () => createGroup(code.trim(), name.trim()));
    } catch (e) {
      return { ok: false, failure: failureOf(e, 'accounts:groups.failed') };
    }
    await dispatch(groupsRequested());
    return { ok: true };
  };

/** Reads the chosen file as UTF-8 (a BOM is dropped) and checks it on the server without writing (dry run). */
export const importFileChosen =
  (file: File, skipInvalid: boolean): AppThunk<Promise<ActionResult & { csv?: string }>> =>
  async (dispatch) => {
    dispatch(importPreviewed(null));
    let csv: string;
    try {
      csv = new TextDecoder('utf-8', { fatal: true }).decode(await file.arrayBuffer());
    } catch {
      return { ok: false, failure: { messageKey: 'accounts:import.notUtf8' } };
    }
    try {
      const result = await withOverlay(dispatch, () => importAccounts(csv, { dryRun: true, skipInvalid }));
      dispatch(importPreviewed({ fileName: file.name, result }));
      return { ok: true, csv };
    } catch (e) {
      return { ok: false, failure: failureOf(e, 'accounts:import.failed') };
    }
  };

/** Writes the previewed file (all rows, or the valid ones with skipInvalid), then reloads the lists. */
export const importConfirmed =
  (csv: string, skipInvalid: boolean): AppThunk<Promise<ActionResult>> =>
  async (dispatch) => {
    try {
      const result = await withOverlay(dispatch, () => importAccounts(csv, { dryRun: false, skipInvalid }));
      dispatch(importDone(result));
    } catch (e) {
      return { ok: false, failure: failureOf(e, 'accounts:import.failed') };
    }
    await dispatch(groupsRequested());
    await dispatch(accountsRequested());
    return { ok: true };
  };

/** Saves the generated passwords as CSV (BOM, CRLF: what spreadsheet programs read) and forgets them. */
export const passwordsDownloaded = (): AppThunk<Promise<void>> => async (dispatch, getState) => {
  const imported = selectAccounts(getState()).imported;
  if (!imported?.passwords.length) return;
  const quote = (v: string) => (/[",\r\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
  const body = [
    'login_id,password',
    ...imported.passwords.map((p) => `${quote(p.loginId)},${quote(p.password)}`),
  ];
  saveBlob(new Blob([`\uFEFF${body.join('\r\n')}\r\n`], { type: 'text/csv' }), 'passwords.csv');
  dispatch(passwordsSaved());
};

/** Disables (after a confirmation) or enables an account, then reloads the list. */
export const disabledToggled =
  (loginId: string, disabled: boolean): AppThunk<Promise<ActionResult>> =>
  async (dispatch) => {
    if (disabled) {
      const ok = await dispatch(
        confirm({ messageKey: 'accounts:list.confirmDisable', messageValues: { loginId } }),
      );
      if (!ok) return { ok: false };
    }
    try {
      await withOverlay(dispatch, () => setAccountDisabled(loginId, disabled));
    } catch (e) {
      return { ok: false, failure: failureOf(e, 'management:failed') };
    }
    await dispatch(accountsRequested());
    return { ok: true };
  };

/** Gives the account a new generated password (after a confirmation); it is shown once. */
export const passwordResetRequested =
  (loginId: string): AppThunk<Promise<ActionResult>> =>
  async (dispatch) => {
    const ok = await dispatch(
      confirm({ messageKey: 'accounts:list.confirmReset', messageValues: { loginId } }),
    );
    if (!ok) return { ok: false };
    try {
      const password = await withOverlay(dispatch, () => resetAccountPassword(loginId));
      dispatch(passwordReset({ loginId, password }));
      return { ok: true };
    } catch (e) {
      return { ok: false, failure: failureOf(e, 'management:failed') };
    }
  };
