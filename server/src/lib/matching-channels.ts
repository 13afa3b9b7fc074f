import { randomBytes } from 'node:crypto';
import type { SignalingChannel } from '../../../contract/matching';
import { PHONE_CHANNEL_SUFFIX } from '../../../contract/constants/phone';
import type { App } from './app-types';
import type { KvsControl } from './aws/kvs-control';
import type { KvsRole, TemporaryCredentials } from './credentials';
import type { MatchingSettings } from './matching-settings';
import {
  CredentialSealer,
  markChannelChecked,
  pruneSharedCredentials,
  saveSharedCredentials,
  sealAad,
  type SharedCredentialRow,
} from './signaling-credentials';

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
 * A reconnect that finds no shared credentials for its matching (lib/signaling-credentials.ts) has new ones
 * issued; the reconnects of the same user on the same instance within this window reuse those, and the
 * channel's re-check on AWS (KvsControl.ensure `fresh`) likewise, so that a burst of reconnects arriving before
 * the first one's row is written (a storm after a network cut) does not ask STS (which throttles) once per call.
 */
const RECONNECT_REUSE_MS = 15_000;

// Sweep the cache of expired entries once it grows past this many, then again once it has doubled since.
const CACHE_SWEEP_SIZE = 10_000;
// Expired shared rows are deleted by each instance at most this often.
const PRUNE_EVERY_MS = 10 * 60_000;

/**
 * Signaling channels and their credentials. Credentials are cached per (user, role, channel) and reused until
 * shortly before expiry, because every poll (every few seconds, perf-reliability §4) carries them and an STS
 * call or a new stand-in entry per poll would not scale. Those issued for a matching are also shared with the
 * other instances through the database (lib/signaling-credentials.ts): kvs_reconnect hands them out again while
 * they are good for that same matching — they outlive a restart of STS's stand-in as they outlive anything on
 * AWS — and has new ones issued (and the channel checked on KVS) only when there are none, they are near expiry,
 * the matching is another, the local issuer revoked them, or the sweep deleted the channel since it was checked.
 */
export class MatchingChannels {
  private readonly cache = new Map<string, CacheEntry>();
  /**
   * The cache's size at which it is swept next. Doubling it after each sweep keeps the sweeps' cost per entry
   * constant: with more live entries than CACHE_SWEEP_SIZE (an exam of 10,000 examinees holds about twice as
   * many, none expired) a fixed threshold scanned the whole cache on every credential issued.
   */
  private sweepAt = CACHE_SWEEP_SIZE;
  private readonly sealer: CredentialSealer;
  private prunedAt = Date.now();

  constructor(
    private readonly app: App,
    private readonly settings: MatchingSettings,
  ) {
    this.sealer = new CredentialSealer(app.config.credentialsCacheKey ?? null);
  }

  /**
   * Makes sure the channel exists: on the stand-in when it is on (idempotent, so a restarted stand-in is
   * refilled), else on AWS through `app.kvsControl` (remembered, so polls do not call AWS; `fresh` asks
   * again). Throws a 503 ApiError only when an AWS channel was never created and cannot be now.
   */
  async ensure(channelName: string, fresh = false, reuseMs = RECONNECT_REUSE_MS): Promise<void> {
    const kvs = kvsRegistry(this.app);
    if (kvs) {
      kvs.ensureChannel(channelName);
      return;
    }
    await kvsControl(this.app)?.ensure(channelName, { fresh, reuseMs });
  }

