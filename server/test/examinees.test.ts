import type { Db } from '../src/db/db';
import { verifyAuditChain } from '../src/lib/audit';
import { build, envelope, injectAs, loginAs, loginAsActor, type TestServer } from './helper';

interface Seed {
  g1: number;
  g2: number;
  mark1: number;
  mark2: number;
  ids: Record<'A' | 'B' | 'C' | 'D' | 'E', number>;
}

const HOSTILE = `=cmd|' /C calc'!A0`;

async function userId(db: Db, loginId: string): Promise<number> {
  return (await db.query<{ id: number }>('SELECT id FROM users WHERE login_id = $1', [loginId])).rows[0]!.id;
}

/** Two groups: DEMO (A, B, C) and OTHER (D, E), with varied fields. */
async function seed(db: Db): Promise<Seed> {
  const g1 = (await db.query<{ id: number }>(`SELECT id FROM exam_groups WHERE code = 'DEMO'`)).rows[0]!.id;
  const g2 = (
    await db.query<{ id: number }>(
      `INSERT INTO exam_groups (code, name) VALUES ('OTHER', 'Other Univ') RETURNING id`,
    )
  ).rows[0]!.id;
  for (const l of ['other01', 'other02']) {
    await db.query(
      `INSERT INTO users (login_id, password_hash, actor, name, group_id) VALUES ($1, 'x', 1, $1, $2)`,
      [l, g2],
    );
  }
  const marks = (await db.query<{ id: number }>('SELECT id FROM marks ORDER BY order_id LIMIT 2')).rows;
  const rows: [keyof Seed['ids'], string, number, Record<string, unknown>][] = [
    [
      'A',
      'tester01',
      g1,
      {
        test_name: 'Math',
        region: 'Tokyo',
        exam_name: '山田 太郎',
        test_at: '2024-04-01 10:00:00+09',
        record: true,
        with_mark: true,
        cheating_level: 3,
        total_score: 15,
        ai_analysis_flag: 1,
        ai_analysis_batch_flag: 0,
        ai_namematch: 70,
      },
    ],
    [
      'B',
      'tester02',
      g1,
      {
        test_name: 'Math',
        region: 'Osaka',
        exam_name: 'Suzuki Hanako',
        test_at: '2024-04-02 14:30:00+09',
        record: false,
        with_mark: false,
        cheating_level: 0,
        total_score: 0,
        ai_analysis_flag: 0,
        ai_analysis_batch_flag: 1,
        ai_namematch: 95,
      },
    ],
    [
      'C',
      'tester03',
      g1,
      {
        test_name: 'English',
        region: 'Tokyo',
        exam_name: HOSTILE,
        test_at: '2024-05-10 09:00:00+09',
        record: true,
        with_mark: false,
        cheating_level: 5,
        total_score: 30,
        ai_analysis_flag: 0,
        ai_analysis_batch_flag: 0,
        ai_namematch: 50,
      },
    ],
    [
      'D',
      'other01',
      g2,
      {
        test_name: 'Math',
        region: 'Tokyo',
        exam_name: '山田 花子',
        test_at: '2024-04-01 11:00:00+09',
        record: true,
        with_mark: true,
        cheating_level: 3,
        total_score: 20,
        ai_analysis_flag: 0,
        ai_analysis_batch_flag: 0,
        ai_namematch: null,
      },
    ],
    [
      'E',
      'other02',
      g2,
      {
        test_name: 'Physics',
        region: 'Nagoya',
        exam_name: 'Other Person',
        test_at: null,
        record: false,
        with_mark: false,
        cheating_level: 1,
        total_score: 5,
        ai_analysis_flag: 0,
        ai_analysis_batch_flag: 0,
        ai_namematch: null,
      },
    ],
  ];
  const ids = {} as Seed['ids'];
  for (const [k, login, g, f] of rows) {
    const uid = await userId(db, login);
    const r = await db.query<{ id: number }>(
      `INSERT INTO tests (user_id, group_id, login_id, test_name, region, exam_name, test_at, stop_at, record, with_mark,
                          cheating_level, total_score, ai_analysis_flag, ai_analysis_batch_flag, ai_namematch)
       VALUES ($1, $2, $3, $4, $5, $6, $7::timestamptz, $7::timestamptz + interval '1 hour', $8, $9, $10, $11, $12, $13, $14)
       RETURNING id`,
      [
        uid,
        g,
        login,
        f.test_name,
        f.region,
        f.exam_name,
        f.test_at,
        f.record,
        f.with_mark,
        f.cheating_level,
        f.total_score,
        f.ai_analysis_flag,
        f.ai_analysis_batch_flag,
        f.ai_namematch,
      ],
    );
    ids[k] = r.rows[0]!.id;
  }
  const mark = async (test: number, markId: number) =>
    db.query(
      `INSERT INTO markings (test_id, tester_id, mark_id) SELECT id, user_id, $2 FROM tests WHERE id = $1`,
      [test, markId],
    );
  await mark(ids.A, marks[0]!.id);
  await mark(ids.D, marks[0]!.id);
  await mark(ids.C, marks[1]!.id);
  // The scores and flags of the table above (the markings' own scores are replaced); the cheating level
  // follows the score (thresholds 1, 5, 10): A 3, B 0, C 3, D 3, E 2.
  for (const [k, , , f] of rows) {
    await db.query(`UPDATE tests SET total_score = $2, with_mark = $3 WHERE id = $1`, [
      ids[k],
      f.total_score,
      f.with_mark,
    ]);
  }
  return { g1, g2, mark1: marks[0]!.id, mark2: marks[1]!.id, ids };
}

