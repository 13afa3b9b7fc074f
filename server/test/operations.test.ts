import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config';
import { loadEnvFile } from '../src/env-file';
import { productionProblems } from '../src/production-checks';
import { build, loginAsActor, type TestServer } from './helper';

let s: TestServer | null = null;
afterEach(async () => {
  await s?.close().catch(() => undefined);
  s = null;
  delete process.env.METRICS_TOKEN;
});

describe('/healthz and /readyz', () => {
  it('healthz answers JSON; readyz names every part and is ready on a working server', async () => {
    s = await build();
    const h = await s.app.inject({ url: '/healthz' });
    expect(h.statusCode).toBe(200);
    expect(h.json()).toMatchObject({ status: 'ok' });
    expect(h.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    const r = await s.app.inject({ url: '/readyz' });
    expect(r.json()).toEqual({
      status: 'ready',
      failing: [],
      checks: {
        database: { ok: true },
        migrations: { ok: true },
        object_storage: { ok: true },
        signaling: { ok: true },
      },
    });
    expect(r.statusCode).toBe(200);
  });

  it('readyz answers 503 naming the database when it is gone, and a pending migration', async () => {
    s = await build();
    await s.db.query(`DELETE FROM schema_migrations WHERE version = '0012_ai_auth_reason.sql'`);
    const pending = await s.app.inject({ url: '/readyz' });
    expect(pending.statusCode).toBe(503);
    expect(pending.json()).toMatchObject({
      failing: ['migrations'],
      checks: { migrations: { ok: false, error: 'not applied: 0012_ai_auth_reason.sql' } },
    });
    await s.db.close();
    const down = await s.app.inject({ url: '/readyz' });
    expect(down.statusCode).toBe(503);
    expect((down.json() as { failing: string[] }).failing).toEqual(expect.arrayContaining(['database']));
  });

  it('a proxy request id is kept when it looks like one, replaced when not', async () => {
    s = await build();
    const kept = await s.app.inject({ url: '/healthz', headers: { 'x-request-id': 'abc-123-proxy-id' } });
    expect(kept.headers['x-request-id']).toBe('abc-123-proxy-id');
    const replaced = await s.app.inject({ url: '/healthz', headers: { 'x-request-id': 'bad id\nforged' } });
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('/metrics', () => {
  it('Prometheus text with request durations per route and the gauges counted from the database', async () => {
    s = await build();
    await loginAsActor(s.app, 1);
    // One finished AI analysis: 10 s queued, 20 s running.
    await s.db.query(
      `WITH t AS (SELECT id, user_id FROM tests WHERE login_id = 'tester01' ORDER BY id DESC LIMIT 1),
            r AS (INSERT INTO records (test_id, tester_id, bucket, object_key)
                  SELECT id, user_id, 'recordings', 'metrics-test' FROM t RETURNING id, test_id)
       INSERT INTO analysis_jobs (record_id, test_id, kind, method, types, status, created_at, started_at, finished_at)
       SELECT r.id, r.test_id, 'manual', 1, 'eye_rot', 'done', now() - interval '30 s', now() - interval '20 s', now()
         FROM r`,
    );
    const res = await s.app.inject({ url: '/metrics' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.body;
    expect(text).toMatch(
      /^http_request_duration_seconds_count\{method="POST",route="\/api\/v1\/login\.php",status_code="200"\} 1$/m,
    );
    expect(text).toMatch(/^proctor_active_sittings 1$/m);
    expect(text).toMatch(/^proctor_ai_job_seconds\{phase="run",quantile="0.5"\} 20$/m);
    expect(text).toMatch(/^proctor_ai_job_seconds\{phase="wait",quantile="0.95"\} 10$/m);
    for (const name of [
      'proctor_matchings{status="waiting"}',
      'proctor_upload_parts_last_hour',
      'proctor_recording_failures_last_day{kind="conversion"}',
      'proctor_job_queue_depth{queue="ai_analysis",state="queued"}',
      'process_resident_memory_bytes',
    ]) {
      expect(text, name).toContain(`${name} `);
    }
  });

  it('with METRICS_TOKEN set, only a bearer of that token reads it', async () => {
    process.env.METRICS_TOKEN = 'scrape-secret-1';
    s = await build();
    expect((await s.app.inject({ url: '/metrics' })).statusCode).toBe(401);
    const wrong = await s.app.inject({ url: '/metrics', headers: { authorization: 'Bearer nope' } });
    expect(wrong.statusCode).toBe(401);
    const ok = await s.app.inject({ url: '/metrics', headers: { authorization: 'Bearer scrape-secret-1' } });
    expect(ok.statusCode).toBe(200);
  });
});

describe('production start-up rules and .env', () => {
  const prod = (env: Record<string, string>) =>
    productionProblems(loadConfig(env), { NODE_ENV: 'production', ...env });

  it('refuses the demo on a PostgreSQL database unless forced, and test hooks always', () => {
    expect(prod({ DATABASE_URL: 'postgres://u:p@db/proctor' }).errors[0]).toMatch(/Set DEMO=0/);
    expect(prod({ DATABASE_URL: 'postgres://u:p@db/proctor', DEMO: '0' }).errors).toEqual([]);
    expect(prod({ DATABASE_URL: 'postgres://u:p@db/proctor', DEMO_FORCE: '1' }).errors).toEqual([]);
    expect(prod({ DEMO: '0', TEST_HOOKS: '1' }).errors[0]).toMatch(/TEST_HOOKS/);
    expect(prod({ DEMO: '0', PUBLIC_ORIGIN: 'http://exam.example.org' }).warnings.join()).toMatch(/https/);
    // Outside production nothing is refused.
    expect(productionProblems(loadConfig({ DATABASE_URL: 'postgres://x' }), {}).errors).toEqual([]);
  });

  it('.env fills what the environment lacks and never overrides it; a missing ENV_FILE is an error', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'envfile-'));
    try {
      await writeFile(
        path.join(dir, '.env'),
        '# comment\nPORT=9999\nDEMO=0\nPUBLIC_ORIGIN="https://exam.example.org"\n',
      );
      const env: NodeJS.ProcessEnv = { PORT: '8081' };
      expect(loadEnvFile(env, dir)).toBe(path.join(dir, '.env'));
      expect(env).toMatchObject({ PORT: '8081', DEMO: '0', PUBLIC_ORIGIN: 'https://exam.example.org' });
      expect(loadEnvFile({}, path.join(dir, 'nowhere'))).toBeNull();
      expect(() => loadEnvFile({ ENV_FILE: 'missing.env' }, dir)).toThrow(/does not exist/);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('delivery of the built SPA', () => {
  it('hashed assets: the precompressed copy the browser accepts, immutable, with an ETag; index.html and config.json no-cache', async () => {
    const { brotliCompressSync, gzipSync, brotliDecompressSync } = await import('node:zlib');
    const dir = await mkdtemp(path.join(os.tmpdir(), 'static-'));
    try {
      const js = 'console.log("hello");'.repeat(100);
      await import('node:fs/promises').then(async (fs) => {
        await fs.mkdir(path.join(dir, 'assets'));
        await fs.writeFile(path.join(dir, 'assets/index-AbC123.js'), js);
        await fs.writeFile(path.join(dir, 'assets/index-AbC123.js.br'), brotliCompressSync(js));
        await fs.writeFile(path.join(dir, 'assets/index-AbC123.js.gz'), gzipSync(js));
        await fs.writeFile(path.join(dir, 'index.html'), '<!doctype html><title>app</title>');
      });
      s = await build({ staticDir: dir });
      const br = await s.app.inject({
        url: '/assets/index-AbC123.js',
        headers: { 'accept-encoding': 'gzip, br' },
      });
      expect(br.statusCode).toBe(200);
      expect(br.headers['content-encoding']).toBe('br');
      expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
      expect(br.headers['content-type']).toMatch(/javascript/);
      expect(br.headers.vary).toMatch(/accept-encoding/i);
      expect(brotliDecompressSync(br.rawPayload).toString()).toBe(js);
      const etag = br.headers.etag as string;
      expect(etag).toBeTruthy();
      const again = await s.app.inject({
        url: '/assets/index-AbC123.js',
        headers: { 'accept-encoding': 'br', 'if-none-match': etag },
      });
      expect(again.statusCode).toBe(304);
      const gz = await s.app.inject({
        url: '/assets/index-AbC123.js',
        headers: { 'accept-encoding': 'gzip' },
      });
      expect(gz.headers['content-encoding']).toBe('gzip');
      const plain = await s.app.inject({
        url: '/assets/index-AbC123.js',
        headers: { 'accept-encoding': 'identity' },
      });
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body).toBe(js);
      const missing = await s.app.inject({ url: '/assets/gone-999.js' });
      expect(missing.statusCode).toBe(404);
      expect(missing.body).not.toContain('<title>app</title>');
      for (const url of ['/', '/examinees/12', '/index.html']) {
        const page = await s.app.inject({ url, headers: { accept: 'text/html' } });
        expect(page.statusCode, url).toBe(200);
        expect(page.headers['cache-control'], url).toBe('no-cache');
        expect(page.body).toContain('<title>app</title>');
      }
      expect((await s.app.inject({ url: '/config.json' })).headers['cache-control']).toBe('no-cache');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
