// The body of bench/ai.mjs (TypeScript, run through tsx so it can use the server's modules).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildApp } from '../server/src/app';
import { loadConfig } from '../server/src/config';
import { openDb } from '../server/src/db/db';
import { migrate } from '../server/src/db/migrate';
import { seedDemo } from '../server/src/db/seed-demo';
import { AiWorkerPool, PoolAiProvider } from '../server/src/lib/ai/pool';
import type { AnalysisOutput } from '../server/src/lib/ai/analysis';
import { makeClip, makeImageFixtures, missingFixtureTools, CLIP } from '../server/test/ai/fixtures';

const missing = missingFixtureTools();
if (missing) {
  console.log(`skipped: ${missing}`);
  process.exit(0);
}
const quiet = { info: () => undefined, warn: () => undefined, error: console.error };
const fx = makeImageFixtures();
const clip = makeClip(fx);
const cores = os.availableParallelism();
const pool = new AiWorkerPool({ size: cores, log: quiet });
try {
  let t = performance.now();
  pool.start();
  await pool.whenReady();
  console.log(
    `workers: ${cores}, cold start (models loaded, all workers): ${Math.round(performance.now() - t)} ms`,
  );
  const ai = new PoolAiProvider(pool);
  const png = (f: string) => ({ body: readFileSync(f), type: 'image/png' as const });
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const face: number[] = [];
  const card: number[] = [];
  for (let i = 0; i < 5; i++) {
    t = performance.now();
    await ai.checkFace(png(fx.astronaut));
    face.push(performance.now() - t);
    t = performance.now();
    await ai.checkIdCard(png(fx.cardJapanese), png(fx.astronaut), '山田 花子');
    card.push(performance.now() - t);
  }
  console.log(
    `identity check latency (median of 5): face ${Math.round(median(face))} ms, ID card + OCR ${Math.round(median(card))} ms`,
  );
  const minutes = CLIP.durationMs / 60000;
  for (const method of [1, 3] as const) {
    t = performance.now();
    const outs = (await Promise.all(
      Array.from({ length: cores }, () =>
        pool.analyse({
          op: 'analyse',
          file: clip,
          headShot: readFileSync(fx.astronaut).toString('base64'),
          method,
          types: ['eye_rot', 'other_person', 'people_num', 'voice'],
          ffmpegPath: process.env.FFMPEG_PATH || 'ffmpeg',
        }),
      ),
    )) as AnalysisOutput[];
    const wall = (performance.now() - t) / 1000;
    console.log(
      `analysis method ${method}: ${outs[0]!.frames} frames per clip; ${cores} clips in parallel in ${wall.toFixed(1)} s → ` +
        `${(wall / minutes).toFixed(1)} s per minute of video per core`,
    );
  }
  // "A long queue never blocks logins": login latency (Argon2id verification on the server's thread pool)
  // with the workers idle, then while every worker analyses the clip.
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ai-bench-login-'));
  const db = await openDb({ dataDir });
  try {
    await migrate(db);
    await seedDemo(db);
    const config = loadConfig({
      DEMO: '1',
      LOG_LEVEL: 'silent',
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dataDir,
      LOGIN_PER_IP_PER_MINUTE: '100000',
      LOGIN_MAX_FAILURES: '100000',
    });
    const app = await buildApp({ config, db, logger: { level: 'error' } });
    await app.ready();
    const logins = async (n: number) => {
      const ms: number[] = [];
      for (let i = 0; i < n; i++) {
        const t0 = performance.now();
        const r = await app.inject({
          method: 'POST',
          url: '/api/v1/login.php',
          payload: { login_id: `tester${String((i % 12) + 1).padStart(2, '0')}`, password: 'demo-pass' },
        });
        if (r.statusCode !== 200) throw new Error(`login answered ${r.statusCode}`);
        ms.push(performance.now() - t0);
      }
      const sorted = ms.sort((a, b) => a - b);
      return `p50 ${Math.round(sorted[Math.floor(n / 2)]!)} ms, p95 ${Math.round(sorted[Math.floor(n * 0.95)]!)} ms`;
    };
    await logins(3);
    console.log(`login latency, workers idle (20 logins): ${await logins(20)}`);
    const busy = Promise.all(
      Array.from({ length: cores }, () =>
        pool.analyse({
          op: 'analyse',
          file: clip,
          headShot: readFileSync(fx.astronaut).toString('base64'),
          method: 1,
          types: ['eye_rot', 'other_person', 'people_num', 'voice'],
          ffmpegPath: process.env.FFMPEG_PATH || 'ffmpeg',
        }),
      ),
    );
    await new Promise((r) => setTimeout(r, 1000));
    console.log(`login latency while ${cores} analyses run (20 logins): ${await logins(20)}`);
    await busy;
    await app.close();
  } finally {
    await db.close().catch(() => undefined); // the app may have closed it already
    rmSync(dataDir, { recursive: true, force: true });
  }
  const mem = await pool.memory();
  console.log(`memory per worker (RSS): ${mem.map((b) => `${Math.round(b / 1048576)} MB`).join(', ')}`);
  console.log(
    `load average now: ${os
      .loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')} (figures inflate on a busy machine)`,
  );
} finally {
  await pool.close();
  fx.cleanup();
}
