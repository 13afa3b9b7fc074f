import { randomBytes } from 'node:crypto';
import type { SignalingChannel } from '../../../contract/matching';
import type { App } from './app-types';
import type { KvsControl } from './aws/kvs-control';
import type { KvsRole, TemporaryCredentials } from './credentials';
import type { MatchingSettings } from './matching-settings';

/** What the matching engine needs of the KVS stand-in (`app.kvs`, decorated only when the stand-in is on). */
export interface KvsChannelRegistry {
  ensureChannel(name: string): { channelName: string; channelArn: string };
  /** The region the stand-in signs for; the browsers must use the same. */
  readonly region?: string;
}

/** The KVS stand-in's channel registry, or null in AWS mode. Read at request time: stand-ins load after routes. */
export function kvsRegistry(app: App): KvsChannelRegistry | null {
  const kvs = (app as unknown as { kvs?: KvsChannelRegistry | null }).kvs;
  return kvs && typeof kvs.ensureChannel === 'function' ? kvs : null;
}

/** The prefix of every channel name the server makes. */
export const CHANNEL_PREFIX = 'exam-';
const CHANNEL_NAME = /^exam-([1-9]\d{0,15})-[0-9a-f]{12}$/;

/** A new channel name for a sitting: `exam-<test_id>-<random>` (KVS names allow [a-zA-Z0-9_.-]{1,256}). */
export function newChannelName(testId: number): string {
  return `${CHANNEL_PREFIX}${testId}-${randomBytes(6).toString('hex')}`;
}

/** The sitting (tests.id) of a name made by `newChannelName`, or null for any other name. */
export function testIdOfChannel(name: string): number | null {
  const m = CHANNEL_NAME.exec(name);
  const id = m ? Number(m[1]) : NaN;
  return Number.isSafeInteger(id) ? id : null;
}

/** The AWS-mode channel manager (`app.kvsControl`), or null when the KVS stand-in serves signaling. */
export function kvsControl(app: App): KvsControl | null {
  return (app as unknown as { kvsControl?: KvsControl | null }).kvsControl ?? null;
}

/** Which end of the channel the credentials are for: the tester publishes (MASTER), checkers view. */
export type ChannelRole = KvsRole;

interface CacheEntry {
  creds: TemporaryCredentials;
  refreshAt: number;
}

// Sweep the cache of expired entries once it grows past this many.
const CACHE_SWEEP_SIZE = 10_000;

/**
 * Signaling channels and their credentials. Credentials are cached per (user, role, channel) and reused until
 * shortly before expiry, because every poll (every few seconds, perf-reliability §4) carries them and an STS
 * call or a new stand-in entry per poll would not scale; kvs_reconnect asks for fresh ones.
 */
export class MatchingChannels {
  private readonly cache = new Map<string, CacheEntry>();

  constructor(
    private readonly app: App,
    private readonly settings: MatchingSettings,
  ) {}

  /**
   * Makes sure the channel exists: on the stand-in when it is on (idempotent, so a restarted stand-in is
   * refilled), else on AWS through `app.kvsControl` (remembered, so polls do not call AWS; `fresh` asks
   * again). Throws a 503 ApiError only when an AWS channel was never created and cannot be now.
   */
  async ensure(channelName: string, fresh = false): Promise<void> {
    const kvs = kvsRegistry(this.app);
    if (kvs) {
      kvs.ensureChannel(channelName);
      return;
    }
    await kvsControl(this.app)?.ensure(channelName, { fresh });
  }

  /**
   * The signaling_channel of spec §3 for one user on one channel. `endpointBase` is the origin the request
   * came to; the stand-in lives at `<origin>/kvs`.
   */
  async signalingChannel(opts: {
    userId: number;
    role: ChannelRole;
    channelName: string;
    endpointBase: string;
    fresh?: boolean;
  }): Promise<SignalingChannel> {
    await this.ensure(opts.channelName, opts.fresh ?? false);
    const kvs = kvsRegistry(this.app);
    const creds = await this.credentials(opts.userId, opts.role, opts.channelName, opts.fresh ?? false);
    const channel: SignalingChannel = {
      region: kvs?.region ?? this.settings.region,
      access_key_id: creds.accessKeyId,
      secret_access_key: creds.secretAccessKey,
      session_token: creds.sessionToken,
      channel_name: opts.channelName,
      expiration: creds.expiration.toISOString(),
    };
    if (kvs) channel.endpoint = `${opts.endpointBase}/kvs`;
    return channel;
  }

  private async credentials(
    userId: number,
    role: ChannelRole,
    channelName: string,
    fresh: boolean,
  ): Promise<TemporaryCredentials> {
    const key = `${userId}:${role}:${channelName}`;
    const now = Date.now();
    const hit = this.cache.get(key);
    if (!fresh && hit && hit.refreshAt > now) return hit.creds;
    const ttl = this.settings.credentialTtlSeconds;
    const creds = await this.app.credentialIssuer.issue({ kind: 'kvs', channelName, role }, ttl);
    const refreshAt =
      Math.min(creds.expiration.getTime(), now + ttl * 1000) - this.settings.credentialRefreshSeconds * 1000;
    if (this.cache.size >= CACHE_SWEEP_SIZE) this.sweep(now);
    this.cache.set(key, { creds, refreshAt });
    return creds;
  }

  private sweep(now: number): void {
    for (const [k, e] of this.cache) if (e.refreshAt <= now) this.cache.delete(k);
  }
}
