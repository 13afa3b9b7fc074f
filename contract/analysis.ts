import { Type, type Static } from 'typebox';
import { Int32, MAX_ID } from './common';
import { ANALYSIS_SORT_KEYS } from './constants/analysis';
export * from './constants/analysis';

const IntOrDigits = Type.Union([
  Type.Integer({ minimum: 0, maximum: MAX_ID }),
  Type.String({ pattern: '^[0-9]{1,15}$' }),
]);

/**
 * analysis_request/request (POST, actors 4 and 5): `analysis_inseq` the request's label, `analysis_status`
 * the method 1–5, `testers` the test ids whose recordings are analysed (array, or comma-separated text).
 */
export const AnalysisRequestBody = Type.Object({
  analysis_inseq: Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Int32]),
  analysis_status: IntOrDigits,
  testers: Type.Union([
    Type.Array(IntOrDigits, { minItems: 1, maxItems: 1000 }),
    Type.String({ minLength: 1, maxLength: 16000, pattern: '^[0-9]+(,[0-9]+)*$' }),
  ]),
});
export type AnalysisRequestBody = Static<typeof AnalysisRequestBody>;

/** Result of analysis_request/request: the new request and how many recordings were queued or skipped. */
export const AnalysisRequestResult = Type.Object({
  id: Type.Integer(),
  message: Type.String(),
  queued: Type.Integer(),
  skipped: Type.Integer(),
});
export type AnalysisRequestResult = Static<typeof AnalysisRequestResult>;

/** analysis_request/index (GET): sort_key (default created_at) and sort_order (0 descending, default; 1 ascending). */
export const AnalysisIndexQuery = Type.Object({
  sort_key: Type.Optional(Type.Union(ANALYSIS_SORT_KEYS.map((k) => Type.Literal(k)))),
  sort_order: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1)])),
});
export type AnalysisIndexQuery = Static<typeof AnalysisIndexQuery>;

/** One row of the analysis-request history (spec §3 "Analysis request") with its progress. */
export const AnalysisRequestRow = Type.Object({
  id: Type.Integer(),
  inseq: Type.String(),
  /** queued, running, done (every recording analysed) or error (at least one failed). */
  status: Type.String(),
  env: Type.String(),
  result: Type.String(),
  method: Type.Integer(),
  created_at: Type.String(),
  updated_at: Type.String(),
  progress: Type.Object({
    total: Type.Integer(),
    done: Type.Integer(),
    failed: Type.Integer(),
    /** 0–100 over all recordings of the request. */
    percent: Type.Integer(),
  }),
});
export type AnalysisRequestRow = Static<typeof AnalysisRequestRow>;

export const AnalysisIndexResult = Type.Object({ analysis_requests: Type.Array(AnalysisRequestRow) });
export type AnalysisIndexResult = Static<typeof AnalysisIndexResult>;
