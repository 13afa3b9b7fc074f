import os from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/db';

/** How long a poll's lag counts (ms): longer than the longest silence the sweep judges (6 × a 5 s timeout). */
export const LAG_WINDOW_MS = 60_000;
/** Lag of an instance that has not noted it for this long does not count (seconds). */
const LAG_STALE_SECONDS = 60;
/** Rows of instances gone for this long are removed (seconds). */
const LAG_FORGET_SECONDS = 3600;

/** Histogram bins per doubling of a poll's time: a bin spans about 9 %. */
const BINS_PER_DOUBLING = 8;
/** Bins up to 2^20 ms (about 17 min), past the 5 min the allowance is capped at. */
const BINS = BINS_PER_DOUBLING * 20;
/** The share of the window's polls the allowance covers. */
const PERCENTILE = 0.95;

const binOf = (ms: number): number =>
  Math.min(BINS - 1, Math.max(0, Math.floor(BINS_PER_DOUBLING * Math.log2(Math.max(1, ms)))));
/** The upper edge of a bin (ms): what a poll in it took at most. */
const binTop = (bin: number): number => 2 ** ((bin + 1) / BINS_PER_DOUBLING);

/**
 * How far behind this instance answers the matching poll: the time (arrival to answer) that 95 % of its polls
 * of the last LAG_WINDOW_MS took at most. An examinee's page polls `matchingTimeout` after the previous answer,
 * so a server that takes L to answer stretches that examinee's interval by L: that part of a silence is the
 * server's, not the examinee's. A high percentile, not the mean: a server that falls behind answers most polls
 * quickly and queues some for many seconds, and the mean (fractions of a second) left those examinees and
 * checkers counted gone for the server's delay (seen at 10,000 examinees: p50 0.1 s, p99 15 s). Never the one
 * slowest poll, so that one slow call (a cloud API that took its time) does not stretch everyone's limits for a
 * minute.
 */
export class LagMeter {
  private readonly bucketMs = LAG_WINDOW_MS / 10;
  /** Per tenth of the window, a count of polls per bin. */
  private readonly buckets = new Map<number, Uint32Array>();

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
    let b = this.buckets.get(key);
    if (!b) this.buckets.set(key, (b = new Uint32Array(BINS)));
    b[binOf(ms)]! += 1;
  }

  /** The lag of the window (ms), 0 without any poll. */
  lagMs(): number {
    const oldest = Math.floor((this.now() - LAG_WINDOW_MS) / this.bucketMs);
    const all = new Float64Array(BINS);
    let n = 0;
    for (const [key, b] of this.buckets) {
      if (key <= oldest) {
        this.buckets.delete(key);
        continue;
      }
      for (let i = 0; i < BINS; i++) {
        all[i]! += b[i]!;
        n += b[i]!;
      }
    }
    if (n === 0) return 0;
    // The poll at this rank from the fastest (0-based); with two polls or more, never the slowest one.
    const rank = n === 1 ? 0 : Math.min(Math.ceil(PERCENTILE * n) - 1, n - 2);
    let seen = 0;
    for (let i = 0; i < BINS; i++) {
      seen += all[i]!;
      if (seen > rank) return Math.round(binTop(i));
    }
    return Math.round(binTop(BINS - 1));
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
