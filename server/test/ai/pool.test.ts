import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { AiWorkerPool } from '../../src/lib/ai/pool';
import { PriorityLock } from '../../src/lib/ai/priority-lock';

// The AI worker pool with a stand-in worker (fake-worker.ts: the real protocol and priority lock, busy loops
// instead of models), so these tests run in about a second.
const FAKE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fake-worker.ts');

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const cmd = (c: object) => JSON.stringify(c);
const checkFace = (pool: AiWorkerPool, c: object) =>
  pool.identity({
    op: 'checkFace',
    image: Buffer.from(cmd(c)).toString('base64'),
    type: 'image/jpeg',
  }) as Promise<{
    scores: { pid: number; framesDone: number };
  }>;
const analyse = (pool: AiWorkerPool) =>
  pool.analyse({
    op: 'analyse',
    file: '/dev/null',
    headShot: null,
    method: 1,
    types: [],
    ffmpegPath: 'ffmpeg',
  });

let pool: AiWorkerPool | null = null;
function startPool(size: number, env: NodeJS.ProcessEnv = {}, identityTimeoutMs?: number): AiWorkerPool {
  pool = new AiWorkerPool({ size, log: quiet, script: FAKE, restartDelayMs: 50, env, identityTimeoutMs });
  pool.start();
  return pool;
}
afterEach(async () => {
  await pool?.close();
  pool = null;
});

describe('PriorityLock', () => {
  it('runs one holder at a time and lets high-priority waiters overtake queued low ones', async () => {
    const lock = new PriorityLock();
    const order: string[] = [];
    let inside = 0;
    const job = (name: string, p: 'high' | 'low') =>
      lock.run(p, async () => {
        inside += 1;
        expect(inside).toBe(1);
        await new Promise((r) => setTimeout(r, 5));
        order.push(name);
        inside -= 1;
      });
    await Promise.all([
      job('l1', 'low'),
      job('l2', 'low'),
      job('l3', 'low'),
      job('h1', 'high'),
      job('h2', 'high'),
    ]);
    expect(order).toEqual(['l1', 'h1', 'h2', 'l2', 'l3']);
  });

  it('lets live stills (medium) go before queued frames and after identity checks', async () => {
    const lock = new PriorityLock();
    const order: string[] = [];
    const job = (name: string, p: 'high' | 'medium' | 'low') =>
      lock.run(p, async () => {
        await new Promise((r) => setTimeout(r, 5));
        order.push(name);
      });
    await Promise.all([
      job('l1', 'low'),
      job('l2', 'low'),
      job('m1', 'medium'),
      job('h1', 'high'),
      job('m2', 'medium'),
    ]);
    expect(order).toEqual(['l1', 'h1', 'm1', 'm2', 'l2']);
  });

  it('releases the lock when the holder throws', async () => {
    const lock = new PriorityLock();
    await expect(lock.run('low', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(lock.run('high', async () => 42)).resolves.toBe(42);
  });
});

describe('AI worker pool', () => {
  it('runs checks in worker processes, off the HTTP thread', async () => {
    const p = startPool(1);
    await p.whenReady();
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      // 400 ms of CPU in another process: this one keeps ticking meanwhile (on the HTTP thread the busy loop
      // would hold every timer until it ended). Counted, not timed: a busy machine only delays the ticks.
      const r = await checkFace(p, { spinMs: 400 });
      expect(r.scores.pid).not.toBe(process.pid);
      expect(ticks).toBeGreaterThan(0);
    } finally {
      clearInterval(timer);
    }
  });

  it('restarts a crashed worker; its in-flight check fails at once instead of hanging', async () => {
    const p = startPool(1);
    await p.whenReady();
    const before = await checkFace(p, {});
    // A check that hung instead would end in the test's timeout.
    await expect(checkFace(p, { crash: true })).rejects.toThrow(/AI worker exited/);
    await p.whenReady();
    const after = await checkFace(p, {});
    expect(after.scores.pid).not.toBe(before.scores.pid);
  });

  it('fails a check a stuck worker never answers, and replaces the worker', async () => {
    const p = startPool(1, {}, 500);
    await p.whenReady();
    const before = await checkFace(p, {});
    await expect(checkFace(p, { hang: true })).rejects.toThrow(/did not answer/);
    await p.whenReady();
    const after = await checkFace(p, {});
    expect(after.scores.pid).not.toBe(before.scores.pid);
  });

  it('fails the analysis running on a worker that dies, and keeps serving', async () => {
    const p = startPool(1, { FAKE_FRAMES: '200', FAKE_FRAME_MS: '20' });
    await p.whenReady();
    const job = analyse(p);
    await new Promise((r) => setTimeout(r, 100));
    const crash = checkFace(p, { crash: true });
    await expect(job).rejects.toThrow(/AI worker exited/);
    await expect(crash).rejects.toThrow(/AI worker exited/);
    await p.whenReady();
    expect(p.freeAnalysisSlots()).toBe(1);
    await expect(checkFace(p, {})).resolves.toMatchObject({ outcome: 'ok' });
  });

  it('puts an identity check ahead of the queued frames of a running analysis', async () => {
    // One worker: the check must share it with 40 frames × 25 ms = 1 s of analysis.
    const p = startPool(1, { FAKE_FRAMES: '40', FAKE_FRAME_MS: '25' });
    await p.whenReady();
    const job = analyse(p);
    await new Promise((r) => setTimeout(r, 150));
    const check = await checkFace(p, {});
    const done = (await job) as unknown as { framesDone: number };
    expect(done.framesDone).toBe(40);
    // It ran between two frames of the analysis, not after all of them (counted in frames, not timed: on a
    // busy machine fewer or more frames pass before the check arrives, but never all 40 when it goes first).
    expect(check.scores.framesDone).toBeLessThan(40);
  });

  it('sends identity checks to an idle worker rather than one that is analysing', async () => {
    const p = startPool(2, { FAKE_FRAMES: '40', FAKE_FRAME_MS: '25' });
    await p.whenReady();
    const job = analyse(p);
    expect(p.freeAnalysisSlots()).toBe(1);
    const checks = [await checkFace(p, {}), await checkFace(p, {})];
    const { pid: analyser } = (await job) as unknown as { pid: number };
    for (const c of checks) {
      expect(c.scores.pid).not.toBe(analyser);
      expect(c.scores.framesDone).toBe(0);
    }
  });

  it('sends ID-card checks to the worker with warm OCR (the first), even while it analyses', async () => {
    const p = startPool(2, { FAKE_FRAMES: '40', FAKE_FRAME_MS: '25' });
    await p.whenReady();
    const idCheck = () =>
      p.identity({
        op: 'checkIdCard',
        image: '',
        type: 'image/png',
        headShot: null,
        headShotType: null,
        expectedName: 'x',
      }) as Promise<{ scores: { pid: number; ocrWarmAtStart: number } }>;
    const first = await idCheck();
    expect(first.scores.ocrWarmAtStart).toBe(1);
    // The warm worker is now busy analysing; the ID check still goes there, a face check to the idle one.
    const running = analyse(p);
    const [second, face] = await Promise.all([idCheck(), checkFace(p, { spinMs: 5 })]);
    expect(second.scores.pid).toBe(first.scores.pid);
    expect(face.scores.pid).not.toBe(first.scores.pid);
    await running;
  });

  it('rejects calls after close', async () => {
    const p = startPool(1);
    await p.whenReady();
    await p.close();
    await expect(checkFace(p, {})).rejects.toThrow();
  });
});
