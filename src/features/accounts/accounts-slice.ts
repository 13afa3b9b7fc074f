import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { AccountsPage, AccountsQuery, Group, ImportResult } from '../../api/accounts';
import type { TranslationKey } from '../../lib/translation-key';

type Status = 'idle' | 'loading' | 'succeeded' | 'failed';

/** A failure to show: an i18n key and, for refused requests, the server's own text. */
export interface Failure {
  messageKey: TranslationKey;
  messageText?: string;
}

/** The checked file waiting for the manager's go-ahead (a dry run's answer). */
export interface ImportPreview {
  fileName: string;
  result: ImportResult;
}

export interface AccountsState {
  query: AccountsQuery;
  list: { status: Status; data: AccountsPage | null; failure: Failure | null };
  groups: { status: Status; data: Group[]; failure: Failure | null };
  preview: ImportPreview | null;
  /** The last import that was written: its counts, and the generated passwords until they are saved. */
  imported: ImportResult | null;
  /** A password just reset, shown once until dismissed. */
  reset: { loginId: string; password: string } | null;
}

const initialState: AccountsState = {
  query: { actor: '', groupCode: '', q: '', status: 'all', page: 1 },
  list: { status: 'idle', data: null, failure: null },
  groups: { status: 'idle', data: [], failure: null },
  preview: null,
  imported: null,
  reset: null,
};

const accountsSlice = createSlice({
  name: 'accounts',
  initialState,
  reducers: {
    queryChanged(state, a: PayloadAction<Partial<AccountsQuery>>) {
      state.query = { ...state.query, ...a.payload };
    },
    listRequested(state) {
      state.list.status = 'loading';
      state.list.failure = null;
    },
    listLoaded(state, a: PayloadAction<AccountsPage>) {
      state.list = { status: 'succeeded', data: a.payload, failure: null };
    },
    listFailed(state, a: PayloadAction<Failure>) {
      state.list.status = 'failed';
      state.list.failure = a.payload;
    },
    groupsLoaded(state, a: PayloadAction<Group[]>) {
      state.groups = { status: 'succeeded', data: a.payload, failure: null };
    },
    groupsFailed(state, a: PayloadAction<Failure>) {
      state.groups.status = 'failed';
      state.groups.failure = a.payload;
    },
    /** A file was checked (dry run); an earlier import's result gives way to it. */
    importPreviewed(state, a: PayloadAction<ImportPreview | null>) {
      state.preview = a.payload;
      state.imported = null;
    },
    importDone(state, a: PayloadAction<ImportResult>) {
      state.preview = null;
      state.imported = a.payload;
    },
    /** The generated passwords were saved to a file: they are not kept any longer. */
    passwordsSaved(state) {
      if (state.imported) state.imported.passwords = [];
    },
    passwordReset(state, a: PayloadAction<{ loginId: string; password: string } | null>) {
      state.reset = a.payload;
    },
  },
});

export const {
  queryChanged,
  listRequested,
  listLoaded,
  listFailed,
  groupsLoaded,
  groupsFailed,
  importPreviewed,
  importDone,
  passwordsSaved,
  passwordReset,
} = accountsSlice.actions;

/** The accounts state; its initial state until a route registered the accounts feature (app/store.ts). */
export const selectAccounts = (s: { accounts?: AccountsState }): AccountsState => s.accounts ?? initialState;

export default accountsSlice.reducer;
