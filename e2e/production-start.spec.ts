import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';

// The compiled server as an organisation runs it: `npm run build` output in a tree whose node_modules holds
// only what `npm ci --omit=dev` installs (no tsx, no Vite), started by `NODE_ENV=production npm start` with
// its settings in `.env`. No browser: plain HTTP, so the assets' encodings are seen as sent.

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const PORT = 8191;
const METRICS_TOKEN = 'e2e-metrics-token';

interface Res {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: Buffer;
}

function get(url: string, headers: Record<string, string> = {}): Promise<Res> {
  return new Promise((resolve, reject) => {
    http
      .get(`http://127.0.0.1:${PORT}${url}`, { headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      })
      .on('error', reject);
  });
}

/** A copy of the built tree with node_modules limited to the production dependencies of package-lock.json. */
async function productionTree(dir: string): Promise<void> {
  for (const p of ['dist', 'dist-server', 'scripts/start.mjs', 'scripts/lib.mjs', 'package.json']) {
    await cp(path.join(root, p), path.join(dir, p), { recursive: true });
  }
  const lock = JSON.parse(await readFile(path.join(root, 'package-lock.json'), 'utf8')) as {
    packages: Record<string, { dev?: boolean }>;
  };
  for (const [key, meta] of Object.entries(lock.packages)) {
    const name = key.slice('node_modules/'.length);
    // Top-level packages only (nested ones come with their parent); dev-only ones are what --omit=dev leaves out.
    if (!key.startsWith('node_modules/') || !/^(@[^/]+\/)?[^/]+$/.test(name) || meta.dev) continue;
    const target = path.join(dir, 'node_modules', name);
    await mkdir(path.dirname(target), { recursive: true });
    await symlink(path.join(root, 'node_modules', name), target, 'dir');
  }
}

function start(cwd: string, env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let out = '';
  const child = spawn(process.execPath, ['scripts/start.mjs'], {
    cwd,
    env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...env },
  });
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  return { child, output: () => out };
}

test('the compiled server starts with NODE_ENV=production on a production-only install', async () => {
  test.setTimeout(120_000);
  for (const built of ['dist-server/server/src/server.js', 'dist/index.html']) {
    expect(existsSync(path.join(root, built)), `${built}: run \`npm run build\` before this spec`).toBe(true);
  }
  const dir = await mkdtemp(path.join(os.tmpdir(), 'proctor-prod-'));
  let server: ReturnType<typeof start> | null = null;
  try {
    await productionTree(dir);
    expect(existsSync(path.join(dir, 'node_modules/fastify'))).toBe(true);
    for (const devOnly of ['tsx', 'vite', 'esbuild']) {
      expect(existsSync(path.join(dir, 'node_modules', devOnly)), devOnly).toBe(false);
    }

    // Unsafe demo defaults are refused before anything is touched.
    const refused = start(dir, {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://proctor:secret@127.0.0.1:1/proctor',
    });
    const code = await new Promise<number | null>((r) => refused.child.on('exit', r));
    expect(code).toBe(1);
    expect(refused.output()).toContain('Refusing to start: DEMO is on');

    // The settings come from .env (the environment passes only NODE_ENV).
    await writeFile(
      path.join(dir, '.env'),
      [
        `PORT=${PORT}`,
        'HOST=127.0.0.1',
        'DEMO=0',
        `DATA_DIR=${path.join(dir, 'data')}`,
        'AI_WORKERS=0',
        `METRICS_TOKEN=${METRICS_TOKEN}`,
        'LOG_LEVEL=warn',
      ].join('\n'),
    );
    server = start(dir, { NODE_ENV: 'production' });
    await expect
      .poll(async () => (await get('/healthz').catch(() => null))?.status, {
        timeout: 60_000,
        intervals: [250],
      })
      .toBe(200);
    expect(server.output()).toContain(`Read ${path.join(dir, '.env')}`);
    expect(JSON.parse((await get('/healthz')).body.toString())).toMatchObject({ status: 'ok' });

    const ready = await get('/readyz');
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body.toString())).toMatchObject({ status: 'ready', failing: [] });

    expect((await get('/metrics')).status).toBe(401);
    const metrics = await get('/metrics', { authorization: `Bearer ${METRICS_TOKEN}` });
    expect(metrics.status).toBe(200);
    expect(metrics.body.toString()).toMatch(/^proctor_active_sittings 0$/m);
    expect(metrics.body.toString()).toContain('http_request_duration_seconds_bucket{');

    const openapi = await get('/api/openapi.json');
    expect(openapi.status).toBe(200);
    const doc = JSON.parse(openapi.body.toString()) as { openapi: string; paths: Record<string, unknown> };
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/api/v1/login.php']).toBeDefined();

    const index = await get('/', { accept: 'text/html' });
    expect(index.status).toBe(200);
    expect(index.headers['cache-control']).toBe('no-cache');
    const entry = /src="(\/assets\/[^"]+\.js)"/.exec(index.body.toString())?.[1];
    expect(entry).toBeTruthy();
    const asset = await get(entry!, { 'accept-encoding': 'gzip, deflate, br' });
    expect(asset.status).toBe(200);
    expect(asset.headers['content-encoding']).toBe('br');
    expect(asset.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.etag).toBeTruthy();
    const plain = await readFile(path.join(root, 'dist', entry!));
    expect(asset.body.length).toBeLessThan(plain.length / 2);
    const { brotliDecompressSync } = await import('node:zlib');
    expect(brotliDecompressSync(asset.body).equals(plain)).toBe(true);
    expect((await get('/config.json')).headers['cache-control']).toBe('no-cache');
  } finally {
    if (server?.child.pid) {
      server.child.kill('SIGTERM');
      await new Promise((r) => server!.child.once('exit', r));
    }
    await rm(dir, { recursive: true, force: true });
  }
});
