import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { InjectOptions, LightMyRequestResponse } from 'fastify';
import { inject } from 'vitest';
import type { Actor } from '../../contract/common';
import { buildApp } from '../src/app';
import { loadConfig, type ServerConfig } from '../src/config';
import { openDb, type Db } from '../src/db/db';
import type { App } from '../src/lib/app-types';
import pg from 'pg';

/** Every demo account's password (ARCHITECTURE.md "Demo data"). */
export const DEMO_PASSWORD = 'demo-pass';

/** One demo login per actor, for per-actor tests (STYLE habit 12). */
export const DEMO_LOGIN: Readonly<Record<Actor, string>> = {
  1: 'tester01',
  2: 'checker01',
  3: 'manager01',
  4: 'sysadmin01',
  5: 'supervisor01',
};

/** Config overrides for one test app; `login` and `spa` are merged field by field. */
export type ConfigOverrides = Partial<Omit<ServerConfig, 'login' | 'spa'>> & {
  login?: Partial<ServerConfig['login']>;
  spa?: Partial<ServerConfig['spa']>;
};

export interface TestServer {
  app: App;
  db: Db;
  config: ServerConfig;
  /** On PostgreSQL (TEST_DATABASE_URL): the URL of this server's database. */
  databaseUrl?: string;
  /** Closes the app and the database; call it in afterAll/afterEach. */
  close(): Promise<void>;
}

let snapshotBytes: Promise<Buffer> | undefined;

function snapshotPath(): string {
  const p = inject('pgSnapshot') ?? process.env.PROCTOR_TEST_SNAPSHOT;
  if (!p)
    throw new Error(
      'No database snapshot: run the server tests with `vitest --project server` (global setup).',
    );
  return p;
}

/**
 * The configuration tests run with: demo on, test hooks on, logging off, and a per-IP login limit high
 * enough that ordinary test files never hit it (tests of the limit override it).
 */
export function testConfig(overrides: ConfigOverrides = {}): ServerConfig {
  const base = loadConfig({
    DEMO: '1',
    TEST_HOOKS: '1',
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: '8080',
    DATA_DIR: '/nonexistent-test-data-dir',
    // One key for every test server, as for every instance of a deployment (instances on one database share).
    CREDENTIALS_CACHE_KEY: Buffer.alloc(32, 7).toString('base64'),
    STATIC_DIR: inject('staticDir') ?? process.env.PROCTOR_TEST_STATIC_DIR ?? './dist',
  });
  const { login, spa, ...rest } = overrides;
  return {
    ...base,
    login: { ...base.login, perIpPerMinute: 10_000, ...login },
    ...rest,
    spa: { ...base.spa, ...spa },
    testHooks: overrides.testHooks ?? true,
  };
}

/** What `build` sets up besides the app and its database. */
export interface BuildOptions {
  /**
   * Object storage that works: a temporary DATA_DIR (unless one is given) for the local S3 stand-in, and the
   * app listening on a free loopback port as its public origin, since the server reaches the stand-in over
   * HTTP with the real AWS SDK, as it reaches S3. Needed by every test that stores an image or a recording.
   */
  objectStorage?: boolean;
  /**
   * A second server instance on the database of `other` (several instances on one database): on PostgreSQL
   * its own connection pool to the same database, on PGlite the same embedded database. Its `close` leaves
   * the database to `other`.
   */
  sameDatabaseAs?: TestServer;
}

/**
 * A fresh app on a fresh copy of the seeded database (about half a second). Each test file (or test) that
 * changes data should build its own.
 */
