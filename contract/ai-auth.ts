import { Type, type Static } from 'typebox';
import { IdInteger } from './common';
export * from './constants/ai-auth';

/** ai_auth/face and ai_auth/id_card body (JSON base64, or multipart with a file part `image`). */
export const AiAuthImageBody = Type.Object({
  image: Type.Optional(Type.String({ maxLength: 8 * 1024 * 1024 })),
  content_type: Type.Optional(Type.String({ maxLength: 64 })),
});
export type AiAuthImageBody = Static<typeof AiAuthImageBody>;

export const AiAuthError = Type.Object({
  code: Type.String(),
  message: Type.String(),
  /** Retakes left for this photo kind after this attempt (spec §5 remaining-count placeholder). */
  remaining: Type.Integer(),
  /** The limit that applies (spec §5 maximum-count placeholder). */
  limit: Type.Integer(),
});
export type AiAuthError = Static<typeof AiAuthError>;

/**
 * Result of one attempt, answered with HTTP 200 whatever the verdict (spec §7 "error object returned, not
 * thrown"). `status`/`process` are the sitting's AI state after the attempt; `tester_status` its tester state.
 */
export const AiAuthAttemptResult = Type.Object({
  ok: Type.Boolean(),
  error: Type.Union([AiAuthError, Type.Null()]),
  status: Type.Integer(),
  process: Type.Integer(),
  tester_status: Type.Integer(),
  url: Type.Union([Type.String(), Type.Null()]),
});
export type AiAuthAttemptResult = Static<typeof AiAuthAttemptResult>;

export const AiAuthStatusBody = Type.Object({ tester_id: Type.Optional(IdInteger) });
export type AiAuthStatusBody = Static<typeof AiAuthStatusBody>;

/** One line of the AI fixed-text/notice log kept per sitting. */
export const AiAuthMessage = Type.Object({
  at: Type.String(),
  kind: Type.String(),
  code: Type.String(),
  text: Type.String(),
});

/** spec §3 "AI auth status", plus the limits in force. */
export const AiAuthStatusResult = Type.Object({
  status: Type.Integer(),
  process: Type.Integer(),
  face_retry: Type.Integer(),
  id_card_retry: Type.Integer(),
  ai_all_retry: Type.Integer(),
  face_url: Type.Union([Type.String(), Type.Null()]),
  id_card_url: Type.Union([Type.String(), Type.Null()]),
  messages: Type.Array(AiAuthMessage),
  limits: Type.Object({ face: Type.Integer(), id_card: Type.Integer(), all: Type.Integer() }),
  fallback: Type.Integer(),
});
export type AiAuthStatusResult = Static<typeof AiAuthStatusResult>;