let s: TestServer;
let seedData: Seed;
let admin: string;
let manager: string;

beforeAll(async () => {
  s = await build();
  seedData = await seed(s.db);
  admin = await loginAsActor(s.app, 4);
  manager = await loginAsActor(s.app, 3);
});
afterAll(async () => s.close());

type Row = {
  test_id: number;
  exam_name: string;
  total_score: number;
  test_at: string | null;
  group: string | null;
};

async function search(token: string, query: Record<string, string | number>) {
  const res = await injectAs(s.app, token, {
    method: 'GET',
    url: '/api/v1/testers.php',
    query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])),
  });
  return res;
}

async function ids(token: string, query: Record<string, string | number>): Promise<string[]> {
  const res = await search(token, query);
  expect(res.statusCode, res.body).toBe(200);
  const rows = envelope<{ testers: Row[] }>(res).result.testers;
  const byId = Object.fromEntries(Object.entries(seedData.ids).map(([k, v]) => [v, k]));
  return rows.map((r) => byId[r.test_id] ?? `?${r.test_id}`).sort();
}

describe('GET /testers.php filters (system manager sees every group)', () => {
  it('returns every row with the spec §3 fields and display times', async () => {
    const res = await search(admin, { sort_key: 11, sort_order: 1 });
    const body = envelope<{
      count: number;
      page: number;
      page_count: number;
      max_display_count: number;
      count_capped: boolean;
      testers: Row[];
    }>(res);
    expect(body.result.count).toBe(5);
    expect(body.result.count_capped).toBe(false);
    expect(body.result.page).toBe(1);
    expect(body.result.page_count).toBe(1);
    expect(body.result.max_display_count).toBe(50);
    const a = body.result.testers[0]!;
    expect(a).toMatchObject({
      test_id: seedData.ids.A,
      group: 'Demo University',
      test_name: 'Math',
      region: 'Tokyo',
      test_at: '2024-04-01T10:00:00.000+09:00',
      stop_at: '2024-04-01T11:00:00.000+09:00',
      exam_name: '山田 太郎',
      with_mark: 1,
      record: 1,
      login_id: 'tester01',
      cheating_level: 3,
      total_score: 15,
    });
    expect(typeof (a as unknown as { user_id: number }).user_id).toBe('number');
  });

  it.each([
    ['group id', () => ({ group: seedData.g1 }), ['A', 'B', 'C']],
    ['group code', () => ({ group_text: 'OTHER' }), ['D', 'E']],
    ['login id', () => ({ login_id: 'tester02' }), ['B']],
    ['test name', () => ({ test_name: 'Math' }), ['A', 'B', 'D']],
    ['region', () => ({ region: 'Tokyo' }), ['A', 'C', 'D']],
    [
      'date range (one day)',
      () => ({ test_at_date_from: '2024-04-01', test_at_date_to: '2024-04-01' }),
      ['A', 'D'],
    ],
    ['date with slashes', () => ({ test_at_date_from: '2024/05/01' }), ['C']],
    [
      'date and time from',
      () => ({ test_at_date_from: '2024-04-01', test_at_time_from: '10:30' }),
      ['B', 'C', 'D'],
    ],
    [
      'to time HH:mm includes that minute',
      () => ({ test_at_date_to: '2024-04-01', test_at_time_to: '10:00' }),
      ['A'],
    ],
    ['to time with seconds', () => ({ test_at_date_to: '2024-04-01', test_at_time_to: '09:59:59' }), []],
    ['fuzzy examinee name', () => ({ exam_name: '山田', is_like_search: 1 }), ['A', 'D']],
    ['fuzzy name is case-insensitive', () => ({ exam_name: 'suzuki', is_like_search: 1 }), ['B']],
    ['fuzzy name escapes wildcards', () => ({ exam_name: '%', is_like_search: 1 }), []],
    ['exact examinee name', () => ({ exam_name: '山田 太郎', is_like_search: 0 }), ['A']],
    ['exact name does not match a part', () => ({ exam_name: '山田' }), []],
    ['record yes', () => ({ record: 1 }), ['A', 'C', 'D']],
    ['record no', () => ({ record: 0 }), ['B', 'E']],
    ['marking yes', () => ({ with_mark: 1 }), ['A', 'D']],
    ['cheating level range', () => ({ cheating_level_from: 3, cheating_level_to: 4 }), ['A', 'C', 'D']],
    ['cheating level low to medium', () => ({ cheating_level_from: 1, cheating_level_to: 2 }), ['E']],
    ['score at or above', () => ({ score: 20 }), ['C', 'D']],
    ['AI analysis flag', () => ({ ai_analysis_flag: 1 }), ['A']],
    ['AI batch flag', () => ({ ai_analysis_batch_flag: 1 }), ['B']],
    ['name match at or below', () => ({ ai_namematch: 70 }), ['A', 'C']],
    ['mark type', () => ({ mark_id: seedData.mark1 }), ['A', 'D']],
    ['another mark type', () => ({ mark_id: seedData.mark2 }), ['C']],
    [
      'empty strings are no filter',
      () => ({ group: '', login_id: '', record: '', exam_name: '' }),
      ['A', 'B', 'C', 'D', 'E'],
    ],
    ['combined', () => ({ group: seedData.g1, test_name: 'Math', record: 1 }), ['A']],
    ['combined across fields', () => ({ region: 'Tokyo', with_mark: 1, score: 16 }), ['D']],
  ] as const)('filters by %s', async (_name, query, expected) => {
    expect(await ids(admin, query())).toEqual([...expected]);
  });
});

