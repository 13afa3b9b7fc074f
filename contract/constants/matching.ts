// The matching group's constants: matching states and commands, the poll interval default, limits, end reasons.
// Plain values without TypeBox, so the SPA may import them (contract/README.md).

/** Matching values of spec §4: -1 invalid, 0 none, 1 waiting, 2 connected. */
export const MATCHING_STATUS = { invalid: -1, none: 0, waiting: 1, connected: 2 } as const;
export type MatchingStatus = (typeof MATCHING_STATUS)[keyof typeof MATCHING_STATUS];

/** Matching command of spec §4: 1 = reset the signaling channel (0 = nothing to do). */
export const MATCHING_COMMAND = { none: 0, resetSignalingChannel: 1 } as const;

/**
 * Poll interval (seconds) when neither the sitting's start-up `matching_timeout` nor an answer names one. The
 * reference server's default (MATCHING_TIMEOUT_SECONDS) is the same 5 s.
 */
export const DEFAULT_MATCHING_TIMEOUT_SECONDS = 5;

/** Spec §9: a checker watches at most five examinees. */
export const MAX_TESTERS_PER_CHECKER = 5;

/** Largest `stats` object a poll may carry, as JSON text. */
export const MATCHING_STATS_MAX_BYTES = 8 * 1024;

/**
 * Why a matching ended, for the checker who watched it (the pane says so in words instead of vanishing):
 * the examinee logged out, was kicked out, finished the exam, was logged out by the AI identity policy or by
 * the recording-time limit, closed the window, stopped answering, or the checker's video connection was lost.
 */
export const MATCHING_END_REASONS = [
  'logout',
  'kicked',
  'finished',
  'ai_forced_logout',
  'recording_time_exceeded',
  'window_closed',
  'no_response',
  'connection_lost',
] as const;
export type MatchingEndReason = (typeof MATCHING_END_REASONS)[number];

/** How long a checker's poll keeps reporting a matching that ended (seconds). */
export const ENDED_MATCHING_NOTICE_SECONDS = 120;

/** Reasons after which the sitting stays open: the examinee may come back, or may be sitting unwatched. */
export const UNWATCHED_END_REASONS: readonly MatchingEndReason[] = [
  'window_closed',
  'no_response',
  'connection_lost',
];

/** How long an unwatched examinee is reported to the checker who last watched it (hours). */
export const UNWATCHED_NOTICE_HOURS = 3;
