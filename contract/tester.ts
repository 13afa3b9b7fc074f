import { Type, type Static, type TSchema } from 'typebox';
import { IdInteger, Int32 } from './common';
import { WebrtcMessage } from './messages';
import { Stream } from './recording';
export * from './constants/tester';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
/**
 * Every timestamp the server sends: ISO 8601 with milliseconds and the offset of the deployment's time zone,
 * e.g. `2026-11-25T08:19:42.435+09:00` (README "Times").
 */
const Timestamp = Nullable(Type.String());
/** Seconds from the start of a recording (a flagged moment or interval within it). */
const PlayTime = Nullable(Type.Integer({ minimum: 0 }));

// ---------------------------------------------------------------- tester/detail

export const TesterDetailQuery = Type.Object({
  tester_id: Type.Optional(IdInteger),
  test_id: Type.Optional(IdInteger),
  latest: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 })),
});
export type TesterDetailQuery = Static<typeof TesterDetailQuery>;

/**
 * spec §3 "Marking", plus the mark's message, label and score. `mark` is the mark id. `play_time_from/to`:
 * where the marked moment lies in its recording (seconds from the recording's start; the same second for a
 * checker's marking, which marks an instant), null when the marking has no recording.
 */
export const Marking = Type.Object({
  id: Type.Integer(),
  marking_at: Type.String(),
  url: Nullable(Type.String()),
  mark: Nullable(Type.Integer()),
  message: Type.String(),
  label: Type.String(),
  score: Type.Integer(),
  record_id: Nullable(Type.Integer()),
  play_time_from: Type.Optional(PlayTime),
  play_time_to: Type.Optional(PlayTime),
});
export type Marking = Static<typeof Marking>;

export const MarkingSummary = Type.Object({
  mark: Type.Integer(),
  message: Type.String(),
  label: Type.String(),
  count: Type.Integer(),
});
export type MarkingSummary = Static<typeof MarkingSummary>;

/**
 * An AI-analysis marking; `mark` is the analysis type (eye_rot, other_person, people_num, voice).
 * `play_time_from/to`: the flagged interval in its recording, in seconds (start_ms / end_ms rounded down / up).
 */
export const AiMarking = Type.Object({
  id: Type.Integer(),
  marking_at: Type.String(),
  url: Nullable(Type.String()),
  mark: Type.String(),
  score: Type.Integer(),
  record_id: Nullable(Type.Integer()),
  start_ms: Type.Integer(),
  end_ms: Type.Integer(),
  play_time_from: Type.Optional(PlayTime),
  play_time_to: Type.Optional(PlayTime),
  /** Where it comes from: the analysis of a recording, or the live stills of the exam (capture_type 1/2). */
  source: Type.Optional(Type.Union([Type.Literal('recording'), Type.Literal('capture')])),
  /** For a live still: what it showed (no_face, several_people, other_person, looking_away). */
  flag: Type.Optional(Nullable(Type.String())),
  /** 0–1 (the score is this as a percentage). */
  confidence: Type.Optional(Type.Number()),
  /**
   * Taken while the examinee's connection was down ('late': the still reached the server long after it was
   * taken; 'connection_gap': inside a silence of the matching polls): listed, not counted, not scored.
   */
  excused: Type.Optional(Type.Boolean()),
  excuse_reason: Type.Optional(Nullable(Type.String())),
});
export type AiMarking = Static<typeof AiMarking>;
export const AiMarkingSummary = Type.Object({ mark: Type.String(), count: Type.Integer() });

/**
 * One AI identity-check attempt as stored, for managers (why the check decided as it did): the photo kind
 * (face / id_card), the outcome (ok, rejected, unreadable, mismatch, name_mismatch, unavailable), the
 * verdict's reason (no_face, blurred, face_different, face_uncertain, id_type_not_allowed, …), the scores
 * (faces, sharpness, luma, cosine, match_class 1 same / 2 uncertain / 3 different, live_cosine, name_match,
 * id_type_read, …) and the photo.
 */
export const AiAuthAttempt = Type.Object({
  id: Type.Integer(),
  kind: Type.String(),
  outcome: Type.String(),
  reason: Type.String(),
  scores: Type.Record(Type.String(), Type.Number()),
  image_url: Nullable(Type.String()),
  created_at: Type.String(),
});
export type AiAuthAttempt = Static<typeof AiAuthAttempt>;

/**
 * The AI identity check of a sitting: `status` 0 in progress, 1 passed, 2 handed to monitor authentication,
 * 3 forced logout, 4 continued with the last photos for manager review (AI_AUTH_STATUS); the retries used;
 * every attempt, oldest first.
 */
