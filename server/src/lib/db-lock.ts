import { randomUUID } from 'node:crypto';
import type { Db } from '../db/db';
import { ApiError } from './api-error';

export interface DbLockOptions {
  /** How long a lease lasts without renewal (a crashed holder blocks the key at most this long). */
  leaseMs?: number;
  /** How long a caller waits for a busy key before giving up with 503 `busy`. */
  waitMs?: number;
  /** First retry delay while the key is busy; doubles up to 200 ms. */
  pollMs?: number;
}

/**
 * Per-key mutual exclusion shared by every server instance on one database: a lease row in `request_locks`
 * (taken with one upsert that only succeeds when the row is free or its lease ran out), renewed while the holder
 * works and deleted when it is done. Callers of the same instance queue in memory first, so only one of them
 * polls the database. Used where a critical section also talks to object storage, so a database transaction
 * cannot be held across it (PGlite has one connection; a pool connection would sit idle in a transaction).
 */
export class DbKeyedLock {
  readonly owner = `${process.pid}-${randomUUID()}`;
  private readonly tails = new Map<string, Promise<void>>();
  private readonly leaseMs: number;
  private readonly waitMs: number;
  private readonly pollMs: number;

  constructor(
    private readonly db: Db,
    opts: DbLockOptions = {},
  ) {
    this.leaseMs = opts.leaseMs ?? 60_000;
    this.waitMs = opts.waitMs ?? 30_000;
    this.pollMs = opts.pollMs ?? 25;
  }

  /** Runs fn while holding `key` in this process and in the database. */
  async run<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const prev = this.tails.get(key) ?? Promise.resolve();
    let release!: () => void;
    const mine = new Promise<void>((r) => (release = r));
    const tail = prev.then(() => mine);
    this.tails.set(key, tail);
    await prev;
    try {
      return await this.holding(key, fn);
    } finally {
      release();
      if (this.tails.get(key) === tail) this.tails.delete(key);
    }
  }

  /** Takes the lease when free or expired; true when this owner now holds it. */
  async tryAcquire(key: string): Promise<boolean> {
    const r = await this.db.query<{ owner: string }>(
      `INSERT INTO request_locks (lock_key, owner, lease_until)
         VALUES ($1, $2, now() + make_interval(secs => $3::double precision / 1000))
       ON CONFLICT (lock_key) DO UPDATE SET owner = EXCLUDED.owner, lease_until = EXCLUDED.lease_until
         WHERE request_locks.lease_until < now() OR request_locks.owner = EXCLUDED.owner
       RETURNING owner`,
      [key, this.owner, this.leaseMs],
    );
    return r.rows.length === 1;
  }

  /** Extends the lease; false when it was lost (expired and taken by another owner). */
  async renew(key: string): Promise<boolean> {
    const r = await this.db.query(
      `UPDATE request_locks SET lease_until = now() + make_interval(secs => $3::double precision / 1000)
        WHERE lock_key = $1 AND owner = $2`,
      [key, this.owner, this.leaseMs],
    );
    return r.rowCount === 1;
  }

  /** Gives the lease up (only this owner's). */
  async releaseLease(key: string): Promise<void> {
    await this.db.query('DELETE FROM request_locks WHERE lock_key = $1 AND owner = $2', [key, this.owner]);
  }

  private async holding<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const deadline = Date.now() + this.waitMs;
    let delay = this.pollMs;
    while (!(await this.tryAcquire(key))) {
      if (Date.now() + delay > deadline) {
        throw new ApiError(
          503,
          'internal',
          'Another request for the same item is still running; retry shortly.',
          {
            'Retry-After': '1',
          },
        );
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 200);
    }
    const timer = setInterval(
      () => void this.renew(key).catch(() => undefined),
      Math.max(1000, Math.floor(this.leaseMs / 3)),
    );
    timer.unref();
    try {
      return await fn();
    } finally {
      clearInterval(timer);
      await this.releaseLease(key).catch(() => undefined);
    }
  }
}
