/**
 * The examinee's phone as a second camera of the sitting (start-up `is_phone_camera`). The examinee's page asks
 * for a pairing code (tester/phone_pairing.php) and shows `<its origin>/phone#<code>` as a QR code; the phone
 * opens it, spends the code once (phone/pair.php) and gets a session that can do only the phone's job for that
 * sitting: poll (phone/poll.php) for its MASTER credentials of the sitting's phone channel, publish its camera
 * there, record it, and say when it leaves (phone/leave.php). The matched checker views that channel with the
 * credentials in its matching (`phone`).
 */
import { Type, type Static } from 'typebox';
import { ChannelStatus, PhoneCameraSchema, PhoneStateSchema, SignalingChannel } from './matching';

export * from './constants/phone';
export { PhoneView } from './matching';

/** tester/phone_pairing.php body: nothing (the session says whose sitting). */
export const PhoneEmptyBody = Type.Object({});
export type PhoneEmptyBody = Static<typeof PhoneEmptyBody>;

/** tester/phone_pairing.php result: a new single-use code for this sitting and when it stops working. */
export const PhonePairingResult = Type.Object({
  /** The code the phone's page spends; the page puts it in the fragment of `<origin>/phone#<code>`. */
  code: Type.String(),
  /** ISO 8601. */
  expires_at: Type.String(),
  ttl_seconds: Type.Integer(),
});
export type PhonePairingResult = Static<typeof PhonePairingResult>;

/** phone/pair.php body: the code from the QR code. */
export const PhonePairBody = Type.Object({ code: Type.String({ minLength: 1, maxLength: 400 }) });
export type PhonePairBody = Static<typeof PhonePairBody>;

/** phone/pair.php result: the phone's session, and what its page shows (whose sitting, in which language). */
export const PhonePairResult = Type.Object({
  access_token: Type.String(),
  /** ISO 8601. */
  expires_at: Type.String(),
  exam_user_name: Type.String(),
  login_id: Type.String(),
  /** The exam's name (the sitting's test name). */
  test_name: Type.String(),
  /** The sitting's language (start-up lang; 'ja' when none was given). */
  lang: Type.Union([Type.Literal('ja'), Type.Literal('en')]),
  /** Poll interval in seconds. */
  matching_timeout: Type.Integer({ minimum: 1 }),
});
export type PhonePairResult = Static<typeof PhonePairResult>;

/**
 * The publishing run of the phone's page: an id the page makes each time it starts publishing (a reload or a new
 * pairing starts a new one), sent with its polls and its leave.
 */
export const PhoneRun = Type.String({ minLength: 1, maxLength: 64 });

/** phone/poll.php body: how the phone's publishing goes, and which camera it uses. */
export const PhonePollBody = Type.Object({
  /** The page's run. A poll of a run that already left (phone/leave) does not bring the phone back. */
  run: Type.Optional(PhoneRun),
  channel_status: Type.Optional(ChannelStatus),
  camera: Type.Optional(PhoneCameraSchema),
  /** Fresh signaling credentials instead of the cached ones (a reconnect). */
  fresh_credentials: Type.Optional(Type.Boolean()),
  /** Free-form connection statistics (at most MATCHING_STATS_MAX_BYTES as JSON). */
  stats: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
});
export type PhonePollBody = Static<typeof PhonePollBody>;

/**
 * phone/poll.php result. `sitting`: `open` go on; `ended` the sitting is over (finished, logged out, kicked):
 * the phone stops its camera and sends the rest of its recording. `signaling_channel`: the phone's MASTER
 * credentials, null while the sitting is not proctored or has no channel yet. `viewer_client_id`: the matched
 * checker's ClientId, the only viewer the phone answers (null: nobody watches now).
 */
export const PhonePollResult = Type.Object({
  sitting: Type.Union([Type.Literal('open'), Type.Literal('ended')]),
  state: PhoneStateSchema,
  matching_timeout: Type.Integer({ minimum: 1 }),
  signaling_channel: Type.Union([SignalingChannel, Type.Null()]),
  viewer_client_id: Type.Union([Type.String(), Type.Null()]),
  /**
   * How the phone records its camera (`tester/recording.php` with stream `phone`), or null when the sitting
   * records nothing (start-up is_record 0): the sitting's video quality level (spec §9, 1–20) and codec.
   */
  recording: Type.Union([
    Type.Null(),
    Type.Object({
      video_level: Type.Union([Type.Integer(), Type.Null()]),
      video_codec: Type.Union([Type.String(), Type.Null()]),
    }),
  ]),
});
export type PhonePollResult = Static<typeof PhonePollResult>;

/** phone/leave.php body: the run that leaves (the session says whose sitting). */
export const PhoneLeaveBody = Type.Object({ run: Type.Optional(PhoneRun) });
export type PhoneLeaveBody = Static<typeof PhoneLeaveBody>;

/** phone/leave.php result. */
export const PhoneLeaveResult = Type.Object({ left: Type.Boolean() });
export type PhoneLeaveResult = Static<typeof PhoneLeaveResult>;