export async function build(overrides: ConfigOverrides = {}, opts: BuildOptions = {}): Promise<TestServer> {
  const tmp =
    opts.objectStorage && overrides.dataDir === undefined
      ? await mkdtemp(path.join(os.tmpdir(), 'proctor-test-data-'))
      : null;
  if (tmp) overrides = { ...overrides, dataDir: tmp };
  const shared = opts.sameDatabaseAs;
  const pgDb = shared ? null : await postgresCopy();
  let db: Db;
  if (shared) db = shared.databaseUrl ? await openDb({ databaseUrl: shared.databaseUrl }) : shared.db;
  else if (pgDb) db = pgDb.db;
  else {
    snapshotBytes ??= readFile(snapshotPath());
    const bytes = await snapshotBytes;
    db = await openDb({ loadDataDir: new Blob([new Uint8Array(bytes)]) });
  }
  const config = testConfig(overrides);
  const app = await buildApp({ config, db, logger: false });
  await app.ready();
  if (opts.objectStorage) {
    await app.listen({ host: '127.0.0.1', port: 0 });
    app.config.publicOrigin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  }
  const databaseUrl = shared?.databaseUrl ?? pgDb?.url;
  return {
    app,
    db,
    config,
    ...(databaseUrl ? { databaseUrl } : {}),
    async close() {
      await app.close();
      if (!shared || shared.databaseUrl) await db.close();
      await pgDb?.drop();
      if (tmp) await rm(tmp, { recursive: true, force: true });
    },
  };
}

let pgCounter = 0;

/** With TEST_DATABASE_URL: a fresh PostgreSQL database copied from the seeded template (global setup). */
async function postgresCopy(): Promise<{ db: Db; url: string; drop(): Promise<void> } | null> {
  const url = process.env.TEST_DATABASE_URL;
  const template = inject('pgTemplate') || process.env.PROCTOR_TEST_PG_TEMPLATE;
  if (!url || !template) return null;
  const name = `proctor_t_${process.ppid}_${process.pid}_${++pgCounter}_${Date.now() % 100000}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name} TEMPLATE ${template}`);
  const u = new URL(url);
  u.pathname = `/${name}`;
  const db = await openDb({ databaseUrl: u.toString() });
  return {
    db,
    url: u.toString(),
    async drop() {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

/** Logs in through login.php and returns the access token; throws with the response body when it fails. */
export async function loginAs(app: App, loginId: string, password = DEMO_PASSWORD): Promise<string> {
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/login.php',
    payload: { login_id: loginId, password },
  });
  if (res.statusCode !== 200) throw new Error(`login as ${loginId} failed: ${res.statusCode} ${res.body}`);
  return (res.json() as { result: { access_token: string } }).result.access_token;
}

/** Logs in as the demo account of an actor (see DEMO_LOGIN). */
export function loginAsActor(app: App, actor: Actor): Promise<string> {
  return loginAs(app, DEMO_LOGIN[actor]);
}

/** `app.inject` with the bearer header of `token` added. */
export function injectAs(app: App, token: string, opts: InjectOptions): Promise<LightMyRequestResponse> {
  return app.inject({ ...opts, headers: { ...opts.headers, authorization: `Bearer ${token}` } });
}

/** The parsed envelope `{status, message, result, code}` of a response. */
export function envelope<T = unknown>(
  res: LightMyRequestResponse,
): {
  status: number;
  message: string;
  result: T;
  code?: string;
} {
  return res.json();
}

/**
 * Turns the phone camera on for the open sitting of the examinee holding `testerToken` and pairs a phone with it
 * (tester/phone_pairing.php, then phone/pair.php as the phone does). Returns the phone session's token.
 */
export async function pairPhone(app: App, testerToken: string): Promise<string> {
  await app.db.query(
    `UPDATE tests SET startup_parameters = startup_parameters || '{"is_phone_camera": 1}'::jsonb
      WHERE id = (SELECT t.id FROM tests t JOIN sessions s ON s.user_id = t.user_id
                   WHERE s.token_hash = sha256(convert_to($1, 'UTF8')) AND t.status < 7 ORDER BY t.id DESC LIMIT 1)`,
    [testerToken],
  );
  const code = await injectAs(app, testerToken, { method: 'POST', url: '/api/v1/tester/phone_pairing.php' });
  if (code.statusCode !== 200) throw new Error(`phone_pairing failed: ${code.statusCode} ${code.body}`);
  const paired = await app.inject({
    method: 'POST',
    url: '/api/v1/phone/pair.php',
    payload: { code: (code.json() as { result: { code: string } }).result.code },
  });
  if (paired.statusCode !== 200) throw new Error(`phone/pair failed: ${paired.statusCode} ${paired.body}`);
  return (paired.json() as { result: { access_token: string } }).result.access_token;
}
