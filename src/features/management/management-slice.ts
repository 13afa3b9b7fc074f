import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { AccessLimitRow } from '../../api/access-limit';
import type { LoginListRow } from '../../api/logins';
import type { LogRow, LogSearchRequest } from '../../api/log-search';
import type { RetentionRow } from '../../api/cleaner';
import type { ShortUrl } from '../../api/shorten-url';
import type { TemplateAdmin } from '../../api/template-admin';
import type {
  AnalysisInitialParam,
  AdminPermission,
  AnalysisRequestRow,
  AnalysisSortKey,
  CheckersMonitoring,
  ManagementSummary,
} from '../../api/management';
import type { TranslationKey } from '../../lib/translation-key';

type Status = 'idle' | 'loading' | 'succeeded' | 'failed';

/** A failure to show: an i18n key and, for refused requests, the server's own text. */
export interface Failure {
  messageKey: TranslationKey;
  messageText?: string;
}

interface Section<T> {
  status: Status;
  data: T;
  failure: Failure | null;
}

const section = <T>(data: T): Section<T> => ({ status: 'idle', data, failure: null });

export interface LoginsQueryState {
  actorKind: 1 | 2 | -1;
  page: number;
  sortKey: number;
  sortOrder: 0 | 1;
}

export interface ManagementState {
  summary: Section<ManagementSummary | null>;
  accessLimits: Section<AccessLimitRow[]>;
  logins: Section<{ list: LoginListRow[]; count: number; pageCount: number }> & { query: LoginsQueryState };
  retention: Section<RetentionRow[]>;
  shortUrls: Section<ShortUrl[]>;
  /** The short URL saved last (its working address is shown after saving). */
  savedShortUrl: ShortUrl | null;
  monitoring: Section<CheckersMonitoring | null>;
  /** /analysis-request: the environment, the history in its sort order, and why the history failed to load. */
  analysis: Section<{
    initial: AnalysisInitialParam | null;
    history: AnalysisRequestRow[];
    sort: { key: AnalysisSortKey; order: 0 | 1 };
    historyFailure: Failure | null;
  }>;
  /** /logview: the page shown and the request that produced it (null before the first search). */
  logs: Section<{ list: LogRow[]; count: number; pageCount: number; page: number }> & {
    query: LogSearchRequest | null;
  };
  /** admin_permission of the caller's IP (/management menu). */
  adminPermission: Section<AdminPermission | null>;
  /** /edit-terms: every stored template. */
  templates: Section<TemplateAdmin[]>;
}

const initialState: ManagementState = {
  summary: section(null),
  accessLimits: section([]),
  logins: {
    ...section({ list: [], count: 0, pageCount: 0 }),
    query: { actorKind: 1, page: 1, sortKey: 9, sortOrder: 0 },
  },
  retention: section([]),
  shortUrls: section([]),
  savedShortUrl: null,
  monitoring: section(null),
  analysis: section({
    initial: null,
    history: [],
    sort: { key: 'created_at', order: 0 },
    historyFailure: null,
  }),
  logs: { ...section({ list: [], count: 0, pageCount: 0, page: 1 }), query: null },
  templates: section([]),
  adminPermission: section(null),
};

type SectionKey = Exclude<keyof ManagementState, 'savedShortUrl'>;

