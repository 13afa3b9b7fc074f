/**
 * Upload retry rules of spec §8: network errors every 1 s until 60 minutes, timeouts up to 10 times, other
 * errors abort at once. Pure apart from the injected clock, so tests drive it with fake timers.
 */

/** How an upload failure is treated. */
export type ErrorClass =
  /** No response: `TypeError: Failed to fetch`, `NetworkingError`, offline. */
  | 'network'
  /** The request took too long: our per-request timer, the SDK's `TimeoutError`, S3's `RequestTimeout`. */
  | 'timeout'
  /** S3 500 InternalError / 503 SlowDown / ServiceUnavailable: S3 documents these as retryable. */
  | 'server-busy'
  /** The temporary credentials ran out (`ExpiredToken`): get new ones, then retry. */
  | 'expired-credentials'
  /** Anything else (4xx, NoSuchUpload, AccessDenied, a bug): abort at once. */
  | 'other';

/** Why the retries stopped. `network-exhausted` keeps the data: the UI tells the user (spec §8). */
export type GiveUpReason =
  'network-exhausted' | 'timeouts-exhausted' | 'server-busy-exhausted' | 'credentials-exhausted' | 'rejected';

/** The retry limits. Defaults are spec §8 plus our choices for the cases it does not name. */
export interface RetryPolicy {
  /** spec §8: 1 s between network retries. */
  networkIntervalMs: number;
  /** spec §8: keep retrying network errors for 60 minutes from the first failure of the streak. */
  networkWindowMs: number;
  /** spec §8: timeouts are retried up to 10 times (11 attempts in all). */
  maxTimeoutRetries: number;
  /** Delay before a timeout retry. */
  timeoutRetryDelayMs: number;
  /** Our choice: 500/503 retried like timeouts (10 times) but with doubling delays from 1 s, capped at 30 s. */
  maxServerBusyRetries: number;
  serverBusyMaxDelayMs: number;
  /** Our choice: at most 3 credential refreshes in a row before giving up. */
  maxCredentialRefreshes: number;
}

/** The spec §8 defaults. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  networkIntervalMs: 1000,
  networkWindowMs: 60 * 60 * 1000,
  maxTimeoutRetries: 10,
  timeoutRetryDelayMs: 1000,
  maxServerBusyRetries: 10,
  serverBusyMaxDelayMs: 30_000,
  maxCredentialRefreshes: 3,
};

/** Time source and sleep; `realClock` in the app, fake timers in tests (both use the global timers). */
export interface Clock {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

/** A clock on `Date.now` and `setTimeout` (so Vitest fake timers control it). */
export const realClock: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) {
        reject(signal.reason as Error);
        return;
      }
      const t = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      function onAbort(): void {
        clearTimeout(t);
        reject(signal?.reason as Error);
      }
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
};

interface ErrorLike {
  name?: unknown;
  code?: unknown;
  Code?: unknown;
  message?: unknown;
  $metadata?: { httpStatusCode?: unknown };
  $response?: { statusCode?: unknown };
}

const NETWORK_NAMES = new Set(['NetworkingError', 'NetworkError', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE']);
const TIMEOUT_NAMES = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'ETIMEDOUT']);
const EXPIRED_NAMES = new Set(['ExpiredToken', 'ExpiredTokenException', 'TokenRefreshRequired']);
const BUSY_NAMES = new Set(['InternalError', 'SlowDown', 'ServiceUnavailable']);

/** The HTTP status of an SDK error, if it got a response. */
export function httpStatusOf(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const e = err as ErrorLike;
  const s = e.$metadata?.httpStatusCode ?? e.$response?.statusCode;
  return typeof s === 'number' ? s : undefined;
}

/**
 * Classifies an error thrown by `S3Client.send(UploadPartCommand)` (maxAttempts 1, so unwrapped).
 * `timedOut` is true when our own per-request timer aborted the request: the SDK then throws an
 * `AbortError`, which is a timeout, not a cancel.
 *
 * - `TypeError` (the browser's "Failed to fetch", including CORS and DNS failures), `NetworkingError`: network.
 * - `TimeoutError` (FetchHttpHandler `requestTimeout`), S3 `RequestTimeout` (400), our abort: timeout.
 * - `ExpiredToken` (400): expired-credentials.
 * - 500 / 503 (InternalError, SlowDown, ServiceUnavailable): server-busy. spec §8 would abort "other" errors
 *   at once, but S3 asks clients to retry these, so we retry a bounded number of times.
 * - Everything else, including other 4xx/5xx and an `AbortError` we did not cause: other.
 */
export function classifyError(err: unknown, timedOut = false): ErrorClass {
  if (timedOut) return 'timeout';
  if (typeof err !== 'object' || err === null) return 'other';
  const e = err as ErrorLike;
  const name = typeof e.name === 'string' ? e.name : '';
  const code = typeof e.Code === 'string' ? e.Code : typeof e.code === 'string' ? e.code : '';
  const status = httpStatusOf(err);
  if (EXPIRED_NAMES.has(name) || EXPIRED_NAMES.has(code)) return 'expired-credentials';
  if (TIMEOUT_NAMES.has(name) || TIMEOUT_NAMES.has(code)) return 'timeout';
  if (status === undefined) {
    if (name === 'TypeError' || NETWORK_NAMES.has(name) || NETWORK_NAMES.has(code)) return 'network';
    const message = typeof e.message === 'string' ? e.message : '';
    if (/failed to fetch|networkerror|network request failed|load failed/i.test(message)) return 'network';
    return 'other';
  }
  if (status === 500 || status === 503 || BUSY_NAMES.has(name)) return 'server-busy';
  return 'other';
}