describe('GET /testers.php validation (spec §5)', () => {
  it.each([
    [
      { group: 1, group_text: 'DEMO' },
      'group_text',
      '試験団体と試験団体コードのいずれかを入力してください。',
    ],
    [{ test_at_date_from: '10000-01-01' }, 'test_at_date_from', '入力された試験日(From)は設定できません。'],
    [{ test_at_date_to: '2024-02-30' }, 'test_at_date_to', '入力された試験日(To)は設定できません。'],
    [
      { test_at_date_from: '2024-01-01', test_at_time_from: '25:00' },
      'test_at_time_from',
      '入力された試験時間(From)は設定できません。',
    ],
    [
      { test_at_time_from: '10:00' },
      'test_at_time_from',
      '試験日時の指定で、指定できない組み合わせがあります。',
    ],
    [{ test_at_time_to: '10:00' }, 'test_at_time_to', '試験日時の指定で、指定できない組み合わせがあります。'],
    [
      { test_at_date_from: '2024-05-02', test_at_date_to: '2024-05-01' },
      'test_at_date_to',
      '試験日時の指定で、指定できない組み合わせがあります。',
    ],
    [{ max_display_count: 5 }, 'max_display_count', undefined],
    [{ max_display_count: 501 }, 'max_display_count', undefined],
    [{ page: 0 }, 'page', undefined],
    [{ sort_key: 99 }, 'sort_key', undefined],
    [{ record: 2 }, 'record', undefined],
    [{ skip_count: 2 }, 'skip_count', undefined],
  ])('%j → 400 on %s', async (query, field, message) => {
    const res = await search(admin, query);
    expect(res.statusCode).toBe(400);
    const body = envelope<{ field: string }>(res);
    // The spec §5 rules have their own stable codes (the SPA shows its own text for each).
    const code =
      message === undefined
        ? 'validation'
        : message.startsWith('試験団体と')
          ? 'group_or_code'
          : message.startsWith('入力された')
            ? 'invalid_date'
            : 'date_combination';
    expect(body.code).toBe(code);
    expect(body.result.field).toBe(field);
    if (message) expect(body.message).toBe(message);
  });

  it('answers a non-numeric id with a 400 envelope, not a 500', async () => {
    const queries: Record<string, string>[] = [
      { group: 'abc' },
      { mark_id: '1;DROP TABLE tests' },
      { page: '-' },
    ];
    for (const query of queries) {
      const res = await search(admin, query);
      expect(res.statusCode).toBe(400);
      expect(envelope(res).status).toBe(400);
    }
  });

  it('accepts a leap day', async () => {
    expect((await search(admin, { test_at_date_from: '2024-02-29' })).statusCode).toBe(200);
  });
});

describe('sorting', () => {
  it('sorts by score ascending and descending, ties broken by id', async () => {
    const asc = envelope<{ testers: Row[] }>(
      await search(admin, { sort_key: 7, sort_order: 1 }),
    ).result.testers.map((r) => r.total_score);
    expect(asc).toEqual([0, 5, 15, 20, 30]);
    const desc = envelope<{ testers: Row[] }>(
      await search(admin, { sort_key: 7, sort_order: 0 }),
    ).result.testers.map((r) => r.total_score);
    expect(desc).toEqual([30, 20, 15, 5, 0]);
  });

  it('sorts by group name and by test datetime (default, newest first)', async () => {
    const byGroup = envelope<{ testers: Row[] }>(
      await search(admin, { sort_key: 1, sort_order: 1 }),
    ).result.testers.map((r) => r.group);
    expect(byGroup).toEqual([
      'Demo University',
      'Demo University',
      'Demo University',
      'Other Univ',
      'Other Univ',
    ]);
    const byDate = envelope<{ testers: Row[] }>(await search(admin, {})).result.testers.map((r) => r.test_at);
    // PostgreSQL puts NULL first in descending order (it keeps the (test_at DESC, id DESC) index usable).
    expect(byDate).toEqual([
      null,
      '2024-05-10T09:00:00.000+09:00',
      '2024-04-02T14:30:00.000+09:00',
      '2024-04-01T11:00:00.000+09:00',
      '2024-04-01T10:00:00.000+09:00',
    ]);
  });
});

