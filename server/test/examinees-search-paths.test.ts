import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TesterSearchQuery } from '../../contract/examinees';
import type { Db } from '../src/db/db';
import { countTesters, parseTesterSearch, searchTesters, type TesterFilter } from '../src/lib/search-testers';
import { build, envelope, injectAs, loginAs, loginAsActor, type TestServer } from './helper';

/**
 * The search's query paths (migration 0070 and search-testers.ts: the folded name, mark ids NULL without
 * marks, the ids of a page found first along the covering indexes, pages read from the end or after a cursor,
 * the capped count in date order, plans for the values on PostgreSQL) give what one plain query gives: the
 * same rows, in the same order, with the same count. The plain query states each filter the way it read
 * before 0070 (ILIKE on the name; a mark as a marking that exists), sorted by the sort column then the id.
 */

const SORT_COLUMNS: Record<number, string> = {
  1: 't.group_name',
  2: 't.test_name',
  3: 't.region',
  4: 't.test_at',
  5: 't.exam_name',
  6: 't.with_mark',
  7: 't.total_score',
  8: 't.record',
  9: 't.login_id',
  10: 't.cheating_level',
  11: 't.id',
};

type Query = Partial<Record<keyof TesterSearchQuery, string | number>>;

/** The ids of every match in order, and their count, by one plain query (the reference). */
async function reference(db: Db, q: Query): Promise<number[]> {
  const params: unknown[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  const w: string[] = ['true'];
  if (q.group !== undefined) w.push(`t.group_id = ${p(q.group)}`);
  if (q.score !== undefined) w.push(`t.total_score >= ${p(q.score)}`);
  if (q.with_mark !== undefined) w.push(`t.with_mark = ${p(q.with_mark === 1)}`);
  if (q.record !== undefined) w.push(`t.record = ${p(q.record === 1)}`);
  if (q.cheating_level_from !== undefined) w.push(`t.cheating_level >= ${p(q.cheating_level_from)}`);
  if (q.test_at_date_from !== undefined) {
    w.push(`t.test_at >= (${p(q.test_at_date_from)}::date::timestamp AT TIME ZONE 'Asia/Tokyo')`);
  }
  if (q.test_at_date_to !== undefined) {
    w.push(`t.test_at < ((${p(q.test_at_date_to)}::date + 1)::timestamp AT TIME ZONE 'Asia/Tokyo')`);
  }
  if (q.exam_name !== undefined && q.is_like_search === 1) {
    const escaped = String(q.exam_name).replace(/[\\%_]/g, (c) => '\\' + c);
    w.push(`t.exam_name ILIKE ${p('%' + escaped + '%')} ESCAPE '\\'`);
  } else if (q.exam_name !== undefined) w.push(`t.exam_name = ${p(q.exam_name)}`);
  if (q.mark_id !== undefined) {
    w.push(`EXISTS (SELECT 1 FROM markings k WHERE k.test_id = t.id AND k.mark_id = ${p(q.mark_id)})`);
  }
  const dir = Number(q.sort_order ?? 0) === 1 ? 'ASC' : 'DESC';
  const col = SORT_COLUMNS[Number(q.sort_key ?? 4)]!;
  const { rows } = await db.query<{ id: number }>(
    `SELECT t.id FROM tests t WHERE ${w.join(' AND ')} ORDER BY ${col} ${dir}, t.id ${dir}`,
    params,
  );
  return rows.map((r) => r.id);
}

/** A fuzzy name filter, as the form sends it with the fuzzy box ticked. */
const fuzzy = (name: string): Query => ({ exam_name: name, is_like_search: 1 });

function filterOf(q: Query): TesterFilter {
  return parseTesterSearch(q as TesterSearchQuery, { actor: 4, groupId: null });
}

/**
 * Every way the screen reaches the pages of `q` (page numbers counted, by number with skip_count, read from
 * the end, each next_cursor in turn) against the reference, `per` rows a page.
 */
async function expectSamePaths(db: Db, q: Query, per: number): Promise<number> {
  const expected = await reference(db, q);
  const n = expected.length;
  const pages = Math.max(1, Math.ceil(n / per));
  const label = JSON.stringify(q);
  let cursor: string | null = null;
  for (let page = 1; page <= pages + 1; page++) {
    const slice = expected.slice((page - 1) * per, page * per);
    const byNumber = await searchTesters(db, filterOf({ ...q, page, max_display_count: per }));
    expect(
      byNumber.testers.map((r) => r.test_id),
      `${label} page ${page}`,
    ).toEqual(slice);
    expect(byNumber.count, `${label} count`).toBe(n);
    expect(byNumber.count_capped).toBe(false);
    expect(byNumber.next_cursor === null, `${label} page ${page} last`).toBe(page * per >= n);
    const skipped = await searchTesters(db, filterOf({ ...q, page, max_display_count: per, skip_count: 1 }));
    expect(
      skipped.testers.map((r) => r.test_id),
      `${label} page ${page} skip_count`,
    ).toEqual(slice);
    expect(skipped.count).toBeNull();
    if (page > 1 && page <= pages) {
      expect(cursor, `${label} cursor to page ${page}`).not.toBeNull();
      const after = await searchTesters(
        db,
        filterOf({ ...q, page, max_display_count: per, cursor: cursor!, skip_count: 1 }),
      );
      expect(
        after.testers.map((r) => r.test_id),
        `${label} page ${page} by cursor`,
      ).toEqual(slice);
      expect(after.next_cursor).toBe(byNumber.next_cursor);
    }
    cursor = byNumber.next_cursor ?? null;
  }
  // The capped count, with a cap below and above the number of matches.
  for (const cap of [Math.max(1, Math.floor(n / 2)), n, n + 1]) {
    expect(await countTesters(db, filterOf(q), cap), `${label} cap ${cap}`).toEqual(
      n > cap ? { count: cap, capped: true } : { count: n, capped: false },
    );
  }
  expect(await countTesters(db, filterOf(q), null)).toEqual({ count: n, capped: false });
  return n;
}

const ALL_SORTS = Object.keys(SORT_COLUMNS).flatMap((k) => [
  { sort_key: Number(k), sort_order: 0 },
  { sort_key: Number(k), sort_order: 1 },
]);

describe('search query paths on the demo data', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build();
    // The demo's sittings are opened by its examinees logging in (tester01 … tester12).
    for (let i = 1; i <= 12; i++) await loginAs(s.app, `tester${String(i).padStart(2, '0')}`);
  });
  afterAll(async () => s.close());

  it('every sort and order, unfiltered and filtered, pages like one plain query', async () => {
    for (const sort of ALL_SORTS) {
      expect(await expectSamePaths(s.db, sort, 10)).toBe(12);
      expect(await expectSamePaths(s.db, { ...sort, ...fuzzy('受験者0') }, 10)).toBe(9);
      await expectSamePaths(s.db, { ...sort, ...fuzzy('デモ受験者1'), score: 0 }, 10);
      await expectSamePaths(s.db, { ...sort, exam_name: 'デモ受験者12' }, 10);
    }
  });
});

