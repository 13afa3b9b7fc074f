import { Type, type Static } from 'typebox';
import { IdInteger } from './common';

/**
 * AI identity-check outcome of a sitting (`status` of spec §3 "AI auth status"):
 * 0 in progress, 1 passed, 2 handed to a checker (monitor authentication), 3 forced logout,
 * 4 continue to the exam with the last photo, for later review by a manager.
 */
export const AI_AUTH_STATUS = { inProgress: 0, passed: 1, manual: 2, logout: 3, review: 4 } as const;
export type AiAuthStatusCode = (typeof AI_AUTH_STATUS)[keyof typeof AI_AUTH_STATUS];

/** Which photo the examinee must send next (`process`): 0 face, 1 ID card, 2 finished. */
export const AI_AUTH_PROCESS = { face: 0, idCard: 1, done: 2 } as const;

/**
 * Start-up `is_ai_faild_manual` → what happens when the AI check cannot succeed (retry limit reached or the
 * AI unavailable), spec §4 "AI identification": 0 forced logout, 1 monitor authentication, 2 continue.
 */
export const AI_FAILED_MODE = { logout: 0, manual: 1, continue: 2 } as const;

/** Default retry limits when the start-up parameters carry none (spec §9: limits come from the server). */
export const AI_DEFAULT_LIMITS = { face: 3, idCard: 3, all: 5 } as const;
/** Default name-match tolerance (spec §9: 1 to 100). */
export const AI_DEFAULT_NAME_MATCH = 80;

/** `error.code` values of an AI attempt (spec §8 identification messages). */
export const AI_ERROR_CODES = [
  'face_not_recognised',
  'id_card_not_recognised',
  'person_not_confirmed',
  'retry_limit_exceeded',
  'ai_unavailable',
] as const;
export type AiErrorCode = (typeof AI_ERROR_CODES)[number];

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
