import { MAX_TESTERS_PER_CHECKER } from '../../../contract/matching';
import type { Db } from '../db/db';
import { BatchQueue, gatherFor } from './batch-queue';
import { CONNECTION_GAP_POLLS, EXCUSE_GAP_MARKINGS_CTES } from './live-captures';
import { NEW_VIEWER_CLIENT_ID_SQL, newChannelName } from './matching-channels';
import { ASSIGNABLE_SQL } from './matching-rows';

/** How long an examinee who comes back is given to the checker who watched the sitting before (minutes). */
export const PREVIOUS_CHECKER_MINUTES = 30;

/** The advisory lock every instance takes to deal waiting examinees (one dealer at a time on one database). */
const ASSIGN_LOCK_KEY = 7_305_020;

/** An examinee's poll that finds no live matching: it is queued as waiting, with its poll's liveness. */
export interface OpenWaiting {
  testerId: number;
  testId: number;
  staleSeconds: number;
  timeoutSeconds: number;
  stats: string | null;
  channelStatus: string | null;
}

/** The waiting matching a poll opened. */
export interface OpenedMatching {
  id: number;
  channelName: string;
  /** A connection gap before this poll excused capture markings (the checkers' feed must be told). */
  excused: boolean;
}

/** What dealing gave a matching: its checker now (null: still waiting) and that checker's viewer ClientId. */
export interface Assignment {
  checker_id: number | null;
  viewer_client_id: string | null;
}

/**
 * Opens waiting matchings for the examinee polls in $1 (testers), one statement for many: the same as a first
 * poll did in its own transaction — the sitting keeps the signaling channel of its previous matching ($8 is a
 * new one's name for a sitting without), a silence of more than $9 (CONNECTION_GAP_POLLS) timeouts since the
 * sitting's last poll is recorded as a connection gap that excuses the capture markings inside it, and an
 * abandoned recording is no longer completed behind the examinee's back. A tester that has a live matching
 * already (a concurrent poll made it) gets no row.
 */
const OPEN_WAITING_SQL = `
  WITH v AS (
    SELECT DISTINCT ON (tester_id) tester_id, test_id, now() - age_ms * interval '1 millisecond' AS at, stale,
           timeout, stats, cs, channel
      FROM unnest($1::bigint[], $2::bigint[], $3::float8[], $4::int[], $5::int[], $6::jsonb[], $7::text[], $8::text[])
           AS u(tester_id, test_id, age_ms, stale, timeout, stats, cs, channel)
     ORDER BY tester_id, age_ms),
  last AS MATERIALIZED (
    SELECT v.*, (SELECT max(p.last_tester_poll_at) FROM matchings p WHERE p.test_id = v.test_id) AS prev_at,
           (SELECT p.channel_name FROM matchings p WHERE p.test_id = v.test_id ORDER BY p.id DESC LIMIT 1) AS prev_channel
      FROM v),
  ins AS (
    INSERT INTO matchings (test_id, tester_id, matching_status, channel_name, channel_status, last_tester_poll_at,
                           tester_stale_at, tester_stats)
    SELECT l.test_id, l.tester_id, 1, coalesce(l.prev_channel, l.channel), coalesce(l.cs, 'close'), l.at,
           l.at + l.stale * interval '1 second', l.stats
      FROM last l
    ON CONFLICT (tester_id) WHERE deleted_at IS NULL DO NOTHING
    RETURNING id, tester_id, test_id, channel_name),
  gaps AS (
    INSERT INTO connection_gaps (test_id, started_at, ended_at)
    SELECT l.test_id, l.prev_at + make_interval(secs => l.timeout), l.at
      FROM last l JOIN ins ON ins.tester_id = l.tester_id
     WHERE l.prev_at IS NOT NULL AND l.prev_at < l.at - make_interval(secs => l.timeout * $9::int)
    RETURNING test_id, started_at, ended_at),
  ${EXCUSE_GAP_MARKINGS_CTES},
  revived AS (
    UPDATE records r SET finalize_at = NULL, finalize_reason = NULL
     WHERE r.test_id IN (SELECT test_id FROM ins) AND r.stop_at IS NULL AND r.finalize_reason = 'abandoned'
    RETURNING r.id)
  SELECT ins.id, ins.tester_id, ins.channel_name, EXISTS (SELECT 1 FROM bumped b WHERE b.id = ins.test_id) AS excused
    FROM ins`;

