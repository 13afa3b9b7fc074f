import { Type, type Static } from 'typebox';
import { MAX_ID } from './common';
export * from './constants/management';

/** An integer, or its digits as a string (form posts). */
const IntOrDigits = Type.Union([
  Type.Integer({ minimum: -MAX_ID, maximum: MAX_ID }),
  Type.String({ pattern: '^-?[0-9]{1,15}$' }),
]);

/** A validation error's `result` (HTTP 400, `code: 'validation'`): the snake_case request field at fault. */
export const FieldErrorResult = Type.Object({ field: Type.String() });
export type FieldErrorResult = Static<typeof FieldErrorResult>;

// ---------------------------------------------------------------- management top page

/** management_initial_param: the server's public origin and its host name. */
export const ManagementInitialParamResult = Type.Object({ origin: Type.String(), domain: Type.String() });
export type ManagementInitialParamResult = Static<typeof ManagementInitialParamResult>;

/**
 * management_summary (spec §3): users with a live session now (testers / everyone else), and what today's
 * retention run deletes (test sittings / recordings).
 */
export const ManagementSummaryResult = Type.Object({
  logins: Type.Object({ tester_count: Type.Integer(), other_count: Type.Integer() }),
  delete_plan: Type.Object({ tester_count: Type.Integer(), record_count: Type.Integer() }),
});
export type ManagementSummaryResult = Static<typeof ManagementSummaryResult>;

/** analysis_request/initial_param: `domain` the server host, `env` 'demo' or 'production'. */
export const AnalysisInitialParamResult = Type.Object({ domain: Type.String(), env: Type.String() });
export type AnalysisInitialParamResult = Static<typeof AnalysisInitialParamResult>;

// ---------------------------------------------------------------- access limits

/** One access-limit rule (spec §3 "Access limit"); exactly one of ip and domain is set. */
export const AccessLimitRow = Type.Object({
  id: Type.Integer(),
  server: Type.String(),
  ip: Type.Union([Type.String(), Type.Null()]),
  domain: Type.Union([Type.String(), Type.Null()]),
  actor: Type.Integer(),
  created_at: Type.String(),
});
export type AccessLimitRow = Static<typeof AccessLimitRow>;

export const AccessLimitListResult = Type.Object({ list: Type.Array(AccessLimitRow) });
export type AccessLimitListResult = Static<typeof AccessLimitListResult>;

/**
 * insert_access_limit (spec §5): `ip` IPv4 (optionally a.b.c.d/n) or '', `domain` a host name or '',
 * exactly one of them; `actor` 2–5; `server` an FQDN without trailing slash, or '' for every server.
 */
export const AccessLimitInsertBody = Type.Object({
  server: Type.Optional(Type.String({ maxLength: 253 })),
  ip: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()])),
  domain: Type.Optional(Type.Union([Type.String({ maxLength: 253 }), Type.Null()])),
  actor: IntOrDigits,
});
export type AccessLimitInsertBody = Static<typeof AccessLimitInsertBody>;

/** delete_access_limit: ids of the selected rows; at least one. */
export const AccessLimitDeleteBody = Type.Object({
  ids: Type.Optional(Type.Array(IntOrDigits, { maxItems: 1000 })),
});
export type AccessLimitDeleteBody = Static<typeof AccessLimitDeleteBody>;

export const DeletedResult = Type.Object({ deleted: Type.Integer() });
export type DeletedResult = Static<typeof DeletedResult>;

// ---------------------------------------------------------------- logins

/**
 * logins query (spec §3 "Logins list"): actor_kind 1 testers (default), 2 everyone else, -1 all;
 * sort_key 1 login id, 2 group id, 3 actor, 4 target, 5 is mc startup, 6 status, 7 kicked, 8 rejected,
 * 9 updated at (default); sort_order 0 descending (default), 1 ascending; 50 rows per page unless
 * max_display_count (10–500) says otherwise.
 */
export const LoginsQuery = Type.Object({
  actor_kind: Type.Optional(Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(-1)])),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  sort_key: Type.Optional(Type.Integer({ minimum: 1, maximum: 9 })),
  sort_order: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1)])),
  max_display_count: Type.Optional(Type.Integer({ minimum: 10, maximum: 500 })),
});
export type LoginsQuery = Static<typeof LoginsQuery>;

/**
 * One logged-in user. `updated_at` is the last activity of the user's live sessions. For an examinee,
 * `status` (tester state 0–7 of spec §4), `is_mc_startup`, `kicked`, `rejected` and `target` are those of
 * the current sitting, the one tester/detail shows; for anyone else `status` is null (the tester states do
 * not apply). `target` is the auth server the user's start-up named ('' = this server). `group` is the
 * exam group's name, `group_code` its code.
 */