  /**
   * The signaling_channel of spec §3 for one user on one channel. `endpointBase` is the origin the request
   * came to; the stand-in lives at `<origin>/kvs`. `matchingId`: the matching it is handed out for, so that
   * newly issued credentials are shared with the other instances; `shared`: the shared row a reconnect read
   * with its matching (`fresh`), reused when good.
   */
  async signalingChannel(opts: {
    userId: number;
    role: ChannelRole;
    channelName: string;
    endpointBase: string;
    fresh?: boolean;
    matchingId?: number;
    shared?: SharedCredentialRow | null;
  }): Promise<SignalingChannel> {
    const fresh = opts.fresh ?? false;
    let creds = fresh && opts.shared ? await this.reuseShared(opts, opts.shared) : null;
    if (!creds) {
      await this.ensure(opts.channelName, fresh);
      creds = await this.credentials(opts.userId, opts.role, opts.channelName, fresh, opts.matchingId);
    }
    const kvs = kvsRegistry(this.app);
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

  /**
   * The shared credentials of a reconnect's matching when still good: they open under this instance's key and
   * the local issuer (if any) has not revoked them. The channel is checked on KVS first only when the sweep
   * deleted a channel of its name after it was last known to exist. Null: issue new ones.
   */
  private async reuseShared(
    opts: { userId: number; role: ChannelRole; channelName: string },
    row: SharedCredentialRow,
  ): Promise<TemporaryCredentials | null> {
    const secret = this.sealer.open(
      row.sealed,
      sealAad({
        channelName: opts.channelName,
        role: opts.role,
        userId: opts.userId,
        accessKeyId: row.access_key_id,
      }),
    );
    if (!secret || this.revoked(row.access_key_id)) return null;
    const kvs = kvsRegistry(this.app);
    if (kvs)
      kvs.ensureChannel(opts.channelName); // in this process: costs nothing
    else if (!row.channel_ok) {
      // Asked even if this instance checked it moments ago: the deletion may have come since.
      await this.ensure(opts.channelName, true, 0);
      await markChannelChecked(this.app.db, opts.channelName);
    }
    const creds: TemporaryCredentials = {
      accessKeyId: row.access_key_id,
      ...secret,
      expiration: new Date(row.expires_at),
    };
    // This instance's polls hand out the same from now on.
    this.remember(`${opts.userId}:${opts.role}:${opts.channelName}`, {
      creds,
      refreshAt: new Date(row.refresh_at).getTime(),
    });
    return creds;
  }

  private async credentials(
    userId: number,
    role: ChannelRole,
    channelName: string,
    fresh: boolean,
    matchingId: number | undefined,
  ): Promise<TemporaryCredentials> {
    const key = `${userId}:${role}:${channelName}`;
    const now = Date.now();
    const hit = this.cache.get(key);
    const usable = hit && hit.refreshAt > now && !this.revoked(hit.creds.accessKeyId);
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
    this.remember(key, { creds, refreshAt, ...(fresh ? { reconnectAt: now } : {}) });
    if (matchingId !== undefined) await this.share(channelName, role, userId, matchingId, creds, refreshAt);
    return creds;
  }

  /**
   * Shares newly issued credentials through the database. A failure is logged and does not fail the call: the
   * credentials are good, and without the row a reconnect only has new ones issued.
   */
  private async share(
    channelName: string,
    role: ChannelRole,
    userId: number,
    matchingId: number,
    creds: TemporaryCredentials,
    refreshAt: number,
  ): Promise<void> {
    const now = Date.now();
    // When the channel was last known to exist: just now on the stand-in in this process (ensureChannel makes
    // it), else when this instance last had KVS confirm it.
    const checkedAt = kvsRegistry(this.app) ? now : (kvsControl(this.app)?.checkedAt(channelName) ?? now);
    try {
      await saveSharedCredentials(this.app.db, this.sealer, {
        channelName,
        role,
        userId,
        matchingId,
        creds,
        refreshAt,
        channelCheckedAt: checkedAt,
      });
      if (now - this.prunedAt > PRUNE_EVERY_MS) {
        this.prunedAt = now;
        await pruneSharedCredentials(this.app.db);
      }
    } catch (err) {
      this.app.log.warn(
        { channel: channelName, role, err: (err as Error).message },
        'Sharing signaling credentials failed; a reconnect will have new ones issued',
      );
    }
  }

  private remember(key: string, entry: CacheEntry): void {
    if (this.cache.size >= this.sweepAt) {
      this.sweep(Date.now());
      this.sweepAt = Math.max(CACHE_SWEEP_SIZE, this.cache.size * 2);
    }
    this.cache.set(key, entry);
  }

  /**
   * A credential the local issuer revoked (the holder's matching ended; it may be matched again), or no longer
   * honours (its test hook expired it).
   */
  private revoked(accessKeyId: string): boolean {
    const local = this.app.localCredentials;
    if (!local) return false;
    return local.isRevoked(accessKeyId) || (!!local.peek(accessKeyId) && !local.lookup(accessKeyId));
  }

  private sweep(now: number): void {
    for (const [k, e] of this.cache) if (e.refreshAt <= now) this.cache.delete(k);
  }
}
