import { Type, type Static } from 'typebox';
import { Id } from './common';
export * from './constants/matching';
import { PHONE_CAMERAS, PHONE_LOST_REASONS, PHONE_STATES } from './constants/phone';

/** Channel status a poll reports (spec §4 "Matching channel status"). */
export const ChannelStatus = Type.Union([
  Type.Literal('open'),
  Type.Literal('close'),
  Type.Literal('failed'),
  Type.Literal('error'),
]);
export type ChannelStatus = Static<typeof ChannelStatus>;

/** Boolean as JSON or as a form value: true/false, 1/0, "true"/"false", "1"/"0". */
export const BoolLike = Type.Union([
  Type.Boolean(),
  Type.Literal(0),
  Type.Literal(1),
  Type.Literal('0'),
  Type.Literal('1'),
  Type.Literal('true'),
  Type.Literal('false'),
]);
export type BoolLike = Static<typeof BoolLike>;

/**
 * matching.php body. A tester (actor 1) reports its own channel: `tester_id` is optional and must be its own
 * user id. A checker (actor 2) reports its liveness; with `tester_id` (one of its matched testers) its
 * `channel_status` counts toward that matching's checker retries and `matching_command: 1` asks that tester
 * to reset its signaling channel. A tester's `matching_command: 1` acknowledges a reset.
 */
export const MatchingBody = Type.Object({
  tester_id: Type.Optional(Id),
  channel_status: Type.Optional(ChannelStatus),
  /** Free-form connection statistics (at most MATCHING_STATS_MAX_BYTES as JSON). */
  stats: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  matching_command: Type.Optional(
    Type.Union([Type.Literal(0), Type.Literal(1), Type.Literal('0'), Type.Literal('1')]),
  ),
});
export type MatchingBody = Static<typeof MatchingBody>;

/**
 * Signaling channel credentials of spec §3. Valid only with region, both keys and the channel name. The
 * tester receives them for its own channel (MASTER); a checker for each matched tester's channel (VIEWER).
 */
export const SignalingChannel = Type.Object({
  region: Type.String(),
  access_key_id: Type.String(),
  secret_access_key: Type.String(),
  session_token: Type.String(),
  channel_name: Type.String(),
  /** KVS endpoint override: present only with the local stand-in (`<origin>/kvs`). */
  endpoint: Type.Optional(Type.String()),
  /** When the credentials expire (ISO 8601); ask kvs_reconnect for fresh ones before then. */
  expiration: Type.String(),
});
export type SignalingChannel = Static<typeof SignalingChannel>;

/** The phone camera's state (PHONE_STATES), which camera it uses, and why it was lost (contract/phone.ts). */
export const PhoneStateSchema = Type.Union([
  Type.Literal(PHONE_STATES[0]),
  Type.Literal(PHONE_STATES[1]),
  Type.Literal(PHONE_STATES[2]),
  Type.Literal(PHONE_STATES[3]),
]);
export const PhoneCameraSchema = Type.Union([Type.Literal(PHONE_CAMERAS[0]), Type.Literal(PHONE_CAMERAS[1])]);
export const PhoneLostReasonSchema = Type.Union([
  Type.Literal(PHONE_LOST_REASONS[0]),
  Type.Literal(PHONE_LOST_REASONS[1]),
  Type.Literal(PHONE_LOST_REASONS[2]),
]);

/**
 * The sitting's phone camera as a matching carries it (only for a sitting with the phone camera on): its state
 * and since when; for the matched checker, the VIEWER credentials of the phone's channel while a phone is paired
 * and not lost (the checker connects with the matching's `viewer_client_id`, the only viewer the phone answers).
 */
export const PhoneView = Type.Object({
  state: PhoneStateSchema,
  /** When the current state began (ISO 8601); null while waiting. */
  since: Type.Union([Type.String(), Type.Null()]),
  /** Why the phone was lost (state `lost` only). */
  lost_reason: Type.Optional(PhoneLostReasonSchema),
  /** The camera the phone publishes, once it said. */
  camera: Type.Union([PhoneCameraSchema, Type.Null()]),
  /** The checker's viewer credentials of the phone's channel; null for the examinee and while none is needed. */
  signaling_channel: Type.Union([SignalingChannel, Type.Null()]),
});
export type PhoneView = Static<typeof PhoneView>;

/** Start-up parameters as stored for the sitting (snake_case; secrets removed). */
export const StartupParameters = Type.Record(Type.String(), Type.Unknown());

/**
 * Matching of spec §3. `file_name` is the file name of the sitting's newest recording ('' before the first).
 * Not sent: spec §3 `r_exam_name`, which nothing in this system collects (it was always empty); the
 * examinee's name is `exam_name`.
 */
