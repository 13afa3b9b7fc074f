// The messages group's constants: chat senders, types, command markers.
// Plain values without TypeBox, so the SPA may import them (contract/README.md).

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
