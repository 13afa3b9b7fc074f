// The body of bench/ai.mjs (TypeScript, run through tsx so it can use the server's modules).
import { readFileSync } from 'node:fs';
import os from 'node:os';
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
