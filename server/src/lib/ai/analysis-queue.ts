import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ANALYSIS_TYPES } from '../../../../contract/management';
import type { Db } from '../../db/db';
import type { ImageStore } from '../images';
import type { ObjectStorage } from '../object-storage';
import { startupInt, startupOf, startupText } from '../sittings/sittings';
import type { AnalysisOutput, AnalysisType } from './analysis';

/**
 * How many times a job runs before its record is marked '07': one retry, so a worker that died mid-job does
 * not fail the recording by itself.
 */
export const MAX_ATTEMPTS = 2;
const DETAIL_MAX = 1000;

/** Runs one analysis somewhere (the worker pool in production; in-process in tests). */
export interface AnalysisRunner {
  /** How many analyses may run at once (one per worker). */
  readonly capacity: number;
  run(
    job: { file: string; headShot: Buffer | null; method: number; types: AnalysisType[] },
    onProgress: (doneMs: number) => void,
  ): Promise<AnalysisOutput>;
}

interface JobRow {
  id: number;
  request_id: number | null;
  record_id: number;
  test_id: number;
  kind: 'manual' | 'batch';
  method: number;
  types: string;
  attempts: number;
}

/** Parses `selected_analysis_types` (array or comma-separated) to known types; all four when empty. */
export function parseAnalysisTypes(v: unknown): AnalysisType[] {
  const list = (Array.isArray(v) ? v.map(String) : typeof v === 'string' ? v.split(',') : []).map((s) =>
    s.trim(),
  );
  const known = ANALYSIS_TYPES.filter((t) => list.includes(t));
  return known.length ? known : [...ANALYSIS_TYPES];
}

async function setRecordStatus(
  db: Db,
  recordId: number,
  to: string,
  detail: string,
  extra = '',
): Promise<void> {
  const d = detail.slice(0, DETAIL_MAX);
  await db.query(
    `UPDATE records SET movie_status = $2, detail = $3, updated_at = now() ${extra} WHERE id = $1`,
    [recordId, to, d],
  );
  await db.query(`INSERT INTO record_status_logs (record_id, movie_status, detail) VALUES ($1, $2, $3)`, [
    recordId,
    to,
    d,
  ]);
}

/** Statuses from which a recording may be (re-)analysed: converted, or an earlier analysis ended. */
const ANALYSABLE = ['02', '03', '06', '07'];

/**
 * Queues the camera recordings of `testIds` for a manual request (analysis_request/request): one job per converted
 * recording that has no job waiting or running; the record goes to '03'. Returns the request id and counts.
 */
export async function createAnalysisRequest(
  db: Db,
  r: { inseq: string; method: number; testIds: number[]; userId: number; env: string },
): Promise<{ requestId: number; queued: number; skipped: number }> {
  return db.transaction(async (tx) => {
    const req = await tx.query<{ id: number }>(
      `INSERT INTO analysis_requests (inseq, status, env, method, result, created_by)
       VALUES ($1, 'queued', $2, $3, '', $4) RETURNING id`,
      [r.inseq, r.env, r.method, r.userId],
    );
    const requestId = Number(req.rows[0]!.id);
    let queued = 0;
    let skipped = 0;
    for (const testId of r.testIds) {
      await tx.query(
        `INSERT INTO analysis_request_tests (request_id, test_id) VALUES ($1, $2) ON CONFLICT DO NOTHING`,
        [requestId, testId],
      );
      const recs = await tx.query<{ id: number; movie_status: string; busy: boolean }>(
        `SELECT r.id, trim(r.movie_status) AS movie_status,
                EXISTS (SELECT 1 FROM analysis_jobs j WHERE j.record_id = r.id AND j.status IN ('queued', 'running')) AS busy
           FROM records r WHERE r.test_id = $1 AND r.stream = 'camera' ORDER BY r.id`,
        [testId],
      );
      for (const rec of recs.rows) {
        if (rec.busy || !ANALYSABLE.includes(rec.movie_status)) {
          skipped += 1;
          continue;
        }
        await tx.query(
          `INSERT INTO analysis_jobs (request_id, record_id, test_id, kind, method, types)
           VALUES ($1, $2, $3, 'manual', $4, $5)`,
          [requestId, rec.id, testId, r.method, ANALYSIS_TYPES.join(',')],
        );
        await setRecordStatus(tx, rec.id, '03', `analysis requested (request ${requestId})`);
        queued += 1;
      }
    }
    await tx.query(
      `UPDATE analysis_requests SET status = $2, result = $3, updated_at = now() WHERE id = $1`,
      [
        requestId,
        queued ? 'queued' : 'done',
        `${queued} recording(s) queued` +
          (skipped ? `, ${skipped} skipped (not converted or already queued)` : ''),
      ],
    );
    return { requestId, queued, skipped };
  });
}

