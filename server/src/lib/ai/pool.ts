import { fork, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AiImage, AiProvider, FaceVerdict, IdCheckOptions, IdVerdict } from '../ai-provider';
import type { AnalysisOutput } from './analysis';
import type { StillDetection } from './still';
import type { WorkerCall, WorkerResponse } from './worker-protocol';

const here = path.dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

interface Pending {
  resolve(v: unknown): void;
  reject(e: Error): void;
  onProgress?: (doneMs: number) => void;
  kind: 'identity' | 'analysis' | 'still';
}

interface Slot {
  child: ChildProcess;
  ready: boolean;
  rss: number;
  pending: Map<number, Pending>;
  analysing: number;
  /** Its OCR engines are loaded: the first worker warms them at start, another one on its first ID check. */
  ocr: boolean;
}

/** Minimal logger the pool reports to. */
export interface PoolLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * The AI worker pool: `size` child processes (default = cores), each loading the models once at
 * start in the background, so no HTTP request ever runs a model on the HTTP thread or waits for a cold start
 * longer than the first one. Identity checks go to the worker with the fewest waiting checks; each worker
 * runs at most one recording analysis at a time. A worker that dies is restarted; its calls fail.
 */
export class AiWorkerPool {
  private readonly slots: Slot[] = [];
  private nextId = 1;
  private closed = false;
  private readyWaiters: (() => void)[] = [];

  constructor(
    private readonly opts: {
      size: number;
      log: PoolLog;
      env?: NodeJS.ProcessEnv;
      /** The worker module (default: ./worker); `.ts`/`.mts` modules run through tsx. Tests pass a fake. */
      script?: string;
      /** Delay before a dead worker is replaced (default 1 s, so a crash loop does not spin). */
      restartDelayMs?: number;
      /**
       * An identity check not answered within this time (default 120 s, well above a cold start) fails, and
       * its worker, presumed stuck, is killed and replaced, so an examinee's request never hangs.
       */
      identityTimeoutMs?: number;
      /** A live still not answered within this time fails (default 30 s). */
      stillTimeoutMs?: number;
      /** Scheduling niceness of the workers (default 10: below the HTTP process). */
      niceness?: number;
    },
  ) {}

  get size(): number {
    return this.opts.size;
  }

  /** Forks the workers; model loading starts at once in each. */
  start(): void {
    for (let i = 0; i < this.opts.size; i++) this.slots.push(this.spawn(i));
  }

  /** Resolves when every worker has loaded its models (for benchmarks and tests). */
  async whenReady(): Promise<void> {
    while (!this.closed && this.slots.some((s) => !s.ready)) {
      await new Promise<void>((r) => this.readyWaiters.push(r));
    }
  }