const managementSlice = createSlice({
  name: 'management',
  initialState,
  reducers: {
    /** A page started loading one of its lists. */
    sectionRequested(state, a: PayloadAction<SectionKey>) {
      state[a.payload].status = 'loading';
      state[a.payload].failure = null;
    },
    /** Loading a list failed. */
    sectionFailed(state, a: PayloadAction<{ key: SectionKey; failure: Failure }>) {
      state[a.payload.key].status = 'failed';
      state[a.payload.key].failure = a.payload.failure;
    },
    summaryLoaded(state, a: PayloadAction<ManagementSummary>) {
      state.summary = { status: 'succeeded', data: a.payload, failure: null };
    },
    accessLimitsLoaded(state, a: PayloadAction<AccessLimitRow[]>) {
      state.accessLimits = { status: 'succeeded', data: a.payload, failure: null };
    },
    loginsQueryChanged(state, a: PayloadAction<Partial<LoginsQueryState>>) {
      state.logins.query = { ...state.logins.query, ...a.payload };
    },
    loginsLoaded(state, a: PayloadAction<{ list: LoginListRow[]; count: number; pageCount: number }>) {
      state.logins.status = 'succeeded';
      state.logins.data = a.payload;
    },
    retentionLoaded(state, a: PayloadAction<RetentionRow[]>) {
      state.retention = { status: 'succeeded', data: a.payload, failure: null };
    },
    shortUrlsLoaded(state, a: PayloadAction<ShortUrl[]>) {
      state.shortUrls = { status: 'succeeded', data: a.payload, failure: null };
    },
    /** A short URL was saved; null when a new form opens. */
    shortUrlSaved(state, a: PayloadAction<ShortUrl | null>) {
      state.savedShortUrl = a.payload;
    },
    monitoringLoaded(state, a: PayloadAction<CheckersMonitoring>) {
      state.monitoring = { status: 'succeeded', data: a.payload, failure: null };
    },
    analysisInitialLoaded(state, a: PayloadAction<AnalysisInitialParam>) {
      state.analysis.data.initial = a.payload;
      state.analysis.status = 'succeeded';
    },
    analysisHistoryLoaded(state, a: PayloadAction<AnalysisRequestRow[]>) {
      state.analysis.data.history = a.payload;
      state.analysis.data.historyFailure = null;
    },
    /** The history could not be read: the rows shown so far stay, with the reason above them. */
    analysisHistoryFailed(state, a: PayloadAction<Failure>) {
      state.analysis.data.historyFailure = a.payload;
    },
    analysisSortChanged(state, a: PayloadAction<{ key: AnalysisSortKey; order: 0 | 1 }>) {
      state.analysis.data.sort = a.payload;
    },
    /** A log search was sent (a new search, or another page of the same one). */
    logsQueryChanged(state, a: PayloadAction<LogSearchRequest>) {
      state.logs.query = a.payload;
    },
    /** The admin IP permission of the caller arrived. */
    adminPermissionLoaded(state, a: PayloadAction<AdminPermission>) {
      state.adminPermission = { status: 'succeeded', data: a.payload, failure: null };
    },
    /** The stored templates arrived (/edit-terms). */
    templatesLoaded(state, a: PayloadAction<TemplateAdmin[]>) {
      state.templates = { status: 'succeeded', data: a.payload, failure: null };
    },
    /** A template was saved; it replaces the stored one of the same kind, id and language. */
    templateSaved(state, a: PayloadAction<TemplateAdmin>) {
      const t = a.payload;
      const same = (r: TemplateAdmin) =>
        r.kind === t.kind && r.templateId === t.templateId && r.lang === t.lang;
      const i = state.templates.data.findIndex(same);
      if (i >= 0) state.templates.data[i] = t;
      else state.templates.data.push(t);
    },
    /** A page of the log search arrived. */
    logsLoaded(state, a: PayloadAction<{ list: LogRow[]; count: number; pageCount: number; page: number }>) {
      state.logs.status = 'succeeded';
      state.logs.data = a.payload;
      state.logs.failure = null;
    },
  },
});

export const {
  sectionRequested,
  sectionFailed,
  summaryLoaded,
  accessLimitsLoaded,
  loginsQueryChanged,
  loginsLoaded,
  retentionLoaded,
  shortUrlsLoaded,
  shortUrlSaved,
  monitoringLoaded,
  analysisInitialLoaded,
  analysisHistoryLoaded,
  analysisHistoryFailed,
  analysisSortChanged,
  logsQueryChanged,
  logsLoaded,
  templatesLoaded,
  templateSaved,
  adminPermissionLoaded,
} = managementSlice.actions;
export default managementSlice.reducer;

type WithManagement = { management?: ManagementState };
/** The management state; its initial state until a route registered the management feature (app/store.ts). */
export const selectManagement = (s: WithManagement): ManagementState => s.management ?? initialState;
