import type { Db } from '../src/db/db';
import { dateInZone } from '../src/lib/management-time';
import { planDeletions, runRetention } from '../src/lib/retention-job';
import { build, envelope, injectAs, loginAsActor, type TestServer } from './helper';

interface Setting {
  id: number;
  group_id: number;
  group: string | null;
  duration: number;
  updated_at: string;
}

/**
 * Retention fixture. DEMO has no row (default 1095 days); OTHER keeps 30 days.
 * Due: T1 (DEMO, ended 2000 days ago, 2 recordings, images), T3 (OTHER, 40 days). Kept: T2 (DEMO, 10 days),
 * T4 (OTHER, 20 days), T5 (never started, created now).
 */
async function seedRetention(db: Db) {
  const g1 = (await db.query<{ id: number }>(`SELECT id FROM exam_groups WHERE code = 'DEMO'`)).rows[0]!.id;
  const g2 = (
    await db.query<{ id: number }>(
      `INSERT INTO exam_groups (code, name) VALUES ('OTHER', 'Other Univ') RETURNING id`,
    )
  ).rows[0]!.id;
  await db.query(`INSERT INTO cleaner_settings (group_id, duration) VALUES ($1, 30)`, [g2]);
  const uid = (await db.query<{ id: number }>(`SELECT id FROM users WHERE login_id = 'tester01'`)).rows[0]!
    .id;
  const test = async (g: number, daysAgo: number | null, headShot: string | null = null) =>
    (
      await db.query<{ id: number }>(
        `INSERT INTO tests (user_id, group_id, login_id, exam_name, test_at, stop_at, head_shot_key)
         VALUES ($1, $2, 'tester01', 'x', now() - $3::int * interval '1 day' - interval '1 hour', now() - $3::int * interval '1 day', $4)
         RETURNING id`,
        [uid, g, daysAgo, headShot],
      )
    ).rows[0]!.id;
  const T1 = await test(g1, 2000, 'head_shot/1/aaaaaaaaaaaaaaaa.jpg');
  const T2 = await test(g1, 10);
  const T3 = await test(g2, 40);
  const T4 = await test(g2, 20);
  const T5 = (
    await db.query<{ id: number }>(
      `INSERT INTO tests (user_id, group_id, login_id) VALUES ($1, $2, 'tester01') RETURNING id`,
      [uid, g1],
    )
  ).rows[0]!.id;
  const record = async (t: number, key: string) =>
    (
      await db.query<{ id: number }>(
        `INSERT INTO records (test_id, tester_id, bucket, object_key) VALUES ($1, $2, 'rec', $3) RETURNING id`,
        [t, uid, key],
      )
    ).rows[0]!.id;
  const r1 = await record(T1, 'k/t1-a.webm');
  const r2 = await record(T1, 'k/t1-b.webm');
  const r3 = await record(T2, 'k/t2.webm');
  await db.query(
    `INSERT INTO markings (test_id, tester_id, image_key) VALUES ($1, $2, 'marking/1/bbbbbbbbbbbbbbbb.jpg')`,
    [T1, uid],
  );
  // Logs: old client log (due), recent one, old audit row (never pruned).
  await db.query(
    `INSERT INTO logs (source, type, details, created_at) VALUES ('client', 'old', '', now() - interval '400 days'), ('client', 'new', '', now() - interval '10 days')`,
  );
  await db.query(
    `INSERT INTO logs (source, type, details, created_at) VALUES ('audit', 'ancient', '', now() - interval '400 days')`,
  );
  // Matchings on T2: ended 400 days ago (due), live but old (kept), ended recently (kept).
  const m = async (created: string, ended: boolean) =>
    (
      await db.query<{ id: number }>(
        `INSERT INTO matchings (test_id, tester_id, channel_name, created_at, deleted_at) VALUES ($1, $2, 'c', now() - $3::interval, $4) RETURNING id`,
        [T2, uid, created, ended ? new Date() : null],
      )
    ).rows[0]!.id;
  const mOld = await m('400 days', true);
  const mLive = await m('400 days', false);
  const mNew = await m('10 days', true);
  return { g1, g2, T1, T2, T3, T4, T5, r1, r2, r3, mOld, mLive, mNew };
}

let s: TestServer;
let admin: string;

beforeAll(async () => {
  s = await build();
  admin = await loginAsActor(s.app, 4);
});
afterAll(async () => s.close());

const index = async () =>
  envelope<{ list: Setting[] }>(
    await injectAs(s.app, admin, { method: 'GET', url: '/api/v1/cleaner/setting_index.php' }),
  ).result.list;

