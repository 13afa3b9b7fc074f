import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../contract/common';
import type { LoginResult } from '../../contract/auth';
import { verifyAuditChain } from '../src/lib/audit';
import { build, DEMO_LOGIN, envelope, injectAs, loginAs, type TestServer } from './helper';

const ACTORS: Actor[] = [1, 2, 3, 4, 5];

function login(s: TestServer, loginId: string, password = 'demo-pass') {
  return s.app.inject({ method: 'POST', url: '/api/v1/login.php', payload: { login_id: loginId, password } });
}

function logout(s: TestServer, token: string, query = '?p=self') {
  return injectAs(s.app, token, { method: 'POST', url: `/api/v1/logout.php${query}`, payload: {} });
}

describe('login.php', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build();
  });
  afterAll(async () => {
    await s.close();
  });

  it.each(ACTORS)('logs in the demo account of actor %i with the login result of spec §3', async (actor) => {
    const res = await login(s, DEMO_LOGIN[actor]);
    expect(res.statusCode).toBe(200);
    const body = envelope<LoginResult>(res);
    expect(body.status).toBe(200);
    expect(body.message).toBe('OK');
    const r = body.result;
    expect(Object.keys(r).sort()).toEqual([
      'access_token',
      'actor',
      'exam_user_name',
      'group',
      'group_code',
      'group_id',
      'kicked',
      'login_id',
    ]);
    expect(r.actor).toBe(actor);
    expect(r.login_id).toBe(DEMO_LOGIN[actor]);
    expect(r.exam_user_name).not.toBe('');
    expect(r.access_token).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    if (actor === 1 || actor === 3) {
      // `group` is the group's name everywhere; the code has its own field.
      expect(r.group).toBe('Demo University');
      expect(r.group_code).toBe('DEMO');
      expect(typeof r.group_id).toBe('number');
    } else {
      expect(r.group).toBeNull();
      expect(r.group_id).toBeNull();
    }
    expect(r.kicked).toBe(actor === 1 ? 0 : null);
    // The token works, and only its hash is stored.
    const again = await logout(s, r.access_token);
    expect(again.statusCode).toBe(200);
    const stored = await s.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM sessions WHERE encode(token_hash, 'escape') = $1`,
      [r.access_token],
    );
    expect(stored.rows[0]!.n).toBe(0);
  });

  it('trims the login id (spec §5) and accepts a form-encoded body', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/v1/login.php',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'login_id=%20%20tester02%20&password=demo-pass',
    });
    expect(res.statusCode).toBe(200);
    expect(envelope<LoginResult>(res).result.login_id).toBe('tester02');
  });

  it('answers one generic 401 for a wrong password and for an unknown id', async () => {
    const wrong = await login(s, 'tester03', 'not-the-password');
    const unknown = await login(s, 'nobody-here', 'demo-pass');
    for (const res of [wrong, unknown]) {
      expect(res.statusCode).toBe(401);
      const body = envelope(res);
      expect(body).toMatchObject({ status: 401, result: null, code: 'login_failed' });
    }
    expect(envelope(wrong).message).toBe(envelope(unknown).message);
  });

  it.each([
    ['missing password', { login_id: 'tester01' }],
    ['missing login_id', { password: 'demo-pass' }],
    ['empty body', {}],
    ['login_id of the wrong type', { login_id: { a: 1 }, password: 'demo-pass' }],
    ['whitespace-only login_id', { login_id: '   ', password: 'demo-pass' }],
    ['an over-long password', { login_id: 'tester01', password: 'x'.repeat(300) }],
  ])('rejects %s with a 400 envelope', async (_name, payload) => {
    const res = await s.app.inject({ method: 'POST', url: '/api/v1/login.php', payload });
    expect(res.statusCode).toBe(400);
    expect(envelope(res)).toMatchObject({ status: 400, result: null });
  });

  it('rejects GET with a 404 envelope, not a 500', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/api/v1/login.php' });
    expect(res.statusCode).toBeGreaterThanOrEqual(400);
    expect(res.statusCode).toBeLessThan(500);
  });

  it('opens the tester sitting: status 1 login, login_at, examinee log; a second login resumes it', async () => {
    const first = envelope<LoginResult>(await login(s, 'tester04')).result;
    const q = () =>
      s.db.query<{ id: number; status: number; login_at: Date | null; test_name: string }>(
        `SELECT t.id, t.status, t.login_at, t.test_name FROM tests t JOIN users u ON u.id = t.user_id
          WHERE u.login_id = 'tester04' ORDER BY t.id`,
      );
    const a = await q();
    expect(a.rows).toHaveLength(1);
    expect(a.rows[0]!.status).toBe(1);
    expect(a.rows[0]!.login_at).not.toBeNull();
    await login(s, 'tester04');
    const b = await q();
    expect(b.rows).toHaveLength(1);
    const logs = await s.db.query<{ event: string }>(
      `SELECT event FROM examinee_logs WHERE test_id = $1 ORDER BY id`,
      [a.rows[0]!.id],
    );
    expect(logs.rows.map((r) => r.event)).toEqual(['login', 'relogin']);

    // A finished sitting (status 7) is not reused; the new one keeps the test name.
    await s.db.query(`UPDATE tests SET status = 7, test_name = 'Demo Exam' WHERE id = $1`, [a.rows[0]!.id]);
    await login(s, 'tester04');
    const c = await q();
    expect(c.rows).toHaveLength(2);
    expect(c.rows[1]!.status).toBe(1);
    expect(c.rows[1]!.test_name).toBe('Demo Exam');
    expect(first.kicked).toBe(0);
  });

  it('reports kicked 1 for a kicked tester', async () => {
    await login(s, 'tester05');
    await s.db.query(
      `UPDATE tests SET kicked = 1 WHERE user_id = (SELECT id FROM users WHERE login_id = 'tester05') AND status < 7`,
    );
    const r = envelope<LoginResult>(await login(s, 'tester05')).result;
    expect(r.kicked).toBe(1);
  });

  it('refuses a disabled account with the generic 401', async () => {
    await s.db.query(`UPDATE users SET disabled = true WHERE login_id = 'tester06'`);
    const res = await login(s, 'tester06');
    expect(res.statusCode).toBe(401);
    expect(envelope(res).code).toBe('login_failed');
    await s.db.query(`UPDATE users SET disabled = false WHERE login_id = 'tester06'`);
  });

  it('writes login, failure and logout to the hash-chained audit log', async () => {
    const token = await loginAs(s.app, 'checker02');
    await login(s, 'checker02', 'wrong');
    await logout(s, token);
    const { rows } = await s.db.query<{ type: string; login_id: string; ip: string }>(
      `SELECT type, login_id, ip FROM logs WHERE source = 'audit' AND login_id = 'checker02' ORDER BY id`,
    );
    expect(rows.map((r) => r.type)).toEqual(['auth.login', 'auth.login_failed', 'auth.logout']);
    expect(rows[0]!.ip).toBe('127.0.0.1');
    expect(await verifyAuditChain(s.db)).toMatchObject({ ok: true });
  });
});

describe('login lockout (perf-reliability §5)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build({ login: { maxFailures: 3, windowSeconds: 600, lockSeconds: 120 } });
  });
  afterAll(async () => {
    await s.close();
  });

  it('locks the account after N failures, even for the right password, then lets it in after the lock', async () => {
    expect((await login(s, 'tester07', 'bad1')).statusCode).toBe(401);
    expect((await login(s, 'tester07', 'bad2')).statusCode).toBe(401);
    const third = await login(s, 'tester07', 'bad3');
    expect(third.statusCode).toBe(429);
    expect(envelope(third)).toMatchObject({ status: 429, code: 'account_locked', result: null });
    expect(Number(third.headers['retry-after'])).toBeGreaterThan(100);

    const right = await login(s, 'tester07');
    expect(right.statusCode).toBe(429);
    expect(envelope(right).code).toBe('account_locked');

    // Other accounts are not affected.
    expect((await login(s, 'tester08')).statusCode).toBe(200);

    // The lock expires.
    await s.db.query(
      `UPDATE login_failures SET locked_until = now() - interval '1 second' WHERE login_id = 'tester07'`,
    );
    expect((await login(s, 'tester07')).statusCode).toBe(200);
    const left = await s.db.query(`SELECT 1 FROM login_failures WHERE login_id = 'tester07'`);
    expect(left.rows).toHaveLength(0);

    const types = await s.db.query<{ type: string }>(
      `SELECT type FROM logs WHERE source = 'audit' AND login_id = 'tester07' ORDER BY id`,
    );
    expect(types.rows.map((r) => r.type)).toEqual([
      'auth.login_failed',
      'auth.login_failed',
      'auth.lockout',
      'auth.login_locked',
      'auth.login',
    ]);
  });

  it('locks unknown ids the same way, so a lock does not reveal whether an id exists', async () => {
    for (let i = 0; i < 2; i++) expect((await login(s, 'ghost-user', 'x')).statusCode).toBe(401);
    expect((await login(s, 'ghost-user', 'x')).statusCode).toBe(429);
  });

  it('starts a new window when the old one has passed', async () => {
    await login(s, 'tester09', 'bad');
    await login(s, 'tester09', 'bad');
    await s.db.query(
      `UPDATE login_failures SET window_start = now() - interval '1 hour' WHERE login_id = 'tester09'`,
    );
    expect((await login(s, 'tester09', 'bad')).statusCode).toBe(401);
    const r = await s.db.query<{ failures: number }>(
      `SELECT failures FROM login_failures WHERE login_id = 'tester09'`,
    );
    expect(r.rows[0]!.failures).toBe(1);
  });
});

describe('per-IP login rate limit', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build({ login: { perIpPerMinute: 3 } });
  });
  afterAll(async () => {
    await s.close();
  });

  it('answers 429 too_many_requests with Retry-After past the per-minute limit', async () => {
    for (let i = 0; i < 3; i++) expect((await login(s, 'tester10', 'wrong')).statusCode).toBe(401);
    const res = await login(s, 'tester10');
    expect(res.statusCode).toBe(429);
    expect(envelope(res)).toMatchObject({ status: 429, code: 'too_many_requests', result: null });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    // Another address is not limited.
    const other = await s.app.inject({
      method: 'POST',
      url: '/api/v1/login.php',
      remoteAddress: '10.1.2.3',
      payload: { login_id: 'tester10', password: 'demo-pass' },
    });
    expect(other.statusCode).toBe(200);
  });
});

describe('IP access limits at login (spec §3)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build();
  });
  afterAll(async () => {
    await s.close();
  });

  it('refuses a checker from an unlisted IP with 403 ip_not_allowed, and admits one from a listed IP', async () => {
    await s.db.query(`INSERT INTO access_limits (actor, ip) VALUES (2, '10.9.9.9')`);
    const denied = await login(s, 'checker01');
    expect(denied.statusCode).toBe(403);
    expect(envelope(denied)).toMatchObject({ status: 403, code: 'ip_not_allowed', result: null });
    // Testers and other actors are not limited by an actor-2 row.
    expect((await login(s, 'tester11')).statusCode).toBe(200);
    expect((await login(s, 'manager01')).statusCode).toBe(200);
    // A forged X-Forwarded-For does not help (trustProxy is off).
    const forged = await s.app.inject({
      method: 'POST',
      url: '/api/v1/login.php',
      headers: { 'x-forwarded-for': '10.9.9.9' },
      payload: { login_id: 'checker01', password: 'demo-pass' },
    });
    expect(forged.statusCode).toBe(403);
    // The wrong password still gets the generic 401: the limit is only revealed to valid credentials.
    expect((await login(s, 'checker01', 'wrong')).statusCode).toBe(401);

    await s.db.query(`INSERT INTO access_limits (actor, ip) VALUES (2, '127.0.0.1')`);
    expect((await login(s, 'checker01')).statusCode).toBe(200);
    await s.db.query(`DELETE FROM access_limits`);
  });

  it('admits a CIDR match and refuses sessions of an actor whose limit no longer matches', async () => {
    await s.db.query(`INSERT INTO access_limits (actor, ip) VALUES (4, '127.0.0.0/8')`);
    const token = await loginAs(s.app, 'sysadmin01');
    await s.db.query(`DELETE FROM access_limits`);
    await s.db.query(`INSERT INTO access_limits (actor, ip) VALUES (4, '10.0.0.0/8')`);
    const status = await injectAs(s.app, token, { method: 'GET', url: '/api/v1/admin_permission.php' });
    expect(envelope(status).result).toMatchObject({ process: 0 });
    // Logging out is always possible.
    expect((await logout(s, token)).statusCode).toBe(200);
    await s.db.query(`DELETE FROM access_limits`);
  });
});

describe('logout.php and session lifetime', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build({ tokenTtlSeconds: 600 });
  });
  afterAll(async () => {
    await s.close();
  });

  it.each(ACTORS)('logs out actor %i and revokes the token (then 401)', async (actor) => {
    const token = await loginAs(s.app, DEMO_LOGIN[actor]);
    const res = await logout(s, token);
    expect(res.statusCode).toBe(200);
    expect(envelope(res)).toEqual({ status: 200, message: 'OK', result: null });
    const again = await logout(s, token);
    expect(again.statusCode).toBe(401);
    expect(envelope(again)).toMatchObject({ status: 401, code: 'unauthorized', result: null });
  });

  it('accepts a logout without p and without a body', async () => {
    const token = await loginAs(s.app, 'manager01');
    const res = await injectAs(s.app, token, { method: 'POST', url: '/api/v1/logout.php' });
    expect(res.statusCode).toBe(200);
  });

  it('rejects an unknown p with 400', async () => {
    const token = await loginAs(s.app, 'manager01');
    const res = await logout(s, token, '?p=everyone');
    expect(res.statusCode).toBe(400);
    expect(envelope(res).status).toBe(400);
  });

  it('needs a token (401)', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/api/v1/logout.php?p=self', payload: {} });
    expect(res.statusCode).toBe(401);
    expect(envelope(res).code).toBe('unauthorized');
  });

  it('records logout_at and the examinee log for a tester', async () => {
    const token = await loginAs(s.app, 'tester12');
    await logout(s, token);
    const { rows } = await s.db.query<{ logout_at: Date | null; events: string[] }>(
      `SELECT t.logout_at, array(SELECT event FROM examinee_logs l WHERE l.test_id = t.id ORDER BY l.id) AS events
         FROM tests t JOIN users u ON u.id = t.user_id WHERE u.login_id = 'tester12' ORDER BY t.id DESC LIMIT 1`,
    );
    expect(rows[0]!.logout_at).not.toBeNull();
    expect(rows[0]!.events).toEqual(['login', 'logout']);
  });

  it('issues sessions that expire after tokenTtlSeconds, and refuses an expired token with 401', async () => {
    const token = await loginAs(s.app, 'checker03');
    const { rows } = await s.db.query<{ ttl: number }>(
      `SELECT round(extract(epoch FROM expires_at - created_at))::int AS ttl FROM sessions ORDER BY id DESC LIMIT 1`,
    );
    expect(rows[0]!.ttl).toBe(600);
    await s.db.query(
      `UPDATE sessions SET expires_at = now() - interval '1 second' WHERE id = (SELECT max(id) FROM sessions)`,
    );
    const res = await injectAs(s.app, token, { method: 'GET', url: '/api/v1/admin_permission.php' });
    expect(res.statusCode).toBe(401);
  });

  it("ends a manager's session after the idle period; a request writes last_seen_at at most every 15 s", async () => {
    const token = await loginAs(s.app, 'manager01');
    const id = (await s.db.query<{ id: number }>(`SELECT max(id) AS id FROM sessions`)).rows[0]!.id;
    const seen = async () =>
      (
        await s.db.query<{ age: number }>(
          `SELECT extract(epoch FROM now() - last_seen_at)::float AS age FROM sessions WHERE id = $1`,
          [id],
        )
      ).rows[0]!.age;
    const call = () => injectAs(s.app, token, { method: 'GET', url: '/api/v1/admin_permission.php' });
    // Seen 10 s ago: the request is answered and writes nothing (within the 15 s granularity).
    await s.db.query(`UPDATE sessions SET last_seen_at = now() - interval '10 seconds' WHERE id = $1`, [id]);
    expect((await call()).statusCode).toBe(200);
    expect(await seen()).toBeGreaterThanOrEqual(10);
    // Seen 20 s ago: written again.
    // (The instance may answer from its session cache until the database's change notification for this update
    // reaches it, a moment after the commit; the request after that queues the write, which goes with the next
    // batch of session writes, within a second.)
    await s.db.query(`UPDATE sessions SET last_seen_at = now() - interval '20 seconds' WHERE id = $1`, [id]);
    await expect
      .poll(
        async () => {
          expect((await call()).statusCode).toBe(200);
          return seen();
        },
        { timeout: 10_000, interval: 250 },
      )
      .toBeLessThan(5);
    // Idle longer than managerIdleSeconds (30 min): the session is over.
    await s.db.query(`UPDATE sessions SET last_seen_at = now() - interval '31 minutes' WHERE id = $1`, [id]);
    // (Once the change notification reached the instance: well within the cache's 60 s.)
    await expect.poll(async () => (await call()).statusCode, { timeout: 10_000, interval: 250 }).toBe(401);
  });

  it('refuses a malformed bearer token with 401', async () => {
    const res = await injectAs(s.app, 'short', {
      method: 'POST',
      url: '/api/v1/logout.php?p=self',
      payload: {},
    });
    expect(res.statusCode).toBe(401);
  });
});

describe('audit chain', () => {
  it('detects an edited audit row', async () => {
    const s = await build();
    try {
      await loginAs(s.app, 'tester01');
      await loginAs(s.app, 'tester02');
      expect(await verifyAuditChain(s.db)).toMatchObject({ ok: true, count: 2 });
      await s.db.query(
        `UPDATE logs SET login_id = 'someone-else' WHERE id = (SELECT min(id) FROM logs WHERE source = 'audit')`,
      );
      const check = await verifyAuditChain(s.db);
      expect(check.ok).toBe(false);
      expect(check.brokenAt).toBeDefined();
    } finally {
      await s.close();
    }
  });
});

describe('login.php binds the start-up parameters of the short URL to the tester sitting', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build();
  });
  afterAll(async () => {
    await s.close();
  });

  async function sittingParams(loginId: string) {
    const { rows } = await s.db.query<{
      startup_parameters: Record<string, unknown>;
      test_name: string;
      exam_name: string;
    }>(
      `SELECT startup_parameters, test_name, exam_name FROM tests WHERE login_id = $1 ORDER BY id DESC LIMIT 1`,
      [loginId],
    );
    return rows[0]!;
  }

  it('uses the parameters of the url_key the start-up came through', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/v1/login.php',
      payload: { login_id: 'tester05', password: 'demo-pass', url_key: 'demo-tester-ai' },
    });
    expect(res.statusCode).toBe(200);
    const t = await sittingParams('tester05');
    expect(t.startup_parameters.is_ai_auth).toBe(1);
    expect(t.test_name).toBe('Demo Exam');
    // The sitting's exam_name is the examinee's name (the search of spec §2 filters by it).
    expect(t.exam_name).toBe('デモ受験者05');
  });

  it('falls back to the default tester URL when none is given, never to browser-supplied flags', async () => {
    const res = await login(s, 'tester06');
    expect(res.statusCode).toBe(200);
    const t = await sittingParams('tester06');
    expect(t.startup_parameters.is_record).toBe(1);
    expect(t.startup_parameters.is_ai_auth).toBe(0);
  });

  it('ignores a url_key that is not a tester URL', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/v1/login.php',
      payload: { login_id: 'tester07', password: 'demo-pass', url_key: 'demo-admin' },
    });
    expect(res.statusCode).toBe(200);
    const t = await sittingParams('tester07');
    expect(t.startup_parameters.is_proctor).toBe(1);
    expect(t.startup_parameters.actor).toBe(1);
  });

  it('rejects a malformed url_key with a 400 envelope', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/v1/login.php',
      payload: { login_id: 'tester08', password: 'demo-pass', url_key: '../../etc' },
    });
    expect(res.statusCode).toBe(400);
    expect(envelope(res).status).toBe(400);
  });
});