export const Matching = Type.Object({
  /** The matching's id. */
  monitor_id: Type.Integer(),
  /** The examinee's user id. */
  tester_id: Type.Integer(),
  /** The sitting (tests.id). */
  test_id: Type.Integer(),
  checker_id: Type.Union([Type.Integer(), Type.Null()]),
  file_name: Type.String(),
  matching_status: Type.Integer({ minimum: -1, maximum: 2 }),
  login_id: Type.String(),
  ex_login_id: Type.Union([Type.String(), Type.Null()]),
  exam_name: Type.String(),
  /** Tester state of spec §4 (0 none … 7 finish exam). */
  tester_status: Type.Integer(),
  rejected: Type.Integer(),
  kicked: Type.Integer(),
  /** Seconds since the matching was created. */
  matching_total_time: Type.Integer(),
  /** Seconds spent connected (status 2), including the current connection. */
  matching_connected_time: Type.Integer(),
  startup_parameters: StartupParameters,
  /** 1 = reset the signaling channel; delivered once to the side it is meant for. */
  matching_command: Type.Integer(),
  /** Null when the receiver needs no channel (not proctored, kicked, invalid). */
  signaling_channel: Type.Union([SignalingChannel, Type.Null()]),
  /**
   * The signaling ClientId of the matched checker's viewer, chosen by the server when the checker was
   * assigned; null while no checker is assigned. The checker connects with it; the examinee answers offers
   * only from it, so a removed checker (or anyone else with viewer credentials) gets no answer. Absent from
   * an API that does not choose ClientIds (the SPA then keeps answering any viewer).
   */
  viewer_client_id: Type.Optional(Type.Union([Type.String(), Type.Null()])),
  /** The sitting's phone camera (start-up is_phone_camera); absent when the sitting has none. */
  phone: Type.Optional(PhoneView),
});
export type Matching = Static<typeof Matching>;

/** A matching of the polling checker that ended recently for one of MATCHING_END_REASONS. */
export const EndedMatching = Type.Object({
  monitor_id: Type.Integer(),
  tester_id: Type.Integer(),
  test_id: Type.Integer(),
  login_id: Type.String(),
  exam_name: Type.String(),
  reason: Type.Union([
    Type.Literal('logout'),
    Type.Literal('kicked'),
    Type.Literal('finished'),
    Type.Literal('ai_forced_logout'),
    Type.Literal('recording_time_exceeded'),
    Type.Literal('window_closed'),
    Type.Literal('no_response'),
    Type.Literal('connection_lost'),
  ]),
  /** ISO 8601. */
  ended_at: Type.String(),
  /**
   * The examinee's window went away (closed, no answer, connection lost) and the sitting is still open with
   * nobody watching it: reported until someone watches it again or the sitting ends.
   */
  unwatched: Type.Optional(Type.Boolean()),
});
export type EndedMatching = Static<typeof EndedMatching>;

/**
 * matching.php result: the caller's matchings and the server-chosen poll interval in seconds. For a checker,
 * `ended` lists its matchings that ended in the last ENDED_MATCHING_NOTICE_SECONDS (and whose examinee is not
 * matched to it again); absent for testers and from servers that do not report it.
 */
export const MatchingResult = Type.Object({
  matchings: Type.Array(Matching),
  matching_timeout: Type.Integer({ minimum: 1 }),
  ended: Type.Optional(Type.Array(EndedMatching)),
});
export type MatchingResult = Static<typeof MatchingResult>;

/**
 * delete_matching.php body. `tester_id` may be omitted by a tester (itself). With `monitor_id`, only that
 * matching is deleted (spec §4: a delayed deletion happens only if the same matching is still present).
 */
export const DeleteMatchingBody = Type.Object({
  tester_id: Type.Optional(Id),
  monitor_id: Type.Optional(Id),
  /**
   * A checker that deletes because its video connection to the examinee was lost says so, so the console shows
   * the ended matching as "connection lost" rather than letting it vanish.
   */
  reason: Type.Optional(Type.Literal('connection_lost')),
});
export type DeleteMatchingBody = Static<typeof DeleteMatchingBody>;

/** delete_matching.php result: whether a matching was closed, and the id of the tester's active matching. */
export const DeleteMatchingResult = Type.Object({
  deleted: Type.Boolean(),
  monitor_id: Type.Union([Type.Integer(), Type.Null()]),
});
export type DeleteMatchingResult = Static<typeof DeleteMatchingResult>;

/** kvs_reconnect.php query; a tester may omit `tester_id` (itself). */
export const KvsReconnectQuery = Type.Object({ tester_id: Type.Optional(Id) });
export type KvsReconnectQuery = Static<typeof KvsReconnectQuery>;

/**
 * kvs_reconnect.php result: the matching with fresh credentials, or null when there is none. For a sitting with
 * the phone camera it carries `phone` as a poll does, and the matched checker's `phone.signaling_channel` (while a
 * phone publishes) is freshly issued too. The phone itself reconnects through phone/poll.php `fresh_credentials`
 * (its session may call only the phone's routes).
 */
export const KvsReconnectResult = Type.Union([Matching, Type.Null()]);
export type KvsReconnectResult = Static<typeof KvsReconnectResult>;

