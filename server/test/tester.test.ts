import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { WebrtcMessageList } from '../../contract/messages';
import type {
  HeadShotResult,
  KickOutResult,
  MarkingResult,
  McTokenResult,
  TestMarkingsResult,
  TesterDetail,
  TesterStatusResult,
  TestStatusResult,
} from '../../contract/tester';
import { loadMarkings, loadMessages, loadRecords } from '../src/lib/tester/detail';
import { consumeMcToken } from '../src/lib/tester/mc-token';
import { build, envelope, injectAs, loginAs, type TestServer } from './helper';

// A real 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==',
  'base64',
);
const JPEG_6MB = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(6 * 1024 * 1024)]);

let s: TestServer;
let dataDir: string;
const ids: Record<string, number> = {};
const tokens: Record<string, string> = {};

async function token(loginId: string): Promise<string> {
  tokens[loginId] ??= await loginAs(s.app, loginId);
  return tokens[loginId];
}

function get(loginId: string, url: string): Promise<LightMyRequestResponse> {
  return token(loginId).then((t) => injectAs(s.app, t, { method: 'GET', url: `/api/v1${url}` }));
}

function post(loginId: string, url: string, payload: unknown): Promise<LightMyRequestResponse> {
  return token(loginId).then((t) =>
    injectAs(s.app, t, { method: 'POST', url: `/api/v1${url}`, payload: payload as object }),
  );
}

function multipart(fields: Record<string, string>, file?: { data: Buffer; type: string; name?: string }) {
  const boundary = '----tester-test-boundary';
  const chunks: Buffer[] = [];
  for (const [k, v] of Object.entries(fields)) {
    chunks.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`));
  }
  if (file) {
    chunks.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="${file.name ?? 'image'}"; filename="x"\r\nContent-Type: ${file.type}\r\n\r\n`,
      ),
      file.data,
      Buffer.from('\r\n'),
    );
  }
  chunks.push(Buffer.from(`--${boundary}--\r\n`));
  return {
    payload: Buffer.concat(chunks),
    headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
  };
}

async function openTestId(loginId: string): Promise<number> {
  const { rows } = await s.db.query<{ id: number }>(
    `SELECT id FROM tests WHERE user_id = $1 AND status < 7 ORDER BY id DESC LIMIT 1`,
    [ids[loginId]],
  );
  return rows[0]!.id;
}

async function match(tester: string, checker: string): Promise<void> {
  await token(tester); // login opens the sitting
  await s.db.query(`UPDATE matchings SET deleted_at = now() WHERE tester_id = $1 AND deleted_at IS NULL`, [
    ids[tester],
  ]);
  await s.db.query(
    `INSERT INTO matchings (test_id, tester_id, checker_id, matching_status, channel_name) VALUES ($1, $2, $3, 2, $4)`,
    [await openTestId(tester), ids[tester], ids[checker], `ch-${tester}`],
  );
}

async function setStartup(tester: string, params: Record<string, unknown>): Promise<void> {
  await token(tester);
  await s.db.query(`UPDATE tests SET startup_parameters = $2 WHERE id = $1`, [
    await openTestId(tester),
    JSON.stringify(params),
  ]);
}

/** Puts the tester's open sitting at 4 (before exam): the state the exam system opens from. */
async function readyForExam(tester: string): Promise<void> {
  await token(tester);
  await s.db.query(`UPDATE tests SET status = 4 WHERE id = $1`, [await openTestId(tester)]);
}

async function setStatus(loginId: string, tester: string, status: number) {
  return post(loginId, '/tester/status.php', { tester_id: ids[tester], status });
}

/** A new examinee of the demo group (or `groupId`), logged in: one open sitting. */
async function examinee(loginId: string, groupId?: number): Promise<number> {
  const u = await s.db.query<{ id: number }>(
    `INSERT INTO users (login_id, password_hash, actor, name, group_id)
     SELECT $1, password_hash, 1, $1, coalesce($2::bigint, group_id) FROM users WHERE login_id = 'tester01'
     RETURNING id`,
    [loginId, groupId ?? null],
  );
  ids[loginId] = u.rows[0]!.id;
  await token(loginId);
  return openTestId(loginId);
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'tester-test-'));
  s = await build({ dataDir }, { objectStorage: true });
  const { rows } = await s.db.query<{ id: number; login_id: string }>(`SELECT id, login_id FROM users`);
  for (const r of rows) ids[r.login_id] = r.id;
  // A tester of another group, for the test manager's group rule.
  const g = await s.db.query<{ id: number }>(
    `INSERT INTO exam_groups (code, name) VALUES ('OTHER', 'Other') RETURNING id`,
  );
  const u = await s.db.query<{ id: number }>(
    `INSERT INTO users (login_id, password_hash, actor, name, group_id) SELECT 'other01', password_hash, 1, 'Other', $1
       FROM users WHERE login_id = 'tester01' RETURNING id`,
    [g.rows[0]!.id],
  );
  ids.other01 = u.rows[0]!.id;
});

