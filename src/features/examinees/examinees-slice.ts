import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { ExamineeConditions, ExamineeRow } from '../../api/examinees';
import type { ExamineeDetail } from '../../api/examinee-detail';
import { EMPTY_FORM, type FieldErrors, type SearchForm } from './examinees-form';
import type { TranslationKey } from '../../lib/translation-key';

type Status = 'idle' | 'loading' | 'succeeded' | 'failed';

/**
 * A failure shown to the user: an i18n key, then the SPA's text of the server's error code (`detailKey`), or
 * the server's own text for a code the SPA does not know (`messageText`).
 */
export interface Failure {
  messageKey: TranslationKey;
  detailKey?: TranslationKey;
  messageText?: string;
}

export interface ExamineesState {
  conditions: ExamineeConditions | null;
  form: SearchForm;
  fieldErrors: FieldErrors;
  /** The conditions of the search on screen (paging, sorting and CSV reuse them). */
  applied: SearchForm | null;
  sortKey: number;
  sortOrder: 0 | 1;
  page: number;
  maxDisplayCount: number;
  status: Status;
  failure: Failure | null;
  rows: ExamineeRow[];
  count: number;
  countCapped: boolean;
  pageCount: number;
  /**
   * Keyset cursors of the search on screen: the cursor that starts page n (n ≥ 2), learnt from the answer
   * for page n − 1. Moving to a page held here reads it after its cursor instead of by OFFSET; they are
   * forgotten when the conditions, the sort or the display count change.
   */
  cursors: Record<number, string>;
  /** Test ids of the selected rows; /analysis-request reads them. */
  selectedTestIds: number[];
  csv: { status: Status; bytes: number; rows: number; totalRows: number | null };
  detail: {
    status: Status;
    testId: number | null;
    data: ExamineeDetail | null;
    failure: Failure | null;
    pass: number | null;
    passStatus: Status;
    /** Playback address per record id (get_onetime_uri); null when it could not be had. */
    recordUrls: Record<number, string | null>;
  };
}

const initialState: ExamineesState = {
  conditions: null,
  form: EMPTY_FORM,
  fieldErrors: {},
  applied: null,
  sortKey: 4,
  sortOrder: 0,
  page: 1,
  maxDisplayCount: 50,
  status: 'idle',
  failure: null,
  rows: [],
  count: 0,
  countCapped: false,
  pageCount: 0,
  cursors: {},
  selectedTestIds: [],
  csv: { status: 'idle', bytes: 0, rows: 0, totalRows: null },
  detail: {
    status: 'idle',
    testId: null,
    data: null,
    failure: null,
    pass: null,
    passStatus: 'idle',
    recordUrls: {},
  },
};