export const LoginRow = Type.Object({
  exam_user_id: Type.Integer(),
  login_id: Type.String(),
  ex_login_id: Type.Union([Type.String(), Type.Null()]),
  group_id: Type.Union([Type.Integer(), Type.Null()]),
  group: Type.Union([Type.String(), Type.Null()]),
  group_code: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  actor: Type.Integer(),
  target: Type.String(),
  is_mc_startup: Type.Integer(),
  status: Type.Union([Type.Integer(), Type.Null()]),
  kicked: Type.Integer(),
  rejected: Type.Integer(),
  updated_at: Type.String(),
});
export type LoginRow = Static<typeof LoginRow>;

export const LoginsResult = Type.Object({
  count: Type.Integer(),
  page_count: Type.Integer(),
  page: Type.Integer(),
  list: Type.Array(LoginRow),
});
export type LoginsResult = Static<typeof LoginsResult>;

/** logins/force_logout: ends every session of the user. */
export const ForceLogoutBody = Type.Object({ user_id: IntOrDigits });
export type ForceLogoutBody = Static<typeof ForceLogoutBody>;
export const ForceLogoutResult = Type.Object({ user_id: Type.Integer(), revoked: Type.Integer() });
export type ForceLogoutResult = Static<typeof ForceLogoutResult>;

// ---------------------------------------------------------------- retention (cleaner)

/** One retention row: `group`/`group_code` are the exam group's name and code (null for system rows). */
export const CleanerSettingRow = Type.Object({
  id: Type.Integer(),
  group_id: Type.Integer(),
  group: Type.Union([Type.String(), Type.Null()]),
  group_code: Type.Union([Type.String(), Type.Null()]),
  duration: Type.Integer(),
  updated_at: Type.String(),
});
export type CleanerSettingRow = Static<typeof CleanerSettingRow>;

export const CleanerSettingListResult = Type.Object({ list: Type.Array(CleanerSettingRow) });
export type CleanerSettingListResult = Static<typeof CleanerSettingListResult>;

/** setting_store: a per-group row (an existing exam group without a row yet). */
export const CleanerStoreBody = Type.Object({ group_id: IntOrDigits, duration: IntOrDigits });
export type CleanerStoreBody = Static<typeof CleanerStoreBody>;

/** setting_update: a new duration for an existing row (system rows included). */
export const CleanerUpdateBody = Type.Object({ id: IntOrDigits, duration: IntOrDigits });
export type CleanerUpdateBody = Static<typeof CleanerUpdateBody>;

/** cleaner/csv: `execution_time` is `yyyy-MM-dd 00:00:00` (or just the date) of the planned run. */
export const CleanerCsvQuery = Type.Object({
  key: Type.Union([Type.Literal('tester'), Type.Literal('record')]),
  execution_time: Type.String({ maxLength: 32 }),
});
export type CleanerCsvQuery = Static<typeof CleanerCsvQuery>;

// ---------------------------------------------------------------- short URLs

// Ranges per field are checked by the server (spec §5); the contract bounds what any integer may be.
const Num = Type.Optional(
  Type.Union([Type.Integer({ minimum: -MAX_ID, maximum: MAX_ID }), Type.String({ maxLength: 16 })]),
);
const Str = (maxLength: number) => Type.Optional(Type.String({ maxLength }));

/**
 * Start-up parameters a short URL carries (spec §3 "Short-URL form fields"), snake_case as in a start-up
 * query. Numeric fields may arrive as digit strings and are stored as numbers. Flags are 0/1.
 *
 * - lang 'ja' | 'en' | 'zn'; is_mobile, is_mc_startup (MC+ use), is_proctor, is_auth (identity auth).
 * - exam_url: external launch URL, http(s), only when is_mc_startup is 0.
 * - region (venue), exam_name (test name), exam_datetime; is_voice_recording, is_record, is_summary.
 * - max_rectime (s), matching_timeout (s), tester_retry, checker_retry, webrtc_timeout (retry interval, s),
 *   intervaltime (interruption estimate, min), webrtc_max_time (s).
 * - is_debug, is_conv (video conversion), video_recording_preference 1–20, voice_quality_preference 1–10.
 * - selected_analysis_types: subset of ANALYSIS_TYPES (array or comma-separated text; stored as text).
 * - password_url (forgot-password URL, http(s)), memo ≤ 500, term_set_code (notes for /examining) ≤ 30.
 * - mode: only for a login category other than tester.
 * - is_ai_auth (auth kind: 0 monitor, 1 AI), is_ai_faild_manual (on AI failure: 0 forced logout,
 *   1 monitor authentication, 2 continue), is_ai_idcard_request (collect ID image),
 *   ai_face_retry, ai_idcard_retry, ai_all_retry, ai_namematch 1–100.
 * - ai_idcard_type: public ID types (subset of ID_CARD_TYPES; array or '1,2,3'; stored as '1,2,3'),
 *   at least one for a tester URL.
 * - capture_interval 0–3600 (s), capture_type (0 no AI check, 1 AI realtime, 2 AI post analysis),
 *   is_capture_show (show the capture image on the monitor screen), ai_sensitivity (strict | standard |
 *   relaxed: the thresholds of the stills' AI flags and which flags alert the checker; standard when absent).
 * - group: the exam group (its code) a tester URL is for; an examinee of another group cannot start a sitting
 *   through it. Empty: any group.
 * - The wider view (contract/wider-view.ts), flags of a tester URL only: is_screen_record (the examinee shares the
 *   entire screen before the exam; it goes live to the checker and is recorded as its own recording; not with
 *   is_mobile 1, whose browsers cannot share a screen), is_room_scan (a guided room scan before the exam,
 *   recorded as its own short recording; a checker may ask for another during the exam), is_phone_camera (a
 *   phone paired by QR code as a second camera, live and recorded).
 */
