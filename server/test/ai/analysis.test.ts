import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnalysisIndexResult, AnalysisRequestResult } from '../../../contract/analysis';
import { DEMO_LOGIN } from '../helper';
import { analyseFile, intervalsOf, isSampled, type Sample } from '../../src/lib/ai/analysis';
import { AnalysisQueue, setAnalysisQueue } from '../../src/lib/ai/analysis-queue';
import { IdentityEngine } from '../../src/lib/ai/identity';
import { aiSettings } from '../../src/lib/ai/settings';
import { SileroVad } from '../../src/lib/ai/vad';
import { appImageStore } from '../../src/lib/images';
import type { ObjectStorage } from '../../src/lib/object-storage';
import { build, envelope, injectAs, loginAs, type TestServer } from '../helper';
import { CLIP, makeClip, makeImageFixtures, missingFixtureTools, type AiFixtures } from './fixtures';

const missing = missingFixtureTools();
const settings = aiSettings({});

describe('flag rules', () => {
  const s = (tMs: number, hit: boolean): Sample => ({ tMs, durMs: 2000, hit, confidence: hit ? 0.8 : 0 });

  it('needs consecutive samples and a minimum duration', () => {
    const one = intervalsOf('people_num', [s(0, false), s(2000, true), s(4000, false)], settings.analysis);
    expect(one).toEqual([]);
    const two = intervalsOf(
      'people_num',
      [s(0, false), s(2000, true), s(4000, true), s(6000, false)],
      settings.analysis,
    );
    expect(two).toEqual([{ type: 'people_num', startMs: 2000, endMs: 6000, confidence: 0.8, score: 80 }]);
  });

  it('method 5 examines 10 frames 2 s apart at the start of every 3 minutes', () => {
    const picked = Array.from({ length: 200 }, (_, i) => i * 2000).filter((t) => isSampled(5, t));
    expect(picked.slice(0, 11)).toEqual([
      0, 2000, 4000, 6000, 8000, 10000, 12000, 14000, 16000, 18000, 180000,
    ]);
    expect(isSampled(1, 123_000)).toBe(true);
  });
});

const within = (m: { start_ms: number; end_ms: number }, [a, b]: readonly number[], slack = 2000) =>
  m.start_ms >= a! - slack && m.end_ms <= b! + slack;

