import { randomBytes } from 'node:crypto';
import type { SignalingChannel } from '../../../contract/matching';
import { PHONE_CHANNEL_SUFFIX } from '../../../contract/constants/phone';
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
// A sitting's channel, or its phone's (`-phone`: the examinee's phone as a second camera).
const CHANNEL_NAME = /^exam-([1-9]\d{0,15})-[0-9a-f]{12}(?:-phone)?$/;

/** A new channel name for a sitting: `exam-<test_id>-<random>` (KVS names allow [a-zA-Z0-9_.-]{1,256}). */
export function newChannelName(testId: number): string {
  return `${CHANNEL_PREFIX}${testId}-${randomBytes(6).toString('hex')}`;
}

/** The channel the sitting's phone publishes on, beside the sitting's own `channelName`. */
export function phoneChannelName(channelName: string): string {
  return `${channelName}${PHONE_CHANNEL_SUFFIX}`;
}

/** The sitting's own channel of a phone channel name (the name itself for any other). */
export function baseChannelName(channelName: string): string {
  return channelName.endsWith(PHONE_CHANNEL_SUFFIX)
    ? channelName.slice(0, -PHONE_CHANNEL_SUFFIX.length)
    : channelName;
}

/** The sitting (tests.id) of a name made by `newChannelName` or `phoneChannelName`, or null for any other name. */
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

/**
 * SQL expression of a new viewer ClientId (`viewer-<uuid>`, 122 random bits from the database's CSPRNG): set
 * when a checker is assigned, so nobody else can guess the ClientId the examinee answers.
 */
export const NEW_VIEWER_CLIENT_ID_SQL = `'viewer-' || gen_random_uuid()::text`;

/**
 * Ends what signaling credentials allow once the matching they were handed out for is over. A checker's
 * viewer credentials for a channel stay valid only while that checker has a live matching on the channel
 * and still polls (a checker who logged out is stale at once); an examinee's master credentials only while
 * its sitting is open and not kicked. On the local stand-in the others are revoked: refused on HTTP and
 * WebSocket from now on, their open sockets closed. STS credentials cannot be revoked; they are short-lived
 * and renewed only while matched (README "Pointing at AWS"). Derived from the database and idempotent, so
 * every place a matching ends calls it alike, and the matching sweep calls it too. Returns how many it revoked.
 */
export async function revokeEndedSignaling(app: App): Promise<number> {
  const issuer = app.localCredentials;
  if (!issuer) return 0;
  const held: { accessKeyId: string; channelName: string; role: KvsRole; holder: number }[] = [];
  for (const { accessKeyId, scope } of issuer.live())
    if (scope.kind === 'kvs' && scope.holder !== undefined)
      held.push({ accessKeyId, channelName: scope.channelName, role: scope.role, holder: scope.holder });
  if (held.length === 0) return 0;
  // A viewer of a sitting's phone channel is live exactly while it is live on the sitting's own channel.
  const channels = [...new Set(held.map((h) => baseChannelName(h.channelName)))];
  const viewers = await app.db.query<{ checker_id: number; channel_name: string }>(
    `SELECT m.checker_id, m.channel_name FROM matchings m
       JOIN checker_presence p ON p.checker_id = m.checker_id
      WHERE m.deleted_at IS NULL AND p.stale_at > now() AND m.channel_name = ANY($1::text[])`,
    [channels],
  );
  const testIds = [...new Set(channels.map(testIdOfChannel).filter((id): id is number => id !== null))];
  const masters = await app.db.query<{ id: number; user_id: number }>(
    `SELECT t.id, t.user_id FROM tests t JOIN users u ON u.id = t.user_id
      WHERE t.id = ANY($1::bigint[]) AND t.status < 7 AND t.kicked = 0 AND u.kicked = 0`,
    [testIds],
  );
  const liveViewer = new Set(viewers.rows.map((r) => `${r.checker_id}|${r.channel_name}`));
  const liveMaster = new Set(masters.rows.map((r) => `${r.user_id}|${r.id}`));
  let revoked = 0;
  for (const h of held) {
    const ok =
      h.role === 'viewer'
        ? liveViewer.has(`${h.holder}|${baseChannelName(h.channelName)}`)
        : liveMaster.has(`${h.holder}|${testIdOfChannel(h.channelName) ?? ''}`);
    if (!ok && issuer.revoke(h.accessKeyId)) revoked++;
  }
  return revoked;
}

