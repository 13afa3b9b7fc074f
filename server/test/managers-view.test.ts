import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TesterSearchResult } from '../../contract/examinees';
import type { LoginsResult } from '../../contract/management';
import type { TesterDetail } from '../../contract/tester';
import { build, envelope, injectAs, loginAs, type TestServer } from './helper';

// What managers see is computed, consistent across search, filter, sort, CSV and detail, and live.

process.env.MATCHING_SWEEP_INTERVAL_MS = '0';

/** ISO 8601 with milliseconds and the deployment zone's offset (Asia/Tokyo by default). */
const WIRE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+09:00$/;

let s: TestServer;
const tokens = new Map<string, string>();
const ids = new Map<string, number>();

async function token(loginId: string): Promise<string> {
  let t = tokens.get(loginId);
  if (!t) {
    t = await loginAs(s.app, loginId);
    tokens.set(loginId, t);
  }
  return t;
}
const id = (loginId: string) => ids.get(loginId)!;
async function get(loginId: string, url: string, query?: Record<string, string | number>) {
  return injectAs(s.app, await token(loginId), {
    method: 'GET',
    url,
    ...(query ? { query: Object.fromEntries(Object.entries(query).map(([k, v]) => [k, String(v)])) } : {}),
  });
}
async function post(loginId: string, url: string, payload: Record<string, unknown>) {
  const res = await injectAs(s.app, await token(loginId), { method: 'POST', url, payload });
  expect(res.statusCode, `${url} ${res.body}`).toBe(200);
  return res;
}
async function detailOf(loginId: string, as = 'sysadmin01'): Promise<TesterDetail> {
  const res = await get(as, '/api/v1/tester/detail.php', { tester_id: id(loginId) });
  expect(res.statusCode, res.body).toBe(200);
  return envelope<TesterDetail>(res).result;
}
async function markId(label: string): Promise<number> {
  return (await s.db.query<{ id: number }>(`SELECT id FROM marks WHERE label = $1`, [label])).rows[0]!.id;
}

beforeAll(async () => {
  s = await build();
  for (const r of (await s.db.query<{ id: number; login_id: string }>(`SELECT id, login_id FROM users`)).rows)
    ids.set(r.login_id, Number(r.id));
});
afterAll(async () => s.close());

describe('logins list and tester detail agree on an examinee state after every transition', () => {
  async function loginsStatus(loginId: string): Promise<number | null | undefined> {
    const res = await get('sysadmin01', '/api/v1/logins.php', { actor_kind: 1, max_display_count: 500 });
    expect(res.statusCode, res.body).toBe(200);
    return envelope<LoginsResult>(res).result.list.find((r) => r.login_id === loginId)?.status;
  }
  async function expectAgree(loginId: string, status: number) {
    const d = await detailOf(loginId);
    expect(d.status).toBe(status);
    expect(await loginsStatus(loginId)).toBe(status);
  }

  it('from login through matching, identity, the exam, an interruption and the end', async () => {
    await token('tester05');
    await expectAgree('tester05', 1);
    // The checker comes online; the examinee polls and is matched; its first open connection makes it 2.
    await post('checker01', '/api/v1/matching.php', {});
    await post('tester05', '/api/v1/matching.php', { channel_status: 'close' });
    await post('tester05', '/api/v1/matching.php', { channel_status: 'open' });
    await expectAgree('tester05', 2);
    await post('checker01', '/api/v1/tester/status.php', { tester_id: id('tester05'), status: 3 });
    await expectAgree('tester05', 3);
    for (const status of [4, 5, 6, 5, 7]) {
      await post('tester05', '/api/v1/tester/status.php', { status });
      await expectAgree('tester05', status);
    }
    // A second sitting after the finished one: both read the new one.
    await s.db.query(`UPDATE users SET status = 5 WHERE id = $1`, [id('tester05')]);
    tokens.delete('tester05');
    await token('tester05');
    await expectAgree('tester05', 1);
  });

  it('gives a non-examinee no tester state, and the start-up target of a sitting', async () => {
    await token('checker02');
    await token('tester06');
    await s.db.query(
      `UPDATE tests SET startup_parameters = startup_parameters || '{"target":"auth.example.org"}'::jsonb
        WHERE user_id = $1`,
      [id('tester06')],
    );
    const res = await get('sysadmin01', '/api/v1/logins.php', { actor_kind: -1, max_display_count: 500 });
    const list = envelope<LoginsResult>(res).result.list;
    expect(list.find((r) => r.login_id === 'checker02')?.status).toBeNull();
    expect(list.find((r) => r.login_id === 'tester06')).toMatchObject({
      target: 'auth.example.org',
      status: 1,
    });
    for (const r of list) expect(r.updated_at).toMatch(WIRE_TIME);
  });
});

