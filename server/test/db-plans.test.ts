import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type TestServer } from './helper';

// Which plan a statement runs on decides its cost at scale, not its answer, so these tests read the planner
// setting each kind of statement runs under. A session-wide generic-plan setting on PGlite once made every
// parameterised statement run on a plan costed without its values: the examinee search's fuzzy name at 1M
// sittings went from 4 ms to 0.4 s (bench/search.mjs).
describe('planning of statements', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build();
  });
  afterAll(async () => s.close());

  const modeOf = async (opts?: { genericPlan: boolean }) =>
    (
      await s.db.query<{ mode: string }>(
        `SELECT current_setting('plan_cache_mode') AS mode WHERE $1::int = 1`,
        [1],
        opts,
      )
    ).rows[0]!.mode;

  it('plans an ordinary statement (a search, a report) for the values it is given', async () => {
    expect(await modeOf()).toBe('auto');
    // Inside a transaction too.
    expect(
      await s.db.transaction(async (tx) => {
        const r = await tx.query<{ mode: string }>(`SELECT current_setting('plan_cache_mode') AS mode`);
        return r.rows[0]!.mode;
      }),
    ).toBe('auto');
  });

  it('runs a hot statement on a generic plan on PostgreSQL, and leaves the embedded session as it was', async () => {
    expect(await modeOf({ genericPlan: true })).toBe(
      s.db.kind === 'postgres' ? 'force_generic_plan' : 'auto',
    );
    // A hot statement on PGlite (a prepared statement) changes nothing for the statements after it.
    expect(await modeOf()).toBe('auto');
  });
});