export const AiAuthSummary = Type.Object({
  status: Type.Integer(),
  face_retry: Type.Integer(),
  id_card_retry: Type.Integer(),
  ai_all_retry: Type.Integer(),
  attempts: Type.Array(AiAuthAttempt),
});
export type AiAuthSummary = Static<typeof AiAuthSummary>;

/**
 * spec §3 "Record" (detail variant). `movie_status` is the record status code of spec §4 (00–08).
 * `play_time_from/to`: the playable range in seconds (0 and the duration), null until the duration is known.
 *
 * Not sent: spec §3 `url`. A playback address is a short-lived signed URL; one in the detail would be handed
 * to everyone who reads the detail and would expire before it is used, so it comes per recording, on request,
 * from get_onetime_uri (`{id, url}`), which checks who asks each time.
 */
export const TesterRecord = Type.Object({
  id: Type.Integer(),
  /** What it records (contract/wider-view.ts STREAM_KINDS); absent from an API without streams: the camera. */
  stream: Type.Optional(Stream),
  start_at: Type.String(),
  stop_at: Timestamp,
  encoded_at: Timestamp,
  ai_analysis_batch_reflected_at: Timestamp,
  ai_analysis_reflected_at: Timestamp,
  ai_analysis_batch_flag: Type.Integer(),
  ai_analysis_flag: Type.Integer(),
  movie_status: Type.String(),
  detail: Type.String(),
  play_time_from: PlayTime,
  play_time_to: PlayTime,
  /** Bytes stored once the recording is completed (0: no video reached the storage); null while it records. */
  size: Type.Optional(Nullable(Type.Integer())),
  /** Length of the stored video in ms when known (after the duration fix); null otherwise. */
  duration_ms: Type.Optional(Nullable(Type.Integer())),
  /**
   * A reload cut it off (the page was reloaded during a room scan or a screen share): it ends where the page
   * went, completed by that page as it unloaded or by the server from what had reached the storage.
   */
  interrupted: Type.Optional(Type.Boolean()),
});
export type TesterRecord = Static<typeof TesterRecord>;

/** Start-up parameters of the sitting as stored (secrets removed); is_proctor and memo always present. */
export const DetailStartupParameters = Type.Object(
  { is_proctor: Type.Integer(), memo: Type.String() },
  { additionalProperties: true },
);

export const RelatedTester = Type.Object({
  tester_id: Type.Integer(),
  test_id: Nullable(Type.Integer()),
  exam_name: Type.String(),
  status: Type.Integer(),
  login_id: Type.String(),
  startup_parameters: Type.Object({ is_proctor: Type.Integer() }),
});

/** spec §4 "Examinee log" event of a sitting, as the server recorded it (examinee_logs). */
export const ExamineeLogEntry = Type.Object({
  /** login, matched, authenticated, exam_start, exam_end, logout, kicked, … (EXAMINEE_LOG_EVENTS). */
  event: Type.String(),
  detail: Type.String(),
  created_at: Type.String(),
});
export type ExamineeLogEntry = Static<typeof ExamineeLogEntry>;

/** A record-status change of one of the sitting's recordings (record_status_logs), oldest first. */
export const RecordStatusLogEntry = Type.Object({
  record_id: Type.Integer(),
  /** Record status code of spec §4, 00–08. */
  movie_status: Type.String(),
  detail: Type.String(),
  created_at: Type.String(),
});
export type RecordStatusLogEntry = Static<typeof RecordStatusLogEntry>;

/**
 * spec §3 "Tester detail". `kicked`, `test_status`, `exam_process`, `cheating_level`, `group_code`,
 * `examinee_logs` and `record_status_logs` are extras.
 *
 * - `group` is the exam group's name, as in the search, the logins list and the CSV; `group_code` its code.
 * - Not sent: spec §3 `r_exam_name`. Nothing in this system collects a second form of the examinee's name
 *   (the field was always empty); the examinee's name is `exam_name`.
 */
