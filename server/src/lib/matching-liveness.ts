import type { Db } from '../db/db';
import { BatchQueue, gatherFor } from './batch-queue';
import { CONNECTION_GAP_POLLS, EXCUSE_GAP_MARKINGS_CTES } from './live-captures';

/** One examinee poll's liveness: it polled now, is stale after `staleSeconds`, and reported this. */
export interface Liveness {
  matchingId: number;
  staleSeconds: number;
  /** The sitting's matching timeout: a silence of CONNECTION_GAP_POLLS of these before this poll is a gap. */
  timeoutSeconds: number;
  /** The poll's stats as JSON text, or null to keep the stored ones. */
  stats: string | null;
  /** The reported channel status, or null to keep the stored one. */
  channelStatus: string | null;
}

/** What storing a poll's liveness found. */
export interface LivenessResult {
  /** A connection gap before this poll excused capture markings (the checkers' feed must be told). */
  excused: boolean;
}

/**
 * Writes examinees' poll liveness (last poll, when they count as gone, their stats and channel status) by group
 * commit: a poll that changes nothing else is answered once its liveness is stored, as it always was, but the
 * polls that arrive while one write is under way go together in the next statement. Each keeps its own poll
 * time (when it arrived, not when the batch went).
 *
 * The same statement records connection gaps: a poll that comes more than CONNECTION_GAP_POLLS timeouts after
 * the matching's previous one (read under the row's lock, so two polls cannot both find the same silence)
 * inserts the gap, from when the first missed poll was due until this poll, and excuses the capture markings
 * that started inside it. A server that fell behind (every examinee's next poll then finds a gap) therefore
 * still answers each poll with one batched statement instead of a transaction per poll.
 */
export class LivenessWriter {
  private readonly queue: BatchQueue<Liveness & { at: number }, LivenessResult>;

  constructor(db: Db) {
    this.queue = new BatchQueue<Liveness & { at: number }, LivenessResult>(
      async (batch) => {
        const t = performance.now();
        // `prev` locks each matching and keeps its previous poll time; `upd` joins it, so a row is locked
        // before it is updated, and the gap is measured from the time the poll found.
        const { rows } = await db.query<{ id: string | number }>(
          `WITH v AS (
           SELECT id, now() - age_ms * interval '1 millisecond' AS at, stale, timeout, stats, cs
             FROM unnest($1::bigint[], $2::float8[], $3::int[], $4::int[], $5::jsonb[], $6::text[])
                  AS u(id, age_ms, stale, timeout, stats, cs)),
         prev AS (
           SELECT m.id, m.test_id, m.last_tester_poll_at AS at FROM matchings m
            WHERE m.id = ANY($1::bigint[]) AND m.deleted_at IS NULL
            ORDER BY m.id FOR UPDATE),
         upd AS (
           UPDATE matchings m SET
             last_tester_poll_at = greatest(m.last_tester_poll_at, v.at),
             tester_stale_at = greatest(m.tester_stale_at, v.at + v.stale * interval '1 second'),
             tester_stats = coalesce(v.stats, m.tester_stats),
             channel_status = coalesce(v.cs, m.channel_status)
             FROM prev p JOIN v ON v.id = p.id
            WHERE m.id = p.id
           RETURNING m.id),
         gaps AS (
           INSERT INTO connection_gaps (test_id, started_at, ended_at)
           SELECT DISTINCT ON (p.id) p.test_id, p.at + make_interval(secs => v.timeout), v.at
             FROM prev p JOIN v ON v.id = p.id
            WHERE p.at IS NOT NULL AND p.at < v.at - make_interval(secs => v.timeout * $7::int)
            ORDER BY p.id, v.at
           RETURNING test_id, started_at, ended_at),
         ${EXCUSE_GAP_MARKINGS_CTES}
         SELECT p.id FROM prev p JOIN bumped b ON b.id = p.test_id`,
          [
            batch.map((b) => b.matchingId),
            batch.map((b) => Math.max(0, t - b.at)),
            batch.map((b) => b.staleSeconds),
            batch.map((b) => b.timeoutSeconds),
            batch.map((b) => b.stats),
            batch.map((b) => b.channelStatus),
            CONNECTION_GAP_POLLS,
          ],
          { genericPlan: true },
        );
        const excused = new Set(rows.map((r) => Number(r.id)));
        return batch.map((b) => ({ excused: excused.has(b.matchingId) }));
      },
      1,
      undefined,
      gatherFor(db),
    );
  }

  /** Resolves when this poll's liveness (and any connection gap before it) is stored. */
  record(l: Liveness): Promise<LivenessResult> {
    return this.queue.submit({ ...l, at: performance.now() });
  }
}
