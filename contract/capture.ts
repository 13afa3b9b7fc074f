import { Type, type Static, type TSchema } from 'typebox';
import { CAPTURE_MAX_AGE_MS, LIVE_FEED_MAX_WAIT_SECONDS } from './constants/capture';
export * from './constants/capture';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);

/**
 * tester/capture.php POST (actor 1, its own open sitting). `image` is base64 (optionally a data: URL);
 * `client_key` names the still so a resend after a lost answer stores nothing twice; `age_ms` is how long
 * ago the page took it, on its own monotonic clock (the server dates it: receive time − age).
 */
export const CaptureBody = Type.Object({
  // Bounded by the route's body limit (413); a decoded still above CAPTURE_MAX_BYTES is refused with 413 too.
  image: Type.String({ minLength: 1, maxLength: 2 * 1024 * 1024 }),
  content_type: Type.Optional(Type.String({ maxLength: 64 })),
  client_key: Type.String({ pattern: '^[A-Za-z0-9_-]{8,64}$' }),
  age_ms: Type.Integer({ minimum: 0, maximum: CAPTURE_MAX_AGE_MS }),
});
export type CaptureBody = Static<typeof CaptureBody>;

/**
 * tester/capture.php result. `analysis`: none (stored for the checker only), realtime (being analysed now) or
 * post (analysed after the exam). The examinee is not told what the AI saw.
 */
export const CaptureResult = Type.Object({
  capture_id: Type.Integer(),
  captured_at: Type.String(),
  analysis: Type.Union([Type.Literal('none'), Type.Literal('realtime'), Type.Literal('post')]),
  /** The next still is due in this many seconds (the sitting's capture_interval). */
  interval: Type.Integer(),
});
export type CaptureResult = Static<typeof CaptureResult>;

/** One AI flag from stills as the checker's console shows it. */
export const LiveFlag = Type.Object({
  id: Type.Integer(),
  flag: Type.Union([
    Type.Literal('no_face'),
    Type.Literal('several_people'),
    Type.Literal('other_person'),
    Type.Literal('looking_away'),
  ]),
  /** The analysis type it counts as (eye_rot, people_num, other_person): what managers filter by. */
  analysis_type: Type.String(),
  /** 0–1, the highest of the episode's stills. */
  confidence: Type.Number(),
  /** When the first still of the episode was taken, and when its last still stops standing (ISO 8601). */
  started_at: Type.String(),
  ended_at: Type.String(),
  /** Taken while the examinee's connection was down: kept and shown, not scored, no alert. */
  excused: Type.Boolean(),
  /** At or above the sitting's sensitivity: the console alerts the checker. */
  alert: Type.Boolean(),
  /** The still that started it (presigned, short-lived), or null when stills are not shown on this sitting. */
  image_url: Nullable(Type.String()),
});
export type LiveFlag = Static<typeof LiveFlag>;

/** What one matched examinee's stills say now. */
export const LivePane = Type.Object({
  monitor_id: Type.Integer(),
  tester_id: Type.Integer(),
  test_id: Type.Integer(),
  capture_interval: Type.Integer(),
  capture_type: Type.Integer(),
  is_capture_show: Type.Boolean(),
  sensitivity: Type.Union([Type.Literal('strict'), Type.Literal('standard'), Type.Literal('relaxed')]),
  /** The newest still (its URL only when stills are shown), or null before the first. */
  latest_capture: Nullable(
    Type.Object({
      id: Type.Integer(),
      captured_at: Type.String(),
      status: Type.String(),
      url: Nullable(Type.String()),
    }),
  ),
  /** Flags of the whole sitting so far: scored ones, and excused ones. */
  flag_count: Type.Integer(),
  excused_count: Type.Integer(),
  /** Flags whose episode was active in the last LIVE_TIMELINE_MINUTES, oldest first. */
  flags: Type.Array(LiveFlag),
});
export type LivePane = Static<typeof LivePane>;

/**
 * checker/live_feed.php GET (actor 2). Without `version`, or with one that is no longer current, it answers
 * at once; with the current `version` and `wait` > 0 it answers as soon as something changes for one of the
 * checker's examinees, or after `wait` seconds with the same picture (a long poll).
 */
export const LiveFeedQuery = Type.Object({
  version: Type.Optional(Type.String({ maxLength: 512 })),
  wait: Type.Optional(
    Type.Union([
      Type.Integer({ minimum: 0, maximum: LIVE_FEED_MAX_WAIT_SECONDS }),
      Type.String({ pattern: '^([0-9]|1[0-9]|2[0-5])$' }),
    ]),
  ),
});
export type LiveFeedQuery = Static<typeof LiveFeedQuery>;

/** checker/live_feed.php result: one entry per matched examinee, and the version to send next time. */
export const LiveFeedResult = Type.Object({
  version: Type.String(),
  server_time: Type.String(),
  panes: Type.Array(LivePane),
});
export type LiveFeedResult = Static<typeof LiveFeedResult>;
