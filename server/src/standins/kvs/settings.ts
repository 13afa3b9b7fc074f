import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { loadIceSettings, type IceSettings } from './ice';

/** Connection timeouts of the signaling stand-in (media-stack.md §6: 10 min idle, 1 h max, 60 s message TTL). */
export interface KvsTimeouts {
  /** Close a WebSocket after this long without a frame in either direction. */
  idleTimeoutMs: number;
  /** Close a WebSocket this long after it was opened, whatever the traffic. */
  maxDurationMs: number;
  /** How long a message waits for its recipient to connect; 0 drops undelivered messages at once. */
  messageTtlMs: number;
}

/** The app server's own key pair: what its IAM principal is in production (control plane, every channel). */
export interface KvsServerCredentials {
  accessKeyId: string;
  secretAccessKey: string;
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
  /**
   * Bounds on what undelivered messages may hold, whatever the senders do: recipients with a queue per channel,
   * queued payload bytes per channel and in the whole stand-in (the oldest queued messages go first).
   */
  maxPendingRecipientsPerChannel: number;
  maxPendingBytesPerChannel: number;
  maxPendingBytesTotal: number;
  /** Viewer ClientIds a channel remembers as possible recipients (connected now or within the message TTL). */
  maxKnownViewersPerChannel: number;
  /**
   * Messages a connection may send per second, by type (media-stack.md §6: SDP offer 5, answer 5, ICE 20 TPS
   * per connection); a burst of twice that is allowed, more is refused.
   */
  sendRatePerSecond: { SDP_OFFER: number; SDP_ANSWER: number; ICE_CANDIDATE: number };
  /** How often expired queued messages and forgotten viewers are swept. */
  sweepIntervalMs: number;
  timeouts: KvsTimeouts;
  /**
   * KVS_LOCAL_ACCESS_KEY_ID + KVS_LOCAL_SECRET_ACCESS_KEY, default a random pair per process: lets a server in
   * AWS mode (KVS_ENDPOINT = this stand-in) manage channels with the real SDK, signatures checked.
   */
  serverCredentials: KvsServerCredentials;
  /** What GetIceServerConfig hands out (ICE_SERVERS, TURN_URLS + TURN_SECRET); nothing by default. */
  ice: IceSettings;
  /**
   * The file the channels are kept in, so that they outlive a restart as AWS's do: KVS_LOCAL_CHANNELS_FILE
   * (the stand-ins service's `STANDINS_DATA_DIR/kvs-channels.jsonl`), else `kvs-channels.jsonl` in
   * LOCAL_STANDINS_STATE_DIR (the embedded stand-in of `npm start`: DATA_DIR). A channel made again after a
   * restart would have a new ARN, and the browsers, which keep the ARN they resolved, would be refused with it.
   * None (in memory only) when neither is set (tests).
   */
  channelsFile: string | null;
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

/**
 * Reads KVS_REGION, KVS_VERIFY_SIGNATURE, KVS_IDLE_TIMEOUT_MS, KVS_MAX_DURATION_MS, KVS_MESSAGE_TTL_MS,
 * KVS_LOCAL_ACCESS_KEY_ID / KVS_LOCAL_SECRET_ACCESS_KEY (both or neither), where the channels are kept
 * (KVS_LOCAL_CHANNELS_FILE, LOCAL_STANDINS_STATE_DIR) and the ICE servers (`ice.ts`).
 */
export function loadKvsSettings(env: NodeJS.ProcessEnv = process.env): KvsSettings {
  const keyId = env.KVS_LOCAL_ACCESS_KEY_ID ?? '';
  const secret = env.KVS_LOCAL_SECRET_ACCESS_KEY ?? '';
  if ((keyId === '') !== (secret === ''))
    throw new Error('Set both KVS_LOCAL_ACCESS_KEY_ID and KVS_LOCAL_SECRET_ACCESS_KEY, or neither.');
  return {
    region: env.KVS_REGION || 'ap-northeast-1',
    verifySignatures: env.KVS_VERIFY_SIGNATURE !== '0',
    maxViewers: 10,
    maxPendingPerRecipient: 200,
    maxPendingRecipientsPerChannel: 16,
    maxPendingBytesPerChannel: 2 * 1024 * 1024,
    maxPendingBytesTotal: 32 * 1024 * 1024,
    maxKnownViewersPerChannel: 64,
    sendRatePerSecond: { SDP_OFFER: 5, SDP_ANSWER: 5, ICE_CANDIDATE: 20 },
    sweepIntervalMs: 5_000,
    timeouts: {
      idleTimeoutMs: ms(env, 'KVS_IDLE_TIMEOUT_MS', DEFAULT_TIMEOUTS.idleTimeoutMs),
      maxDurationMs: ms(env, 'KVS_MAX_DURATION_MS', DEFAULT_TIMEOUTS.maxDurationMs),
      messageTtlMs: ms(env, 'KVS_MESSAGE_TTL_MS', DEFAULT_TIMEOUTS.messageTtlMs),
    },
    ice: loadIceSettings(env),
    channelsFile:
      env.KVS_LOCAL_CHANNELS_FILE ||
      (env.LOCAL_STANDINS_STATE_DIR ? path.join(env.LOCAL_STANDINS_STATE_DIR, 'kvs-channels.jsonl') : null),
    serverCredentials: keyId
      ? { accessKeyId: keyId, secretAccessKey: secret }
      : {
          accessKeyId: 'AKIALOCALKVS' + randomBytes(6).toString('hex').toUpperCase(),
          secretAccessKey: randomBytes(30).toString('base64'),
        },
  };
}
