import os from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/db';

/** How long a poll's lag counts (ms): longer than the longest silence the sweep judges (6 × a 5 s timeout). */
export const LAG_WINDOW_MS = 60_000;
/** Lag of an instance that has not noted it for this long does not count (seconds). */
const LAG_STALE_SECONDS = 60;
/** Rows of instances gone for this long are removed (seconds). */
const LAG_FORGET_SECONDS = 3600;

/**
 * How far behind this instance answers the matching poll: over the last LAG_WINDOW_MS, in buckets of a tenth of
 * it, the largest of the buckets' mean poll times (arrival to answer). An examinee's page polls
 * `matchingTimeout` after the previous answer, so a server that takes L to answer stretches every interval by
 * L: that part of a silence is the server's, not the examinee's. A bucket's mean, not its slowest poll, so that
 * one slow call (a cloud API that took its time) does not stretch everyone's limits for a minute.
 */
export class LagMeter {
  private readonly bucketMs = LAG_WINDOW_MS / 10;
  private readonly buckets = new Map<number, { sum: number; n: number }>();

  private readonly now: () => number;
  private readonly off: boolean;

  /** `off`: measures nothing (lag 0), for tests that stage silences and must not depend on the machine's speed. */
  constructor(opts: { now?: () => number; off?: boolean } = {}) {
    this.now = opts.now ?? (() => performance.now());
    this.off = opts.off ?? false;
  }

  /** Notes one poll that took `ms` from arrival to answer. */
  note(ms: number): void {
    if (this.off) return;
    const key = Math.floor(this.now() / this.bucketMs);
    const b = this.buckets.get(key);
    if (b) {
      b.sum += ms;
      b.n += 1;
    } else this.buckets.set(key, { sum: ms, n: 1 });
  }

  /** The lag of the window (ms), 0 without any poll. */
  lagMs(): number {
    const oldest = Math.floor((this.now() - LAG_WINDOW_MS) / this.bucketMs);
    let max = 0;
    for (const [key, b] of this.buckets) {
      if (key <= oldest) this.buckets.delete(key);
      else max = Math.max(max, b.sum / b.n);
    }
    return Math.round(max);
  }
}

/**
 * Every instance's lag in one place (`matching_lag`), so that the sweep, whichever instance runs it, allows
 * for the slowest instance: with a balancer, any examinee's polls may have gone to it.
 */
export class ClusterLag {
  readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  constructor(
    private readonly db: Db,
    readonly meter: LagMeter = new LagMeter(),
  ) {}

  /** Stores this instance's lag and answers the largest of the instances that noted theirs lately (seconds). */
  async publish(): Promise<number> {
    const { rows } = await this.db.query<{ lag_ms: number | null }>(
      `WITH mine AS (
         INSERT INTO matching_lag (owner, lag_ms, noted_at) VALUES ($1, $2, now())
         ON CONFLICT (owner) DO UPDATE SET lag_ms = EXCLUDED.lag_ms, noted_at = now()
         RETURNING lag_ms),
       gone AS (
         DELETE FROM matching_lag WHERE noted_at < now() - $4::int * interval '1 second' RETURNING owner)
       SELECT greatest((SELECT lag_ms FROM mine),
                       (SELECT max(lag_ms) FROM matching_lag
                         WHERE owner <> $1 AND noted_at > now() - $3::int * interval '1 second')) AS lag_ms`,
      [this.owner, this.meter.lagMs(), LAG_STALE_SECONDS, LAG_FORGET_SECONDS],
      { genericPlan: true },
    );
    return (rows[0]?.lag_ms ?? 0) / 1000;
  }
}
