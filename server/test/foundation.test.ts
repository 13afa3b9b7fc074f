import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDb } from '../src/db/db';
import { migrate } from '../src/db/migrate';
import { seedDemo } from '../src/db/seed-demo';
import { verifyPassword } from '../src/lib/passwords';
import { DEMO_PASSWORD, build, type TestServer } from './helper';

const MIGRATIONS = path.join(path.dirname(fileURLToPath(import.meta.url)), '../src/db/migrations');

describe('versioned migrations', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'proctor-migrate-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('applies every migration once, in order, and none again after a restart on the same DATA_DIR', async () => {
    const files = (await readdir(MIGRATIONS)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
    expect(files.length).toBeGreaterThan(0);
    const first = await openDb({ dataDir: dir });
    try {
      expect(await migrate(first)).toEqual(files);
      expect(await migrate(first)).toEqual([]);
    } finally {
      await first.close();
    }
    const again = await openDb({ dataDir: dir });
    try {
      expect(await migrate(again)).toEqual([]);
      const { rows } = await again.query<{ version: string }>(
        'SELECT version FROM schema_migrations ORDER BY version',
      );
      expect(rows.map((r) => r.version)).toEqual(files);

      // A table for every entity of spec §3.
      const tables = await again.query<{ table_name: string }>(
        `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'`,
      );
      const names = new Set(tables.rows.map((r) => r.table_name));
      for (const t of [
        'users',
        'exam_groups',
        'tests',
        'matchings',
        'markings',
        'records',
        'messages',
        'access_limits',
        'cleaner_settings',
        'short_urls',
        'analysis_requests',
        'templates',
        'logs',
        'sessions',
      ]) {
        expect(names, t).toContain(t);
      }
      // The examinee search of spec §2 has indexes on the tests table to use.
      const idx = await again.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_indexes WHERE schemaname = 'public' AND tablename = 'tests'`,
      );
      expect(idx.rows[0]!.n).toBeGreaterThan(3);
    } finally {
      await again.close();
    }
  });
});

describe('demo accounts and password storage', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build();
    // The test snapshot stores the demo password at a test cost (global-setup.ts): seed the demo data again, as
    // `npm start` does, so the hashes checked here are the ones a real database gets.
    await seedDemo(s.db, { reset: true });
  });
  afterAll(async () => {
    await s.close();
  });

  it('has the demo accounts of ARCHITECTURE.md, each with an Argon2id hash of demo-pass', async () => {
    const { rows } = await s.db.query<{ login_id: string; actor: number; password_hash: string }>(
      `SELECT login_id, actor, password_hash FROM users
        WHERE login_id ~ '^(tester(0[1-9]|1[0-2])|checker0[1-3]|manager01|sysadmin01|supervisor01)$'
        ORDER BY login_id`,
    );
    expect(rows).toHaveLength(12 + 3 + 3);
    const actorOf = (id: string) =>
      id.startsWith('tester')
        ? 1
        : id.startsWith('checker')
          ? 2
          : id === 'manager01'
            ? 3
            : id === 'sysadmin01'
              ? 4
              : 5;
    for (const r of rows) expect(r.actor, r.login_id).toBe(actorOf(r.login_id));
    // OWASP minimum for Argon2id (m = 19 MiB, t = 2, p = 1); no other scheme is stored.
    for (const r of rows) expect(r.password_hash, r.login_id).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    const sample = rows.find((r) => r.login_id === 'supervisor01')!;
    expect(await verifyPassword(sample.password_hash, DEMO_PASSWORD)).toBe(true);
    expect(await verifyPassword(sample.password_hash, 'demo-pass ')).toBe(false);
  });
});

describe('the one error handler never leaks internals', () => {
  it('answers a server fault (a table gone from the database) with a masked 500 envelope', async () => {
    const s = await build();
    try {
      await s.db.query('ALTER TABLE login_failures RENAME TO login_failures_gone');
      const res = await s.app.inject({
        method: 'POST',
        url: '/api/v1/login.php',
        payload: { login_id: 'manager01', password: DEMO_PASSWORD },
      });
      expect(res.statusCode).toBe(500);
      expect(res.json()).toEqual({
        status: 500,
        message: 'Internal server error',
        result: null,
        code: 'internal',
      });
      expect(res.body).not.toMatch(/login_failures|relation|does not exist|stack|at \w+ \(/i);
    } finally {
      await s.close();
    }
  });
});