/**
 * Deals every assignable waiting matching to the eligible checkers with room, in one statement ($1 = the cap of
 * spec §9, $2 = PREVIOUS_CHECKER_MINUTES), and answers the matchings in $3 with their checker now:
 *
 * - eligible: polling (not stale), active (no activation row = active), not disabled, fewer than $1 examinees;
 * - first, an examinee who comes back goes to the checker who watched the same sitting within the last $2
 *   minutes, when that checker is eligible, in queue order up to that checker's room;
 * - then the rest, oldest waiting first, are dealt one by one to the least loaded checker, ties to the longest
 *   idle (oldest last assignment; never assigned first), then the lowest id — `fairShare` in matching-engine.ts
 *   is the same rule one checker at a time: a checker's k-th place comes before anyone's (k+1)-th.
 *
 * Run only under ASSIGN_LOCK_KEY, in a statement of its own after the lock: the loads it counts are then the
 * committed ones, so no checker is ever given more than $1. The matchings are locked in id order (`locked`), as
 * the batched liveness write locks them, so the two cannot deadlock over a batch's rows. Each is looked up by its
 * id, pair by pair (the lateral lookup, kept apart by OFFSET 0): joined as tables, right after an exam's start
 * storm the planner, from statistics of a matchings table not yet analysed since, took "checker_id IS NULL" for
 * one row and compared each of the 10,000 waiting matchings with every pair (1.95 million comparisons, 561 ms
 * under the dealing's lock, auto_explain in the live-calls bench).
 */
const ASSIGN_SQL = `
  WITH open AS MATERIALIZED (
    SELECT p.checker_id, p.last_assigned_at, l.n AS load
      FROM checker_presence p
      JOIN users u ON u.id = p.checker_id AND u.actor = 2 AND NOT u.disabled
      LEFT JOIN monitor_activations a ON a.checker_id = p.checker_id
      CROSS JOIN LATERAL (SELECT count(*)::int AS n FROM matchings x
                           WHERE x.checker_id = p.checker_id AND x.deleted_at IS NULL) l
     WHERE p.stale_at > now() AND coalesce(a.activation, true) AND l.n < $1),
  waiting AS MATERIALIZED (
    SELECT m.id, m.test_id, row_number() OVER (ORDER BY m.created_at, m.id) AS pos
      FROM matchings m JOIN tests t ON t.id = m.test_id JOIN users u ON u.id = m.tester_id
     WHERE ${ASSIGNABLE_SQL}
     ORDER BY m.created_at, m.id
     LIMIT (SELECT coalesce(sum($1 - load), 0) FROM open)),
  returners AS MATERIALIZED (
    SELECT w.id, o.checker_id, o.load, row_number() OVER (PARTITION BY o.checker_id ORDER BY w.pos) AS rn
      FROM waiting w
      CROSS JOIN LATERAL (SELECT p.checker_id FROM matchings p
                           WHERE p.test_id = w.test_id AND p.id <> w.id AND p.checker_id IS NOT NULL
                             AND p.deleted_at > now() - $2::int * interval '1 minute'
                           ORDER BY p.deleted_at DESC LIMIT 1) prev
      JOIN open o ON o.checker_id = prev.checker_id),
  kept AS MATERIALIZED (SELECT id, checker_id FROM returners WHERE rn <= $1 - load),
  slots AS MATERIALIZED (
    SELECT o.checker_id, row_number() OVER (ORDER BY s.n, o.last_assigned_at NULLS FIRST, o.checker_id) AS k
      FROM open o
      CROSS JOIN LATERAL generate_series(
        o.load + 1 + (SELECT count(*) FROM kept WHERE kept.checker_id = o.checker_id)::int, $1) AS s(n)),
  rest AS (
    SELECT w.id, row_number() OVER (ORDER BY w.pos) AS k
      FROM waiting w WHERE NOT EXISTS (SELECT 1 FROM kept WHERE kept.id = w.id)),
  pairs AS (
    SELECT id, checker_id FROM kept
    UNION ALL
    SELECT r.id, s.checker_id FROM rest r JOIN slots s ON s.k = r.k),
  locked AS (
    SELECT x.id, p.checker_id FROM pairs p
     CROSS JOIN LATERAL (SELECT x.id, x.checker_id, x.deleted_at FROM matchings x WHERE x.id = p.id OFFSET 0) x
     WHERE x.checker_id IS NULL AND x.deleted_at IS NULL
     ORDER BY x.id FOR UPDATE OF x),
  upd AS (
    UPDATE matchings x SET checker_id = locked.checker_id, assigned_at = now(), checker_retry = 0, checker_command = 0,
           viewer_client_id = ${NEW_VIEWER_CLIENT_ID_SQL}, updated_at = now()
      FROM locked
     WHERE x.id = locked.id
    RETURNING x.id, x.checker_id, x.viewer_client_id),
  touched AS (
    UPDATE checker_presence c SET last_assigned_at = now()
     WHERE c.checker_id IN (SELECT checker_id FROM upd)
    RETURNING c.checker_id)
  SELECT i.id, coalesce(u.checker_id, m.checker_id) AS checker_id,
         coalesce(u.viewer_client_id, m.viewer_client_id) AS viewer_client_id,
         (SELECT coalesce(array_agg(checker_id), '{}') FROM touched) AS dealt_to
    FROM unnest($3::bigint[]) AS i(id)
    LEFT JOIN upd u ON u.id = i.id
    LEFT JOIN matchings m ON m.id = i.id AND m.deleted_at IS NULL`;

