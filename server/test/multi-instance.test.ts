import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import pg from 'pg';
import { openDb, type Db } from '../src/db/db';
import { migrate } from '../src/db/migrate';
import { seedDemo } from '../src/db/seed-demo';
import { ClusterSchedule } from '../src/lib/cluster-schedule';
import { MatchingEngine } from '../src/lib/matching-engine';
import { loadMatchingSettings } from '../src/lib/matching-settings';
import { startRetentionScheduler } from '../src/lib/retention-job';
import { build, envelope, injectAs, loginAs, type TestServer } from './helper';

/**
 * Two server instances on one database (on PostgreSQL with TEST_DATABASE_URL: two connection pools, so the
 * claims really race; on PGlite the same embedded database): every scheduler runs its work once, a run cut
 * short by a dead instance is taken over, and every request limit counts both instances' requests.
 * (Analyses, conversions and per-recording leases have their own two-instance tests: ai/queue-lease,
 * recording "conversion claimed through the database", db-lock; the stand-ins service test runs the
 * channel sweep and the server-side completion of recordings on two instances.)
 */

let a: TestServer;
let b: TestServer;

beforeAll(async () => {
  a = await build({ login: { perIpPerMinute: 3 } });
  b = await build({ login: { perIpPerMinute: 3 } }, { sameDatabaseAs: a });
});

afterAll(async () => {
  await b?.close();
  await a?.close();
});