/**
 * The automatic analysis after an exam: when a camera recording reaches '02' and its sitting's start-up
 * parameters ask for it (`ai_after_analysis` 1, or capture type 2 "AI post analysis"), queue a batch job for the
 * selected analysis types. The other streams (screen, room scan, phone) are not analysed: the analyses look
 * for the examinee's face and voice. Returns whether a job was queued.
 */
export async function queueBatchAnalysis(db: Db, recordId: number, method: number): Promise<boolean> {
  const { rows } = await db.query<{ test_id: number; movie_status: string; startup_parameters: unknown }>(
    `SELECT r.test_id, trim(r.movie_status) AS movie_status, t.startup_parameters
       FROM records r JOIN tests t ON t.id = r.test_id WHERE r.id = $1 AND r.stream = 'camera'`,
    [recordId],
  );
  const r = rows[0];
  if (!r || r.movie_status !== '02') return false;
  const p = startupOf({
    startup_parameters: r.startup_parameters as Record<string, unknown> | string | null,
  });
  const wanted = startupInt(p, 'ai_after_analysis', 0) === 1 || startupInt(p, 'capture_type', 0) === 2;
  if (!wanted) return false;
  const types = parseAnalysisTypes(p.selected_analysis_types ?? startupText(p, 'selected_analysis_types'));
  return db.transaction(async (tx) => {
    // At most one automatic analysis per recording (unique index), whichever instance gets here first.
    const inserted = await tx.query(
      `INSERT INTO analysis_jobs (record_id, test_id, kind, method, types) VALUES ($1, $2, 'batch', $3, $4)
       ON CONFLICT (record_id) WHERE kind = 'batch' DO NOTHING RETURNING id`,
      [recordId, r.test_id, method, types.join(',')],
    );
    if (!inserted.rows.length) return false;
    await setRecordStatus(tx, recordId, '03', 'automatic analysis after the exam queued');
    return true;
  });
}

/**
 * Recordings that reached '02' while no queue heard of it (a restart between the conversion and its hook, or
 * an instance without AI) and whose sitting asks for the automatic analysis: queued now, once each. Only
 * recordings converted in the last day are looked at (an index on the conversion time of '02' records keeps
 * the sweep cheap however many old recordings there are). Returns how many were queued.
 */
export async function queueMissedBatchAnalyses(db: Db, method: number, limit = 200): Promise<number> {
  const { rows } = await db.query<{ id: number }>(
    `SELECT r.id FROM records r JOIN tests t ON t.id = r.test_id
      WHERE r.movie_status = '02' AND r.stream = 'camera' AND r.encoded_at > now() - interval '1 day'
        AND NOT EXISTS (SELECT 1 FROM analysis_jobs j WHERE j.record_id = r.id AND j.kind = 'batch')
        AND (t.startup_parameters::jsonb ->> 'ai_after_analysis' = '1'
             OR t.startup_parameters::jsonb ->> 'capture_type' = '2')
      ORDER BY r.id LIMIT $1`,
    [limit],
  );
  let queued = 0;
  for (const r of rows) if (await queueBatchAnalysis(db, Number(r.id), method)) queued++;
  return queued;
}

/** How long a claimed job stays an instance's own without a renewal, and how often it is renewed. */
export const LEASE_MS = 120_000;
const RENEW_MS = 30_000;
/** How often an instance looks for expired leases and missed automatic analyses. */
const SWEEP_MS = 60_000;

/**
 * The off-request-path queue of recording analyses, kept in `analysis_jobs` so it survives a
 * restart. Jobs run as long as the runner has free slots (one per worker); the record moves 03 → 04 (file
 * being prepared) → 05 (analysing) → 06, or → 07 with the reason after {@link MAX_ATTEMPTS} failures.
 */
