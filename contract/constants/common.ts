// The common group's constants: actors, error codes, integer bounds.
// Plain values without TypeBox, so the SPA may import them (contract/README.md).

/** Actors of spec §1: 1 tester, 2 checker, 3 test manager, 4 system manager, 5 supervisor. */
export const ACTOR = { tester: 1, checker: 2, testManager: 3, systemManager: 4, supervisor: 5 } as const;
export type Actor = (typeof ACTOR)[keyof typeof ACTOR];
export const ALL_ACTORS: readonly Actor[] = [1, 2, 3, 4, 5];
export const MANAGER_ACTORS: readonly Actor[] = [3, 4, 5];
export const ADMIN_ACTORS: readonly Actor[] = [4, 5];

/**
 * Error codes the reference server puts in `code` (README "Error codes"). They are stable: the SPA shows its
 * own Japanese or English text for each (errors namespace, `code.<code>`) and shows the server's `message`
 * only for a code it does not know. The general codes come first; the specific ones say more about the same
 * statuses.
 */
export const ERROR_CODES = [
  'bad_request',
  'validation',
  'unauthorized',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'payload_too_large',
  'unsupported_media_type',
  'too_many_requests',
  'login_failed',
  'account_locked',
  'ip_not_allowed',
  'kicked',
  'conflict',
  'invalid_transition',
  /** The examinee logged in again in another window or browser: this session ended. */
  'session_superseded',
  /** The session was ended by the server (logout elsewhere, recording time exceeded, AI identity policy). */
  'session_ended',
  /** An exam-system token (get_mc_token) that was used already, expired, or whose sitting is finished. */
  'mc_token_invalid',
  /** A phone pairing code (tester/phone_pairing) that was used already, expired, was replaced, or whose sitting is over. */
  'phone_pairing_invalid',
  /** A phone session that another phone replaced (the examinee scanned a new code with it). */
  'phone_replaced',
  /** A tester start-up URL bound to another exam group than the examinee's. */
  'startup_group_mismatch',
  'internal',
  // 404: the examinee, sitting, test, user or recording asked for does not exist.
  'tester_not_found',
  'sitting_not_found',
  'test_not_found',
  'user_not_found',
  'recording_not_found',
  // 403: the caller may not see this examinee or sitting (another group, or a sitting the checker did not
  // monitor); a checker acting on an examinee it is not matched to.
  'tester_not_visible',
  'not_matched',
  // 405 (spec §8): the examinee's sitting was logged out.
  'tester_logged_out',
  // 409
  'no_open_sitting',
  /** tester/capture: stills are off for this sitting (start-up capture_interval 0). */
  'capture_off',
  /** The wider view: this part (screen, room scan) is off for the sitting (start-up flag not 1). */
  'wider_view_off',
  /** get_mc_token: the sitting needs its entire screen shared first (is_screen_record). */
  'screen_share_required',
  /** get_mc_token: the sitting needs its room scan before the exam (is_room_scan). */
  'room_scan_required',
  /** tester/phone_pairing: the sitting has no phone camera (start-up is_phone_camera 0). */
  'phone_off',
  'recording_not_finished',
  'retention_exists',
  'short_url_key_taken',
  'access_limit_self_lockout',
  'cannot_force_logout_self',
  // 400: no search conditions for the CSV download (spec §8), and the spec §5 form rules (with result.field).
  'no_search_conditions',
  'invalid_date',
  'invalid_url',
  'invalid_exam_url',
  'invalid_ipv4',
  'ip_or_domain_required',
  'select_one',
  'group_or_code',
  'date_combination',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/**
 * Bounds of integers a request may carry, so that every value fits the column it is compared with (a value
 * past them, e.g. 99999999999999999999 or 1e309 = Infinity, is a 400, never a database error): ids are
 * bigint columns read as JavaScript numbers (safe integers); other integers are int4 columns.
 */
export const MAX_ID = Number.MAX_SAFE_INTEGER;
export const INT32_MIN = -2_147_483_648;
export const INT32_MAX = 2_147_483_647;
