/** Tunables of the matching engine, read once from the environment when the matching routes load. */
export interface MatchingSettings {
  /** Poll interval in seconds when the sitting's start-up parameters name none (MATCHING_TIMEOUT_SECONDS, default 5). */
  defaultTimeoutSeconds: number;
  /** Bounds applied to a start-up `matching_timeout` (a bad value cannot stop polling or flood the server). */
  minTimeoutSeconds: number;
  maxTimeoutSeconds: number;
  /** A checker silent for this many matching timeouts loses its testers back to waiting. */
  checkerStaleFactor: number;
  /** A tester silent for this many matching timeouts loses its matching (its slot goes to someone else). */
  testerStaleFactor: number;
  /** Consecutive failed channel reports allowed when the start-up parameters name no tester_retry / checker_retry. */
  defaultTesterRetry: number;
  defaultCheckerRetry: number;
  /** Consecutive failed tester reports after which both sides are told to reset the signaling channel. */
  failuresBeforeReset: number;
  /** Signaling region (KVS_REGION, default ap-northeast-1). */
  region: string;
  /** Lifetime of issued signaling credentials, and how long before expiry a cached one is replaced. */
  credentialTtlSeconds: number;
  credentialRefreshSeconds: number;
  /**
   * The same for a checker's viewer credentials, kept short because STS credentials cannot be revoked: a
   * checker removed from a matching gets no new ones, so what it holds dies within this lifetime (900 s, the
   * STS minimum); the local stand-in revokes them at once.
   */
  viewerCredentialTtlSeconds: number;
  viewerCredentialRefreshSeconds: number;
  /** Minimum gap between two sweeps for stale checkers and testers (MATCHING_SWEEP_INTERVAL_MS, default 1000). */
  sweepIntervalMs: number;
  /**
   * Whether this instance measures how far behind it answers polls, for the sweep (MATCHING_LAG_METER, default
   * 1; 0 only where silences are staged and must not depend on the machine's speed: the server tests).
   */
  measureLag: boolean;
}

function num(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max)
    throw new Error(`Invalid ${name}: ${raw} (integer ${min}–${max} expected)`);
  return n;
}

/** Reads MATCHING_TIMEOUT_SECONDS, MATCHING_SWEEP_INTERVAL_MS, MATCHING_LAG_METER and KVS_REGION; the rest is fixed. */
export function loadMatchingSettings(env: NodeJS.ProcessEnv = process.env): MatchingSettings {
  return {
    defaultTimeoutSeconds: num(env, 'MATCHING_TIMEOUT_SECONDS', 5, 1, 300),
    minTimeoutSeconds: 1,
    maxTimeoutSeconds: 300,
    checkerStaleFactor: 3,
    testerStaleFactor: 6,
    defaultTesterRetry: 3,
    defaultCheckerRetry: 3,
    failuresBeforeReset: 2,
    region: env.KVS_REGION || 'ap-northeast-1',
    credentialTtlSeconds: 3600,
    credentialRefreshSeconds: 600,
    viewerCredentialTtlSeconds: 900,
    viewerCredentialRefreshSeconds: 300,
    sweepIntervalMs: num(env, 'MATCHING_SWEEP_INTERVAL_MS', 1000, 0, 600_000),
    measureLag: num(env, 'MATCHING_LAG_METER', 1, 0, 1) === 1,
  };
}