export class AnalysisQueue {
  private readonly running = new Map<number, Promise<void>>();
  private closed = false;
  private pumping = false;
  private idleWaiters: (() => void)[] = [];
  private sweepTimer: NodeJS.Timeout | null = null;
  /** This instance's name on the jobs it claims (host, process and a random part: unique per start). */
  readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  constructor(
    private readonly o: {
      db: Db;
      storage: () => ObjectStorage;
      runner: AnalysisRunner;
      /** The stored head shots (object storage). */
      images: ImageStore;
      log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
      batchMethod?: number;
      /** Lease of a claimed job in ms (tests shorten it). */
      leaseMs?: number;
      /** Period of the sweep for expired leases and missed automatic analyses; 0 = no timer (tests). */
      sweepMs?: number;
    },
  ) {}

  private get leaseMs(): number {
    return this.o.leaseMs ?? LEASE_MS;
  }

  /**
   * Starts taking jobs. Jobs another instance is running are left to it; a job whose lease ran out (its
   * instance stopped) is taken over like a waiting one. Recordings whose automatic analysis was missed are
   * queued, now and on every sweep.
   */
  async start(): Promise<void> {
    await this.sweep();
    const every = this.o.sweepMs ?? SWEEP_MS;
    if (every > 0) {
      this.sweepTimer = setInterval(() => void this.sweep(), every);
      this.sweepTimer.unref();
    }
  }

  /** Queues missed automatic analyses and looks for waiting or abandoned jobs. */
  async sweep(): Promise<void> {
    if (this.closed) return;
    try {
      await queueMissedBatchAnalyses(this.o.db, this.o.batchMethod ?? 1);
    } catch (err) {
      this.o.log.warn({ err }, 'sweep for missed automatic analyses failed');
    }
    this.kick();
  }

  /** A recording reached '02': queue its automatic analysis when the sitting asks for one. */
  async onConverted(recordId: number): Promise<void> {
    if (await queueBatchAnalysis(this.o.db, recordId, this.o.batchMethod ?? 1)) this.kick();
  }

  /** Starts waiting jobs while the runner has room. */
  kick(): void {
    if (this.closed || this.pumping) return;
    this.pumping = true;
    void this.pump().finally(() => {
      this.pumping = false;
      this.settle();
    });
  }

  private async pump(): Promise<void> {
    while (!this.closed && this.running.size < this.o.runner.capacity) {
      const job = await this.claim();
      if (!job) return;
      const p = this.runJob(job).finally(() => {
        this.running.delete(Number(job.id));
        this.kick();
      });
      this.running.set(Number(job.id), p);
    }
  }

  /**
   * Takes the oldest waiting job, or one whose lease ran out, for this instance — atomically, so that two
   * instances never take the same job (the row is locked and skipped by the other's claim).
   */
  private async claim(): Promise<JobRow | null> {
    const { rows } = await this.o.db.query<JobRow>(
      `UPDATE analysis_jobs
          SET status = 'running', attempts = attempts + 1, claimed_by = $1,
              lease_until = now() + make_interval(secs => $2), started_at = now(), progress = 0, updated_at = now()
        WHERE id = (SELECT id FROM analysis_jobs
                     WHERE status = 'queued'
                        OR (status = 'running' AND (lease_until IS NULL OR lease_until < now()))
                     ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING id, request_id, record_id, test_id, kind, method, types, attempts`,
      [this.owner, this.leaseMs / 1000],
    );
    return rows[0] ?? null;
  }

  /** Keeps this instance's lease on a running job; false when the job is no longer this instance's. */
  private async renew(jobId: number): Promise<boolean> {
    const { rows } = await this.o.db.query(
      `UPDATE analysis_jobs SET lease_until = now() + make_interval(secs => $3)
        WHERE id = $1 AND claimed_by = $2 AND status = 'running' RETURNING id`,
      [jobId, this.owner, this.leaseMs / 1000],
    );
    return rows.length > 0;
  }

  private settle(): void {
    if (this.running.size === 0 && !this.pumping) for (const w of this.idleWaiters.splice(0)) w();
  }

  /** Resolves when no job is waiting or running (tests). */
  async idle(): Promise<void> {
    for (;;) {
      if (this.running.size === 0 && !this.pumping) {
        const { rows } = await this.o.db.query(`SELECT 1 FROM analysis_jobs WHERE status = 'queued' LIMIT 1`);
        if (!rows.length || this.closed) return;
        this.kick();
      }
      await new Promise<void>((r) => this.idleWaiters.push(r));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.sweepTimer) clearInterval(this.sweepTimer);
    await Promise.allSettled(this.running.values());
    for (const w of this.idleWaiters.splice(0)) w();
  }

