// The ai-auth group's constants: AI identity-check states, fallback modes, limits, error codes.
// Plain values without TypeBox, so the SPA may import them (contract/README.md).

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
