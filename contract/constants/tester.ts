// The tester group's constants: tester and test states, exam process codes, image limits, kick-out methods.
// Plain values without TypeBox, so the SPA may import them (contract/README.md).

/** spec §4 tester state: 0 none … 7 finish exam. */
export const TESTER_STATUS = {
  none: 0,
  login: 1,
  matched: 2,
  identificated: 3,
  beforeExam: 4,
  examing: 5,
  interruptionExam: 6,
  finishExam: 7,
} as const;
export type TesterStatus = (typeof TESTER_STATUS)[keyof typeof TESTER_STATUS];

/** spec §3 test state. */
export const TEST_STATUS = { start: 0, resume: 1, end: 2, interruption: 3 } as const;
/** spec §3 exam process codes. */
export const EXAM_PROCESS = { start: 0, restart: 1, stop: 2, suspend: 3, relogin: 4 } as const;

/** spec §3 tester detail latest modes. */
export const LATEST_MODE = { none: 0, latest: 1, examiningLatest: 2 } as const;

/** Image upload limits of the tester routes (head shot, marking, AI photos). */
export const IMAGE_MAX_BYTES = 5 * 1024 * 1024;
export const IMAGE_CONTENT_TYPES = ['image/jpeg', 'image/png', 'image/webp'] as const;

/**
 * Query parameter carrying the one-time token on window_open_url, by get_mc_token mode (spec §3): mode 1 a
 * proctor token the exam system checks with redeem_mc_token (the examinee logs in there itself), mode 2 an MC+
 * start-up token that logs the examinee in to the exam system.
 */
export const MC_TOKEN_PARAMS = { 1: 'proctor_token', 2: 'mc_token' } as const;

export const KICK_OUT_METHODS = ['PUT', 'PUT_MYSELF', 'PUT_MYSELF_AI', 'DELETE', 'DISCONNECT'] as const;
export type KickOutMethod = (typeof KICK_OUT_METHODS)[number];