describe('retention settings', () => {
  it('always lists the system rows first with their defaults', async () => {
    const list = await index();
    expect(list.slice(0, 3).map((r) => [r.group_id, r.duration])).toEqual([
      [-1, 365],
      [-2, 365],
      [-3, 1095],
    ]);
    expect(list[0]!.updated_at).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}\+09:00$/);
  });

  it('stores a per-group row once, updates it, and audits both', async () => {
    const g = (
      await s.db.query<{ id: number }>(
        `INSERT INTO exam_groups (code, name) VALUES ('G3', 'Third') RETURNING id`,
      )
    ).rows[0]!.id;
    const res = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/cleaner/setting_store.php',
      payload: { group_id: g, duration: '90' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const row = envelope<Setting>(res).result;
    expect(row).toMatchObject({ group_id: g, group: 'Third', duration: 90 });
    const dup = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/cleaner/setting_store.php',
      payload: { group_id: g, duration: 5 },
    });
    expect(dup.statusCode).toBe(409);
    const upd = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/cleaner/setting_update.php',
      payload: { id: row.id, duration: 36500 },
    });
    expect(envelope<Setting>(upd).result.duration).toBe(36500);
    const sys = (await index())[0]!;
    const updSys = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/cleaner/setting_update.php',
      payload: { id: sys.id, duration: 1 },
    });
    expect(envelope<Setting>(updSys).result).toMatchObject({ group_id: -1, duration: 1 });
    await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/cleaner/setting_update.php',
      payload: { id: sys.id, duration: 365 },
    });
    const audits = await s.db.query<{ type: string }>(
      `SELECT type FROM logs WHERE source = 'audit' AND type LIKE 'settings.retention.%'`,
    );
    expect(audits.rows.map((r) => r.type)).toContain('settings.retention.store');
    expect(audits.rows.map((r) => r.type)).toContain('settings.retention.update');
  });

  it.each([
    ['/api/v1/cleaner/setting_store.php', { group_id: 1, duration: 0 }, 400, 'duration'],
    ['/api/v1/cleaner/setting_store.php', { group_id: 1, duration: 36501 }, 400, 'duration'],
    ['/api/v1/cleaner/setting_store.php', { group_id: 999999, duration: 10 }, 400, 'group_id'],
    ['/api/v1/cleaner/setting_store.php', { group_id: -1, duration: 10 }, 400, 'group_id'],
    ['/api/v1/cleaner/setting_update.php', { id: 1, duration: 1.5 }, 400, undefined],
    ['/api/v1/cleaner/setting_update.php', { id: 'x', duration: 10 }, 400, undefined],
    ['/api/v1/cleaner/setting_update.php', { id: 999999, duration: 10 }, 404, undefined],
  ])('%s %j → %i', async (url, payload, status, field) => {
    const res = await injectAs(s.app, admin, { method: 'POST', url, payload });
    expect(res.statusCode).toBe(status);
    if (field) expect(envelope<{ field: string }>(res).result.field).toBe(field);
  });
});