describe('ClusterSchedule (periodic jobs once across instances)', () => {
  it('lets one of two instances claim a due run, and no one again until it is due', async () => {
    const sa = new ClusterSchedule(a.db);
    const sb = new ClusterSchedule(b.db);
    const ran: string[] = [];
    const job = (s: ClusterSchedule, name: string) =>
      s.runIfDue('test-job-1', 3_600_000, async () => {
        ran.push(name);
      });
    const results = await Promise.all([job(sa, 'a'), job(sb, 'b'), job(sa, 'a'), job(sb, 'b')]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(ran).toHaveLength(1);
    // Finished an hour-long interval ago? Not yet: nobody runs it again.
    expect(await job(sb, 'b')).toBe(false);
    // Once its interval has passed, the next claim (whichever instance) runs it.
    await a.db.query(
      `UPDATE scheduler_runs SET started_at = now() - interval '2 hours' WHERE job = 'test-job-1'`,
    );
    expect(await job(sb, 'b')).toBe(true);
    expect(ran).toEqual([ran[0], 'b']);
  });

  it("takes over a run whose holder died (its lease ran out unfinished), never a live holder's", async () => {
    const sa = new ClusterSchedule(a.db);
    const sb = new ClusterSchedule(b.db);
    const held = await sa.claim('test-job-2', 60_000, 60_000);
    expect(held).not.toBeNull();
    expect(await sb.claim('test-job-2', 0, 60_000)).toBeNull(); // A is alive and working
    // A dies: no renewal, its lease runs out.
    await a.db.query(
      `UPDATE scheduler_runs SET lease_until = now() - interval '1 second' WHERE job = 'test-job-2'`,
    );
    const taken = await sb.claim('test-job-2', 60_000, 60_000);
    expect(taken).not.toBeNull();
    // The dead holder can neither renew nor finish B's run.
    expect(await held!.renew()).toBe(false);
    await held!.finish();
    const row = (
      await a.db.query<{ owner: string; finished_at: unknown }>(
        `SELECT owner, finished_at FROM scheduler_runs WHERE job = 'test-job-2'`,
      )
    ).rows[0]!;
    expect(row).toEqual({ owner: sb.owner, finished_at: null });
    await taken!.finish();
  });
});

describe('daily retention on two instances', () => {
  it('runs the day once when both instances start it together, and takes over a run whose instance died', async () => {
    const deleted: string[] = [];
    const start = (s: TestServer) => {
      const r = startRetentionScheduler(s.app, {
        deleteObject: async (ref) => void deleted.push(ref.key),
        deleteImage: async (key) => void deleted.push(key),
      });
      r.stop(); // only the runs below
      return r;
    };
    const ra = start(a);
    const rb = start(b);
    await a.db.query(`DELETE FROM retention_runs`);
    const reports = await Promise.all([ra.runNow(), rb.runNow()]);
    expect(reports.filter((r) => r !== null)).toHaveLength(1);
    const day = await a.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM retention_runs WHERE finished_at IS NOT NULL`,
    );
    expect(day.rows[0]!.n).toBe(1);
    // Finished: neither instance runs it again today.
    expect(await ra.runNow()).toBeNull();
    expect(await rb.runNow()).toBeNull();

    // An instance that claimed today's run and died during it: the run stays unfinished until its lease
    // runs out, then the other instance takes it over.
    await a.db.query(
      `UPDATE retention_runs SET finished_at = NULL, claimed_by = 'dead-instance',
              lease_until = now() + interval '5 minutes'`,
    );
    expect(await rb.runNow()).toBeNull();
    await a.db.query(`UPDATE retention_runs SET lease_until = now() - interval '1 second'`);
    expect(await rb.runNow()).not.toBeNull();
    const after = await a.db.query<{ claimed_by: string; finished: boolean }>(
      `SELECT claimed_by, finished_at IS NOT NULL AS finished FROM retention_runs`,
    );
    expect(after.rows).toHaveLength(1);
    expect(after.rows[0]!.finished).toBe(true);
    expect(after.rows[0]!.claimed_by).not.toBe('dead-instance');
  });
});

describe('matching liveness sweep on two instances', () => {
  it('releases a silent checker’s examinees once: each gets exactly one waiting matching', async () => {
    const ta = await loginAs(a.app, 'checker03');
    await injectAs(a.app, ta, { method: 'POST', url: '/api/v1/matching.php', payload: {} });
    const testers = ['tester10', 'tester11'];
    for (const t of testers) {
      const tok = await loginAs(b.app, t);
      const res = await injectAs(b.app, tok, {
        method: 'POST',
        url: '/api/v1/matching.php',
        payload: { channel_status: 'close' },
      });
      expect(res.statusCode, res.body).toBe(200);
    }
    const ids = await a.db.query<{ id: number }>(`SELECT id FROM users WHERE login_id = ANY($1)`, [testers]);
    const testerIds = ids.rows.map((r) => Number(r.id));
    const matched = await a.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM matchings m JOIN users c ON c.id = m.checker_id
        WHERE m.deleted_at IS NULL AND c.login_id = 'checker03' AND m.tester_id = ANY($1)`,
      [testerIds],
    );
    // Other checkers may be polling in this database; at least one of ours went to checker03.
    expect(matched.rows[0]!.n).toBeGreaterThan(0);
    await a.db.query(
      `UPDATE checker_presence SET stale_at = now() - interval '1 second'
        WHERE checker_id = (SELECT id FROM users WHERE login_id = 'checker03')`,
    );
    const settings = loadMatchingSettings({});
    await Promise.all([
      new MatchingEngine(a.app, settings).sweep(),
      new MatchingEngine(b.app, settings).sweep(),
      new MatchingEngine(a.app, settings).sweep(),
    ]);
    for (const id of testerIds) {
      const live = await a.db.query<{ checker_id: number | null; matching_status: number }>(
        `SELECT checker_id, matching_status FROM matchings WHERE tester_id = $1 AND deleted_at IS NULL`,
        [id],
      );
      expect(live.rows).toHaveLength(1);
    }
    const released = await a.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM matchings WHERE delete_reason = 'checker_timeout' AND tester_id = ANY($1)`,
      [testerIds],
    );
    expect(released.rows[0]!.n).toBe(matched.rows[0]!.n);
  });
});

describe('what each instance keeps of sessions and IP limits (lib/auth-cache.ts)', () => {
  /** A login from an address of its own (the per-IP login limit of this file is 3 a minute). */
  const login = async (s: TestServer, loginId: string, n: number): Promise<string> => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/v1/login.php',
      remoteAddress: `198.51.100.${n}`,
      payload: { login_id: loginId, password: 'demo-pass' },
    });
    expect(res.statusCode, res.body).toBe(200);
    return envelope<{ access_token: string }>(res).result.access_token;
  };
  const poll = (s: TestServer, token: string) =>
    injectAs(s.app, token, {
      method: 'POST',
      url: '/api/v1/matching.php',
      payload: { channel_status: 'close' },
    });
  const eventually = (check: () => Promise<void>) => vi.waitFor(check, { timeout: 10_000, interval: 50 });

  it('a logout through B ends the session on A, which had it cached', async () => {
    const token = await login(a, 'tester09', 1);
    expect((await poll(a, token)).statusCode).toBe(200);
    expect((await poll(b, token)).statusCode).toBe(200);
    const out = await injectAs(b.app, token, { method: 'POST', url: '/api/v1/logout.php', payload: {} });
    expect(out.statusCode, out.body).toBe(200);
    await eventually(async () => expect((await poll(a, token)).statusCode).toBe(401));
    expect((await poll(b, token)).statusCode).toBe(401);
  });

  it('an account disabled in the database is refused by both instances', async () => {
    const token = await login(a, 'checker02', 2);
    const hello = (s: TestServer) =>
      injectAs(s.app, token, { method: 'POST', url: '/api/v1/matching.php', payload: {} });
    expect((await hello(a)).statusCode).toBe(200);
    expect((await hello(b)).statusCode).toBe(200);
    await b.db.query(`UPDATE users SET disabled = true WHERE login_id = 'checker02'`);
    try {
      // The change reaches each instance's cache by the database's notification, B's own write included.
      await eventually(async () => expect((await hello(a)).statusCode).toBe(401));
      await eventually(async () => expect((await hello(b)).statusCode).toBe(401));
    } finally {
      await b.db.query(`UPDATE users SET disabled = false WHERE login_id = 'checker02'`);
    }
  });

  it('an IP access limit added through one instance applies on the other at once', async () => {
    const token = await login(b, 'checker01', 3);
    const hello = () => injectAs(a.app, token, { method: 'POST', url: '/api/v1/matching.php', payload: {} });
    expect((await hello()).statusCode).toBe(200);
    await b.db.query(`INSERT INTO access_limits (server, ip, actor) VALUES ('', '192.0.2.1', 2)`);
    try {
      await eventually(async () => expect(envelope(await hello()).code).toBe('ip_not_allowed'));
    } finally {
      await b.db.query(`DELETE FROM access_limits WHERE ip = '192.0.2.1'`);
    }
    await eventually(async () => expect((await hello()).statusCode).toBe(200));
  });

  it.skipIf(!process.env.TEST_DATABASE_URL)(
    'trusts no cached session while its notification connection is down, and recovers',
    async () => {
      const token = await login(a, 'tester08', 4);
      expect((await poll(a, token)).statusCode).toBe(200);
      // Cut every instance's listening connection, then end the session while nobody hears of it.
      await a.db.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'LISTEN auth_changed'`,
      );
      await a.db.query(
        `UPDATE sessions SET revoked_at = now(), revoke_reason = 'logout'
          WHERE user_id = (SELECT id FROM users WHERE login_id = 'tester08') AND revoked_at IS NULL`,
      );
      await eventually(async () => expect((await poll(a, token)).statusCode).toBe(401));
      // Listening again: a new session is cached and its revocation heard.
      const again = await login(a, 'tester08', 5);
      await eventually(async () => {
        const { rows } = await a.db.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE query = 'LISTEN auth_changed'`,
        );
        expect(rows[0]!.n).toBeGreaterThanOrEqual(2);
      });
      expect((await poll(a, again)).statusCode).toBe(200);
      await b.db.query(
        `UPDATE sessions SET revoked_at = now() WHERE user_id = (SELECT id FROM users WHERE login_id = 'tester08')`,
      );
      await eventually(async () => expect((await poll(a, again)).statusCode).toBe(401));
    },
  );
});

describe('request limits count every instance', () => {
  it('the per-IP login limit: attempts through A and B add up', async () => {
    const login = (s: TestServer) =>
      s.app.inject({
        method: 'POST',
        url: '/api/v1/login.php',
        remoteAddress: '203.0.113.77',
        payload: { login_id: 'nobody-here', password: 'x' },
      });
    const statuses = [
      (await login(a)).statusCode,
      (await login(b)).statusCode,
      (await login(a)).statusCode,
      (await login(b)).statusCode,
    ];
    expect(statuses.slice(0, 3).every((c) => c !== 429)).toBe(true);
    expect(statuses[3]).toBe(429);
  });

  it('the per-address limit of anonymous client log entries: entries through A and B add up', async () => {
    const log = (s: TestServer) =>
      s.app.inject({
        method: 'POST',
        url: '/api/v1/log_receive.php',
        remoteAddress: '203.0.113.78',
        payload: { type: 'error', path: '/x', details: 'd' },
      });
    const statuses: number[] = [];
    for (let i = 0; i < 61; i++) statuses.push((await log(i % 2 ? b : a)).statusCode);
    expect(statuses.slice(0, 60).every((c) => c === 200)).toBe(true);
    expect(statuses[60]).toBe(429);
    expect(envelope(await log(b)).code).toBe('too_many_requests');
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('migrations on a fresh PostgreSQL database', () => {
  let admin: pg.Client;
  let url: string;
  const name = `proctor_mig_${process.pid}_${Date.now() % 100000}`;
  beforeAll(async () => {
    admin = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    const u = new URL(process.env.TEST_DATABASE_URL!);
    u.pathname = `/${name}`;
    url = u.toString();
  });
  afterAll(async () => {
    await admin?.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    await admin?.end();
  });

  it('three instances starting together apply each migration once and seed the demo once', async () => {
    const dbs: Db[] = await Promise.all([1, 2, 3].map(() => openDb({ databaseUrl: url })));
    try {
      let seeds = 0;
      const applied = await Promise.all(
        dbs.map((db) =>
          migrate(db, async () => {
            const has = await db.query(`SELECT 1 FROM users WHERE login_id = 'tester01'`);
            if (!has.rows.length) {
              seeds++;
              await seedDemo(db);
            }
          }),
        ),
      );
      const counts = applied.map((l) => l.length).sort((x, y) => y - x);
      expect(counts[0]).toBeGreaterThan(10);
      expect(counts.slice(1)).toEqual([0, 0]);
      expect(seeds).toBe(1);
      const rows = await dbs[0]!.query<{ n: number; d: number }>(
        `SELECT count(*)::int AS n, count(DISTINCT version)::int AS d FROM schema_migrations`,
      );
      expect(rows.rows[0]).toEqual({ n: counts[0], d: counts[0] });
      const users = await dbs[0]!.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM users WHERE login_id = 'tester01'`,
      );
      expect(users.rows[0]!.n).toBe(1);
    } finally {
      await Promise.all(dbs.map((db) => db.close()));
    }
  });
});