describe.skipIf(missing)(
  `recording analysis with the real models${missing ? ` (skipped: ${missing})` : ''}`,
  () => {
    let fx: AiFixtures;
    let clip: string;
    let engine: IdentityEngine;
    let vad: SileroVad;
    let s: TestServer;
    let dataDir: string;
    let queue: AnalysisQueue;
    let testId: number;
    const admin: Record<string, string> = {};

    const storage = {
      localPath: (ref: { key: string }) => (ref.key === 'missing.webm' ? undefined : clip),
      downloadToFile: async () => {
        throw new Error('NoSuchKey: the object is gone');
      },
    } as unknown as ObjectStorage;

    async function addRecord(status = '02'): Promise<number> {
      const { rows } = await s.db.query<{ id: number }>(
        `INSERT INTO records (test_id, tester_id, bucket, object_key, movie_status, duration_ms, stop_at)
       SELECT id, user_id, 'b', $2, $3, $4::int, now() FROM tests WHERE id = $1 RETURNING id`,
        [
          testId,
          status === 'missing' ? 'missing.webm' : 'clip.webm',
          status === 'missing' ? '02' : status,
          CLIP.durationMs,
        ],
      );
      return Number(rows[0]!.id);
    }

    beforeAll(async () => {
      fx = makeImageFixtures();
      clip = makeClip(fx);
      [engine, vad] = await Promise.all([
        IdentityEngine.create(settings, { ocr: false }),
        SileroVad.create(),
      ]);
      dataDir = await mkdtemp(path.join(os.tmpdir(), 'ai-analysis-'));
      s = await build({ dataDir }, { objectStorage: true });
      await loginAs(s.app, 'tester05');
      const t = await s.db.query<{ id: number }>(
        `SELECT t.id FROM tests t JOIN users u ON u.id = t.user_id WHERE u.login_id = 'tester05' ORDER BY t.id DESC LIMIT 1`,
      );
      testId = Number(t.rows[0]!.id);
      const key = await appImageStore(s.app).save('head_shot', testId, readFileSync(fx.astronaut));
      await s.db.query(`UPDATE tests SET head_shot_key = $2 WHERE id = $1`, [testId, key]);
      queue = new AnalysisQueue({
        db: s.db,
        storage: () => storage,
        images: appImageStore(s.app),
        log: { warn: () => undefined, error: () => undefined },
        runner: {
          capacity: 1,
          run: async (job, onProgress) =>
            analyseFile(job.file, engine, vad, {
              ffmpegPath: 'ffmpeg',
              method: job.method as 1,
              types: job.types,
              head: job.headShot ? await engine.embeddingOf(job.headShot) : null,
              settings: settings.analysis,
              onProgress,
            }),
        },
      });
      setAnalysisQueue(s.app, queue);
      for (const a of [3, 4, 5] as const) admin[a] = await loginAs(s.app, DEMO_LOGIN[a]);
    }, 180_000);

    afterAll(async () => {
      await queue?.close();
      await s?.close();
      await engine?.close();
      fx?.cleanup();
      if (dataDir) await rm(dataDir, { recursive: true, force: true });
    });

    const request = (token: string, payload: object) =>
      injectAs(s.app, token, { method: 'POST', url: '/api/v1/analysis_request/request.php', payload });

    it('rejects other actors and bad input with the error envelope', async () => {
      for (const a of [1, 2, 3] as const) {
        const tok = a === 3 ? admin[3]! : await loginAs(s.app, DEMO_LOGIN[a]);
        const res = await request(tok, { analysis_inseq: 'x', analysis_status: 1, testers: [testId] });
        expect(res.statusCode, `actor ${a}`).toBe(403);
      }
      const bad: [object, number][] = [
        [{ analysis_inseq: 'x', analysis_status: 9, testers: [testId] }, 400],
        [{ analysis_inseq: 'x', analysis_status: 1, testers: [] }, 400],
        [{ analysis_inseq: 'x', analysis_status: 1 }, 400],
        [{ analysis_inseq: 'x', analysis_status: 1, testers: [99999999] }, 404],
      ];
      for (const [payload, code] of bad) {
        const res = await request(admin[4]!, payload);
        expect(res.statusCode, JSON.stringify(payload)).toBe(code);
        expect(res.json()).toMatchObject({ status: code, result: null });
      }
      const q = await injectAs(s.app, admin[5]!, {
        method: 'GET',
        url: '/api/v1/analysis_request/index.php?sort_key=bogus',
      });
      expect(q.statusCode).toBe(400);
    });

    it('a request analyses the clip: markings in the known windows only, record 06, flags and score', async () => {
      const recordId = await addRecord();
      const res = await request(admin[4]!, {
        analysis_inseq: 'REQ-1',
        analysis_status: '1',
        testers: [String(testId)],
      });
      expect(res.statusCode).toBe(200);
      const r = envelope<AnalysisRequestResult>(res).result;
      expect(r).toMatchObject({ queued: 1 });
      await queue.idle();

      const rec = await s.db.query<{
        movie_status: string;
        ai_analysis_flag: number;
        ai_analysis_reflected_at: Date | null;
      }>(`SELECT movie_status, ai_analysis_flag, ai_analysis_reflected_at FROM records WHERE id = $1`, [
        recordId,
      ]);
      expect(rec.rows[0]).toMatchObject({ movie_status: '06', ai_analysis_flag: 1 });
      expect(rec.rows[0]!.ai_analysis_reflected_at).not.toBeNull();
      const log = await s.db.query<{ movie_status: string }>(
        `SELECT movie_status FROM record_status_logs WHERE record_id = $1 ORDER BY id`,
        [recordId],
      );
      expect(log.rows.map((x) => x.movie_status)).toEqual(['03', '04', '05', '06']);

      const { rows } = await s.db.query<{
        analysis_type: string;
        start_ms: number;
        end_ms: number;
        confidence: number;
      }>(
        `SELECT analysis_type, start_ms::int, end_ms::int, confidence FROM ai_markings WHERE record_id = $1 ORDER BY start_ms`,
        [recordId],
      );
      const of = (t: string) => rows.filter((m) => m.analysis_type === t);
      // How much of a window the markings of a type cover (ms).
      const covered = (t: string, [a, b]: readonly number[]) =>
        of(t).reduce((n, m) => n + Math.max(0, Math.min(b!, m.end_ms) - Math.max(a!, m.start_ms)), 0);
      for (const t of ['people_num', 'other_person'] as const) {
        expect(of(t).length, t).toBeGreaterThan(0);
        for (const m of of(t))
          expect(within(m, CLIP.secondPerson), `${t} ${m.start_ms}-${m.end_ms}`).toBe(true);
        // Sampled every 2 s with a 2-sample minimum: most of the 15 s window is flagged.
        expect(covered(t, CLIP.secondPerson), t).toBeGreaterThanOrEqual(10_000);
      }
      expect(of('eye_rot').length).toBeGreaterThan(0);
      for (const m of of('eye_rot')) expect(within(m, CLIP.noFace)).toBe(true);
      const voice = of('voice');
      for (const w of CLIP.speech)
        expect(
          voice.some((m) => within(m, w)),
          `speech ${w[0]}`,
        ).toBe(true);
      for (const m of voice)
        expect(
          CLIP.speech.some((w) => within(m, w)),
          `voice ${m.start_ms}`,
        ).toBe(true);
      for (const m of rows) expect(m.confidence).toBeGreaterThan(0);

      const t = await s.db.query<{ ai_total_score: number; ai_analysis_flag: number }>(
        `SELECT ai_total_score, ai_analysis_flag FROM tests WHERE id = $1`,
        [testId],
      );
      expect(t.rows[0]!.ai_analysis_flag).toBe(1);
      expect(t.rows[0]!.ai_total_score).toBeGreaterThan(0);

      const idx = envelope<AnalysisIndexResult>(
        await injectAs(s.app, admin[5]!, {
          method: 'GET',
          url: '/api/v1/analysis_request/index.php?sort_key=id&sort_order=0',
        }),
      ).result;
      expect(idx.analysis_requests[0]).toMatchObject({
        id: r.id,
        inseq: 'REQ-1',
        status: 'done',
        progress: { total: 1, done: 1, failed: 0, percent: 100 },
      });
    }, 120_000);

    it('a failing job is retried once, then the record is 07 with the reason', async () => {
      await rm(path.join(dataDir, 'x'), { force: true });
      const recordId = await addRecord('missing');
      await s.db.query(`UPDATE records SET movie_status = '06' WHERE test_id = $1 AND id <> $2`, [
        testId,
        recordId,
      ]);
      await s.db.query(`UPDATE records SET movie_status = '08' WHERE test_id = $1 AND id <> $2`, [
        testId,
        recordId,
      ]);
      const r = envelope<AnalysisRequestResult>(
        await request(admin[5]!, { analysis_inseq: 'REQ-2', analysis_status: 3, testers: `${testId}` }),
      ).result;
      expect(r.queued).toBe(1);
      await queue.idle();
      const rec = await s.db.query<{ movie_status: string; detail: string }>(
        `SELECT movie_status, detail FROM records WHERE id = $1`,
        [recordId],
      );
      expect(rec.rows[0]!.movie_status).toBe('07');
      expect(rec.rows[0]!.detail).toMatch(/NoSuchKey/);
      const job = await s.db.query<{ attempts: number; status: string }>(
        `SELECT attempts, status FROM analysis_jobs WHERE record_id = $1`,
        [recordId],
      );
      expect(job.rows[0]).toEqual({ attempts: 2, status: 'error' });
      const idx = envelope<AnalysisIndexResult>(
        await injectAs(s.app, admin[4]!, { method: 'GET', url: '/api/v1/analysis_request/index.php' }),
      ).result;
      expect(idx.analysis_requests.find((x) => x.id === r.id)).toMatchObject({ status: 'error' });
    }, 60_000);

    it('automatic analysis after the exam when the start-up parameters ask for it', async () => {
      await s.db.query(`UPDATE records SET movie_status = '08' WHERE test_id = $1`, [testId]);
      await s.db.query(
        `UPDATE tests SET startup_parameters = '{"ai_after_analysis":1,"selected_analysis_types":"voice"}' WHERE id = $1`,
        [testId],
      );
      const recordId = await addRecord();
      await queue.onConverted(recordId);
      await queue.idle();
      const rec = await s.db.query<{ movie_status: string; ai_analysis_batch_flag: number }>(
        `SELECT movie_status, ai_analysis_batch_flag FROM records WHERE id = $1`,
        [recordId],
      );
      expect(rec.rows[0]).toEqual({ movie_status: '06', ai_analysis_batch_flag: 1 });
      const types = await s.db.query<{ analysis_type: string }>(
        `SELECT DISTINCT analysis_type FROM ai_markings WHERE record_id = $1`,
        [recordId],
      );
      expect(types.rows.map((x) => x.analysis_type)).toEqual(['voice']);
    }, 60_000);
  },
);
