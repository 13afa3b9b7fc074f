import { Type, type Static } from 'typebox';
import { IdInteger, MAX_ID } from './common';

/** spec §3 "WebRTC message": who sent it (0 checker, 1 tester). */
export const SEND_TYPE = { checker: 0, tester: 1 } as const;
export type SendType = (typeof SEND_TYPE)[keyof typeof SEND_TYPE];

/** spec §3 "WebRTC message": 1 identification by tester, 2 identification by checker, 3 monitoring. */
export const MESSAGE_TYPE = { identificationByTester: 1, identificationByChecker: 2, monitoring: 3 } as const;
export type MessageType = (typeof MESSAGE_TYPE)[keyof typeof MESSAGE_TYPE];

/** spec §3 message kinds. */
export const MESSAGE_KINDS = ['message', 'command'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];

/** Longest chat text (characters) the server accepts. */
export const MESSAGE_MAX_LENGTH = 1000;

/**
 * The fixed signalling markers of spec §3, sent with `kind: 'command'` and exactly this text as `message`.
 * `MARKING_ALERT` carries the alert text after a colon: `MARKING_ALERT:<text>` (see {@link parseCommand}).
 */
export const MESSAGE_COMMANDS = {
  messageReceived: 'MESSAGE_RECEIVED',
  kickOut: 'KICK_OUT',
  beforeClose: 'BEFORE_CLOSE',
  beforeCloseOk: 'BEFORE_CLOSE_OK',
  authenticating: 'AUTHENTICATING',
  accepted: 'ACCEPTED',
  rejected: 'REJECTED',
  markingAlert: 'MARKING_ALERT',
} as const;
export type MessageCommand = (typeof MESSAGE_COMMANDS)[keyof typeof MESSAGE_COMMANDS];

/**
 * Commands a client may post itself through webrtc_message. The others (KICK_OUT, ACCEPTED, REJECTED,
 * MARKING_ALERT) are written only by the server as the effect of kick_out, tester/status 3, rejected and
 * markings, so a marker always means the action really happened.
 */
export const CLIENT_COMMANDS: readonly MessageCommand[] = [
  MESSAGE_COMMANDS.messageReceived,
  MESSAGE_COMMANDS.beforeClose,
  MESSAGE_COMMANDS.beforeCloseOk,
  MESSAGE_COMMANDS.authenticating,
];

/** Splits a command message into its marker and optional payload (`MARKING_ALERT:text` → payload `text`). */
export function parseCommand(message: string): { command: string; payload: string | null } {
  const i = message.indexOf(':');
  return i < 0
    ? { command: message, payload: null }
    : { command: message.slice(0, i), payload: message.slice(i + 1) };
}

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