describe('cheating level: computed from the markings, the same in search, filter, sort, CSV and detail', () => {
  let testId: number;

  beforeAll(async () => {
    await token('tester07');
    await post('checker03', '/api/v1/matching.php', {});
    await post('tester07', '/api/v1/matching.php', { channel_status: 'close' });
    testId = (await detailOf('tester07')).test_id;
  });

  async function row(query: Record<string, string | number> = {}) {
    const res = await get('sysadmin01', '/api/v1/testers.php', { login_id: 'tester07', ...query });
    expect(res.statusCode, res.body).toBe(200);
    return envelope<TesterSearchResult>(res).result.testers;
  }

  it('is 0 unmarked, then follows every marking the checker saves', async () => {
    expect((await row())[0]!.cheating_level).toBe(0);
    expect((await detailOf('tester07')).cheating_level).toBe(0);

    // 視線不良 scores 2: level 1 (thresholds 1, 5, 10).
    await post('checker03', '/api/v1/tester/markings.php', {
      tester_id: id('tester07'),
      mark: await markId('POOR_VISION'),
    });
    expect((await row())[0]).toMatchObject({ cheating_level: 1, total_score: 2, with_mark: 1 });
    // 本人不一致 scores 10: 12 in all, level 3.
    await post('checker03', '/api/v1/tester/markings.php', {
      tester_id: id('tester07'),
      mark: await markId('PERSONALITY_MISMATCH'),
    });
    const [r] = await row();
    expect(r).toMatchObject({ test_id: testId, cheating_level: 3, total_score: 12 });

    // Filter: inside and outside the range.
    expect(await row({ cheating_level_from: 3, cheating_level_to: 3 })).toHaveLength(1);
    expect(await row({ cheating_level_from: 0, cheating_level_to: 2 })).toHaveLength(0);
    // Sort key 10 (cheating level), highest first: no sitting ranks above it.
    const sorted = envelope<TesterSearchResult>(
      await get('sysadmin01', '/api/v1/testers.php', { sort_key: 10, sort_order: 0, max_display_count: 500 }),
    ).result.testers;
    expect(sorted[0]!.cheating_level).toBe(3);
    expect(sorted.findIndex((t) => t.test_id === testId)).toBeLessThan(
      sorted.findIndex((t) => t.cheating_level < 3) === -1
        ? Infinity
        : sorted.findIndex((t) => t.cheating_level < 3),
    );
    // The filter options offer every level of the definition.
    const cond = envelope<{ cheating_level: number[] }>(
      await get('sysadmin01', '/api/v1/testers/conditions.php'),
    );
    expect(cond.result.cheating_level).toEqual([0, 1, 2, 3]);
    // CSV: the 不正レベル column of the row.
    const csv = await get('sysadmin01', '/api/v1/downloadExamUserList.php', { login_id: 'tester07' });
    expect(csv.statusCode).toBe(200);
    const lines = csv.rawPayload.subarray(3).toString('utf8').split('\r\n');
    const header = lines[0]!.split(',');
    const cells = lines[1]!.split(',');
    expect(cells[header.indexOf('不正レベル')]).toBe('3');
    expect(cells[header.indexOf('スコア')]).toBe('12');
    // Detail.
    const d = await detailOf('tester07');
    expect(d.cheating_level).toBe(3);
    expect(d.marking_total_score).toBe(12);
  });

  it('is recomputed for every sitting when the organisation changes the thresholds', async () => {
    const other = await build({ cheatingLevel: { score: [20, 30, 40], ai: [50, 150, 300] } });
    try {
      const uid = (await other.db.query<{ id: number }>(`SELECT id FROM users WHERE login_id = 'tester08'`))
        .rows[0]!.id;
      const t = await other.db.query<{ id: number }>(
        `INSERT INTO tests (user_id, login_id, total_score) VALUES ($1, 'tester08', 25) RETURNING id`,
        [uid],
      );
      const level = async () =>
        (
          await other.db.query<{ l: number }>(`SELECT cheating_level AS l FROM tests WHERE id = $1`, [
            t.rows[0]!.id,
          ])
        ).rows[0]!.l;
      expect(await level()).toBe(1);
      // A restart with other thresholds recomputes the stored level.
      const { applyCheatingLevelThresholds } = await import('../src/lib/cheating-level');
      expect(await applyCheatingLevelThresholds(other.db, { score: [5, 10, 25], ai: [50, 150, 300] })).toBe(
        true,
      );
      expect(await level()).toBe(3);
      expect(await applyCheatingLevelThresholds(other.db, { score: [5, 10, 25], ai: [50, 150, 300] })).toBe(
        false,
      );
    } finally {
      await other.close();
    }
  });
});