  private async runJob(job: JobRow): Promise<void> {
    const { db } = this.o;
    const attempt = job.attempts;
    const renewal = setInterval(
      () =>
        void this.renew(Number(job.id)).catch((err: unknown) =>
          this.o.log.warn({ err, jobId: job.id }, 'analysis lease not renewed'),
        ),
      Math.min(RENEW_MS, this.leaseMs / 3),
    );
    if (job.request_id) {
      await db.query(
        `UPDATE analysis_requests SET status = 'running', updated_at = now() WHERE id = $1 AND status = 'queued'`,
        [job.request_id],
      );
    }
    const dir = await mkdtemp(path.join(os.tmpdir(), 'ai-analysis-'));
    try {
      const { rows } = await db.query<{
        bucket: string;
        object_key: string;
        duration_ms: number | string | null;
        start_at: Date | string;
        head_shot_key: string | null;
      }>(
        `SELECT r.bucket, r.object_key, r.duration_ms, r.start_at, t.head_shot_key
           FROM records r JOIN tests t ON t.id = r.test_id WHERE r.id = $1`,
        [job.record_id],
      );
      const rec = rows[0];
      if (!rec) throw new Error('the recording no longer exists');
      await setRecordStatus(db, job.record_id, '04', `analysis attempt ${attempt}: preparing the recording`);
      const ref = { bucket: rec.bucket, key: rec.object_key };
      const storage = this.o.storage();
      let file = storage.localPath(ref);
      if (!file || !existsSync(file)) {
        file = path.join(dir, 'input');
        await storage.downloadToFile(ref, file);
      }
      const head = rec.head_shot_key ? await this.o.images.read(rec.head_shot_key) : null;
      await setRecordStatus(db, job.record_id, '05', `analysis attempt ${attempt}: analysing`);
      const durationMs = Number(rec.duration_ms ?? 0);
      let lastPct = -1;
      const out = await this.o.runner.run(
        { file, headShot: head?.body ?? null, method: job.method, types: parseAnalysisTypes(job.types) },
        (doneMs) => {
          const pct = durationMs > 0 ? Math.min(99, Math.floor((doneMs / durationMs) * 100)) : 0;
          if (pct !== lastPct) {
            lastPct = pct;
            void db
              .query(`UPDATE analysis_jobs SET progress = $2, updated_at = now() WHERE id = $1`, [
                job.id,
                pct,
              ])
              .catch(() => undefined);
          }
        },
      );
      await this.store(job, out, new Date(rec.start_at));
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      if (this.closed) {
        // Shutting down (the workers are going away): not the recording's fault, so the attempt is given back
        // and the job waits for the next instance or start.
        await db
          .query(
            `UPDATE analysis_jobs SET status = 'queued', attempts = attempts - 1, claimed_by = NULL, lease_until = NULL,
                    updated_at = now() WHERE id = $1 AND claimed_by = $2`,
            [job.id, this.owner],
          )
          .catch(() => undefined);
        return;
      }
      this.o.log.warn({ err, jobId: job.id, recordId: job.record_id, attempt }, 'recording analysis failed');
      if (attempt < MAX_ATTEMPTS) {
        const requeued = await db.query(
          `UPDATE analysis_jobs SET status = 'queued', error = $2, claimed_by = NULL, lease_until = NULL, updated_at = now()
            WHERE id = $1 AND claimed_by = $3 RETURNING id`,
          [job.id, reason.slice(0, DETAIL_MAX), this.owner],
        );
        if (!requeued.rows.length) return; // taken over by another instance meanwhile
        await setRecordStatus(
          db,
          job.record_id,
          '03',
          `analysis attempt ${attempt} failed, retrying: ${reason}`,
        );
      } else {
        const failed = await db.query(
          `UPDATE analysis_jobs SET status = 'error', error = $2, finished_at = now(), updated_at = now()
            WHERE id = $1 AND claimed_by = $3 RETURNING id`,
          [job.id, reason.slice(0, DETAIL_MAX), this.owner],
        );
        if (!failed.rows.length) return;
        await setRecordStatus(db, job.record_id, '07', `analysis error: ${reason}`);
        await this.finishRequest(job.request_id);
      }
    } finally {
      clearInterval(renewal);
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  }

  /** Stores the markings of a finished job and moves its record to '06'. */
  private async store(job: JobRow, out: AnalysisOutput, startAt: Date): Promise<void> {
    const types = parseAnalysisTypes(job.types);
    const batch = job.kind === 'batch';
    const stored = await this.o.db.transaction(async (tx) => {
      // A job whose lease ran out while this instance was stalled belongs to whoever took it over.
      const mine = await tx.query(
        `SELECT 1 FROM analysis_jobs WHERE id = $1 AND claimed_by = $2 AND status = 'running' FOR UPDATE`,
        [job.id, this.owner],
      );
      if (!mine.rows.length) return false;
      // The recording's own earlier results are replaced; markings from live stills are kept.
      await tx.query(
        `DELETE FROM ai_markings WHERE record_id = $1 AND source = 'recording' AND analysis_type = ANY($2::text[])`,
        [job.record_id, types],
      );
      for (const f of out.flags) {
        await tx.query(
          `INSERT INTO ai_markings (test_id, record_id, analysis_type, score, confidence, start_ms, end_ms, marking_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [
            job.test_id,
            job.record_id,
            f.type,
            f.score,
            f.confidence,
            f.startMs,
            f.endMs,
            new Date(startAt.getTime() + f.startMs),
          ],
        );
      }
      const summary = `analysed: ${out.flags.length} marking(s) over ${Math.round(out.durationMs / 1000)} s, ${out.frames} frame(s)${
        out.notes.length ? `; ${out.notes.join('; ')}` : ''
      }`;
      await setRecordStatus(
        tx,
        job.record_id,
        '06',
        summary,
        batch
          ? ', ai_analysis_batch_flag = 1, ai_analysis_batch_reflected_at = now()'
          : ', ai_analysis_flag = 1, ai_analysis_reflected_at = now()',
      );
      await tx.query(
        `UPDATE tests SET ${batch ? 'ai_analysis_batch_flag' : 'ai_analysis_flag'} = 1,
                ai_total_score = (SELECT coalesce(sum(score), 0)::int FROM ai_markings WHERE test_id = $1 AND NOT excused),
                updated_at = now()
          WHERE id = $1`,
        [job.test_id],
      );
      await tx.query(
        `UPDATE analysis_jobs SET status = 'done', progress = 100, error = '', finished_at = now(), updated_at = now() WHERE id = $1`,
        [job.id],
      );
      return true;
    });
    if (!stored) {
      this.o.log.warn(
        { jobId: job.id },
        'analysis finished after its lease passed to another instance: dropped',
      );
      return;
    }
    await this.finishRequest(job.request_id);
  }

  /** Closes a request when none of its jobs is waiting or running. */
  private async finishRequest(requestId: number | null): Promise<void> {
    if (!requestId) return;
    const { rows } = await this.o.db.query<{ total: number; done: number; failed: number; open: number }>(
      `SELECT count(*)::int AS total, count(*) FILTER (WHERE status = 'done')::int AS done,
              count(*) FILTER (WHERE status = 'error')::int AS failed,
              count(*) FILTER (WHERE status IN ('queued', 'running'))::int AS open
         FROM analysis_jobs WHERE request_id = $1`,
      [requestId],
    );
    const c = rows[0]!;
    if (c.open > 0) return;
    await this.o.db.query(
      `UPDATE analysis_requests SET status = $2, result = $3, updated_at = now() WHERE id = $1`,
      [
        requestId,
        c.failed ? 'error' : 'done',
        `${c.done}/${c.total} recording(s) analysed` + (c.failed ? `, ${c.failed} failed` : ''),
      ],
    );
  }
}

const queues = new WeakMap<object, AnalysisQueue>();

/** Installs the analysis queue of an app (start-up or a test). */
export function setAnalysisQueue(app: FastifyInstance, q: AnalysisQueue | null): void {
  if (q) queues.set(app, q);
  else queues.delete(app);
}

/** The app's analysis queue, or null when none runs (jobs then wait in the table). */
export function getAnalysisQueue(app: FastifyInstance): AnalysisQueue | null {
  for (let o: object | null = app; o; o = Object.getPrototypeOf(o) as object | null) {
    const q = queues.get(o);
    if (q) return q;
  }
  return null;
}