export const TesterDetail = Type.Object({
  user_id: Type.Integer(),
  test_id: Type.Integer(),
  tester_id: Type.Integer(),
  login_id: Type.String(),
  ex_login_id: Nullable(Type.String()),
  name: Type.String(),
  group_id: Nullable(Type.Integer()),
  group: Nullable(Type.String()),
  group_code: Nullable(Type.String()),
  test_name: Type.String(),
  region: Type.String(),
  test_at: Timestamp,
  stop_at: Timestamp,
  exam_name: Type.String(),
  status: Type.Integer(),
  /** The sitting's cheating level, 0 none … 3 high (README "Cheating level"), as in the search and CSV. */
  cheating_level: Type.Integer(),
  test_status: Nullable(Type.Integer()),
  exam_process: Nullable(Type.Integer()),
  is_mc_startup: Type.Integer(),
  matched_at: Timestamp,
  authenticated_at: Timestamp,
  login_at: Timestamp,
  logout_at: Timestamp,
  ai_namematch: Nullable(Type.Integer()),
  rejected: Type.Integer(),
  kicked: Type.Integer(),
  startup_parameters: DetailStartupParameters,
  head_shot_uri: Nullable(Type.String()),
  id_card_uri: Nullable(Type.String()),
  /** When the head shot was last stored (tests.head_shot_at); null without one. */
  head_shot_updated_at: Timestamp,
  /** When the ID card image was last stored (tests.id_card_at); null without one. */
  id_card_updated_at: Timestamp,
  marking_summaries: Type.Array(MarkingSummary),
  marking_total_score: Type.Integer(),
  markings: Type.Array(Marking),
  ai_marking_summaries: Type.Array(AiMarkingSummary),
  ai_marking_total_score: Type.Integer(),
  ai_markings: Type.Array(AiMarking),
  /**
   * The AI identity check with every decision and its scores, so a decision can be reviewed. Only for
   * monitors and managers (never in the examinee's own detail); null when the sitting had no AI check.
   */
  ai_auth: Type.Optional(Nullable(AiAuthSummary)),
  records: Type.Array(TesterRecord),
  messages: Type.Array(WebrtcMessage),
  testers: Type.Array(RelatedTester),
  /**
   * When the sitting's first recording started (ISO 8601), or null before it: the maximum recording time
   * (start-up max_rectime) counts from here, so a reload or a new login never resets it.
   */
  recording_started_at: Type.Optional(Timestamp),
  /** Server time of this answer (ISO 8601), so a page can count the remaining recording time on its clock. */
  server_time: Type.Optional(Type.String()),
  /** The sitting's examinee log (spec §2, §4), oldest first. */
  examinee_logs: Type.Array(ExamineeLogEntry),
  /** The status history of the sitting's recordings (spec §2 "record-status log"), oldest first. */
  record_status_logs: Type.Array(RecordStatusLogEntry),
});
export type TesterDetail = Static<typeof TesterDetail>;

// ---------------------------------------------------------------- tester/status

export const TesterStatusBody = Type.Object({
  tester_id: Type.Optional(IdInteger),
  status: Type.Integer({ minimum: 0, maximum: 7 }),
});
export type TesterStatusBody = Static<typeof TesterStatusBody>;

export const TesterStatusResult = Type.Object({
  tester_id: Type.Integer(),
  test_id: Type.Integer(),
  status: Type.Integer(),
  previous_status: Type.Integer(),
  changed: Type.Boolean(),
});
export type TesterStatusResult = Static<typeof TesterStatusResult>;

// ---------------------------------------------------------------- test/status, exam/status

export const TestStatusBody = Type.Object({
  login_id: Type.Optional(Type.String({ maxLength: 128 })),
  term_set_code: Type.Optional(Type.String({ maxLength: 128 })),
  process: Type.Integer({ minimum: 0, maximum: 4 }),
  eai: Type.Optional(Type.String({ maxLength: 256 })),
  test_name: Type.Optional(Type.String({ maxLength: 256 })),
  region: Type.Optional(Type.String({ maxLength: 256 })),
  group_id: Type.Optional(Type.Union([Int32, Type.String({ maxLength: 64 }), Type.Null()])),
  group: Type.Optional(Type.Union([Type.String({ maxLength: 256 }), Type.Null()])),
});
export type TestStatusBody = Static<typeof TestStatusBody>;

export const TestStatusResult = Type.Object({
  test_id: Type.Integer(),
  test_status: Type.Integer(),
  exam_process: Type.Integer(),
});
export type TestStatusResult = Static<typeof TestStatusResult>;

// ---------------------------------------------------------------- get_mc_token

export const McTokenBody = Type.Object({ mode: Type.Union([Type.Literal(1), Type.Literal(2)]) });
export type McTokenBody = Static<typeof McTokenBody>;
export const McTokenResult = Type.Object({
  access_token: Type.String(),
  window_open_url: Type.String(),
  expires_in: Type.Integer(),
});
export type McTokenResult = Static<typeof McTokenResult>;

