/** Connection timeouts of the signaling stand-in (media-stack.md §6: 10 min idle, 1 h max, 60 s message TTL). */
export interface KvsTimeouts {
  /** Close a WebSocket after this long without a frame in either direction. */
  idleTimeoutMs: number;
  /** Close a WebSocket this long after it was opened, whatever the traffic. */
  maxDurationMs: number;
  /** How long a message waits for its recipient to connect; 0 drops undelivered messages at once. */
  messageTtlMs: number;
}

/** Everything the stand-in reads from the environment once, at start-up. */
export interface KvsSettings {
  /** Region in ARNs and in the SigV4 credential scope the clients must sign with (KVS_REGION). */
  region: string;
  /** Recompute WebSocket URL signatures with the SDK's own signer (KVS_VERIFY_SIGNATURE, default on). */
  verifySignatures: boolean;
  /** Concurrent viewers per channel (§6: 10, a soft limit in AWS). */
  maxViewers: number;
  /** Undelivered messages kept per recipient, so a silent recipient cannot grow memory without bound. */
  maxPendingPerRecipient: number;
  timeouts: KvsTimeouts;
}

/** The AWS defaults (media-stack.md §6). */
export const DEFAULT_TIMEOUTS: Readonly<KvsTimeouts> = Object.freeze({
  idleTimeoutMs: 10 * 60_000,
  maxDurationMs: 60 * 60_000,
  messageTtlMs: 60_000,
});

function ms(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0) throw new Error(`Invalid ${name}: ${raw} (milliseconds >= 0 expected)`);
  return n;
}

/** Reads KVS_REGION, KVS_VERIFY_SIGNATURE, KVS_IDLE_TIMEOUT_MS, KVS_MAX_DURATION_MS and KVS_MESSAGE_TTL_MS. */
export function loadKvsSettings(env: NodeJS.ProcessEnv = process.env): KvsSettings {
  return {
    region: env.KVS_REGION || 'ap-northeast-1',
    verifySignatures: env.KVS_VERIFY_SIGNATURE !== '0',
    maxViewers: 10,
    maxPendingPerRecipient: 200,
    timeouts: {
      idleTimeoutMs: ms(env, 'KVS_IDLE_TIMEOUT_MS', DEFAULT_TIMEOUTS.idleTimeoutMs),
      maxDurationMs: ms(env, 'KVS_MAX_DURATION_MS', DEFAULT_TIMEOUTS.maxDurationMs),
      messageTtlMs: ms(env, 'KVS_MESSAGE_TTL_MS', DEFAULT_TIMEOUTS.messageTtlMs),
    },
  };
}