/** What to do after a failure. */
export type RetryDecision =
  | { action: 'retry'; delayMs: number; refreshCredentials: boolean; errorClass: ErrorClass }
  | { action: 'give-up'; reason: GiveUpReason; errorClass: ErrorClass };

/** Counts failures of one operation (one part) and decides each time whether to retry. */
export interface RetryTracker {
  /** Records a failure of this class at `now` and returns the decision. */
  next(errorClass: ErrorClass): RetryDecision;
}

/** A new tracker; make one per operation, so a success starts the counts again (spec §8 is per upload). */
export function createRetryTracker(
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  clock: Clock = realClock,
): RetryTracker {
  let networkSince: number | null = null;
  let timeouts = 0;
  let busy = 0;
  let refreshes = 0;
  return {
    next(errorClass) {
      if (errorClass !== 'expired-credentials') refreshes = 0;
      switch (errorClass) {
        case 'network': {
          const now = clock.now();
          networkSince ??= now;
          if (now - networkSince >= policy.networkWindowMs) {
            return { action: 'give-up', reason: 'network-exhausted', errorClass };
          }
          return {
            action: 'retry',
            delayMs: policy.networkIntervalMs,
            refreshCredentials: false,
            errorClass,
          };
        }
        case 'timeout':
          timeouts += 1;
          if (timeouts > policy.maxTimeoutRetries) {
            return { action: 'give-up', reason: 'timeouts-exhausted', errorClass };
          }
          return {
            action: 'retry',
            delayMs: policy.timeoutRetryDelayMs,
            refreshCredentials: false,
            errorClass,
          };
        case 'server-busy': {
          busy += 1;
          if (busy > policy.maxServerBusyRetries) {
            return { action: 'give-up', reason: 'server-busy-exhausted', errorClass };
          }
          const delayMs = Math.min(1000 * 2 ** (busy - 1), policy.serverBusyMaxDelayMs);
          return { action: 'retry', delayMs, refreshCredentials: false, errorClass };
        }
        case 'expired-credentials':
          refreshes += 1;
          if (refreshes > policy.maxCredentialRefreshes) {
            return { action: 'give-up', reason: 'credentials-exhausted', errorClass };
          }
          return { action: 'retry', delayMs: 0, refreshCredentials: true, errorClass };
        default:
          return { action: 'give-up', reason: 'rejected', errorClass };
      }
    },
  };
}

/** Thrown when retries stop. The recorded data stays in the chunk store; `retry()` can start again. */
export class UploadGiveUpError extends Error {
  override readonly name = 'UploadGiveUpError';
  constructor(
    readonly reason: GiveUpReason,
    readonly errorClass: ErrorClass,
    options?: { cause?: unknown },
  ) {
    super(`upload gave up: ${reason}`, options);
  }
}

/** Hooks around one retried operation. */
export interface RetryHooks {
  /** Called before each wait; a `network` decision means "waiting for the network" in the UI. */
  onRetry?(decision: Extract<RetryDecision, { action: 'retry' }>, error: unknown): void;
  /** Called before a retry that needs fresh credentials. */
  refreshCredentials?(): Promise<void>;
  /** Aborts the waits (stop/dispose). */
  signal?: AbortSignal;
}

/**
 * Runs `attempt` until it succeeds or the policy gives up. `attempt` reports its own timeouts by throwing a
 * `TimedOutError`. Throws `UploadGiveUpError`, or the abort reason when `hooks.signal` fires.
 */
export async function runWithRetry<T>(
  attempt: () => Promise<T>,
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  clock: Clock = realClock,
  hooks: RetryHooks = {},
): Promise<T> {
  const tracker = createRetryTracker(policy, clock);
  for (;;) {
    try {
      return await attempt();
    } catch (err) {
      if (hooks.signal?.aborted) throw err;
      const decision = tracker.next(classifyError(err, err instanceof TimedOutError));
      if (decision.action === 'give-up') {
        throw new UploadGiveUpError(decision.reason, decision.errorClass, {
          cause: err instanceof TimedOutError ? err.cause : err,
        });
      }
      hooks.onRetry?.(decision, err);
      if (decision.delayMs > 0) await clock.sleep(decision.delayMs, hooks.signal);
      if (decision.refreshCredentials) {
        try {
          await hooks.refreshCredentials?.();
        } catch (refreshErr) {
          // A failed refresh (our API down) is retried like the upload would be; the tracker counts it.
          const again = tracker.next(classifyError(refreshErr));
          if (again.action === 'give-up') {
            throw new UploadGiveUpError(again.reason, again.errorClass, { cause: refreshErr });
          }
          if (again.delayMs > 0) await clock.sleep(again.delayMs, hooks.signal);
        }
      }
    }
  }
}

/** Marks a request our own timer aborted, so it is classified as a timeout (spec §8). */
export class TimedOutError extends Error {
  override readonly name = 'TimedOutError';
  constructor(
    readonly timeoutMs: number,
    options?: { cause?: unknown },
  ) {
    super(`request did not complete within ${timeoutMs} ms`, options);
  }
}
