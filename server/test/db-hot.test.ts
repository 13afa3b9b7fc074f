import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LivenessWriter } from '../src/lib/matching-liveness';
import { build, injectAs, loginAs, type TestServer } from './helper';

// Every examinee poll rewrites its matching's liveness and every checker poll its presence row. Those updates
// must be HOT (no index entry written): an index on a column they change makes every poll write an entry into
// each of the table's indexes. With tester_stale_at and stale_at indexed, none were (0 % HOT in the live-calls
// bench), and the liveness write cost about two thirds more database time.
describe('poll updates write no index entries', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build();
  });
  afterAll(async () => s.close());

  it("stores an examinee poll's liveness as a HOT update of its matching", async () => {
    const token = await loginAs(s.app, 'tester01');
    const res = await injectAs(s.app, token, {
      method: 'POST',
      url: '/api/v1/matching.php',
      payload: { channel_status: 'close' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const { rows } = await s.db.query<{ id: number }>(
      `SELECT m.id FROM matchings m JOIN users u ON u.id = m.tester_id
        WHERE u.login_id = 'tester01' AND m.deleted_at IS NULL`,
    );
    const matchingId = Number(rows[0]!.id);
    const counts = await s.db.transaction(async (tx) => {
      // The poll path's own writer, in this transaction: the counters below are this transaction's.
      await new LivenessWriter(tx).record({
        matchingId,
        staleSeconds: 600, // later than the poll's: tester_stale_at changes
        timeoutSeconds: 5,
        stats: JSON.stringify({ viewers: 1 }),
        channelStatus: 'open',
      });
      return (
        await tx.query<{ updated: number; hot: number; later: boolean }>(
          `SELECT pg_stat_get_xact_tuples_updated('matchings'::regclass)::int AS updated,
                  pg_stat_get_xact_tuples_hot_updated('matchings'::regclass)::int AS hot,
                  tester_stale_at > now() + interval '590 seconds' AS later
             FROM matchings WHERE id = $1`,
          [matchingId],
        )
      ).rows[0]!;
    });
    expect(counts).toEqual({ updated: 1, hot: 1, later: true });
  });

  it('keeps the columns a checker poll rewrites out of every index of checker_presence', async () => {
    const { rows } = await s.db.query<{ col: string }>(
      `SELECT DISTINCT a.attname AS col
         FROM pg_index i
         JOIN pg_attribute a ON a.attrelid = i.indrelid
        WHERE i.indrelid = 'checker_presence'::regclass
          AND (a.attnum = ANY(i.indkey)
               OR a.attname = ANY(regexp_split_to_array(coalesce(pg_get_expr(i.indpred, i.indrelid), ''), '\\W+')))`,
    );
    expect(rows.map((r) => r.col)).toEqual(['checker_id']);
  });
});