describe('search query paths on generated data', () => {
  let s: TestServer;
  let groups: number[];
  let marks: number[];
  beforeAll(async () => {
    s = await build();
    const db = s.db;
    // The demo's group (its test manager's) and two more, named so the group-name sort has ties of case.
    groups = [(await db.query<{ id: number }>(`SELECT id FROM exam_groups WHERE code = 'DEMO'`)).rows[0]!.id];
    for (const [code, name] of [
      ['PB', 'beta'],
      ['PC', 'Beta'],
    ] as const) {
      groups.push(
        (
          await db.query<{ id: number }>(
            `INSERT INTO exam_groups (code, name) VALUES ($1, $2) RETURNING id`,
            [code, name],
          )
        ).rows[0]!.id,
      );
    }
    marks = (await db.query<{ id: number }>('SELECT id FROM marks ORDER BY order_id, id LIMIT 3')).rows.map(
      (r) => r.id,
    );
    const u = (await db.query<{ id: number }>(`SELECT id FROM users WHERE login_id = 'tester01'`)).rows[0]!
      .id;
    // 300 sittings: ties on every sort column, NULL dates and groups, names differing in case, names with the
    // LIKE wildcards and the escape character in them, Japanese names.
    await db.query(
      `INSERT INTO tests (user_id, group_id, login_id, test_name, region, exam_name, test_at, record,
                          cheating_level, total_score)
       SELECT $1, CASE WHEN n % 11 = 0 THEN NULL ELSE ($2::bigint[])[n % 3 + 1] END, 'tester01',
              'T' || (n % 4), 'R' || (n % 5),
              (ARRAY['Tanaka Yui', 'TANAKA ren', 'tanaka_Mei', '田中 花子', 'Sato 100%', 'sato\\x', 'Ito Tanaka'])[n % 7 + 1]
                || ' ' || (n % 13),
              CASE WHEN n % 9 = 0 THEN NULL ELSE timestamptz '2024-04-01 00:00+09' + (n % 40) * interval '7 hours' END,
              n % 3 = 0, n % 4, (n * 7) % 23
         FROM generate_series(1, 300) n`,
      [u, groups],
    );
    // Markings through the markings table, so the triggers keep mark_ids, with_mark and the scores as they do
    // for a checker: one mark on every 4th sitting, a second on every 12th, a repeated one on every 20th.
    await db.query(
      `INSERT INTO markings (test_id, tester_id, mark_id)
       SELECT t.id, t.user_id, ($1::bigint[])[1 + (t.id % 2)] FROM tests t WHERE t.id % 4 = 0
       UNION ALL SELECT t.id, t.user_id, ($1::bigint[])[3] FROM tests t WHERE t.id % 12 = 0
       UNION ALL SELECT t.id, t.user_id, ($1::bigint[])[1 + (t.id % 2)] FROM tests t WHERE t.id % 20 = 0`,
      [marks],
    );
    // The visibility map, so the covering indexes are read index-only as on a vacuumed database.
    await db.exec('VACUUM ANALYZE tests');
  });
  afterAll(async () => s.close());

  it.each([
    ['no filter', () => ({})],
    ['score ≥ 15', () => ({ score: 15 })],
    ['a mark type', () => ({ mark_id: marks[0]! })],
    ['a fuzzy name', () => fuzzy('tanaka')],
  ] as const)('%s: every sort and order pages like one plain query', async (_name, f) => {
    for (const sort of ALL_SORTS) await expectSamePaths(s.db, { ...f(), ...sort }, 50);
  });

  it('combined filters, in the default and the group-name order, page like one plain query', async () => {
    const combos: Query[] = [
      { group: groups[1]!, mark_id: marks[1]! },
      { mark_id: marks[2]!, test_at_date_from: '2024-04-03', test_at_date_to: '2024-04-08' },
      { with_mark: 1 },
      { with_mark: 0, record: 1 },
      { cheating_level_from: 2, score: 5 },
      { group: groups[0]!, ...fuzzy('TANAKA') },
      fuzzy('100%'),
      fuzzy('a_m'),
      fuzzy('o\\x'),
      fuzzy('田中'),
      fuzzy('nobody'),
    ];
    for (const f of combos) {
      for (const sort of [{}, { sort_key: 1, sort_order: 1 }, { sort_key: 7 }]) {
        await expectSamePaths(s.db, { ...f, ...sort }, 15);
      }
    }
    // The wildcards and the escape character match themselves only.
    expect(await reference(s.db, fuzzy('100%'))).toHaveLength(43);
    expect(await reference(s.db, fuzzy('a_m'))).toHaveLength(43);
    expect(await reference(s.db, fuzzy('o\\x'))).toHaveLength(43);
  });

  it('gives the same pages when the planner is kept to index walks (the covering indexes)', async () => {
    // PGlite has one connection, so session settings reach every statement the search runs.
    if (s.db.kind !== 'pglite') return;
    await s.db.exec('SET enable_seqscan = off; SET enable_bitmapscan = off');
    try {
      for (const f of [
        {},
        { score: 15 },
        { mark_id: marks[0]! },
        fuzzy('tanaka'),
        { group: groups[2]!, with_mark: 1 },
      ] as Query[]) {
        for (const sort of [{}, { sort_order: 1 }, { sort_key: 1 }, { sort_key: 1, sort_order: 1 }]) {
          await expectSamePaths(s.db, { ...f, ...sort }, 40);
        }
      }
    } finally {
      await s.db.exec('RESET enable_seqscan; RESET enable_bitmapscan');
    }
  });

  it('keeps mark_ids NULL for a sitting without marks, and the filter follows the markings', async () => {
    const [a, b] = marks as [number, number];
    const id = (
      await s.db.query<{ id: number }>(`SELECT id FROM tests WHERE mark_ids IS NULL ORDER BY id LIMIT 1`)
    ).rows[0]!.id;
    const found = async (m: number) => (await reference(s.db, { mark_id: m })).includes(id);
    const viaSearch = async (m: number) => {
      const r = await searchTesters(s.db, filterOf({ mark_id: m, max_display_count: 500 }));
      return r.testers.some((x) => x.test_id === id);
    };
    expect(await viaSearch(a)).toBe(false);
    await s.db.query(
      `INSERT INTO markings (test_id, tester_id, mark_id) SELECT id, user_id, $2 FROM tests WHERE id = $1`,
      [id, a],
    );
    expect([await found(a), await viaSearch(a), await viaSearch(b)]).toEqual([true, true, false]);
    await s.db.query('DELETE FROM markings WHERE test_id = $1', [id]);
    const row = (
      await s.db.query<{ ids: number[] | null; with_mark: boolean }>(
        'SELECT mark_ids AS ids, with_mark FROM tests WHERE id = $1',
        [id],
      )
    ).rows[0]!;
    expect(row).toEqual({ ids: null, with_mark: false });
    expect(await viaSearch(a)).toBe(false);
    expect(
      (await s.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM tests WHERE mark_ids = '{}'`)).rows[0]!
        .n,
    ).toBe(0);
  });

  it('answers the screen through testers.php with the reference rows (a test manager: own group only)', async () => {
    const token = await loginAsActor(s.app, 3);
    for (const page of [1, 2, 5]) {
      const res = await injectAs(s.app, token, {
        method: 'GET',
        url: `/api/v1/testers.php?exam_name=TaNaKa&is_like_search=1&max_display_count=10&page=${page}`,
      });
      expect(res.statusCode, res.body).toBe(200);
      const body = envelope<{ count: number; testers: { test_id: number }[] }>(res).result;
      const expected = await reference(s.db, { ...fuzzy('TaNaKa'), group: groups[0]! });
      expect(expected.length).toBeGreaterThan(40);
      expect(body.count).toBe(expected.length);
      expect(body.testers.map((r) => r.test_id)).toEqual(expected.slice((page - 1) * 10, page * 10));
    }
  });
});
