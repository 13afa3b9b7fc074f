import type { Db } from '../db/db';
import type { AuthContext } from './app-types';

/** A live session as the auth plugin needs it, with what it needs to judge it again without the database. */
export interface CachedSession {
  ctx: AuthContext;
  /** When the session expires, on this process's monotonic clock (ms). */
  expiresAt: number;
  /** The last activity written for it, on this process's monotonic clock (ms): managers' idle timeout. */
  lastSeenAt: number;
  /** Until when this entry may be used without asking the database again (monotonic ms). */
  freshUntil: number;
}

/** The IP access-limit rows for one actor, as `checkIpAllowed` reads them. */
export interface LimitRow {
  server: string;
  ip: string | null;
  domain: string | null;
}

const now = (): number => performance.now();

// Bounds the memory of the caches: past it, entries are dropped oldest first (a Map iterates in insertion order).
const MAX_SESSIONS = 200_000;

/**
 * What the auth plugin looks up on every request, kept in memory between requests: the sessions by token hash
 * and the IP access limits by actor. Every examinee polls every few seconds for hours, so without it each call
 * would begin with a database round trip that almost always answers the same.
 *
 * It can be trusted only because every change that matters is announced: the database's triggers (migration
 * 0062) send `auth_changed` when a session is revoked, an account changes or the access limits change,
 * whichever instance or tool wrote it, and this drops the entry. While the listening connection is down nothing
 * is cached (a missed announcement could otherwise keep an ended session alive), and what was cached before is
 * forgotten. `ttlMs` bounds how long an entry is used at most even so.
 */
export class AuthCache {
  private readonly sessions = new Map<string, CachedSession>();
  private readonly bySession = new Map<number, string>();
  private limits = new Map<number, LimitRow[]>();
  private delivering = false;
  private unlisten: (() => Promise<void>) | null = null;

  constructor(readonly ttlMs: number) {}

  /** Starts listening for announcements; until they are delivered nothing is cached. */
  async start(db: Db): Promise<void> {
    if (this.ttlMs <= 0 || this.unlisten) return;
    this.unlisten = await db.listen('auth_changed', {
      onMessage: (payload) => this.announced(payload),
      onState: (delivering) => {
        this.delivering = delivering;
        this.clear();
      },
    });
  }

  async stop(): Promise<void> {
    const u = this.unlisten;
    this.unlisten = null;
    await u?.();
    this.delivering = false;
    this.clear();
  }

  /** Whether entries may be kept now. */
  get active(): boolean {
    return this.delivering && this.ttlMs > 0;
  }

  session(tokenKey: string): CachedSession | undefined {
    const e = this.sessions.get(tokenKey);
    if (!e) return undefined;
    const t = now();
    if (!this.active || e.freshUntil <= t || e.expiresAt <= t) {
      this.dropSession(tokenKey, e);
      return undefined;
    }
    return e;
  }

  /**
   * A session read from the database (`expiresInMs` and `lastSeenAgoMs` measured by the database's clock), kept
   * when caching is on; the entry is returned either way.
   */
  keepSession(tokenKey: string, ctx: AuthContext, expiresInMs: number, lastSeenAgoMs: number): CachedSession {
    const t = now();
    const entry = {
      ctx,
      expiresAt: t + expiresInMs,
      lastSeenAt: t - lastSeenAgoMs,
      freshUntil: t + this.ttlMs,
    };
    if (!this.active) return entry;
    if (this.sessions.size >= MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.dropSession(oldest, this.sessions.get(oldest));
    }
    this.sessions.set(tokenKey, entry);
    this.bySession.set(ctx.sessionId, tokenKey);
    return entry;
  }

  accessLimits(actor: number): LimitRow[] | undefined {
    return this.active ? this.limits.get(actor) : undefined;
  }

  keepAccessLimits(actor: number, rows: LimitRow[]): void {
    if (this.active) this.limits.set(actor, rows);
  }

  /**
   * Forgets a user's sessions at once: called by this instance after it committed a revocation of them, so that
   * the same browser's next request here (often a few milliseconds later) does not come before the
   * announcement does and find its ended session still cached. Forgetting is always safe: the next request
   * reads the database.
   */
  forgetUser(userId: number): void {
    for (const [key, e] of this.sessions) if (e.ctx.userId === userId) this.dropSession(key, e);
  }

  private announced(payload: string): void {
    const kind = payload.slice(0, 2);
    const id = Number(payload.slice(2));
    if (kind === 'a:') this.limits = new Map();
    else if (kind === 's:') {
      const key = this.bySession.get(id);
      if (key !== undefined) this.dropSession(key, this.sessions.get(key));
    } else if (kind === 'u:') this.forgetUser(id);
    else this.clear();
  }

  private dropSession(key: string, e: CachedSession | undefined): void {
    this.sessions.delete(key);
    if (e && this.bySession.get(e.ctx.sessionId) === key) this.bySession.delete(e.ctx.sessionId);
  }

  private clear(): void {
    this.sessions.clear();
    this.bySession.clear();
    this.limits = new Map();
  }
}

/**
 * Writes sessions' last activity in batches: one statement per interval for every session seen, instead of
 * a write per request. A session is queued at most once per `SESSION_TOUCH_SECONDS` by the auth plugin.
 */
export class SessionToucher {
  private pending = new Set<number>();
  private timer: NodeJS.Timeout | null = null;
  private flushing: Promise<void> | null = null;

  constructor(
    private readonly db: Db,
    private readonly intervalMs: number,
    private readonly onError: (err: unknown) => void,
  ) {}

  touch(sessionId: number): void {
    this.pending.add(sessionId);
    this.timer ??= setTimeout(() => void this.flush(), this.intervalMs);
  }

  /** Writes what is queued now (also on close, so a clean shutdown loses nothing). */
  async flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.flushing;
    if (this.pending.size === 0) return;
    const ids = [...this.pending];
    this.pending = new Set();
    this.flushing = this.db
      .query(`UPDATE sessions SET last_seen_at = now() WHERE id = ANY($1::bigint[])`, [ids], {
        genericPlan: true,
      })
      .then(() => undefined, this.onError)
      .finally(() => {
        this.flushing = null;
      });
    await this.flushing;
  }
}
