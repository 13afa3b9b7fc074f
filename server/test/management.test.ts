import { build, envelope, injectAs, loginAs, loginAsActor, type TestServer } from './helper';

let s: TestServer;
let admin: string;

beforeAll(async () => {
  s = await build();
  admin = await loginAsActor(s.app, 4);
});
afterAll(async () => s.close());

describe('GET /management_initial_param.php', () => {
  it('answers the public origin and its host', async () => {
    const res = await injectAs(s.app, admin, { method: 'GET', url: '/api/v1/management_initial_param.php' });
    expect(envelope(res).result).toEqual({ origin: 'http://127.0.0.1:8080', domain: '127.0.0.1' });
  });
});

describe('GET /analysis_request/initial_param.php', () => {
  it('answers domain and env', async () => {
    const res = await injectAs(s.app, admin, {
      method: 'GET',
      url: '/api/v1/analysis_request/initial_param.php',
    });
    expect(envelope(res).result).toEqual({ domain: '127.0.0.1', env: 'demo' });
  });
});

describe('GET /management_summary.php', () => {
  it('counts live sessions by kind and today’s planned deletions', async () => {
    await loginAs(s.app, 'tester01');
    await loginAs(s.app, 'tester02');
    const checker = await loginAsActor(s.app, 2);
    // A revoked session does not count.
    await loginAs(s.app, 'tester03');
    await s.db.query(
      `UPDATE sessions SET revoked_at = now() WHERE user_id = (SELECT id FROM users WHERE login_id = 'tester03')`,
    );
    void checker;

    const uid = (await s.db.query<{ id: number }>(`SELECT id FROM users WHERE login_id = 'tester01'`))
      .rows[0]!.id;
    const g = (await s.db.query<{ id: number }>(`SELECT id FROM exam_groups WHERE code = 'DEMO'`)).rows[0]!
      .id;
    const old = await s.db.query<{ id: number }>(
      `INSERT INTO tests (user_id, group_id, login_id, stop_at) VALUES ($1, $2, 'tester01', now() - interval '1200 days'), ($1, $2, 'tester01', now() - interval '1 day') RETURNING id`,
      [uid, g],
    );
    await s.db.query(
      `INSERT INTO records (test_id, tester_id, bucket, object_key) VALUES ($1, $2, 'b', 'k1'), ($1, $2, 'b', 'k2'), ($3, $2, 'b', 'k3')`,
      [old.rows[0]!.id, uid, old.rows[1]!.id],
    );

    const res = await injectAs(s.app, admin, { method: 'GET', url: '/api/v1/management_summary.php' });
    expect(res.statusCode).toBe(200);
    expect(envelope(res).result).toEqual({
      logins: { tester_count: 2, other_count: 2 },
      delete_plan: { tester_count: 1, record_count: 2 },
    });
  });
});

describe('permissions', () => {
  const urls = [
    '/api/v1/management_initial_param.php',
    '/api/v1/management_summary.php',
    '/api/v1/analysis_request/initial_param.php',
  ];
  it.each([1, 2, 3] as const)('actor %i gets 403', async (actor) => {
    const token = await loginAsActor(s.app, actor);
    for (const url of urls)
      expect((await injectAs(s.app, token, { method: 'GET', url })).statusCode, url).toBe(403);
  });
  it('supervisor is allowed', async () => {
    const token = await loginAsActor(s.app, 5);
    for (const url of urls)
      expect((await injectAs(s.app, token, { method: 'GET', url })).statusCode, url).toBe(200);
  });
});
