import { Type, type Static } from 'typebox';
import { IdInteger, MAX_ID } from './common';
import { MESSAGE_MAX_LENGTH } from './constants/messages';
export * from './constants/messages';

/** POST webrtc_message body. */
export const WebrtcMessageBody = Type.Object({
  tester_id: IdInteger,
  send_type: Type.Union([Type.Literal(0), Type.Literal(1)]),
  message_type: Type.Union([Type.Literal(1), Type.Literal(2), Type.Literal(3)]),
  message: Type.String({ minLength: 1, maxLength: MESSAGE_MAX_LENGTH }),
  kind: Type.Optional(Type.Union([Type.Literal('message'), Type.Literal('command')])),
});
export type WebrtcMessageBody = Static<typeof WebrtcMessageBody>;

/** GET webrtc_message query: messages of the tester's current sitting with id > since_id. */
export const WebrtcMessageQuery = Type.Object({
  tester_id: IdInteger,
  since_id: Type.Optional(Type.Integer({ minimum: 0, maximum: MAX_ID })),
  limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
});
export type WebrtcMessageQuery = Static<typeof WebrtcMessageQuery>;

/** One stored message (spec §3 "WebRTC message"). */
export const WebrtcMessage = Type.Object({
  id: Type.Integer(),
  send_type: Type.Integer(),
  message_type: Type.Integer(),
  kind: Type.String(),
  message: Type.String(),
  created_at: Type.String(),
});
export type WebrtcMessage = Static<typeof WebrtcMessage>;

/** GET result: newest first. POST result: the stored message in `messages[0]`. */
export const WebrtcMessageList = Type.Object({ messages: Type.Array(WebrtcMessage) });
export type WebrtcMessageList = Static<typeof WebrtcMessageList>;

/** fixed_notifications list row (spec §3). */
export const FixedNotification = Type.Object({
  id: Type.Integer(),
  message: Type.String(),
  order_id: Type.Integer(),
});
export type FixedNotification = Static<typeof FixedNotification>;
export const FixedNotificationList = Type.Object({ list: Type.Array(FixedNotification) });
export type FixedNotificationList = Static<typeof FixedNotificationList>;

/** marks list row (spec §3 "Mark", plus the score a marking adds). */
export const Mark = Type.Object({
  id: Type.Integer(),
  message: Type.String(),
  order_id: Type.Integer(),
  label: Type.String(),
  display: Type.Integer(),
  score: Type.Integer(),
});
export type Mark = Static<typeof Mark>;
export const MarkList = Type.Object({ list: Type.Array(Mark) });
export type MarkList = Static<typeof MarkList>;