/**
 * The waiting queue of the matching, kept off the per-poll path: an examinee's poll that needs a matching opens
 * it through one batched statement with the other polls that need one (`open`), and waiting examinees are dealt
 * to checkers by one statement for everyone waiting (`assign`), whichever poll — an examinee's that finds a
 * checker with room, a checker's that finds examinees waiting — asks for it. Polls that ask while a dealing is
 * under way are answered by the next one. A start storm (every examinee of an exam opening it at once) or a
 * server that fell behind (every examinee's matching swept, every poll a first one) then costs a share of two
 * statements a poll, not a transaction and a checker selection each.
 */
export class MatchingQueue {
  private readonly opener: BatchQueue<OpenWaiting & { at: number; channel: string }, OpenedMatching | null>;
  private readonly dealer: BatchQueue<number, Assignment>;

  constructor(private readonly db: Db) {
    this.opener = new BatchQueue(
      async (batch) => {
        const t = performance.now();
        const { rows } = await db.query<{
          id: number | string;
          tester_id: number | string;
          channel_name: string;
          excused: boolean;
        }>(
          OPEN_WAITING_SQL,
          [
            batch.map((b) => b.testerId),
            batch.map((b) => b.testId),
            batch.map((b) => Math.max(0, t - b.at)),
            batch.map((b) => b.staleSeconds),
            batch.map((b) => b.timeoutSeconds),
            batch.map((b) => b.stats),
            batch.map((b) => b.channelStatus),
            batch.map((b) => b.channel),
            CONNECTION_GAP_POLLS,
          ],
          { genericPlan: true },
        );
        const byTester = new Map(rows.map((r) => [Number(r.tester_id), r]));
        return batch.map((b) => {
          const r = byTester.get(b.testerId);
          return r ? { id: Number(r.id), channelName: r.channel_name, excused: r.excused } : null;
        });
      },
      1,
      undefined,
      gatherFor(db),
    );
    this.dealer = new BatchQueue(
      async (ids) => {
        const rows = await db.transaction(async (tx) => {
          await tx.query('SELECT pg_advisory_xact_lock($1)', [ASSIGN_LOCK_KEY]);
          const r = await tx.query<{
            id: number | string;
            checker_id: number | string | null;
            viewer_client_id: string | null;
            dealt_to: (number | string)[];
          }>(ASSIGN_SQL, [MAX_TESTERS_PER_CHECKER, PREVIOUS_CHECKER_MINUTES, ids], { genericPlan: true });
          // The cap of spec §9 is an invariant: roll back rather than ever commit a sixth examinee.
          const over = await tx.query<{ checker_id: number }>(
            `SELECT checker_id FROM matchings WHERE deleted_at IS NULL AND checker_id = ANY($1::bigint[])
            GROUP BY checker_id HAVING count(*) > $2 LIMIT 1`,
            [r.rows[0]?.dealt_to ?? [], MAX_TESTERS_PER_CHECKER],
          );
          if (over.rows[0]) throw new Error(`assignment overran checker ${over.rows[0].checker_id}'s room`);
          return r.rows;
        });
        return rows.map((r) => ({
          checker_id: r.checker_id === null ? null : Number(r.checker_id),
          viewer_client_id: r.viewer_client_id,
        }));
      },
      1,
      undefined,
      gatherFor(db),
    );
  }

  /** Opens a waiting matching for an examinee's poll; null when the examinee has one already. */
  open(w: OpenWaiting): Promise<OpenedMatching | null> {
    return this.opener.submit({ ...w, at: performance.now(), channel: newChannelName(w.testId) });
  }

  /**
   * Deals every waiting examinee to the checkers with room; answers the matching `id` with its checker now
   * (0 for a caller that has no matching of its own, e.g. a checker's poll).
   */
  assign(id = 0): Promise<Assignment> {
    return this.dealer.submit(id);
  }
}