interface CacheEntry {
  creds: TemporaryCredentials;
  refreshAt: number;
  /** When a reconnect (kvs_reconnect) had these issued, if one did. */
  reconnectAt?: number;
}

/**
 * A reconnect gets credentials issued for a reconnect no longer ago than this: the first after a failure gets new
 * ones (the old may have died with a restarted stand-ins service), while a page in a reconnect loop, or a storm of
 * reconnects after a network cut, does not ask STS (which throttles) once per call. The channel's re-check on AWS
 * (KvsControl.ensure `fresh`) is reused for the same window, for the same reason.
 */
const RECONNECT_REUSE_MS = 15_000;

// Sweep the cache of expired entries once it grows past this many, then again once it has doubled since.
const CACHE_SWEEP_SIZE = 10_000;

/**
 * Signaling channels and their credentials. Credentials are cached per (user, role, channel) and reused until
 * shortly before expiry, because every poll (every few seconds, perf-reliability §4) carries them and an STS
 * call or a new stand-in entry per poll would not scale; kvs_reconnect asks for fresh ones.
 */
export class MatchingChannels {
  private readonly cache = new Map<string, CacheEntry>();
  /**
   * The cache's size at which it is swept next. Doubling it after each sweep keeps the sweeps' cost per entry
   * constant: with more live entries than CACHE_SWEEP_SIZE (an exam of 10,000 examinees holds about twice as
   * many, none expired) a fixed threshold scanned the whole cache on every credential issued.
   */
  private sweepAt = CACHE_SWEEP_SIZE;

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
    await kvsControl(this.app)?.ensure(channelName, { fresh, reuseMs: RECONNECT_REUSE_MS });
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
    // The in-process stand-in at the request's origin; a KVS that is not AWS's own (the stand-ins service)
    // where the configuration says browsers reach it; AWS: no endpoint (the SDK's default).
    const publicEndpoint = this.app.config.aws.kvsPublicEndpoint;
    if (kvs) channel.endpoint = `${opts.endpointBase}/kvs`;
    else if (publicEndpoint) channel.endpoint = publicEndpoint;
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
    const usable = hit && hit.refreshAt > now && !this.revoked(hit.creds);
    if (usable && (!fresh || (hit.reconnectAt !== undefined && now - hit.reconnectAt < RECONNECT_REUSE_MS)))
      return hit.creds;
    const viewer = role === 'viewer';
    const ttl = viewer ? this.settings.viewerCredentialTtlSeconds : this.settings.credentialTtlSeconds;
    const margin = viewer
      ? this.settings.viewerCredentialRefreshSeconds
      : this.settings.credentialRefreshSeconds;
    const creds = await this.app.credentialIssuer.issue(
      { kind: 'kvs', channelName, role, holder: userId },
      ttl,
    );
    const refreshAt = Math.min(creds.expiration.getTime(), now + ttl * 1000) - margin * 1000;
    if (this.cache.size >= this.sweepAt) {
      this.sweep(now);
      this.sweepAt = Math.max(CACHE_SWEEP_SIZE, this.cache.size * 2);
    }
    this.cache.set(key, { creds, refreshAt, ...(fresh ? { reconnectAt: now } : {}) });
    return creds;
  }

  /** A cached credential the local issuer revoked (the holder's matching ended; it may be matched again). */
  private revoked(creds: TemporaryCredentials): boolean {
    const local = this.app.localCredentials;
    return !!local?.peek(creds.accessKeyId) && !local.lookup(creds.accessKeyId);
  }

  private sweep(now: number): void {
    for (const [k, e] of this.cache) if (e.refreshAt <= now) this.cache.delete(k);
  }
}