  private spawn(index: number): Slot {
    const script =
      this.opts.script ?? path.join(here, import.meta.url.endsWith('.ts') ? 'worker.ts' : 'worker.js');
    // The server runs TypeScript through tsx; the worker needs the same loader.
    const execArgv = /\.m?ts$/.test(script) ? ['--import', pathToFileURL(require.resolve('tsx')).href] : [];
    // Only the first worker warms the OCR engines at start (about 120 MB of Tesseract per worker); ID checks
    // go to a worker that has them (see identity()), the others load them only if they ever get one.
    const child = fork(script, [], {
      execArgv,
      env: { ...process.env, ...this.opts.env, AI_OCR_WARM: index === 0 ? '1' : '0' },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    // Model loading and analysis yield the CPU to the HTTP process (logins, matching) when cores are short.
    if (child.pid !== undefined) {
      try {
        os.setPriority(child.pid, this.opts.niceness ?? 10);
      } catch {
        // Not permitted here: the worker keeps the default priority.
      }
    }
    const slot: Slot = { child, ready: false, rss: 0, pending: new Map(), analysing: 0, ocr: index === 0 };
    child.on('message', (m: WorkerResponse) => {
      if (m.type === 'ready') {
        slot.ready = true;
        slot.rss = m.rss;
        this.opts.log.info({ worker: index, rssMb: Math.round(m.rss / 1048576) }, 'AI worker ready');
        for (const w of this.readyWaiters.splice(0)) w();
      } else if (m.type === 'fatal') {
        this.opts.log.error({ worker: index, error: m.error }, 'AI worker could not load its models');
      } else if (m.type === 'progress') {
        slot.pending.get(m.id)?.onProgress?.(m.doneMs);
      } else {
        const p = slot.pending.get(m.id);
        if (!p) return;
        slot.pending.delete(m.id);
        if (p.kind === 'analysis') slot.analysing -= 1;
        if (m.ok) p.resolve(m.result);
        else p.reject(new Error(m.error));
      }
    });
    child.on('exit', (code, signal) => {
      const err = new Error(`AI worker exited (${code ?? signal})`);
      for (const p of slot.pending.values()) p.reject(err);
      slot.pending.clear();
      slot.analysing = 0;
      slot.ready = false;
      if (this.closed) return;
      this.opts.log.warn({ worker: index, code, signal }, 'AI worker exited; restarting');
      setTimeout(() => {
        if (!this.closed) this.slots[index] = this.spawn(index);
      }, this.opts.restartDelayMs ?? 1000).unref();
    });
    return slot;
  }

  private send(slot: Slot, call: WorkerCall, kind: Pending['kind'], onProgress?: (doneMs: number) => void) {
    const id = this.nextId++;
    return new Promise<unknown>((resolve, reject) => {
      if (this.closed) return reject(new Error('AI worker pool closed'));
      slot.pending.set(id, { resolve, reject, onProgress, kind });
      if (kind === 'analysis') slot.analysing += 1;
      slot.child.send({ ...call, id }, (err) => {
        if (!err) return;
        slot.pending.delete(id);
        if (kind === 'analysis') slot.analysing -= 1;
        reject(err);
      });
    });
  }

  /**
   * An identity check on the least busy worker (a ready one when possible); an ID-card check on one whose OCR
   * is loaded even when it is busier (an identity check overtakes an analysis's frames; loading the OCR
   * engines would cost more), unless none of those is ready.
   */
  identity(call: WorkerCall): Promise<unknown> {
    const alive = this.slots.filter((s) => usable(s));
    if (!alive.length) return Promise.reject(new Error('no AI worker'));
    const needsOcr = call.op === 'checkIdCard';
    const load = (s: Slot) =>
      (s.ready ? 0 : 1000) + (needsOcr && !s.ocr ? 100 : 0) + s.pending.size - s.analysing * 0.5;
    const slot = alive.reduce((a, b) => (load(b) < load(a) ? b : a));
    const timeoutMs = this.opts.identityTimeoutMs ?? 120_000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.opts.log.error({ pid: slot.child.pid, timeoutMs }, 'AI worker did not answer; killing it');
        reject(new Error(`AI worker did not answer within ${timeoutMs} ms`));
        slot.ready = false;
        slot.child.kill('SIGKILL');
      }, timeoutMs);
      timer.unref();
    });
    return Promise.race([this.send(slot, call, 'identity'), timedOut])
      .then((r) => {
        if (needsOcr) slot.ocr = true;
        return r;
      })
      .finally(() => clearTimeout(timer));
  }

  /**
   * Looks at one live still on the worker with the fewest waiting calls (a ready one when possible); on the
   * worker, identity checks still go first. Fails after `stillTimeoutMs` (default 30 s) without killing the
   * worker: a still is not worth a restart, and the worker may be busy with identity checks.
   */
  still(call: Extract<WorkerCall, { op: 'still' }>): Promise<StillDetection> {
    const alive = this.slots.filter((s) => usable(s));
    if (!alive.length) return Promise.reject(new Error('no AI worker'));
    const load = (s: Slot) => (s.ready ? 0 : 1000) + s.pending.size;
    const slot = alive.reduce((a, b) => (load(b) < load(a) ? b : a));
    const timeoutMs = this.opts.stillTimeoutMs ?? 30_000;
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer for a still within ${timeoutMs} ms`)), timeoutMs);
      timer.unref();
    });
    return Promise.race([this.send(slot, call, 'still') as Promise<StillDetection>, timedOut]).finally(() =>
      clearTimeout(timer),
    );
  }

  /** How many more analyses can start now (one per worker). */
  freeAnalysisSlots(): number {
    return this.slots.filter((s) => usable(s) && s.analysing === 0).length;
  }

  /** Runs one recording analysis on a worker without one. */
  analyse(
    call: Extract<WorkerCall, { op: 'analyse' }>,
    onProgress?: (doneMs: number) => void,
  ): Promise<AnalysisOutput> {
    const slot = this.slots.find((s) => usable(s) && s.analysing === 0);
    if (!slot) return Promise.reject(new Error('no free AI worker'));
    return this.send(slot, call, 'analysis', onProgress) as Promise<AnalysisOutput>;
  }

  /** Resident memory of each worker in bytes (benchmarks). */
  async memory(): Promise<number[]> {
    return Promise.all(
      this.slots.map(async (s) => ((await this.send(s, { op: 'stats' }, 'identity')) as { rss: number }).rss),
    );
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const w of this.readyWaiters.splice(0)) w();
    await Promise.all(
      this.slots.map(
        (s) =>
          new Promise<void>((resolve) => {
            if (s.child.exitCode !== null || s.child.signalCode !== null) return resolve();
            s.child.once('exit', () => resolve());
            s.child.kill('SIGTERM');
            setTimeout(() => s.child.kill('SIGKILL'), 3000).unref();
          }),
      ),
    );
  }
}

/** A worker that can take calls: connected and not being killed. */
function usable(s: Slot): boolean {
  return s.child.connected && !s.child.killed;
}

/** The AI provider backed by the worker pool: the default real implementation. */
export class PoolAiProvider implements AiProvider {
  constructor(private readonly pool: AiWorkerPool) {}

  async checkFace(img: AiImage): Promise<FaceVerdict> {
    return (await this.pool.identity({
      op: 'checkFace',
      image: img.body.toString('base64'),
      type: img.type,
    })) as FaceVerdict;
  }

  async checkIdCard(
    img: AiImage,
    headShot: AiImage | null,
    expectedName: string,
    opts: IdCheckOptions = {},
  ): Promise<IdVerdict> {
    return (await this.pool.identity({
      op: 'checkIdCard',
      image: img.body.toString('base64'),
      type: img.type,
      headShot: headShot ? headShot.body.toString('base64') : null,
      headShotType: headShot?.type ?? null,
      expectedName,
      idTypes: opts.idTypes,
    })) as IdVerdict;
  }
}