export const ShortUrlParamInput = Type.Object({
  lang: Str(2),
  is_mobile: Num,
  is_mc_startup: Num,
  is_proctor: Num,
  is_auth: Num,
  exam_url: Str(2048),
  region: Str(256),
  exam_name: Str(256),
  exam_datetime: Str(32),
  is_voice_recording: Num,
  is_record: Num,
  is_summary: Num,
  max_rectime: Num,
  matching_timeout: Num,
  tester_retry: Num,
  checker_retry: Num,
  webrtc_timeout: Num,
  intervaltime: Num,
  webrtc_max_time: Num,
  is_debug: Num,
  is_conv: Num,
  video_recording_preference: Num,
  voice_quality_preference: Num,
  selected_analysis_types: Type.Optional(
    Type.Union([
      Type.String({ maxLength: 128 }),
      Type.Array(Type.String({ maxLength: 32 }), { maxItems: 8 }),
    ]),
  ),
  password_url: Str(2048),
  memo: Str(2000),
  term_set_code: Str(200),
  mode: Num,
  is_ai_auth: Num,
  is_ai_faild_manual: Num,
  is_ai_idcard_request: Num,
  ai_face_retry: Num,
  ai_idcard_retry: Num,
  ai_all_retry: Num,
  ai_namematch: Num,
  ai_idcard_type: Type.Optional(
    Type.Union([
      Type.String({ maxLength: 32 }),
      Type.Array(Type.Union([Type.Integer({ minimum: 0, maximum: 99 }), Type.String({ maxLength: 4 })]), {
        maxItems: 8,
      }),
    ]),
  ),
  capture_interval: Num,
  capture_type: Num,
  is_capture_show: Num,
  group: Str(64),
  ai_sensitivity: Str(16),
  is_screen_record: Num,
  is_room_scan: Num,
  is_phone_camera: Num,
});
export type ShortUrlParamInput = Static<typeof ShortUrlParamInput>;

/** shorten_url/insert: `actor` is the login category (1 tester … 5 supervisor); `target` the auth server. */
export const ShortUrlInsertBody = Type.Object({
  url_key: Type.String({ maxLength: 256 }),
  actor: IntOrDigits,
  target: Type.Optional(Type.String({ maxLength: 253 })),
  param: Type.Optional(ShortUrlParamInput),
});
export type ShortUrlInsertBody = Static<typeof ShortUrlInsertBody>;

/** shorten_url/update: the whole row again, by id. */
export const ShortUrlUpdateBody = Type.Object({
  id: IntOrDigits,
  url_key: Type.String({ maxLength: 256 }),
  actor: IntOrDigits,
  target: Type.Optional(Type.String({ maxLength: 253 })),
  param: Type.Optional(ShortUrlParamInput),
});
export type ShortUrlUpdateBody = Static<typeof ShortUrlUpdateBody>;

export const ShortUrlDeleteBody = Type.Object({ id: IntOrDigits });
export type ShortUrlDeleteBody = Static<typeof ShortUrlDeleteBody>;

/** One short URL (spec §3 "Short URL"); `url` is the full start-up address `{origin}/s/{url_key}`. */
export const ShortUrlRow = Type.Object({
  id: Type.Integer(),
  actor: Type.Integer(),
  target: Type.String(),
  url_key: Type.String(),
  url: Type.String(),
  param: Type.Record(Type.String(), Type.Unknown()),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type ShortUrlRow = Static<typeof ShortUrlRow>;

export const ShortUrlListResult = Type.Object({ list: Type.Array(ShortUrlRow) });
export type ShortUrlListResult = Static<typeof ShortUrlListResult>;
