import { mkdtemp, rm, writeFile, mkdir } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { hash } from '@node-rs/argon2';
import pg from 'pg';
import { dumpPglite, openDb, type Db } from '../src/db/db';
import { migrate } from '../src/db/migrate';
import { DEMO_PASSWORD, seedDemo } from '../src/db/seed-demo';

declare module 'vitest' {
  export interface ProvidedContext {
    /** Path of a PGlite data-dir snapshot: migrated, with the demo data (ARCHITECTURE.md "Demo data"). */
    pgSnapshot: string;
    /** A static directory holding a minimal index.html, so SPA-fallback tests do not depend on `npm run build`. */
    staticDir: string;
    /** With TEST_DATABASE_URL: the PostgreSQL template database (migrated, seeded) each test copies. */
    pgTemplate: string;
  }
}

/**
 * Vitest global setup of the server project: migrates and seeds one PGlite database once, and snapshots it,
 * so each test file can open its own copy in about half a second instead of migrating and hashing passwords.
 * The paths are provided to tests (`inject`) and also exported as environment variables for child processes.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'proctor-server-test-'));
  const dropTemplate = await setupPostgresTemplate(project);
  const db = await openDb({ dataDir: 'memory://' });
  try {
    await migrate(db);
    await seedDemo(db);
    await cheapenDemoPasswords(db);
    const blob = await dumpPglite(db);
    const snapshot = path.join(dir, 'demo-snapshot.tar');
    await writeFile(snapshot, Buffer.from(await blob.arrayBuffer()));
    const staticDir = path.join(dir, 'static');
    await mkdir(staticDir);
    await writeFile(
      path.join(staticDir, 'index.html'),
      '<!doctype html><html lang="ja"><head><meta charset="utf-8"><title>test</title></head><body><div id="root"></div></body></html>\n',
    );
    project.provide('pgSnapshot', snapshot);
    project.provide('staticDir', staticDir);
    process.env.PROCTOR_TEST_SNAPSHOT = snapshot;
    process.env.PROCTOR_TEST_STATIC_DIR = staticDir;
  } finally {
    await db.close();
  }
  return async () => {
    await rm(dir, { recursive: true, force: true });
    await dropTemplate();
  };
}

/**
 * The server tests log the demo accounts in well over a thousand times, and each check of an Argon2id hash on the
 * production parameters (19 MiB, t = 2: lib/passwords.ts) costs about 50 ms of CPU. In the test database the demo
 * accounts therefore keep the same password under the smallest Argon2id cost (the login route verifies whatever
 * parameters a stored hash names). Production parameters stay where a test is about them: seedDemo's hash on a
 * freshly seeded database (foundation.test.ts), and every password the tests create (accounts, imports, resets).
 */
async function cheapenDemoPasswords(db: Db): Promise<void> {
  const cheap = await hash(DEMO_PASSWORD, { memoryCost: 8, timeCost: 1, parallelism: 1, algorithm: 2 });
  await db.query(
    `UPDATE users SET password_hash = $1
      WHERE login_id ~ '^(tester(0[1-9]|1[0-2])|checker0[1-3]|manager01|sysadmin01|supervisor01)$'`,
    [cheap],
  );
}

/**
 * With TEST_DATABASE_URL (a PostgreSQL server), the same tests run on PostgreSQL: one template database is
 * migrated and seeded here, and each test app gets `CREATE DATABASE … TEMPLATE` of it (see helper.ts).
 */
async function setupPostgresTemplate(project: TestProject): Promise<() => Promise<void>> {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) {
    project.provide('pgTemplate', '');
    return async () => undefined;
  }
  const name = `proctor_tmpl_${process.pid}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name}`);
  await admin.query(`CREATE DATABASE ${name}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  const db = await openDb({ databaseUrl: u.toString() });
  try {
    await migrate(db);
    await seedDemo(db);
    await cheapenDemoPasswords(db);
  } finally {
    await db.close();
  }
  project.provide('pgTemplate', name);
  process.env.PROCTOR_TEST_PG_TEMPLATE = name;
  return async () => {
    // Test databases made from the template are dropped by their own apps; drop any leftovers too.
    const left = await admin.query<{ datname: string }>(
      `SELECT datname FROM pg_database WHERE datname LIKE 'proctor_t_${process.pid}_%' OR datname = $1`,
      [name],
    );
    for (const r of left.rows) await admin.query(`DROP DATABASE IF EXISTS ${r.datname} WITH (FORCE)`);
    await admin.end();
  };
}