afterAll(async () => {
  await s.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('tester/detail.php', () => {
  it('gives a tester its own detail (spec §3 entity) and nothing else', async () => {
    const res = await get('tester01', '/tester/detail.php');
    expect(res.statusCode).toBe(200);
    const d = envelope<TesterDetail>(res).result;
    expect(d.tester_id).toBe(ids.tester01);
    expect(d.user_id).toBe(ids.tester01);
    expect(d.login_id).toBe('tester01');
    expect(d.group).toBe('Demo University');
    expect(d.group_code).toBe('DEMO');
    expect(d.status).toBe(1);
    expect(d.login_at).not.toBeNull();
    // The sitting carries the demo tester URL's start-up parameters (bound at login).
    expect(d.startup_parameters).toMatchObject({ is_proctor: 1, memo: '' });
    expect(d.markings).toEqual([]);
    expect(d.marking_total_score).toBe(0);
    expect(d.testers).toEqual([
      expect.objectContaining({
        tester_id: ids.tester01,
        login_id: 'tester01',
        startup_parameters: { is_proctor: 1 },
      }),
    ]);
    for (const k of [
      'head_shot_uri',
      'id_card_uri',
      'ai_markings',
      'ai_marking_summaries',
      'records',
      'messages',
      'rejected',
    ]) {
      expect(d).toHaveProperty(k);
    }

    const own = await get('tester01', `/tester/detail.php?tester_id=${ids.tester01}`);
    expect(own.statusCode).toBe(200);
    const other = await get('tester01', `/tester/detail.php?tester_id=${ids.tester02}`);
    expect(other.statusCode).toBe(403);
    expect(envelope(other).code).toBe('forbidden');
  });

  it('gives the ID card and head shot update times', async () => {
    await get('tester12', '/tester/detail.php');
    await s.db.query(
      `UPDATE tests SET id_card_key = 'k/id.png', id_card_at = '2026-01-02T03:04:05Z',
                        head_shot_key = 'k/h.png', head_shot_at = '2026-01-02T03:00:00Z'
        WHERE user_id = $1`,
      [ids.tester12],
    );
    const d = envelope<TesterDetail>(await get('tester12', '/tester/detail.php')).result;
    expect([d.id_card_updated_at, d.head_shot_updated_at]).toEqual([
      '2026-01-02T12:04:05.000+09:00',
      '2026-01-02T12:00:00.000+09:00',
    ]);
  });

  it('hides start-up secrets and keeps the rest', async () => {
    await setStartup('tester11', {
      is_proctor: 1,
      memo: 'm',
      exam_name: 'E',
      password: 'p',
      access_token: 't',
    });
    const d = envelope<TesterDetail>(await get('tester11', '/tester/detail.php')).result;
    expect(d.startup_parameters).toEqual({ is_proctor: 1, memo: 'm', exam_name: 'E' });
  });

  it('lets a checker read only testers matched to it', async () => {
    await token('tester02');
    expect((await get('checker02', `/tester/detail.php?tester_id=${ids.tester02}`)).statusCode).toBe(403);
    await match('tester02', 'checker02');
    const res = await get('checker02', `/tester/detail.php?tester_id=${ids.tester02}`);
    expect(res.statusCode).toBe(200);
    expect(envelope<TesterDetail>(res).result.login_id).toBe('tester02');
    expect((await get('checker02', '/tester/detail.php')).statusCode).toBe(400);
  });

  it('lets a test manager read its own group only, and system managers and supervisors any', async () => {
    expect((await get('manager01', `/tester/detail.php?tester_id=${ids.tester01}`)).statusCode).toBe(200);
    expect((await get('manager01', `/tester/detail.php?tester_id=${ids.other01}`)).statusCode).toBe(403);
    expect((await get('sysadmin01', `/tester/detail.php?tester_id=${ids.other01}`)).statusCode).toBe(404); // no sitting
    const tid = await openTestId('tester01');
    const byTest = await get('supervisor01', `/tester/detail.php?test_id=${tid}`);
    expect(byTest.statusCode).toBe(200);
    expect(envelope<TesterDetail>(byTest).result.test_id).toBe(tid);
  });

  it('selects sittings by test_id and latest mode, and answers 404/400 for bad ones', async () => {
    const t1 = await openTestId('tester01');
    const t2 = await openTestId('tester02');
    expect(
      (await get('sysadmin01', `/tester/detail.php?tester_id=${ids.tester01}&test_id=${t2}`)).statusCode,
    ).toBe(404);
    const latest = await get('sysadmin01', `/tester/detail.php?tester_id=${ids.tester01}&latest=1`);
    expect(envelope<TesterDetail>(latest).result.test_id).toBe(t1);
    const examining = await get('sysadmin01', `/tester/detail.php?tester_id=${ids.tester01}&latest=2`);
    expect(envelope<TesterDetail>(examining).result.test_id).toBe(t1); // falls back to the newest
    expect((await get('sysadmin01', '/tester/detail.php?tester_id=999999')).statusCode).toBe(404);
    const bad = await get('sysadmin01', '/tester/detail.php?tester_id=abc');
    expect(bad.statusCode).toBe(400);
    expect(envelope(bad).code).toBe('validation');
    expect(
      (await get('sysadmin01', `/tester/detail.php?tester_id=${ids.tester01}&latest=5`)).statusCode,
    ).toBe(400);
    expect((await s.app.inject({ method: 'GET', url: '/api/v1/tester/detail.php' })).statusCode).toBe(401);
  });

  it('ends the older window of a tester who logs in again, and every window at logout, saying why (401 code)', async () => {
    const a = await loginAs(s.app, 'tester12');
    expect((await injectAs(s.app, a, { method: 'GET', url: '/api/v1/tester/detail.php' })).statusCode).toBe(
      200,
    );
    const b = await loginAs(s.app, 'tester12');
    const old = await injectAs(s.app, a, { method: 'GET', url: '/api/v1/tester/detail.php' });
    expect(old.statusCode).toBe(401);
    expect(envelope(old).code).toBe('session_superseded');
    expect((await injectAs(s.app, b, { method: 'GET', url: '/api/v1/tester/detail.php' })).statusCode).toBe(
      200,
    );
    // A third window logs out: every window of the examinee is ended with it.
    const c = await loginAs(s.app, 'tester12');
    await injectAs(s.app, c, { method: 'POST', url: '/api/v1/logout.php?p=self', payload: {} });
    for (const t of [b, c]) {
      const res = await injectAs(s.app, t, { method: 'GET', url: '/api/v1/tester/detail.php' });
      expect(res.statusCode).toBe(401);
    }
    // Logging in again opens the same sitting.
    const d = await loginAs(s.app, 'tester12');
    expect((await injectAs(s.app, d, { method: 'GET', url: '/api/v1/tester/detail.php' })).statusCode).toBe(
      200,
    );
  });

  it('still answers 405 to a live session whose sitting was logged out after its login (spec §8)', async () => {
    const a = await token('tester11');
    await s.db.query(
      `UPDATE tests SET logout_at = now() + interval '1 second' WHERE user_id = (SELECT id FROM users WHERE login_id = 'tester11') AND status < 7`,
    );
    const res = await injectAs(s.app, a, { method: 'GET', url: '/api/v1/tester/detail.php' });
    expect(res.statusCode).toBe(405);
    expect(envelope(res).status).toBe(405);
  });
});

describe('tester/detail.php in one statement', () => {
  it('builds every list of the detail as the lists alone read them (times, numbers, order)', async () => {
    const tid = await examinee('lists01');
    const uid = ids.lists01!;
    const rec = await s.db.query<{ id: number }>(
      `INSERT INTO records (test_id, tester_id, bucket, object_key, start_at, duration_ms, size_bytes, movie_status)
       VALUES ($1, $2, 'b', 'recordings/x/1.webm', '2026-01-02T03:04:05.123456Z', 61500, 123456, '04'),
              ($1, $2, 'b', 'recordings/x/0.webm', '2026-01-02T03:00:00.999999Z', NULL, NULL, '00')
       RETURNING id`,
      [tid, uid],
    );
    const recordId = rec.rows[0]!.id;
    await s.db.query(
      `INSERT INTO record_status_logs (record_id, movie_status, detail, created_at)
       VALUES ($1, '01', 'a', '2026-01-02T03:05:00.250Z'), ($1, '04', 'b', '2026-01-02T03:05:00.250Z')`,
      [recordId],
    );
    const mark = (await s.db.query<{ id: number }>(`SELECT id FROM marks ORDER BY id LIMIT 1`)).rows[0]!.id;
    await s.db.query(
      `INSERT INTO markings (test_id, tester_id, mark_id, record_id, marking_at)
       VALUES ($1, $2, $3, $4, '2026-01-02T03:05:06.5Z'), ($1, $2, $3, NULL, '2026-01-02T03:05:06.5Z'),
              ($1, $2, NULL, NULL, '2026-01-02T03:04:00Z')`,
      [tid, uid, mark, recordId],
    );
    await s.db.query(
      `INSERT INTO ai_markings (test_id, record_id, analysis_type, score, confidence, start_ms, end_ms)
       VALUES ($1, $2, 'voice', 3, 0.87654, 1500, 2600)`,
      [tid, recordId],
    );
    await s.db.query(
      `INSERT INTO messages (test_id, tester_id, send_type, message_type, message)
       VALUES ($1, $2, 0, 1, 'one'), ($1, $2, 1, 2, 'two')`,
      [tid, uid],
    );
    await s.db.query(`INSERT INTO ai_auth (test_id, status, face_retry) VALUES ($1, 2, 1)`, [tid]);
    await s.db.query(
      `INSERT INTO ai_auth_attempts (test_id, kind, outcome, reason, scores)
       VALUES ($1, 'face', 'ok', '', '{"face": 0.91, "note": "x"}')`,
      [tid],
    );

    const d = envelope<TesterDetail>(await get('sysadmin01', `/tester/detail.php?tester_id=${uid}`)).result;
    expect(d.test_id).toBe(tid);
    expect(d.markings).toEqual(await loadMarkings(s.db, tid, async () => null));
    expect(d.markings.map((m) => [m.mark, m.play_time_from])).toEqual([
      [null, null],
      [mark, 61],
      [mark, null],
    ]);
    expect(d.records).toEqual(await loadRecords(s.db, tid));
    expect(d.records.map((r) => r.start_at)).toEqual([
      '2026-01-02T12:00:00.999+09:00',
      '2026-01-02T12:04:05.123+09:00',
    ]);
    expect(d.records[1]).toMatchObject({
      size: 123456,
      duration_ms: 61500,
      play_time_from: 0,
      play_time_to: 62,
      movie_status: '04',
    });
    expect(d.recording_started_at).toBe('2026-01-02T12:00:00.999+09:00');
    expect(d.messages).toEqual(await loadMessages(s.db, tid));
    expect(d.messages.map((m) => m.message)).toEqual(['two', 'one']);
    expect(d.record_status_logs).toEqual([
      { record_id: recordId, movie_status: '01', detail: 'a', created_at: '2026-01-02T12:05:00.250+09:00' },
      { record_id: recordId, movie_status: '04', detail: 'b', created_at: '2026-01-02T12:05:00.250+09:00' },
    ]);
    expect(d.ai_markings).toEqual([
      expect.objectContaining({
        mark: 'voice',
        score: 3,
        confidence: 0.877,
        record_id: recordId,
        start_ms: 1500,
        end_ms: 2600,
        play_time_from: 1,
        play_time_to: 3,
        source: 'recording',
        excused: false,
      }),
    ]);
    expect(d.ai_marking_summaries).toEqual([{ mark: 'voice', count: 1 }]);
    expect(d.ai_auth).toMatchObject({
      status: 2,
      face_retry: 1,
      id_card_retry: 0,
      attempts: [{ kind: 'face', outcome: 'ok', scores: { face: 0.91 }, image_url: null }],
    });
    expect(d.examinee_logs.map((l) => l.event)).toContain('login');
    expect(d.testers).toEqual([
      expect.objectContaining({
        tester_id: uid,
        test_id: tid,
        status: 1,
        login_id: 'lists01',
        startup_parameters: { is_proctor: 1 },
      }),
    ]);
    // The examinee's own detail: the same lists, without the AI identity decisions.
    const own = envelope<TesterDetail>(await get('lists01', '/tester/detail.php')).result;
    expect(own).not.toHaveProperty('ai_auth');
    expect(own.markings).toEqual(d.markings);
  });

  it('reads the whole detail in one statement for each caller that may see it, and refuses in that one statement', async () => {
    const tid = await examinee('count01');
    const uid = ids.count01!;
    await s.db.query(
      `INSERT INTO matchings (test_id, tester_id, checker_id, matching_status, channel_name) VALUES ($1, $2, $3, 2, 'ch-count01')`,
      [tid, uid, ids.checker02],
    );
    await s.db.query(
      `INSERT INTO messages (test_id, tester_id, send_type, message_type, message) VALUES ($1, $2, 0, 1, 'hi')`,
      [tid, uid],
    );
    // Every caller logged in first, so only the detail's own statements are counted.
    const callers = [
      'count01',
      'checker02',
      'manager01',
      'sysadmin01',
      'supervisor01',
      'checker01',
      'other01',
    ];
    for (const who of callers) await token(who);
    const spy = vi.spyOn(s.db, 'query');
    const statements = async (who: string, q: string) => {
      spy.mockClear();
      const res = await get(who, `/tester/detail.php?${q}`);
      const sql = spy.mock.calls.map((c) => String(c[0]));
      return {
        status: res.statusCode,
        messages: res.statusCode === 200 ? envelope<TesterDetail>(res).result.messages.length : null,
        statements: sql.filter((t) => !/\bsessions\b/.test(t) || /markings_json/.test(t)).length,
        lists: sql.filter((t) => /markings_json/.test(t)).length,
      };
    };
    try {
      for (const who of ['count01', 'checker02', 'manager01', 'sysadmin01', 'supervisor01'])
        expect(await statements(who, who === 'count01' ? '' : `tester_id=${uid}`), who).toEqual({
          status: 200,
          messages: 1,
          statements: 1,
          lists: 1,
        });
      // Refused by what the statement read, or (another tester's id) before any.
      expect(await statements('checker01', `tester_id=${uid}`)).toMatchObject({ status: 403, statements: 1 });
      expect(await statements('other01', `tester_id=${uid}`)).toMatchObject({ status: 403, statements: 0 });
    } finally {
      spy.mockRestore();
    }
  });

  it('keeps a checker to the sittings it monitored, and says nothing of the others', async () => {
    const first = await examinee('scope01');
    const uid = ids.scope01!;
    await s.db.query(
      `INSERT INTO matchings (test_id, tester_id, checker_id, matching_status, channel_name, deleted_at)
       VALUES ($1, $2, $3, 2, 'ch-scope01', now())`,
      [first, uid, ids.checker03],
    );
    await s.db.query(`UPDATE tests SET status = 7 WHERE id = $1`, [first]);
    const second = (
      await s.db.query<{ id: number }>(
        `INSERT INTO tests (user_id, login_id, status, group_id) SELECT id, login_id, 1, group_id FROM users WHERE id = $1
         RETURNING id`,
        [uid],
      )
    ).rows[0]!.id;
    const detail = (who: string, query: string) => get(who, `/tester/detail.php?${query}`);
    // The monitored sitting, by test_id alone or with the tester, or as the newest that reached the exam.
    for (const q of [`test_id=${first}`, `tester_id=${uid}&test_id=${first}`, `tester_id=${uid}&latest=2`]) {
      const res = await detail('checker03', q);
      expect(res.statusCode, q).toBe(200);
      expect(envelope<TesterDetail>(res).result.test_id).toBe(first);
    }
    // The current sitting (the newest too) it did not monitor: 403, not the sitting.
    for (const q of [`tester_id=${uid}`, `tester_id=${uid}&latest=1`, `test_id=${second}`]) {
      const res = await detail('checker03', q);
      expect(res.statusCode, q).toBe(403);
      expect(envelope(res).code).toBe('tester_not_visible');
      expect(res.body).not.toContain('scope01');
    }
    // A sitting of another tester named with this one: 404, as for anyone who may look this tester up.
    expect(
      (await detail('checker03', `tester_id=${uid}&test_id=${await openTestId('tester01')}`)).statusCode,
    ).toBe(404);
    // A checker that never monitored the tester is refused before it learns whether a sitting exists.
    for (const q of [`tester_id=${uid}`, `tester_id=${uid}&test_id=999999`]) {
      const res = await detail('checker01', q);
      expect(res.statusCode, q).toBe(403);
      expect(envelope(res).code).toBe('tester_not_visible');
    }
    // test_id alone naming no sitting, and a tester that does not exist: 404 with their own codes.
    const noSitting = await detail('checker01', 'test_id=999999');
    expect([noSitting.statusCode, envelope(noSitting).code]).toEqual([404, 'sitting_not_found']);
    const noTester = await detail('sysadmin01', 'tester_id=999999');
    expect([noTester.statusCode, envelope(noTester).code]).toEqual([404, 'tester_not_found']);
    // A tester id that is not an examinee's (a checker's account) is no tester.
    expect((await detail('sysadmin01', `tester_id=${ids.checker01}`)).statusCode).toBe(404);
  });

  it('keeps a test manager to its group, by the sitting’s group first', async () => {
    const g = await s.db.query<{ id: number }>(
      `INSERT INTO exam_groups (code, name) VALUES ('SCOPE2', 'Scope two') RETURNING id`,
    );
    const tid = await examinee('scope02', g.rows[0]!.id);
    const uid = ids.scope02!;
    // Not the manager's group: refused before anything is said of its sittings.
    for (const q of [`tester_id=${uid}`, `tester_id=${uid}&test_id=999999`, `test_id=${tid}`]) {
      const res = await get('manager01', `/tester/detail.php?${q}`);
      expect(res.statusCode, q).toBe(403);
      expect(envelope(res).code).toBe('tester_not_visible');
    }
    // The account moves to the manager's group, the sitting stays in its own: the sitting's group decides.
    await s.db.query(
      `UPDATE users SET group_id = (SELECT group_id FROM users WHERE login_id = 'tester01') WHERE id = $1`,
      [uid],
    );
    await s.db.query(`UPDATE tests SET group_id = $2 WHERE id = $1`, [tid, g.rows[0]!.id]);
    const res = await get('manager01', `/tester/detail.php?tester_id=${uid}`);
    expect(res.statusCode).toBe(403);
    expect(envelope(res).code).toBe('tester_not_visible');
    // A sitting without a group of its own is the tester's group's.
    await s.db.query(`UPDATE tests SET group_id = NULL WHERE id = $1`, [tid]);
    expect((await get('manager01', `/tester/detail.php?tester_id=${uid}`)).statusCode).toBe(200);
  });
});

describe('tester/status.php', () => {
  it('walks the allowed transitions with their timestamps, log events and ACCEPTED marker', async () => {
    const t = 'tester03';
    await token(t);
    const noMatch = await setStatus(t, t, 2);
    expect(noMatch.statusCode).toBe(409);
    expect(envelope(noMatch).code).toBe('invalid_transition');
    await match(t, 'checker01');
    const r2 = await setStatus(t, t, 2);
    expect(r2.statusCode).toBe(200);
    expect(envelope<TesterStatusResult>(r2).result).toMatchObject({
      status: 2,
      previous_status: 1,
      changed: true,
    });
    const same = envelope<TesterStatusResult>(await setStatus(t, t, 2)).result;
    expect(same.changed).toBe(false);

    // A tester cannot declare itself identified.
    const self3 = await setStatus(t, t, 3);
    expect(self3.statusCode).toBe(403);
    // An unmatched checker cannot either; the matched one can.
    expect((await setStatus('checker02', t, 3)).statusCode).toBe(403);
    const r3 = await setStatus('checker01', t, 3);
    expect(r3.statusCode).toBe(200);
    const msgs = envelope<WebrtcMessageList>(await get(t, `/webrtc_message.php?tester_id=${ids[t]}`)).result
      .messages;
    expect(msgs[0]).toMatchObject({ kind: 'command', message: 'ACCEPTED', send_type: 0, message_type: 2 });

    for (const to of [4, 5, 6, 5]) expect((await setStatus(t, t, to)).statusCode).toBe(200);
    const back = await setStatus(t, t, 3);
    expect(back.statusCode).toBe(409);
    expect(envelope(back).code).toBe('invalid_transition');
    const bad = await setStatus(t, t, 1);
    expect(bad.statusCode).toBe(409);
    expect(envelope(bad).message).toMatch(/5 \(examing\) to 1 \(login\)/);
    const testId = await openTestId(t);
    expect((await setStatus(t, t, 7)).statusCode).toBe(200);

    const row = (
      await s.db.query<{
        status: number;
        authenticated_at: Date | null;
        stop_at: Date | null;
        matched_at: Date | null;
      }>(`SELECT status, authenticated_at, stop_at, matched_at FROM tests WHERE id = $1`, [testId])
    ).rows[0]!;
    expect(row.status).toBe(7);
    expect(row.authenticated_at).not.toBeNull();
    expect(row.stop_at).not.toBeNull();
    expect(row.matched_at).not.toBeNull();
    const events = (
      await s.db.query<{ event: string }>(`SELECT event FROM examinee_logs WHERE test_id = $1 ORDER BY id`, [
        testId,
      ])
    ).rows.map((r) => r.event);
    expect(events).toEqual(
      expect.arrayContaining([
        'login',
        'matched',
        'authenticated',
        'before_exam',
        'exam_start',
        'exam_interruption',
        'exam_resume',
        'exam_end',
      ]),
    );
    // Nothing leaves 7: there is no open sitting any more.
    const after = await setStatus(t, t, 5);
    expect(after.statusCode).toBe(409);
    // The finished tester can still read its detail (exam-end page).
    expect(envelope<TesterDetail>(await get(t, '/tester/detail.php')).result.status).toBe(7);
  });

  it('allows 1 → 4 only when identity checking is off (is_auth 0)', async () => {
    await token('tester04');
    const refused = await setStatus('tester04', 'tester04', 4);
    expect(refused.statusCode).toBe(409);
    await setStartup('tester04', { is_auth: 0 });
    expect((await setStatus('tester04', 'tester04', 4)).statusCode).toBe(200);
  });

  it('keeps testers to themselves and validates the body', async () => {
    const other = await post('tester01', '/tester/status.php', { tester_id: ids.tester02, status: 2 });
    expect(other.statusCode).toBe(403);
    expect((await post('tester01', '/tester/status.php', { status: 9 })).statusCode).toBe(400);
    expect((await post('tester01', '/tester/status.php', { status: 'x' })).statusCode).toBe(400);
    expect((await post('tester01', '/tester/status.php', {})).statusCode).toBe(400);
    expect(
      (await post('manager01', '/tester/status.php', { tester_id: ids.tester01, status: 2 })).statusCode,
    ).toBe(403);
    expect((await post('checker01', '/tester/status.php', { status: 2 })).statusCode).toBe(400);
  });
});

describe('tester/kick_out.php and tester/rejected.php', () => {
  it('kicks (checker matched), shows KICK_OUT to the examinee, ends the matching, and lifts (admin)', async () => {
    const t = 'tester05';
    await match(t, 'checker01');
    expect(
      (await post('checker02', '/tester/kick_out.php', { tester_id: ids[t], method: 'PUT' })).statusCode,
    ).toBe(403);
    expect((await post(t, '/tester/kick_out.php', { tester_id: ids[t], method: 'PUT' })).statusCode).toBe(
      403,
    );
    const res = await post('checker01', '/tester/kick_out.php', { tester_id: ids[t], method: 'PUT' });
    expect(res.statusCode).toBe(200);
    expect(envelope<KickOutResult>(res).result).toMatchObject({
      tester_id: ids[t],
      kicked: 1,
      method: 'PUT',
    });
    const flags = (
      await s.db.query<{ u: number; t: number }>(
        `SELECT u.kicked AS u, t.kicked AS t FROM users u JOIN tests t ON t.user_id = u.id WHERE u.id = $1 AND t.status < 7`,
        [ids[t]],
      )
    ).rows[0]!;
    expect(flags).toEqual({ u: 1, t: 1 });
    const live = await s.db.query(`SELECT 1 FROM matchings WHERE tester_id = $1 AND deleted_at IS NULL`, [
      ids[t],
    ]);
    expect(live.rows).toHaveLength(0);
    const msgs = envelope<WebrtcMessageList>(await get(t, `/webrtc_message.php?tester_id=${ids[t]}`)).result
      .messages;
    expect(msgs[0]).toMatchObject({ kind: 'command', message: 'KICK_OUT', send_type: 0 });
    // A kicked tester cannot move on.
    const blocked = await setStatus(t, t, 2);
    expect(blocked.statusCode).toBe(403);
    expect(envelope(blocked).code).toBe('kicked');
    const audit = await s.db.query(
      `SELECT 1 FROM logs WHERE source = 'audit' AND type = 'tester.kick_out.put'`,
    );
    expect(audit.rows.length).toBeGreaterThan(0);

    expect(
      (await post('checker01', '/tester/kick_out.php', { tester_id: ids[t], method: 'DELETE' })).statusCode,
    ).toBe(403);
    const lift = await post('sysadmin01', '/tester/kick_out.php', { tester_id: ids[t], method: 'DELETE' });
    expect(envelope<KickOutResult>(lift).result.kicked).toBe(0);
    const u = await s.db.query<{ kicked: number }>(`SELECT kicked FROM users WHERE id = $1`, [ids[t]]);
    expect(u.rows[0]!.kicked).toBe(0);
  });

  it('ends the matching on DISCONNECT and ends the sessions on PUT_MYSELF / PUT_MYSELF_AI', async () => {
    const t = 'tester06';
    await match(t, 'checker01');
    const d = await post(t, '/tester/kick_out.php', { method: 'DISCONNECT' });
    expect(d.statusCode).toBe(200);
    const ch = await s.db.query<{ delete_reason: string; deleted: boolean }>(
      `SELECT delete_reason, deleted_at IS NOT NULL AS deleted FROM matchings WHERE tester_id = $1 ORDER BY id DESC LIMIT 1`,
      [ids[t]],
    );
    expect(ch.rows[0]).toEqual({ delete_reason: 'window_closed', deleted: true });
    expect(
      (await post('checker01', '/tester/kick_out.php', { tester_id: ids[t], method: 'PUT_MYSELF' }))
        .statusCode,
    ).toBe(403);

    const mine = await post(t, '/tester/kick_out.php', { tester_id: ids[t], method: 'PUT_MYSELF' });
    expect(envelope<KickOutResult>(mine).result.kicked).toBe(0);
    const after = await get(t, '/tester/detail.php');
    expect(after.statusCode).toBe(401);
    expect(envelope(after).code).toBe('session_ended');

    const t2 = 'tester07';
    await token(t2);
    const ai = await post(t2, '/tester/kick_out.php', { method: 'PUT_MYSELF_AI' });
    expect(envelope<KickOutResult>(ai).result.kicked).toBe(1);
    const again = await loginAs(s.app, t2);
    const detail = await injectAs(s.app, again, { method: 'GET', url: '/api/v1/tester/detail.php' });
    expect(envelope<TesterDetail>(detail).result.kicked).toBe(1);
    tokens[t2] = again;
    expect((await post(t2, '/tester/kick_out.php', { method: 'KICK' })).statusCode).toBe(400);
  });

  it('rejects identity (REJECTED marker, blocks 3) and lifts it', async () => {
    const t = 'tester08';
    await match(t, 'checker03');
    expect(
      (await post('checker01', '/tester/rejected.php', { tester_id: ids[t], method: 'PUT' })).statusCode,
    ).toBe(403);
    expect((await post(t, '/tester/rejected.php', { tester_id: ids[t], method: 'PUT' })).statusCode).toBe(
      403,
    );
    const res = await post('checker03', '/tester/rejected.php', { tester_id: ids[t], method: 'PUT' });
    expect(res.statusCode).toBe(200);
    expect(envelope<{ rejected: number }>(res).result.rejected).toBe(1);
    const msgs = envelope<WebrtcMessageList>(await get(t, `/webrtc_message.php?tester_id=${ids[t]}`)).result
      .messages;
    expect(msgs[0]).toMatchObject({ kind: 'command', message: 'REJECTED' });
    expect(envelope<TesterDetail>(await get(t, '/tester/detail.php')).result.rejected).toBe(1);
    await setStatus(t, t, 2);
    expect((await setStatus('checker03', t, 3)).statusCode).toBe(409);
    const lift = await post('checker03', '/tester/rejected.php', { tester_id: ids[t], method: 'DELETE' });
    expect(envelope<{ rejected: number }>(lift).result.rejected).toBe(0);
    expect((await setStatus('checker03', t, 3)).statusCode).toBe(200);
    expect(
      (await post('checker03', '/tester/rejected.php', { tester_id: ids[t], method: 'GET' })).statusCode,
    ).toBe(400);
  });
});

describe('tester/markings.php, test/markings.php and stored images', () => {
  it('stores the image, sums the mark scores, and alerts the examinee when asked', async () => {
    const t = 'tester09';
    await match(t, 'checker02');
    const before = Date.now();
    const r1 = await post('checker02', '/tester/markings.php', {
      tester_id: ids[t],
      mark: 7, // PERSONALITY_MISMATCH, score 10
      image: PNG.toString('base64'),
      content_type: 'image/png',
      time_lag: 60_000,
      notification: 1,
    });
    expect(r1.statusCode).toBe(200);
    const m1 = envelope<MarkingResult>(r1).result;
    expect(m1.alert).toBe('本人不一致');
    expect(m1.marking_total_score).toBe(10);
    // Stored in object storage (the local S3 stand-in here), served by a presigned URL.
    expect(m1.url).toMatch(
      new RegExp(`^${s.app.config.publicOrigin}/s3/recordings/images/marking/\\d+/[\\w-]+\\.png\\?`),
    );
    expect(new URL(m1.url!).searchParams.get('X-Amz-Signature')).toMatch(/^[0-9a-f]{64}$/);
    const img = await fetch(m1.url!);
    expect(img.status).toBe(200);
    expect(img.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await img.arrayBuffer()).equals(PNG)).toBe(true);

    // Multipart, no notification.
    const mp = multipart(
      { tester_id: String(ids[t]), mark: '3', notification: '0' },
      { data: PNG, type: 'image/png' },
    );
    const token2 = await token('checker02');
    const r2 = await injectAs(s.app, token2, { method: 'POST', url: '/api/v1/tester/markings.php', ...mp });
    expect(r2.statusCode).toBe(200);
    expect(envelope<MarkingResult>(r2).result).toMatchObject({ alert: '', marking_total_score: 12 });

    const testId = await openTestId(t);
    const row = (
      await s.db.query<{ total_score: number; with_mark: boolean }>(
        `SELECT total_score, with_mark FROM tests WHERE id = $1`,
        [testId],
      )
    ).rows[0]!;
    expect(row).toEqual({ total_score: 12, with_mark: true });
    const at = (
      await s.db.query<{ marking_at: Date }>(
        `SELECT marking_at FROM markings WHERE test_id = $1 ORDER BY id LIMIT 1`,
        [testId],
      )
    ).rows[0]!.marking_at;
    expect(new Date(at).getTime()).toBeLessThan(before - 55_000);
    const msgs = envelope<WebrtcMessageList>(await get(t, `/webrtc_message.php?tester_id=${ids[t]}`)).result
      .messages;
    expect(msgs.filter((m) => m.message.startsWith('MARKING_ALERT:'))).toHaveLength(1);

    // test/markings: the tester's own, the matched checker's and a manager's view agree.
    const own = envelope<TestMarkingsResult>(await get(t, '/test/markings.php')).result;
    expect(own.marking_total_score).toBe(12);
    expect(own.markings.map((m) => m.mark)).toEqual([7, 3]);
    expect(own.markings[0]).toMatchObject({ label: 'PERSONALITY_MISMATCH', score: 10, record_id: null });
    expect((await get('checker02', `/test/markings.php?test_id=${testId}`)).statusCode).toBe(200);
    expect((await get('manager01', `/test/markings.php?test_id=${testId}`)).statusCode).toBe(200);
    expect((await get('tester01', `/test/markings.php?test_id=${testId}`)).statusCode).toBe(403);
    expect((await get('checker01', `/test/markings.php?test_id=${testId}`)).statusCode).toBe(403);
    expect((await get('manager01', '/test/markings.php')).statusCode).toBe(400);
    const detail = envelope<TesterDetail>(
      await get('sysadmin01', `/tester/detail.php?tester_id=${ids[t]}`),
    ).result;
    expect(detail.marking_summaries).toEqual([
      expect.objectContaining({ mark: 3, count: 1 }),
      expect.objectContaining({ mark: 7, count: 1 }),
    ]);
    expect(detail.marking_total_score).toBe(12);
  });

  it('refuses unmatched checkers, other actors, unknown marks, non-images and oversized images', async () => {
    const t = 'tester09';
    const body = { tester_id: ids[t], mark: 1, image: PNG.toString('base64') };
    expect((await post('checker01', '/tester/markings.php', body)).statusCode).toBe(403);
    expect((await post(t, '/tester/markings.php', body)).statusCode).toBe(403);
    expect((await post('sysadmin01', '/tester/markings.php', body)).statusCode).toBe(403);
    expect((await post('checker02', '/tester/markings.php', { ...body, mark: 9999 })).statusCode).toBe(400);
    expect((await post('checker02', '/tester/markings.php', { tester_id: ids[t] })).statusCode).toBe(400);
    expect((await post('checker02', '/tester/markings.php', { ...body, time_lag: -1 })).statusCode).toBe(400);
    const text = await post('checker02', '/tester/markings.php', {
      ...body,
      image: Buffer.from('hello, not an image').toString('base64'),
    });
    expect(text.statusCode).toBe(415);
    expect(envelope(text).code).toBe('unsupported_media_type');
    const gif = await post('checker02', '/tester/markings.php', { ...body, content_type: 'image/gif' });
    expect(gif.statusCode).toBe(415);
    const bigJson = await post('checker02', '/tester/markings.php', {
      ...body,
      image: JPEG_6MB.toString('base64'),
    });
    expect(bigJson.statusCode).toBe(413);
    expect(envelope(bigJson)).toMatchObject({ status: 413, result: null });
    const mp = multipart({ tester_id: String(ids[t]), mark: '1' }, { data: JPEG_6MB, type: 'image/jpeg' });
    const bigMp = await injectAs(s.app, await token('checker02'), {
      method: 'POST',
      url: '/api/v1/tester/markings.php',
      ...mp,
    });
    expect(bigMp.statusCode).toBe(413);
    expect(envelope(bigMp)).toMatchObject({ status: 413, result: null });
    const wrongField = multipart(
      { tester_id: String(ids[t]), mark: '1' },
      { data: PNG, type: 'image/png', name: 'file' },
    );
    const wf = await injectAs(s.app, await token('checker02'), {
      method: 'POST',
      url: '/api/v1/tester/markings.php',
      ...wrongField,
    });
    expect(wf.statusCode).toBe(400);
  });

  it('serves images only through their presigned URL: unaltered and unexpired', async () => {
    const res = await post('tester10', '/tester/head_shot.php', {
      image: PNG.toString('base64'),
      content_type: 'image/png',
    });
    const url = envelope<{ url: string }>(res).result.url;
    expect((await fetch(url)).status).toBe(200);
    const altered = (f: (u: URL) => void) => {
      const u = new URL(url);
      f(u);
      return fetch(u).then((r) => r.status);
    };
    // Another key, another signature, a longer lifetime, no signature: refused by the store.
    expect(await altered((u) => (u.pathname = u.pathname.replace(/\.png$/, 'x.png')))).toBe(403);
    expect(await altered((u) => u.searchParams.set('X-Amz-Signature', '0'.repeat(64)))).toBe(403);
    expect(await altered((u) => u.searchParams.set('X-Amz-Expires', '604800'))).toBe(403);
    expect(await altered((u) => u.searchParams.delete('X-Amz-Signature'))).toBe(403);
    // Expired: signed ten minutes and one second ago.
    const signedAt = new URL(url).searchParams.get('X-Amz-Date')!;
    const past = new Date(
      Date.parse(
        `${signedAt.slice(0, 4)}-${signedAt.slice(4, 6)}-${signedAt.slice(6, 8)}T${signedAt.slice(9, 11)}:${signedAt.slice(11, 13)}:${signedAt.slice(13, 15)}Z`,
      ) - 601_000,
    );
    vi.useFakeTimers({ now: past, toFake: ['Date'] });
    let old: string;
    try {
      old = envelope<HeadShotResult>(await get('tester10', '/tester/head_shot.php')).result.url!;
    } finally {
      vi.useRealTimers();
    }
    expect((await fetch(old)).status).toBe(403);
    // The old image.php route is gone.
    expect((await s.app.inject({ method: 'GET', url: '/api/v1/tester/image.php?key=x' })).statusCode).toBe(
      404,
    );
  });
});

describe('tester/head_shot.php', () => {
  it('stores the tester’s own head shot and shows it to permitted readers', async () => {
    const t = 'tester10';
    const mp = multipart({}, { data: PNG, type: 'image/png' });
    const res = await injectAs(s.app, await token(t), {
      method: 'POST',
      url: '/api/v1/tester/head_shot.php',
      ...mp,
    });
    expect(res.statusCode).toBe(200);
    const mine = envelope<HeadShotResult>(await get(t, '/tester/head_shot.php')).result;
    expect(mine.url).toMatch(/head_shot/);
    expect(mine.updated_at).not.toBeNull();
    expect((await get('tester01', `/tester/head_shot.php?tester_id=${ids[t]}`)).statusCode).toBe(403);
    expect((await get('checker03', `/tester/head_shot.php?tester_id=${ids[t]}`)).statusCode).toBe(403);
    expect((await get('manager01', `/tester/head_shot.php?tester_id=${ids[t]}`)).statusCode).toBe(200);
    const none = envelope<HeadShotResult>(
      await get('supervisor01', `/tester/head_shot.php?tester_id=${ids.tester01}`),
    ).result;
    expect(none).toEqual({ url: null, updated_at: null });
    const detail = envelope<TesterDetail>(await get(t, '/tester/detail.php')).result;
    expect(detail.head_shot_uri).toMatch(/head_shot/);
  });

  it('refuses other actors, missing and non-image uploads', async () => {
    expect(
      (await post('checker01', '/tester/head_shot.php', { image: PNG.toString('base64') })).statusCode,
    ).toBe(403);
    expect((await post('tester10', '/tester/head_shot.php', {})).statusCode).toBe(400);
    expect((await post('tester10', '/tester/head_shot.php', { image: '!!!' })).statusCode).toBe(400);
    const mp = multipart({}, { data: Buffer.from('%PDF-1.4 not an image'), type: 'image/png' });
    const res = await injectAs(s.app, await token('tester10'), {
      method: 'POST',
      url: '/api/v1/tester/head_shot.php',
      ...mp,
    });
    expect(res.statusCode).toBe(415);
  });
});

describe('get_mc_token.php', () => {
  it('issues a one-time token bound to the sitting, appended to exam_url', async () => {
    const t = 'tester11';
    await setStartup(t, { exam_url: 'https://exam.example.com/start?x=1' });
    expect((await post(t, '/get_mc_token.php', { mode: 2 })).statusCode).toBe(409);
    await readyForExam(t);
    const res = await post(t, '/get_mc_token.php', { mode: 2 });
    expect(res.statusCode).toBe(200);
    const r = envelope<McTokenResult>(res).result;
    expect(r.access_token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    const u = new URL(r.window_open_url);
    expect(u.origin + u.pathname).toBe('https://exam.example.com/start');
    expect(u.searchParams.get('x')).toBe('1');
    expect(u.searchParams.get('mc_token')).toBe(r.access_token);
    const stored = await s.db.query(`SELECT 1 FROM mc_tokens WHERE token_hash = $1`, [
      Buffer.from(r.access_token),
    ]);
    expect(stored.rows).toHaveLength(0); // only the hash is kept
    const grant = await consumeMcToken(s.db, r.access_token);
    expect(grant).toEqual({ testId: await openTestId(t), userId: ids[t], mode: 2 });
    expect(await consumeMcToken(s.db, r.access_token)).toBeNull();
  });

  it('falls back to the demo exam page, refuses unsafe URLs, other actors and bad modes', async () => {
    await setStartup('tester01', {});
    await readyForExam('tester01');
    // Mode 1 is a proctor token the exam system checks; mode 2 an MC+ start-up token that logs the examinee in.
    const r = envelope<McTokenResult>(await post('tester01', '/get_mc_token.php', { mode: 1 })).result;
    expect(r.window_open_url).toMatch(/^\/demo-exam\/\?proctor_token=/);
    const r2 = envelope<McTokenResult>(await post('tester01', '/get_mc_token.php', { mode: 2 })).result;
    expect(r2.window_open_url).toMatch(/^\/demo-exam\/\?mc_token=/);
    await setStartup('tester01', { exam_url: 'javascript:alert(1)' });
    expect((await post('tester01', '/get_mc_token.php', { mode: 1 })).statusCode).toBe(409);
    await setStartup('tester01', {});
    expect((await post('checker01', '/get_mc_token.php', { mode: 1 })).statusCode).toBe(403);
    expect((await post('tester01', '/get_mc_token.php', { mode: 3 })).statusCode).toBe(400);
  });
});

describe('test/status.php and exam/status.php', () => {
  it.each(['test', 'exam'])(
    'maps the %s process codes to the test state of the own sitting',
    async (which) => {
      const url = `/${which}/status.php`;
      const t = 'tester02';
      // A sitting whose start-up parameters named no exam or venue: the exam system's status fills them in.
      await s.db.query(`UPDATE tests SET test_name = '', region = '' WHERE id = $1`, [await openTestId(t)]);
      const start = await post(t, url, {
        login_id: t,
        process: 0,
        term_set_code: 'T1',
        eai: 'E',
        test_name: 'Math',
        region: 'Tokyo',
      });
      expect(start.statusCode).toBe(200);
      expect(envelope<TestStatusResult>(start).result).toMatchObject({ test_status: 0, exam_process: 0 });
      const cases: [number, number][] = [
        [1, 1],
        [3, 3],
        [4, 1],
        [2, 2],
      ];
      for (const [process, testStatus] of cases) {
        const r = envelope<TestStatusResult>(await post(t, url, { process })).result;
        expect(r).toMatchObject({ test_status: testStatus, exam_process: process });
      }
      const row = (
        await s.db.query<{ test_name: string; region: string; term_set_code: string; test_at: Date | null }>(
          `SELECT test_name, region, term_set_code, test_at FROM tests WHERE id = $1`,
          [await openTestId(t)],
        )
      ).rows[0]!;
      expect(row).toMatchObject({ test_name: 'Math', region: 'Tokyo', term_set_code: 'T1' });
      expect(row.test_at).not.toBeNull();
      // Once set (by the start-up parameters or the first report), the examinee cannot rename them.
      await post(t, url, { process: 1, test_name: 'Easy quiz', region: 'Home' });
      const kept = await s.db.query<{ test_name: string; region: string }>(
        `SELECT test_name, region FROM tests WHERE id = $1`,
        [await openTestId(t)],
      );
      expect(kept.rows[0]).toEqual({ test_name: 'Math', region: 'Tokyo' });
      // Each report is one examinee log line of the sitting, written with its update.
      const logged = await s.db.query<{ event: string; detail: string }>(
        `SELECT event, detail FROM examinee_logs WHERE test_id = $1 AND event = $2 ORDER BY id DESC LIMIT 2`,
        [await openTestId(t), `${which}_status`],
      );
      expect(logged.rows).toEqual([
        { event: `${which}_status`, detail: 'process=1 test_status=1' },
        { event: `${which}_status`, detail: 'process=2 test_status=2' },
      ]);
      expect((await post(t, url, { login_id: 'tester01', process: 0 })).statusCode).toBe(403);
      expect((await post(t, url, { process: 7 })).statusCode).toBe(400);
      expect((await post(t, url, {})).statusCode).toBe(400);
      expect((await post('checker01', url, { process: 0 })).statusCode).toBe(403);
    },
  );

  it('is a 409 once the exam is finished, and changes and logs nothing', async () => {
    const t = 'finished01';
    const tid = await examinee(t);
    await s.db.query(`UPDATE tests SET status = 7, exam_process = NULL, test_status = NULL WHERE id = $1`, [
      tid,
    ]);
    const res = await post(t, '/test/status.php', { process: 0 });
    expect(res.statusCode).toBe(409);
    expect(envelope(res).code).toBe('invalid_transition');
    const row = await s.db.query<{ exam_process: number | null; n: number }>(
      `SELECT exam_process, (SELECT count(*)::int FROM examinee_logs WHERE test_id = $1 AND event = 'test_status') AS n
         FROM tests WHERE id = $1`,
      [tid],
    );
    expect(row.rows[0]).toEqual({ exam_process: null, n: 0 });
  });
});