const examineesSlice = createSlice({
  name: 'examinees',
  initialState,
  reducers: {
    /** The search options arrived (testers/conditions). */
    conditionsLoaded(state, a: PayloadAction<ExamineeConditions>) {
      state.conditions = a.payload;
    },
    /** The user edited one search field. */
    formEdited(state, a: PayloadAction<Partial<SearchForm>>) {
      state.form = { ...state.form, ...a.payload };
    },
    /** The user pressed clear. */
    formCleared(state) {
      state.form = EMPTY_FORM;
      state.fieldErrors = {};
    },
    /** The form failed the client-side rules (or the server named a field). */
    formRejected(state, a: PayloadAction<FieldErrors>) {
      state.fieldErrors = a.payload;
    },
    /**
     * A search started: `applied` conditions with sort, page and display count. `newSearch` is false when
     * only the page moves (the count and the cursors still hold).
     */
    searchStarted(
      state,
      a: PayloadAction<{
        applied: SearchForm;
        sortKey: number;
        sortOrder: 0 | 1;
        page: number;
        maxDisplayCount: number;
        newSearch: boolean;
      }>,
    ) {
      const { newSearch, ...next } = a.payload;
      Object.assign(state, next);
      if (newSearch) state.cursors = {};
      state.fieldErrors = {};
      state.status = 'loading';
      state.failure = null;
    },
    /**
     * A page arrived. The count fields are null when the search was not counted again (a page move of a
     * counted search); `nextCursor` starts the page after it.
     */
    searchSucceeded(
      state,
      a: PayloadAction<{
        rows: ExamineeRow[];
        count: number | null;
        countCapped: boolean | null;
        pageCount: number | null;
        page: number;
        nextCursor: string | null;
      }>,
    ) {
      const r = a.payload;
      state.status = 'succeeded';
      state.rows = r.rows;
      if (r.count !== null) state.count = r.count;
      if (r.countCapped !== null) state.countCapped = r.countCapped;
      if (r.pageCount !== null) state.pageCount = r.pageCount;
      state.page = r.page;
      if (r.nextCursor) state.cursors[r.page + 1] = r.nextCursor;
    },
    searchFailed(state, a: PayloadAction<Failure>) {
      state.status = 'failed';
      state.failure = a.payload;
      state.rows = [];
    },
    /** A row's checkbox was toggled. */
    rowToggled(state, a: PayloadAction<number>) {
      const id = a.payload;
      state.selectedTestIds = state.selectedTestIds.includes(id)
        ? state.selectedTestIds.filter((x) => x !== id)
        : [...state.selectedTestIds, id];
    },
    /** Select-all was toggled: every row on the page is selected, or none of them. */
    pageSelectionToggled(state, a: PayloadAction<boolean>) {
      const ids = state.rows.map((r) => r.testId);
      const rest = state.selectedTestIds.filter((x) => !ids.includes(x));
      state.selectedTestIds = a.payload ? [...rest, ...ids] : rest;
    },
    csvStarted(state) {
      state.csv = { status: 'loading', bytes: 0, rows: 0, totalRows: null };
    },
    /** More of the CSV arrived. */
    csvProgressed(state, a: PayloadAction<{ bytes: number; rows: number; totalRows: number | null }>) {
      state.csv = { status: 'loading', ...a.payload };
    },
    csvFinished(state, a: PayloadAction<'succeeded' | 'failed'>) {
      state.csv.status = a.payload;
    },
    detailRequested(state, a: PayloadAction<number>) {
      state.detail = { ...initialState.detail, status: 'loading', testId: a.payload };
    },
    detailLoaded(state, a: PayloadAction<ExamineeDetail>) {
      state.detail.status = 'succeeded';
      state.detail.data = a.payload;
    },
    detailFailed(state, a: PayloadAction<Failure>) {
      state.detail.status = 'failed';
      state.detail.failure = a.payload;
    },
    /** A record's playback address arrived (or null when get_onetime_uri failed). */
    recordUrlLoaded(state, a: PayloadAction<{ recordId: number; url: string | null }>) {
      state.detail.recordUrls[a.payload.recordId] = a.payload.url;
    },
    passLoaded(state, a: PayloadAction<number | null>) {
      state.detail.pass = a.payload;
      state.detail.passStatus = 'succeeded';
    },
    passSaving(state) {
      state.detail.passStatus = 'loading';
    },
    passSaveFailed(state) {
      state.detail.passStatus = 'failed';
    },
  },
});

export const {
  conditionsLoaded,
  formEdited,
  formCleared,
  formRejected,
  searchStarted,
  searchSucceeded,
  searchFailed,
  rowToggled,
  pageSelectionToggled,
  csvStarted,
  csvProgressed,
  csvFinished,
  detailRequested,
  detailLoaded,
  detailFailed,
  recordUrlLoaded,
  passLoaded,
  passSaving,
  passSaveFailed,
} = examineesSlice.actions;
export default examineesSlice.reducer;

type WithExaminees = { examinees?: ExamineesState };
/** The examinees state; its initial state until a route registered the examinees feature (app/store.ts). */
export const selectExaminees = (s: WithExaminees): ExamineesState => s.examinees ?? initialState;
export const selectExamineeDetail = (s: WithExaminees) => selectExaminees(s).detail;
/** Test ids chosen in the search result (spec §2: selected rows go to a data-extraction request). */
export const selectSelectedTestIds = (s: WithExaminees) => selectExaminees(s).selectedTestIds;
