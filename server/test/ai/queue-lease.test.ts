// The analysis queue when several server instances share one database: jobs are claimed
// atomically with a lease, an expired lease is taken over, a live one is not, and the automatic analysis after
// an exam is queued once — from the conversion hook, or by the sweep when the hook was missed. The runner is a
// stand-in (no models): what is under test is who runs which job and when, not the analysis itself.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AnalysisQueue, type AnalysisRunner } from '../../src/lib/ai/analysis-queue';
import type { AnalysisOutput } from '../../src/lib/ai/analysis';
import type { ImageStore } from '../../src/lib/images';
import type { ObjectStorage } from '../../src/lib/object-storage';
import {
  conversionSettings,
  onRecordingConverted,
  RecordingConverter,
} from '../../src/lib/recording/conversion';
import { build, loginAs, type TestServer } from '../helper';

let s: TestServer;
let dataDir: string;
let testId: number;
const queues: AnalysisQueue[] = [];

/** The converter's store: an MP4 needs no duration fix, so it is never read. */
const storage = {} as ObjectStorage;
const quiet = { warn: () => undefined, error: () => undefined };

/** A runner that notes which queue ran which record and finishes after `ms`. */
function runner(seen: Map<number, string[]>, owner: () => string, ms = 50, capacity = 2): AnalysisRunner {
  return {
    capacity,
    async run(job, onProgress): Promise<AnalysisOutput> {
      const recordId = Number(path.basename(job.file)); // see storage below: the record id is the file name
      seen.set(recordId, [...(seen.get(recordId) ?? []), owner()]);
      await new Promise((r) => setTimeout(r, ms));
      onProgress(1000);
      return {
        flags: [{ type: 'voice', score: 90, confidence: 0.9, startMs: 0, endMs: 1000 }],
        durationMs: 1000,
        frames: 1,
        audio: true,
        notes: [],
      };
    },
  };
}

function queue(seen: Map<number, string[]>, opts: { ms?: number; leaseMs?: number } = {}): AnalysisQueue {
  const q: AnalysisQueue = new AnalysisQueue({
    db: s.db,
    // Each record's "object" is a path whose name is the record id, so the runner can tell which it runs.
    storage: () =>
      ({ localPath: (ref: { key: string }) => path.join(dataDir, ref.key) }) as unknown as ObjectStorage,
    images: { read: async () => null } as unknown as ImageStore,
    log: quiet,
    runner: runner(seen, () => q.owner, opts.ms),
    leaseMs: opts.leaseMs,
    sweepMs: 0,
  });
  queues.push(q);
  return q;
}

async function addRecord(status = '02', mime = 'video/webm'): Promise<number> {
  const { rows } = await s.db.query<{ id: string }>(
    `INSERT INTO records (test_id, tester_id, bucket, object_key, mime_type, movie_status, duration_ms, stop_at,
                          encoded_at)
     SELECT id, user_id, 'b', 'pending', $2, $3::char(2), 1000, now(), CASE WHEN $3::text = '02' THEN now() END
       FROM tests WHERE id = $1 RETURNING id`,
    [testId, mime, status],
  );
  const id = Number(rows[0]!.id);
  await s.db.query(`UPDATE records SET object_key = $2 WHERE id = $1`, [id, String(id)]);
  // The stand-in runner does not read the file; the queue only needs it to exist.
  await import('node:fs/promises').then((fs) => fs.writeFile(path.join(dataDir, String(id)), 'x'));
  return id;
}

async function addJobs(n: number): Promise<number[]> {
  const ids: number[] = [];
  for (let i = 0; i < n; i++) {
    const recordId = await addRecord('03');
    await s.db.query(
      `INSERT INTO analysis_jobs (record_id, test_id, kind, method, types) VALUES ($1, $2, 'manual', 3, 'voice')`,
      [recordId, testId],
    );
    ids.push(recordId);
  }
  return ids;
}

const jobOf = async (recordId: number) =>
  (
    await s.db.query<{ status: string; attempts: number; claimed_by: string | null }>(
      `SELECT status, attempts, claimed_by FROM analysis_jobs WHERE record_id = $1`,
      [recordId],
    )
  ).rows;

const statusOf = async (recordId: number) =>
  (await s.db.query<{ movie_status: string }>(`SELECT movie_status FROM records WHERE id = $1`, [recordId]))
    .rows[0]!.movie_status;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'ai-queue-'));
  s = await build({ dataDir });
  await loginAs(s.app, 'tester06');
  const t = await s.db.query<{ id: number }>(
    `SELECT t.id FROM tests t JOIN users u ON u.id = t.user_id WHERE u.login_id = 'tester06' ORDER BY t.id DESC LIMIT 1`,
  );
  testId = Number(t.rows[0]!.id);
});

afterEach(async () => {
  for (const q of queues.splice(0)) await q.close();
  await s.db.query(`DELETE FROM analysis_jobs WHERE test_id = $1`, [testId]);
  await s.db.query(`UPDATE records SET movie_status = '06' WHERE test_id = $1`, [testId]);
});