/** redeem_mc_token.php body: the token from window_open_url; each token is accepted once. */
export const McTokenRedeemBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 400 }) });
export type McTokenRedeemBody = Static<typeof McTokenRedeemBody>;

/** redeem_mc_token.php result: who the token was issued to, and whether the sitting is proctored now. */
export const McTokenRedeemResult = Type.Object({
  mode: Type.Union([Type.Literal(1), Type.Literal(2)]),
  test_id: Type.Integer(),
  login_id: Type.String(),
  exam_user_name: Type.String(),
  /** The exam's name (start-up exam_name, stored as the sitting's test name). */
  test_name: Type.String(),
  tester_status: Type.Integer(),
  /** The sitting's language (start-up lang; 'ja' when none was given), for the exam system's pages. */
  lang: Type.Union([Type.Literal('ja'), Type.Literal('en')]),
  /** A checker watches the examinee now (a live matching with a checker), and whether video is connected. */
  proctoring: Type.Object({ matched: Type.Boolean(), connected: Type.Boolean() }),
});
export type McTokenRedeemResult = Static<typeof McTokenRedeemResult>;

// ---------------------------------------------------------------- kick_out, rejected

export const KickOutBody = Type.Object({
  tester_id: Type.Optional(IdInteger),
  method: Type.Union([
    Type.Literal('PUT'),
    Type.Literal('PUT_MYSELF'),
    Type.Literal('PUT_MYSELF_AI'),
    Type.Literal('DELETE'),
    Type.Literal('DISCONNECT'),
  ]),
});
export type KickOutBody = Static<typeof KickOutBody>;
export const KickOutResult = Type.Object({
  tester_id: Type.Integer(),
  test_id: Nullable(Type.Integer()),
  method: Type.String(),
  kicked: Type.Integer(),
});
export type KickOutResult = Static<typeof KickOutResult>;

export const RejectedBody = Type.Object({
  tester_id: IdInteger,
  method: Type.Union([Type.Literal('PUT'), Type.Literal('DELETE')]),
});
export type RejectedBody = Static<typeof RejectedBody>;
export const RejectedResult = Type.Object({
  tester_id: Type.Integer(),
  test_id: Type.Integer(),
  rejected: Type.Integer(),
});
export type RejectedResult = Static<typeof RejectedResult>;

// ---------------------------------------------------------------- markings

/**
 * tester/markings POST, as JSON (image = base64, optionally a data: URL) or multipart/form-data (the same
 * fields as text, the image as a file part named `image`).
 */
export const MarkingBody = Type.Object({
  tester_id: IdInteger,
  mark: IdInteger,
  image: Type.Optional(Type.String({ maxLength: 8 * 1024 * 1024 })),
  content_type: Type.Optional(Type.String({ maxLength: 64 })),
  time_lag: Type.Optional(Type.Integer({ minimum: 0, maximum: 3_600_000 })),
  notification: Type.Optional(Type.Union([Type.Literal(0), Type.Literal(1)])),
});
export type MarkingBody = Static<typeof MarkingBody>;
export const MarkingResult = Type.Object({
  alert: Type.String(),
  url: Nullable(Type.String()),
  marking_id: Type.Integer(),
  marking_total_score: Type.Integer(),
});
export type MarkingResult = Static<typeof MarkingResult>;

export const TestMarkingsQuery = Type.Object({ test_id: Type.Optional(IdInteger) });
export type TestMarkingsQuery = Static<typeof TestMarkingsQuery>;
export const TestMarkingsResult = Type.Object({
  test_id: Type.Integer(),
  markings: Type.Array(Marking),
  marking_total_score: Type.Integer(),
  records: Type.Array(TesterRecord),
});
export type TestMarkingsResult = Static<typeof TestMarkingsResult>;

// ---------------------------------------------------------------- head shot, image

/** tester/head_shot POST: JSON base64 `{image, content_type}` or multipart with a file part `image`. */
export const ImageBody = Type.Object({
  image: Type.Optional(Type.String({ maxLength: 8 * 1024 * 1024 })),
  content_type: Type.Optional(Type.String({ maxLength: 64 })),
});
export type ImageBody = Static<typeof ImageBody>;
export const HeadShotPostResult = Type.Object({ url: Type.String() });
export const HeadShotQuery = Type.Object({ tester_id: Type.Optional(IdInteger) });
export type HeadShotQuery = Static<typeof HeadShotQuery>;
export const HeadShotResult = Type.Object({ url: Nullable(Type.String()), updated_at: Timestamp });
export type HeadShotResult = Static<typeof HeadShotResult>;