describe('retention plan, CSV and run', () => {
  let r: TestServer;
  let fx: Awaited<ReturnType<typeof seedRetention>>;
  beforeAll(async () => {
    r = await build();
    fx = await seedRetention(r.db);
  });
  afterAll(async () => r.close());

  it('plans exactly the due sittings, their recordings, old logs and old ended matchings', async () => {
    const plan = await planDeletions(r.db, dateInZone(new Date()));
    expect(plan.testIds).toEqual([fx.T1, fx.T3]);
    expect(plan.recordIds).toEqual([fx.r1, fx.r2]);
    expect(plan.logCount).toBe(1);
    expect(plan.matchingCount).toBe(1);
    // A date far ahead plans everything that has ended by then.
    const later = await planDeletions(r.db, '9999-01-01');
    expect(later.testIds).toEqual([fx.T1, fx.T2, fx.T3, fx.T4, fx.T5]);
  });

  it('downloads the plan as CSV for a date', async () => {
    const token = await loginAsActor(r.app, 5);
    const date = dateInZone(new Date());
    const res = await injectAs(r.app, token, {
      method: 'GET',
      url: `/api/v1/cleaner/csv.php?key=tester&execution_time=${encodeURIComponent(date + ' 00:00:00')}`,
    });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toBe(
      `attachment; filename="delete_plan_csv_tester_${date.replace(/-/g, '')}.csv"`,
    );
    const lines = res.rawPayload.subarray(3).toString('utf8').trimEnd().split('\r\n');
    expect(lines.slice(1).map((l) => Number(l.split(',')[0]))).toEqual([fx.T1, fx.T3]);
    const rec = await injectAs(r.app, token, {
      method: 'GET',
      url: `/api/v1/cleaner/csv.php?key=record&execution_time=${date}`,
    });
    const recLines = rec.rawPayload.subarray(3).toString('utf8').trimEnd().split('\r\n');
    expect(recLines.slice(1).map((l) => Number(l.split(',')[0]))).toEqual([fx.r1, fx.r2]);
    expect(rec.headers['content-disposition']).toContain('delete_plan_csv_record_');
    for (const q of [
      'key=tester&execution_time=10000-01-01',
      'key=tester&execution_time=abc',
      'key=video&execution_time=2024-01-01',
      'key=tester',
    ]) {
      const bad = await injectAs(r.app, token, { method: 'GET', url: `/api/v1/cleaner/csv.php?${q}` });
      expect(bad.statusCode, q).toBe(400);
    }
  });

  it('keeps a sitting whose media cannot be deleted, for the next run', async () => {
    const objects: string[] = [];
    const report = await runRetention(r.db, new Date(), {
      deleteObject: async ({ key }) => {
        if (key === 'k/t1-b.webm') throw new Error('S3 down');
        objects.push(key);
      },
      deleteImage: async () => undefined,
    });
    expect(report.failedTestIds).toEqual([fx.T1]);
    expect(report.deletedTestIds).toEqual([fx.T3]);
    expect((await r.db.query('SELECT 1 FROM tests WHERE id = $1', [fx.T1])).rows).toHaveLength(1);
    expect((await planDeletions(r.db, dateInZone(new Date()))).testIds).toEqual([fx.T1]);
  });

  it('deletes exactly what the plan lists, media included, and audits each sitting', async () => {
    const plan = await planDeletions(r.db, dateInZone(new Date()));
    const objects: string[] = [];
    const images: string[] = [];
    const report = await runRetention(r.db, new Date(), {
      deleteObject: async ({ bucket, key }) => void objects.push(`${bucket}/${key}`),
      deleteImage: async (key) => void images.push(key),
    });
    expect(report.deletedTestIds).toEqual(plan.testIds);
    expect(report.deletedRecordIds).toEqual(plan.recordIds);
    expect(objects.sort()).toEqual(['rec/k/t1-a.webm', 'rec/k/t1-b.webm']);
    expect(images.sort()).toEqual(['head_shot/1/aaaaaaaaaaaaaaaa.jpg', 'marking/1/bbbbbbbbbbbbbbbb.jpg']);

    const tests = (await r.db.query<{ id: number }>('SELECT id FROM tests ORDER BY id')).rows.map(
      (x) => x.id,
    );
    expect(tests).toEqual([fx.T2, fx.T4, fx.T5]);
    const records = (await r.db.query<{ id: number }>('SELECT id FROM records ORDER BY id')).rows.map(
      (x) => x.id,
    );
    expect(records).toEqual([fx.r3]);
    const logs = (
      await r.db.query<{ type: string }>(
        `SELECT type FROM logs WHERE type IN ('old', 'new', 'ancient') ORDER BY type`,
      )
    ).rows;
    expect(logs.map((l) => l.type)).toEqual(['ancient', 'new']);
    const matchings = (await r.db.query<{ id: number }>('SELECT id FROM matchings ORDER BY id')).rows.map(
      (x) => x.id,
    );
    expect(matchings).toEqual([fx.mLive, fx.mNew]);
    const audits = await r.db.query<{ location: string }>(
      `SELECT location FROM logs WHERE source = 'audit' AND type = 'retention.delete_test' ORDER BY id`,
    );
    expect(audits.rows.map((a) => a.location)).toEqual([`test:${fx.T3}`, `test:${fx.T1}`]);
    const bulk = await r.db.query<{ type: string }>(
      `SELECT type FROM logs WHERE source = 'audit' AND type IN ('retention.delete_logs', 'retention.delete_matchings')`,
    );
    expect(bulk.rows).toHaveLength(2);

    const again = await planDeletions(r.db, dateInZone(new Date()));
    expect(again).toMatchObject({ testIds: [], recordIds: [], logCount: 0, matchingCount: 0 });
  });
});

describe('permissions', () => {
  it.each([1, 2, 3] as const)('actor %i gets 403', async (actor) => {
    const token = await loginAsActor(s.app, actor);
    for (const e of [
      { method: 'GET' as const, url: '/api/v1/cleaner/setting_index.php' },
      {
        method: 'POST' as const,
        url: '/api/v1/cleaner/setting_store.php',
        payload: { group_id: 1, duration: 10 },
      },
      {
        method: 'POST' as const,
        url: '/api/v1/cleaner/setting_update.php',
        payload: { id: 1, duration: 10 },
      },
      { method: 'GET' as const, url: '/api/v1/cleaner/csv.php?key=tester&execution_time=2024-01-01' },
    ]) {
      expect((await injectAs(s.app, token, e)).statusCode, e.url).toBe(403);
    }
  });
});