describe('group isolation for a test manager (spec §6)', () => {
  it('search shows only the own group, whatever group is asked for', async () => {
    expect(await ids(manager, {})).toEqual(['A', 'B', 'C']);
    expect(await ids(manager, { group: seedData.g2 })).toEqual([]);
    expect(await ids(manager, { group_text: 'OTHER' })).toEqual([]);
    expect(await ids(manager, { test_name: 'Math' })).toEqual(['A', 'B']);
  });

  it('conditions list only the own group and its values', async () => {
    const res = await injectAs(s.app, manager, { method: 'GET', url: '/api/v1/testers/conditions.php' });
    expect(res.statusCode).toBe(200);
    const r = envelope<{
      groups: { code: string }[];
      test_names: string[];
      regions: string[];
      cheating_level: number[];
    }>(res).result;
    expect(r.groups.map((g) => g.code)).toEqual(['DEMO']);
    expect(r.test_names).toEqual(['English', 'Math']);
    expect(r.regions).toEqual(['Osaka', 'Tokyo']);
    // Every level of the definition (README "Cheating level"), whatever the group holds.
    expect(r.cheating_level).toEqual([0, 1, 2, 3]);
  });

  it('pass/fail of another group is not found', async () => {
    const get = await injectAs(s.app, manager, {
      method: 'GET',
      url: `/api/v1/test/pass.php?test_id=${seedData.ids.D}`,
    });
    expect(get.statusCode).toBe(404);
    const post = await injectAs(s.app, manager, {
      method: 'POST',
      url: '/api/v1/test/pass.php',
      payload: { test_id: seedData.ids.D, method: 'PUT' },
    });
    expect(post.statusCode).toBe(404);
    const pass = await s.db.query<{ pass: number | null }>('SELECT pass FROM tests WHERE id = $1', [
      seedData.ids.D,
    ]);
    expect(pass.rows[0]!.pass).toBeNull();
  });

  it('CSV holds only the own group', async () => {
    const res = await injectAs(s.app, manager, {
      method: 'GET',
      url: '/api/v1/downloadExamUserList.php?test_name=Math',
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-rows']).toBe('2');
    expect(res.body).toContain('tester01');
    expect(res.body).not.toContain('other01');
  });
});

describe('GET /testers/conditions.php', () => {
  it('gives every option list to a system manager', async () => {
    const res = await injectAs(s.app, admin, { method: 'GET', url: '/api/v1/testers/conditions.php' });
    const r = envelope<Record<string, unknown[]>>(res).result;
    expect(Object.keys(r).sort()).toEqual(
      [
        'ai_analysis_flag',
        'cheating_level',
        'groups',
        'marks',
        'records',
        'regions',
        'test_names',
        'times',
        'with_marks',
      ].sort(),
    );
    expect((r.groups as { code: string }[]).map((g) => g.code).sort()).toEqual(['DEMO', 'OTHER']);
    expect(r.marks!.length).toBeGreaterThan(0);
    expect(r.times![0]).toBe('00:00');
    expect(r.times).toHaveLength(48);
  });
});

describe('GET /downloadExamUserList.php', () => {
  it('streams a BOM + CRLF CSV with formula-safe cells, the file name and the row count', async () => {
    const res = await injectAs(s.app, admin, {
      method: 'GET',
      url: '/api/v1/downloadExamUserList.php?region=Tokyo',
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/csv/);
    expect(res.headers['content-disposition']).toMatch(
      /^attachment; filename="exam_user_resultinfo_csv_\d{14}\.csv"$/,
    );
    expect(res.headers['x-total-rows']).toBe('3');
    const raw = res.rawPayload;
    expect([...raw.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = raw.subarray(3).toString('utf8');
    const lines = text.split('\r\n');
    expect(lines[0]!.startsWith('受験ID,試験団体')).toBe(true);
    expect(lines).toHaveLength(1 + 3 + 1); // header, 3 rows, trailing empty after the last CRLF
    expect(text).toContain(`,'${HOSTILE},`);
    // Every column of one row, in the header's order and the display formats.
    const uid = await userId(s.db, 'tester01');
    expect(lines.find((l) => l.startsWith(`${seedData.ids.A},`))).toBe(
      `${seedData.ids.A},Demo University,Math,Tokyo,2024-04-01 10:00:00,2024-04-01 11:00:00,山田 太郎,tester01,${uid},1,3,15,1,`,
    );
  });

  it('refuses a download without search conditions (spec §8)', async () => {
    for (const url of [
      '/api/v1/downloadExamUserList.php',
      '/api/v1/downloadExamUserList.php?page=1&sort_key=4&exam_name=',
    ]) {
      const res = await injectAs(s.app, admin, { method: 'GET', url });
      expect(res.statusCode).toBe(400);
      expect(envelope(res).message).toMatch(/検索条件/);
    }
  });

  it('audits the export without the filter values', async () => {
    await injectAs(s.app, admin, {
      method: 'GET',
      url: '/api/v1/downloadExamUserList.php?exam_name=%E5%B1%B1%E7%94%B0&is_like_search=1',
    });
    const { rows } = await s.db.query<{ details: string; login_id: string }>(
      `SELECT details, login_id FROM logs WHERE source = 'audit' AND type = 'export.testers_csv' ORDER BY id DESC LIMIT 1`,
    );
    expect(rows[0]!.login_id).toBe('sysadmin01');
    expect(rows[0]!.details).toContain('exam_name');
    expect(rows[0]!.details).not.toContain('山田');
    expect((await verifyAuditChain(s.db)).ok).toBe(true);
  });
});

describe('test/pass.php (spec §4)', () => {
  it('PUT sets 1, DELETE sets 0, GET reads it; audited', async () => {
    const id = seedData.ids.A;
    const get0 = await injectAs(s.app, manager, {
      method: 'GET',
      url: `/api/v1/test/pass.php?test_id=${id}`,
    });
    expect(envelope(get0).result).toEqual({ test_id: id, pass: null });
    const put = await injectAs(s.app, manager, {
      method: 'POST',
      url: '/api/v1/test/pass.php',
      payload: { test_id: id, method: 'PUT' },
    });
    expect(envelope(put).result).toEqual({ test_id: id, pass: 1 });
    const del = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/test/pass.php',
      payload: { test_id: String(id), method: 'DELETE' },
    });
    expect(envelope(del).result).toEqual({ test_id: id, pass: 0 });
    const get1 = await injectAs(s.app, admin, { method: 'GET', url: `/api/v1/test/pass.php?test_id=${id}` });
    expect(envelope(get1).result).toEqual({ test_id: id, pass: 0 });
    const audits = await s.db.query(
      `SELECT 1 FROM logs WHERE source = 'audit' AND type = 'test.pass' AND location = $1`,
      [`test:${id}`],
    );
    expect(audits.rows).toHaveLength(2);
  });

  it('rejects a bad method or id with 4xx', async () => {
    const bad = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/test/pass.php',
      payload: { test_id: seedData.ids.A, method: 'PATCH' },
    });
    expect(bad.statusCode).toBe(400);
    const missing = await injectAs(s.app, admin, {
      method: 'GET',
      url: '/api/v1/test/pass.php?test_id=999999',
    });
    expect(missing.statusCode).toBe(404);
    const junk = await injectAs(s.app, admin, { method: 'GET', url: '/api/v1/test/pass.php?test_id=abc' });
    expect(junk.statusCode).toBe(400);
  });
});

describe('permissions', () => {
  const endpoints = [
    { method: 'GET' as const, url: '/api/v1/testers.php' },
    { method: 'GET' as const, url: '/api/v1/testers/conditions.php' },
    { method: 'GET' as const, url: '/api/v1/downloadExamUserList.php?region=Tokyo' },
    { method: 'GET' as const, url: '/api/v1/test/pass.php?test_id=1' },
    { method: 'POST' as const, url: '/api/v1/test/pass.php', payload: { test_id: 1, method: 'PUT' } },
  ];
  it.each([1, 2] as const)('actor %i gets 403 everywhere', async (actor) => {
    const token = await loginAsActor(s.app, actor);
    for (const e of endpoints) {
      const res = await injectAs(s.app, token, e);
      expect(res.statusCode, e.url).toBe(403);
    }
  });
  it('supervisor may search; no token is 401', async () => {
    const token = await loginAs(s.app, 'supervisor01');
    expect((await search(token, {})).statusCode).toBe(200);
    expect((await s.app.inject({ method: 'GET', url: '/api/v1/testers.php' })).statusCode).toBe(401);
  });
});

describe('paging and the count cap', () => {
  let p: TestServer;
  let token: string;
  beforeAll(async () => {
    p = await build();
    const g = (await p.db.query<{ id: number }>(`SELECT id FROM exam_groups WHERE code = 'DEMO'`)).rows[0]!
      .id;
    const u = await userId(p.db, 'tester01');
    await p.db.query(
      `INSERT INTO tests (user_id, group_id, login_id, exam_name, test_at, total_score)
       SELECT $1, $2, 'tester01', 'bulk ' || n, timestamptz '2024-01-01 00:00+09' + n * interval '1 hour', n
         FROM generate_series(1, 25) n`,
      [u, g],
    );
    token = await loginAsActor(p.app, 4);
  });
  afterAll(async () => p.close());

  it('pages of 10 in score order do not overlap', async () => {
    const page = async (n: number) =>
      envelope<{ count: number; page_count: number; page: number; testers: Row[] }>(
        await injectAs(p.app, token, {
          method: 'GET',
          url: `/api/v1/testers.php?sort_key=7&sort_order=1&max_display_count=10&page=${n}`,
        }),
      ).result;
    const [p1, p2, p3, p4] = [await page(1), await page(2), await page(3), await page(4)];
    expect(p1.count).toBe(25);
    expect(p1.page_count).toBe(3);
    expect(p3.page).toBe(3);
    expect(p1.testers.map((r) => r.total_score)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(p2.testers.map((r) => r.total_score)[0]).toBe(11);
    expect(p3.testers).toHaveLength(5);
    expect(p4.testers).toHaveLength(0);
  });

  it('caps the count above 10,000 unless an exact count is asked for', async () => {
    const g = (await p.db.query<{ id: number }>(`SELECT id FROM exam_groups WHERE code = 'DEMO'`)).rows[0]!
      .id;
    const u = await userId(p.db, 'tester02');
    await p.db.query(
      `INSERT INTO tests (user_id, group_id, login_id, exam_name, test_at) SELECT $1, $2, 'tester02', 'many', now() FROM generate_series(1, 10001)`,
      [u, g],
    );
    const capped = envelope<{ count: number; count_capped: boolean; page_count: number }>(
      await injectAs(p.app, token, { method: 'GET', url: '/api/v1/testers.php?max_display_count=500' }),
    ).result;
    expect(capped).toMatchObject({ count: 10000, count_capped: true, page_count: 20 });
    const exact = envelope<{ count: number; count_capped: boolean }>(
      await injectAs(p.app, token, { method: 'GET', url: '/api/v1/testers.php?exact_count=1' }),
    ).result;
    expect(exact).toMatchObject({ count: 10026, count_capped: false });
  });

  it('exports every match of a large result in id order, over several database batches', async () => {
    const g = (await p.db.query<{ id: number }>(`SELECT id FROM exam_groups WHERE code = 'DEMO'`)).rows[0]!
      .id;
    const u = await userId(p.db, 'tester03');
    await p.db.query(
      `INSERT INTO tests (user_id, group_id, login_id, exam_name) SELECT $1, $2, 'tester03', 'export ' || n FROM generate_series(1, 4500) n`,
      [u, g],
    );
    const res = await injectAs(p.app, token, {
      method: 'GET',
      url: '/api/v1/downloadExamUserList.php?login_id=tester03',
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['x-total-rows']).toBe('4500');
    const lines = res.rawPayload.subarray(3).toString('utf8').split('\r\n').slice(1, -1);
    expect(lines).toHaveLength(4500);
    const ids = lines.map((l) => Number(l.split(',')[0]));
    expect(new Set(ids).size).toBe(4500);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(lines.map((l) => l.split(',')[7]))).toEqual(new Set(['tester03']));
  });
});

describe('keyset paging (cursor / next_cursor)', () => {
  let k: TestServer;
  let token: string;
  let other: number;
  beforeAll(async () => {
    k = await build();
    const g = (await k.db.query<{ id: number }>(`SELECT id FROM exam_groups WHERE code = 'DEMO'`)).rows[0]!
      .id;
    other = (
      await k.db.query<{ id: number }>(
        `INSERT INTO exam_groups (code, name) VALUES ('KEYSET', 'Keyset Group') RETURNING id`,
      )
    ).rows[0]!.id;
    const u = await userId(k.db, 'tester01');
    // 31 sittings with ties on every sort column, NULL dates and NULL groups, in three groups.
    await k.db.query(
      `INSERT INTO tests (user_id, group_id, login_id, test_name, region, exam_name, test_at, with_mark, record,
                          cheating_level, total_score)
       SELECT $1, CASE WHEN n % 5 = 0 THEN NULL WHEN n % 3 = 0 THEN $3::bigint ELSE $2::bigint END, 'tester01',
              'T' || (n % 4), 'R' || (n % 3), 'name ' || (n % 7),
              CASE WHEN n % 6 = 0 THEN NULL ELSE timestamptz '2024-01-01 00:00+09' + (n % 9) * interval '1 hour' END,
              n % 2 = 0, n % 3 = 0, n % 4, (n * 7) % 5
         FROM generate_series(1, 31) n`,
      [u, g, other],
    );
    token = await loginAsActor(k.app, 4);
  });
  afterAll(async () => k.close());

  type Page = { count: number; page: number; testers: Row[]; next_cursor?: string | null };
  const get = async (q: Record<string, string | number>) => {
    const res = await injectAs(k.app, token, {
      method: 'GET',
      url: '/api/v1/testers.php',
      query: Object.fromEntries(Object.entries(q).map(([key, v]) => [key, String(v)])),
    });
    return res;
  };
  const page = async (q: Record<string, string | number>) => {
    const res = await get(q);
    expect(res.statusCode, res.body).toBe(200);
    return envelope<Page>(res).result;
  };

  const sorts = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11].flatMap((key) => [
    [key, 0],
    [key, 1],
  ]);
  it.each(sorts)(
    'sort_key %i order %i: following next_cursor gives the OFFSET order exactly',
    async (key, order) => {
      const all = await page({ sort_key: key, sort_order: order, max_display_count: 500 });
      expect(all.testers.length).toBeGreaterThanOrEqual(31);
      expect(all.next_cursor).toBeNull();
      const walked: number[] = [];
      let p = await page({ sort_key: key, sort_order: order, max_display_count: 10 });
      for (let i = 0; i < 10; i++) {
        walked.push(...p.testers.map((r) => r.test_id));
        if (!p.next_cursor) break;
        // page is only a label with a cursor
        p = await page({
          sort_key: key,
          sort_order: order,
          max_display_count: 10,
          cursor: p.next_cursor,
          page: i + 2,
        });
        expect(p.page).toBe(i + 2);
      }
      expect(walked).toEqual(all.testers.map((r) => r.test_id));
      // The OFFSET pages agree with the keyset pages.
      const p2 = await page({ sort_key: key, sort_order: order, max_display_count: 10, page: 2 });
      expect(p2.testers.map((r) => r.test_id)).toEqual(walked.slice(10, 20));
    },
  );

  it.each(sorts)(
    'sort_key %i order %i: every OFFSET page, the later ones read from the end, is its slice of the order',
    async (key, order) => {
      const all = await page({ sort_key: key, sort_order: order, max_display_count: 500 });
      const order_ = all.testers.map((r) => r.test_id);
      const n = all.count;
      for (let p = 1; p <= Math.ceil(n / 10) + 1; p++) {
        const r = await page({ sort_key: key, sort_order: order, max_display_count: 10, page: p });
        expect(r.testers.map((x) => x.test_id)).toEqual(order_.slice((p - 1) * 10, p * 10));
        expect(r.count).toBe(n);
        expect(r.next_cursor === null, `page ${p}`).toBe(p * 10 >= n);
        if (r.next_cursor) {
          // The cursor of a page read backwards continues where it ends.
          const next = await page({
            sort_key: key,
            sort_order: order,
            max_display_count: 10,
            cursor: r.next_cursor,
          });
          expect(next.testers.map((x) => x.test_id)).toEqual(order_.slice(p * 10, (p + 1) * 10));
        }
      }
    },
  );

  it('skip_count=1 gives the same rows without counting (count fields null)', async () => {
    const counted = await page({ sort_key: 7, max_display_count: 10, page: 2 });
    expect(counted).toMatchObject({ count: 31, count_capped: false, page_count: 4 });
    const skipped = await page({ sort_key: 7, max_display_count: 10, page: 2, skip_count: 1 });
    expect(skipped).toMatchObject({ count: null, count_capped: null, page_count: null, page: 2 });
    expect(skipped.testers).toEqual(counted.testers);
    expect(skipped.next_cursor).toBe(counted.next_cursor);
    const viaCursor = await page({
      sort_key: 7,
      max_display_count: 10,
      page: 3,
      cursor: skipped.next_cursor!,
      skip_count: 1,
    });
    expect(viaCursor).toMatchObject({ count: null, page: 3 });
    const third = await page({ sort_key: 7, max_display_count: 10, page: 3 });
    expect(viaCursor.testers).toEqual(third.testers);
    // A cursor page without skip_count still counts.
    expect((await page({ sort_key: 7, max_display_count: 10, cursor: skipped.next_cursor! })).count).toBe(31);
  });

  it('gives next_cursor on OFFSET pages too, and null on the last page', async () => {
    const p1 = await page({ max_display_count: 10 });
    expect(typeof p1.next_cursor).toBe('string');
    const total = p1.count;
    const last = await page({ max_display_count: 10, page: Math.ceil(total / 10) });
    expect(last.next_cursor).toBeNull();
  });

  it('keeps the filters and the group scope under a cursor', async () => {
    const p1 = await page({ group: other, max_display_count: 10 });
    expect(p1.count).toBeGreaterThan(0);
    const walked = [...p1.testers];
    let c = p1.next_cursor;
    while (c) {
      const p = await page({ group: other, max_display_count: 10, cursor: c });
      walked.push(...p.testers);
      c = p.next_cursor;
    }
    expect(walked).toHaveLength(p1.count);
    expect(new Set(walked.map((r) => r.group))).toEqual(new Set(['Keyset Group']));
    // A test manager of DEMO following a cursor still sees only DEMO rows.
    const mgr = await loginAsActor(k.app, 3);
    const m1 = envelope<Page>(
      await injectAs(k.app, mgr, { method: 'GET', url: '/api/v1/testers.php?max_display_count=10' }),
    ).result;
    const m2 = envelope<Page>(
      await injectAs(k.app, mgr, {
        method: 'GET',
        url: `/api/v1/testers.php?max_display_count=10&cursor=${m1.next_cursor}`,
      }),
    ).result;
    expect(new Set([...m1.testers, ...m2.testers].map((r) => r.group))).toEqual(new Set(['Demo University']));
  });

  it.each([
    ['not base64 json', 'bm90IGpzb24'],
    ['wrong shape', Buffer.from(JSON.stringify({ a: 1 })).toString('base64url')],
    ['another sort', Buffer.from(JSON.stringify([7, 0, '3', 1])).toString('base64url')],
    ['another order', Buffer.from(JSON.stringify([4, 1, null, 1])).toString('base64url')],
    ['a bad id', Buffer.from(JSON.stringify([4, 0, null, -1])).toString('base64url')],
    ['a bad date', Buffer.from(JSON.stringify([4, 0, 'yesterday', 1])).toString('base64url')],
    [
      'an impossible date',
      Buffer.from(JSON.stringify([4, 0, '2026-13-40 25:00:00', 1])).toString('base64url'),
    ],
  ])('refuses a cursor that is %s with a 400 on cursor', async (_name, cursor) => {
    const res = await get({ cursor });
    expect(res.statusCode).toBe(400);
    const body = envelope<{ field: string }>(res);
    expect(body.code).toBe('validation');
    expect(body.result.field).toBe('cursor');
  });

  it('sorts by the group name as renamed (the copy on tests follows exam_groups)', async () => {
    await k.db.query(`UPDATE exam_groups SET name = 'AAA first' WHERE id = $1`, [other]);
    const p = await page({ sort_key: 1, sort_order: 1, max_display_count: 10 });
    expect(p.testers[0]!.group).toBe('AAA first');
    const moved = await k.db.query<{ id: number }>(
      `UPDATE tests SET group_id = NULL WHERE group_id = $1 RETURNING id`,
      [other],
    );
    const rows = await k.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM tests WHERE id = ANY($1::bigint[]) AND group_name IS NULL`,
      [moved.rows.map((r) => r.id)],
    );
    expect(rows.rows[0]!.n).toBe(moved.rows.length);
  });
});

describe('mark type filter follows the markings (tests.mark_ids, migration 0009)', () => {
  let m: TestServer;
  let token: string;
  let marks: number[];
  let t1: number;
  let t2: number;
  beforeAll(async () => {
    m = await build();
    marks = (await m.db.query<{ id: number }>('SELECT id FROM marks ORDER BY order_id, id LIMIT 3')).rows.map(
      (r) => r.id,
    );
    const u = await userId(m.db, 'tester01');
    const g = (await m.db.query<{ id: number }>(`SELECT id FROM exam_groups WHERE code = 'DEMO'`)).rows[0]!
      .id;
    const ins = await m.db.query<{ id: number }>(
      `INSERT INTO tests (user_id, group_id, login_id, exam_name) SELECT $1, $2, 'tester01', 'mark ' || n
         FROM generate_series(1, 2) n RETURNING id`,
      [u, g],
    );
    [t1, t2] = ins.rows.map((r) => r.id) as [number, number];
    token = await loginAsActor(m.app, 4);
  });
  afterAll(async () => m.close());

  const found = async (markId: number, extra: Record<string, string | number> = {}) => {
    const res = await injectAs(m.app, token, {
      method: 'GET',
      url: '/api/v1/testers.php',
      query: Object.fromEntries(
        Object.entries({ mark_id: markId, sort_key: 11, sort_order: 1, ...extra }).map(([k, v]) => [
          k,
          String(v),
        ]),
      ),
    });
    expect(res.statusCode, res.body).toBe(200);
    const r = envelope<{ count: number; testers: Row[] }>(res).result;
    expect(r.count).toBe(r.testers.length);
    return r.testers.map((x) => x.test_id).filter((id) => id === t1 || id === t2);
  };
  const markIt = async (test: number, mark: number) =>
    (
      await m.db.query<{ id: number }>(
        `INSERT INTO markings (test_id, tester_id, mark_id) SELECT id, user_id, $2 FROM tests WHERE id = $1 RETURNING id`,
        [test, mark],
      )
    ).rows[0]!.id;

  it('finds a sitting by each mark it has, once however many markings of that mark', async () => {
    const [a, b, c] = marks as [number, number, number];
    expect(await found(a)).toEqual([]);
    const first = await markIt(t1, a);
    await markIt(t1, a);
    await markIt(t1, b);
    expect(await found(a)).toEqual([t1]);
    expect(await found(b)).toEqual([t1]);
    expect(await found(c)).toEqual([]);
    // Combined with another filter and with paging by count.
    expect(await found(a, { login_id: 'tester01', max_display_count: 10 })).toEqual([t1]);
    expect(await found(a, { login_id: 'tester02' })).toEqual([]);

    // A marking changed to another mark, then moved to another sitting.
    await m.db.query('UPDATE markings SET mark_id = $2 WHERE id = $1', [first, c]);
    expect(await found(a)).toEqual([t1]); // the second marking of `a` is still there
    expect(await found(c)).toEqual([t1]);
    await m.db.query('UPDATE markings SET test_id = $2 WHERE id = $1', [first, t2]);
    expect(await found(c)).toEqual([t2]);

    // Deleting markings takes the mark away.
    await m.db.query('DELETE FROM markings WHERE test_id = $1 AND mark_id = $2', [t1, a]);
    expect(await found(a)).toEqual([]);
    expect(await found(b)).toEqual([t1]);
    const rows = await m.db.query<{ id: number; mark_ids: (string | number)[] }>(
      'SELECT id, mark_ids FROM tests WHERE id = ANY($1::bigint[]) ORDER BY id',
      [[t1, t2]],
    );
    expect(rows.rows.map((r) => [r.id, r.mark_ids.map(Number)])).toEqual([
      [t1, [b]],
      [t2, [c]],
    ]);
  });

  it('drops the marks with the sitting (cascade) and a manager still sees only the own group', async () => {
    const [a] = marks as [number];
    const other = (
      await m.db.query<{ id: number }>(
        `INSERT INTO exam_groups (code, name) VALUES ('MK', 'Mark Other') RETURNING id`,
      )
    ).rows[0]!.id;
    const u = await userId(m.db, 'tester02');
    const t3 = (
      await m.db.query<{ id: number }>(
        `INSERT INTO tests (user_id, group_id, login_id, exam_name) VALUES ($1, $2, 'tester02', 'other mark') RETURNING id`,
        [u, other],
      )
    ).rows[0]!.id;
    await markIt(t2, a);
    await markIt(t3, a);
    const groups = async (tok: string) =>
      envelope<{ testers: Row[] }>(
        await injectAs(m.app, tok, { method: 'GET', url: `/api/v1/testers.php?mark_id=${a}` }),
      ).result.testers.map((r) => r.group);
    expect(new Set(await groups(token))).toEqual(new Set(['Demo University', 'Mark Other']));
    expect(new Set(await groups(await loginAsActor(m.app, 3)))).toEqual(new Set(['Demo University']));
    await m.db.query('DELETE FROM tests WHERE id = $1', [t2]);
    expect(await found(a)).toEqual([]);
  });
});