afterAll(async () => {
  await s?.close();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

describe('analysis queue shared by two instances', () => {
  it('two queues on one database run every job exactly once, each taking its share', async () => {
    const records = await addJobs(8);
    const seen = new Map<number, string[]>();
    const a = queue(seen, { ms: 80 });
    const b = queue(seen, { ms: 80 });
    await Promise.all([a.start(), b.start()]);
    await Promise.all([a.idle(), b.idle()]);
    for (const id of records) {
      expect(seen.get(id), `record ${id}`).toHaveLength(1);
      expect(await statusOf(id)).toBe('06');
      expect(await jobOf(id)).toMatchObject([{ status: 'done', attempts: 1 }]);
    }
    expect(new Set([...seen.values()].flat())).toEqual(new Set([a.owner, b.owner]));
  });

  it('leaves a job another live instance holds, and takes over one whose lease ran out', async () => {
    const [live, dead] = await addJobs(2);
    await s.db.query(
      `UPDATE analysis_jobs SET status = 'running', attempts = 1, claimed_by = 'other-live',
              lease_until = now() + interval '1 minute' WHERE record_id = $1`,
      [live],
    );
    await s.db.query(
      `UPDATE analysis_jobs SET status = 'running', attempts = 1, claimed_by = 'other-crashed',
              lease_until = now() - interval '1 second' WHERE record_id = $1`,
      [dead],
    );
    const seen = new Map<number, string[]>();
    const q = queue(seen);
    await q.start();
    await q.idle();
    expect(seen.has(live!)).toBe(false);
    expect(await jobOf(live!)).toMatchObject([{ status: 'running', claimed_by: 'other-live' }]);
    expect(seen.get(dead!)).toEqual([q.owner]);
    // The crashed attempt counts: a job that brings its instance down is not retried for ever.
    expect(await jobOf(dead!)).toMatchObject([{ status: 'done', attempts: 2 }]);
  });

  it(
    'keeps renewing the lease of a long job, so a second instance sweeping meanwhile does not take it',
    {
      timeout: 30_000,
    },
    async () => {
      const [id] = await addJobs(1);
      const seen = new Map<number, string[]>();
      const a = queue(seen, { ms: 5000, leaseMs: 3000 });
      await a.start();
      await expect.poll(async () => (await jobOf(id!))[0]?.status).toBe('running');
      const b = queue(seen, { leaseMs: 3000 });
      await b.start();
      // More than a lease length goes by while b keeps looking (a renews every second).
      for (let i = 0; i < 4; i++) {
        await new Promise((r) => setTimeout(r, 1000));
        await b.sweep();
      }
      await a.idle();
      expect(seen.get(id!)).toEqual([a.owner]);
      expect(await jobOf(id!)).toMatchObject([{ status: 'done', attempts: 1 }]);
    },
  );
});

/** A queue starts (and sweeps) without analysing the recording: it stays converted, unqueued. */
async function expectNotSwept(recordId: number): Promise<void> {
  const seen = new Map<number, string[]>();
  const q = queue(seen);
  await q.start();
  await q.idle();
  expect(seen.has(recordId)).toBe(false);
  expect(await statusOf(recordId)).toBe('02');
}

describe('automatic analysis after the exam', () => {
  beforeAll(async () => {
    await s.db.query(
      `UPDATE tests SET startup_parameters = '{"ai_after_analysis":1,"selected_analysis_types":"voice"}' WHERE id = $1`,
      [testId],
    );
  });

  it('a recording reaching 02 through the conversion is queued and analysed (the hook of startAi)', async () => {
    const seen = new Map<number, string[]>();
    const q = queue(seen);
    await q.start();
    const off = onRecordingConverted(s.db, (id) => void q.onConverted(id));
    const converter = new RecordingConverter({
      db: s.db,
      storage: () => storage,
      log: s.app.log,
      settings: { ...conversionSettings(), pollMs: 60_000 },
    });
    try {
      // An MP4 needs no duration fix: the converter moves it 01 → 02 and tells the listeners.
      const id = await addRecord('01', 'video/mp4');
      converter.enqueue(id);
      await converter.idle();
      await expect.poll(() => statusOf(id), { timeout: 10_000 }).toBe('06');
      expect(seen.get(id)).toEqual([q.owner]);
      const flags = await s.db.query<{ ai_analysis_batch_flag: number }>(
        `SELECT ai_analysis_batch_flag FROM records WHERE id = $1`,
        [id],
      );
      expect(flags.rows[0]!.ai_analysis_batch_flag).toBe(1);
    } finally {
      off();
      await converter.close();
    }
  });

  it('a converted recording whose hook was missed (restart) is found by the sweep and queued once', async () => {
    const id = await addRecord('02');
    const seen = new Map<number, string[]>();
    const a = queue(seen);
    const b = queue(seen);
    // Both instances sweep at start; the recording is analysed once.
    await Promise.all([a.start(), b.start()]);
    await Promise.all([a.idle(), b.idle()]);
    expect(await statusOf(id)).toBe('06');
    expect(seen.get(id)).toHaveLength(1);
    const jobs = await s.db.query<{ n: string }>(
      `SELECT count(*) AS n FROM analysis_jobs WHERE record_id = $1 AND kind = 'batch'`,
      [id],
    );
    expect(Number(jobs.rows[0]!.n)).toBe(1);
    // Analysed once is enough: later sweeps leave it alone.
    await a.sweep();
    await a.idle();
    expect(seen.get(id)).toHaveLength(1);
  });

  it('a recording converted more than a day ago is left alone by the sweep', async () => {
    const id = await addRecord('02');
    await s.db.query(`UPDATE records SET encoded_at = now() - interval '2 days' WHERE id = $1`, [id]);
    await expectNotSwept(id);
  });

  it('a sitting that did not ask for it is not swept', async () => {
    await s.db.query(`UPDATE tests SET startup_parameters = '{"ai_after_analysis":0}' WHERE id = $1`, [
      testId,
    ]);
    const id = await addRecord('02');
    await expectNotSwept(id);
  });
});