describe('one time model', () => {
  it('sends every timestamp of the detail and the search as ISO 8601 with the zone offset; the CSV shows the same wall clock', async () => {
    await token('tester09');
    await post('tester09', '/api/v1/webrtc_message.php', {
      tester_id: id('tester09'),
      message: 'hello',
      message_type: 3,
      send_type: 1,
    });
    const d = await detailOf('tester09');
    for (const v of [
      d.test_at,
      d.login_at,
      ...d.messages.map((m) => m.created_at),
      ...d.examinee_logs.map((l) => l.created_at),
    ])
      expect(v).toMatch(WIRE_TIME);
    expect(d.examinee_logs.map((l) => l.event)).toContain('login');
    const r = envelope<TesterSearchResult>(
      await get('sysadmin01', '/api/v1/testers.php', { login_id: 'tester09' }),
    ).result.testers[0]!;
    expect(r.test_at).toBe(d.test_at);
    const csv = await get('sysadmin01', '/api/v1/downloadExamUserList.php', { login_id: 'tester09' });
    const [head, line] = csv.rawPayload.subarray(3).toString('utf8').split('\r\n');
    const cell = line!.split(',')[head!.split(',').indexOf('試験日時')];
    // 2026-11-25T08:19:42.435+09:00 → 2026-11-25 08:19:42
    expect(cell).toBe(d.test_at!.slice(0, 19).replace('T', ' '));
    expect(csv.headers['content-disposition']).toMatch(/exam_user_resultinfo_csv_\d{14}\.csv/);
  });
});

describe('roles on the detail page (spec §6)', () => {
  let testId: number;
  let recordId: number;

  beforeAll(async () => {
    await token('tester10');
    await post('checker02', '/api/v1/matching.php', {});
    await post('tester10', '/api/v1/matching.php', { channel_status: 'close' });
    const m = await s.db.query<{ checker_id: number; test_id: number }>(
      `SELECT checker_id, test_id FROM matchings WHERE tester_id = $1 AND deleted_at IS NULL`,
      [id('tester10')],
    );
    expect(Number(m.rows[0]!.checker_id)).toBe(id('checker02'));
    testId = Number(m.rows[0]!.test_id);
    recordId = (
      await s.db.query<{ id: number }>(
        `INSERT INTO records (test_id, tester_id, bucket, object_key) VALUES ($1, $2, 'b', 'recordings/x/a.webm') RETURNING id`,
        [testId, id('tester10')],
      )
    ).rows[0]!.id;
    // The monitoring ends.
    await s.db.query(`UPDATE matchings SET deleted_at = now() WHERE tester_id = $1`, [id('tester10')]);
  });

  it('lets the checker that monitored the sitting see it afterwards, and reach its recordings', async () => {
    const res = await get('checker02', '/api/v1/tester/detail.php', { test_id: testId });
    expect(res.statusCode, res.body).toBe(200);
    expect(envelope<TesterDetail>(res).result.test_id).toBe(testId);
    // Past the permission check: the recording is simply not finished yet.
    const uri = await get('checker02', '/api/v1/get_onetime_uri.php', { record_id: recordId });
    expect(uri.statusCode).toBe(409);
    expect(envelope(uri).code).toBe('recording_not_finished');
  });

  it('refuses a checker that did not monitor it, with a stable code', async () => {
    for (const url of ['/api/v1/tester/detail.php']) {
      const res = await get('checker01', url, { test_id: testId });
      expect(res.statusCode).toBe(403);
      expect(envelope(res).code).toBe('tester_not_visible');
    }
    const uri = await get('checker01', '/api/v1/get_onetime_uri.php', { record_id: recordId });
    expect(uri.statusCode).toBe(403);
    expect(envelope(uri).code).toBe('tester_not_visible');
  });

  it('gives a checker no pass/fail', async () => {
    const res = await injectAs(s.app, await token('checker02'), {
      method: 'POST',
      url: '/api/v1/test/pass.php',
      payload: { test_id: testId, method: 'PUT' },
    });
    expect(res.statusCode).toBe(403);
  });

  it('shows a manager of another group nothing of the sitting', async () => {
    const g = await s.db.query<{ id: number }>(
      `INSERT INTO exam_groups (code, name) VALUES ('ELSE', 'Elsewhere') RETURNING id`,
    );
    await s.db.query(
      `INSERT INTO users (login_id, password_hash, actor, name, group_id)
       SELECT 'manager-else', password_hash, 3, 'Else manager', $1 FROM users WHERE login_id = 'manager01'`,
      [g.rows[0]!.id],
    );
    const res = await get('manager-else', '/api/v1/tester/detail.php', { test_id: testId });
    expect(res.statusCode).toBe(403);
    expect(envelope(res).code).toBe('tester_not_visible');
    expect(res.body).not.toContain('tester10');
    const uri = await get('manager-else', '/api/v1/get_onetime_uri.php', { record_id: recordId });
    expect(uri.statusCode).toBe(403);
    // The group's own manager sees it, with the recording's file name in no empty field.
    const own = await get('manager01', '/api/v1/tester/detail.php', { test_id: testId });
    expect(own.statusCode).toBe(200);
    const d = envelope<TesterDetail>(own).result;
    expect(d.group).toBe('Demo University');
    expect(d.group_code).toBe('DEMO');
    expect(d).not.toHaveProperty('r_exam_name');
    expect(d.records[0]).not.toHaveProperty('url');
    expect(d.record_status_logs).toEqual([]);
  });
});