/** tester/monitor_activate.php body: `monitor_id` is the checker's user id. */
export const MonitorActivateBody = Type.Object({
  monitor_id: Id,
  activation: BoolLike,
});
export type MonitorActivateBody = Static<typeof MonitorActivateBody>;

/** tester/monitor_activate.php result: the activation now stored. */
export const MonitorActivateResult = Type.Object({
  monitor_id: Type.Integer(),
  activation: Type.Boolean(),
});
export type MonitorActivateResult = Static<typeof MonitorActivateResult>;

/** One monitor (checker) of tester/monitor_activate_list.php. */
export const MonitorActivation = Type.Object({
  monitor_id: Type.Integer(),
  login_id: Type.String(),
  name: Type.String(),
  activation: Type.Boolean(),
  matching_count: Type.Integer(),
  /** Time of the checker's last matching poll (ISO 8601 with offset), or null when it never polled. */
  last_poll_at: Type.Union([Type.String(), Type.Null()]),
  /** Polled within 3 × its matching timeout. */
  online: Type.Boolean(),
});
export type MonitorActivation = Static<typeof MonitorActivation>;

/** tester/monitor_activate_list.php result. */
export const MonitorActivateListResult = Type.Object({ monitors: Type.Array(MonitorActivation) });
export type MonitorActivateListResult = Static<typeof MonitorActivateListResult>;

/** A checker in checkers/monitoring (spec §3). */
export const MonitoringChecker = Type.Object({
  id: Type.Integer(),
  login_id: Type.String(),
  ex_login_id: Type.Union([Type.String(), Type.Null()]),
  target: Type.String(),
  admin_name: Type.String(),
});
export type MonitoringChecker = Static<typeof MonitoringChecker>;

/** A tester entry in checkers/monitoring (spec §3). */
export const MonitoringTester = Type.Object({
  /** The examinee's user id. */
  id: Type.Integer(),
  test_id: Type.Integer(),
  /** The active matching's id, or null when the tester has none. */
  monitor_id: Type.Union([Type.Integer(), Type.Null()]),
  login_id: Type.String(),
  ex_login_id: Type.Union([Type.String(), Type.Null()]),
  is_mc_startup: Type.Integer(),
  target: Type.String(),
  exam_name: Type.String(),
  status: Type.Integer(),
  rejected: Type.Integer(),
  kicked: Type.Integer(),
  exam_url: Type.String(),
  startup_parameters: Type.Object({
    is_auth: Type.Integer(),
    is_proctor: Type.Integer(),
    is_record: Type.Integer(),
    is_summary: Type.Integer(),
    /** Surrounding quotes stripped; a quoted empty string is empty (spec §5). */
    memo: Type.String(),
  }),
  matching_status: Type.Integer({ minimum: -1, maximum: 2 }),
  /**
   * In not_matchings: 1 = on hold (cannot be assigned now: proctoring off, rejected, or not polling),
   * 0 = waiting for a checker (spec §2 states "wait" and "on hold").
   */
  on_hold: Type.Integer(),
  /**
   * In not_matchings: the examinee's window went away and nobody has watched the open sitting since this time
   * (ISO 8601); absent otherwise.
   */
  unwatched_since: Type.Optional(Type.String()),
});
export type MonitoringTester = Static<typeof MonitoringTester>;

/** checkers/monitoring.php result (spec §3). */
export const CheckersMonitoringResult = Type.Object({
  matchings: Type.Array(Type.Object({ checker: MonitoringChecker, testers: Type.Array(MonitoringTester) })),
  not_matchings: Type.Array(MonitoringTester),
  kicked_users: Type.Array(MonitoringTester),
});
export type CheckersMonitoringResult = Static<typeof CheckersMonitoringResult>;

/** checkers/matching_histories.php query: managers (4, 5) may name a checker; a checker sees its own. */
export const MatchingHistoriesQuery = Type.Object({
  checker_id: Type.Optional(Id),
  limit: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: 500 }), Type.String({ pattern: '^[1-9][0-9]{0,2}$' })]),
  ),
});
export type MatchingHistoriesQuery = Static<typeof MatchingHistoriesQuery>;

/** Matching history user of spec §3. */
export const MatchingHistoryUser = Type.Object({
  exam_user_id: Type.Integer(),
  test_id: Type.Integer(),
  login_id: Type.String(),
  ex_login_id: Type.Union([Type.String(), Type.Null()]),
  exam_name: Type.String(),
  status: Type.Integer(),
  /** Tester state name (spec §4): NONE, LOGIN, MATCHED, IDENTIFICATED, BEFORE_EXAM, EXAMING, INTERRUPTION_EXAM, FINISH_EXAM. */
  status_string: Type.String(),
  updated_at: Type.String(),
  matched_at: Type.Union([Type.String(), Type.Null()]),
});
export type MatchingHistoryUser = Static<typeof MatchingHistoryUser>;

/** checkers/matching_histories.php result: `users`, newest first. */
export const MatchingHistoriesResult = Type.Object({ users: Type.Array(MatchingHistoryUser) });
export type MatchingHistoriesResult = Static<typeof MatchingHistoriesResult>;
