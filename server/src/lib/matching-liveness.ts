import type { Db } from '../db/db';
import { BatchQueue } from './batch-queue';

/** One examinee poll's liveness: it polled now, is stale after `staleSeconds`, and reported this. */
export interface Liveness {
  matchingId: number;
  staleSeconds: number;
  /** The poll's stats as JSON text, or null to keep the stored ones. */
  stats: string | null;
  /** The reported channel status, or null to keep the stored one. */
  channelStatus: string | null;
}

/**
 * Writes examinees' poll liveness (last poll, when they count as gone, their stats and channel status) by group
 * commit: a poll that changes nothing else is answered once its liveness is stored, as it always was, but the
 * polls that arrive while one write is under way go together in the next statement. Each keeps its own poll
 * time (when it arrived, not when the batch went).
 */
export class LivenessWriter {
  private readonly queue: BatchQueue<Liveness & { at: number }, void>;

  constructor(db: Db) {
    this.queue = new BatchQueue<Liveness & { at: number }, void>(async (batch) => {
      const t = performance.now();
      await db.query(
        `UPDATE matchings m SET
           last_tester_poll_at = greatest(m.last_tester_poll_at, v.at),
           tester_stale_at = greatest(m.tester_stale_at, v.at + v.stale * interval '1 second'),
           tester_stats = coalesce(v.stats, m.tester_stats),
           channel_status = coalesce(v.cs, m.channel_status)
          FROM (SELECT id, now() - age_ms * interval '1 millisecond' AS at, stale, stats, cs
                  FROM unnest($1::bigint[], $2::float8[], $3::int[], $4::jsonb[], $5::text[])
                       AS u(id, age_ms, stale, stats, cs)) v
         WHERE m.id = v.id AND m.deleted_at IS NULL`,
        [
          batch.map((b) => b.matchingId),
          batch.map((b) => Math.max(0, t - b.at)),
          batch.map((b) => b.staleSeconds),
          batch.map((b) => b.stats),
          batch.map((b) => b.channelStatus),
        ],
        { genericPlan: true },
      );
      return batch.map(() => undefined);
    });
  }

  /** Resolves when this poll's liveness is stored. */
  record(l: Liveness): Promise<void> {
    return this.queue.submit({ ...l, at: performance.now() });
  }
}
