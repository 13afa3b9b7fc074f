import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CaptureResult, LiveFeedResult } from '../../contract/capture';
import type { TesterDetail } from '../../contract/tester';
import { CaptureAnalyser, setCaptureAnalyser } from '../src/lib/ai/capture-analyser';
import { IdentityEngine } from '../src/lib/ai/identity';
import { aiSettings } from '../src/lib/ai/settings';
import { detectStill, stillFlags, type StillDetection } from '../src/lib/ai/still';
import { appImageStore } from '../src/lib/images';
import { createObjectStorage, type ObjectStorage } from '../src/lib/object-storage';
import { recordingSettings } from '../src/lib/recording/settings';
import { build, envelope, injectAs, loginAs, type TestServer } from './helper';
import { makeImageFixtures, missingFixtureTools, type AiFixtures } from './ai/fixtures';

// Live stills (start-up capture_interval / capture_type / is_capture_show / ai_sensitivity): the three capture
// modes, the AI flags they produce with the real models, excused flags (connection down) and the checker's feed.

process.env.MATCHING_SWEEP_INTERVAL_MS = '0';

const settings = aiSettings({});
const missing = missingFixtureTools();

describe('flag rules of one still', () => {
  const face = (o: Partial<StillDetection['faces'][number]> = {}) => ({
    score: 0.95,
    side: 200,
    area: 40_000,
    yaw: 0,
    pitch: 0,
    gaze: 0.03,
    cosine: 0.9,
    ...o,
  });
  const d = (faces: StillDetection['faces'], head = true): StillDetection => ({
    width: 640,
    height: 480,
    faces,
    head,
  });
  const all = ['eye_rot', 'other_person', 'people_num', 'voice'] as const;

  it('says nothing about the examinee alone, facing the camera', () => {
    expect(stillFlags(d([face()]), settings.capture.standard, all)).toEqual([]);
  });

  it('no face: surer the fainter the best detection; counted as eye_rot', () => {
    expect(stillFlags(d([]), settings.capture.standard, all)).toEqual([
      { flag: 'no_face', analysisType: 'eye_rot', confidence: 0.99 },
    ]);
    expect(stillFlags(d([face({ score: 0.4 })]), settings.capture.standard, all)).toEqual([
      { flag: 'no_face', analysisType: 'eye_rot', confidence: 0.6 },
    ]);
  });

  it('several people, another person, looking away; only for the sitting’s analysis types', () => {
    const two = d([face(), face({ score: 0.8, cosine: 0.2, area: 10_000 })]);
    expect(stillFlags(two, settings.capture.standard, all).map((f) => f.flag)).toEqual([
      'several_people',
      'other_person',
    ]);
    expect(stillFlags(two, settings.capture.standard, ['eye_rot'])).toEqual([]);
    // Another person needs a head shot to compare with.
    expect(stillFlags(d([face({ cosine: null })], false), settings.capture.standard, all)).toEqual([]);
    const turned = d([face({ yaw: 35 })]);
    expect(stillFlags(turned, settings.capture.standard, all)).toEqual([
      { flag: 'looking_away', analysisType: 'eye_rot', confidence: 0.95 },
    ]);
  });

  it('the sensitivity moves the limits: 25° of yaw is looking away only when strict', () => {
    const t = d([face({ yaw: 25 })]);
    expect(stillFlags(t, settings.capture.strict, all).map((f) => f.flag)).toEqual(['looking_away']);
    expect(stillFlags(t, settings.capture.standard, all)).toEqual([]);
    expect(stillFlags(t, settings.capture.relaxed, all)).toEqual([]);
    expect(settings.capture.strict.alertConfidence).toBeLessThan(settings.capture.standard.alertConfidence);
    expect(settings.capture.relaxed.alertConfidence).toBeGreaterThan(
      settings.capture.standard.alertConfidence,
    );
  });

  it('reads AI_SENSITIVITY_<LEVEL> overrides and refuses a malformed one', () => {
    const s = aiSettings({ AI_SENSITIVITY_RELAXED: 'yaw=50, alert=0.9' });
    expect(s.capture.relaxed).toMatchObject({ maxYaw: 50, alertConfidence: 0.9 });
    expect(() => aiSettings({ AI_SENSITIVITY_STRICT: 'tilt=3' })).toThrow(/AI_SENSITIVITY_STRICT/);
  });
});

describe.skipIf(missing)(`live stills on the server${missing ? ` (skipped: ${missing})` : ''}`, () => {
  let fx: AiFixtures;
  let engine: IdentityEngine;
  let s: TestServer;
  let dataDir: string;
  let storage: ObjectStorage;
  let analyser: CaptureAnalyser;
  const jpeg: Record<'face' | 'noFace' | 'two', Buffer> = {} as never;
  const tok: Record<string, string> = {};
  let n = 0;

  const TESTER = 'tester07';
  const CHECKER = 'checker02';

  beforeAll(async () => {
    fx = makeImageFixtures();
    engine = await IdentityEngine.create(settings, { ocr: false });
    for (const [k, file] of [
      ['face', fx.astronaut],
      ['noFace', fx.noFace],
      ['two', fx.twoFaces],
    ] as const) {
      jpeg[k] = await sharp(file).resize(640, 480, { fit: 'inside' }).jpeg({ quality: 75 }).toBuffer();
    }
  }, 120_000);

  afterAll(async () => {
    await engine?.close();
    fx?.cleanup();
  });

  beforeEach(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'captures-'));
    s = await build({ dataDir });
    await s.app.listen({ host: '127.0.0.1', port: 0 });
    s.app.config.publicOrigin = `http://127.0.0.1:${(s.app.server.address() as AddressInfo).port}`;
    storage = createObjectStorage({ bucket: recordingSettings().bucket, local: () => s.app.s3local });
    analyser = new CaptureAnalyser({
      db: s.db,
      storage: () => storage,
      runner: { detect: (job) => detectStill(engine, job.image, job.headShot, job.priority) },
      images: appImageStore(s.app),
      thresholds: settings.capture,
      log: { warn: () => undefined, error: () => undefined },
      sweepMs: 0,
    });
    setCaptureAnalyser(s.app, analyser);
    for (const k of Object.keys(tok)) delete tok[k];
    return async () => {
      await analyser.close();
      await s.close();
      await rm(dataDir, { recursive: true, force: true });
    };
  });

  const token = async (loginId: string) => (tok[loginId] ??= await loginAs(s.app, loginId));
  const call = async (loginId: string, method: 'GET' | 'POST', url: string, payload?: object) =>
    injectAs(s.app, await token(loginId), {
      method,
      url: `/api/v1${url}`,
      ...(payload ? { payload } : {}),
    });

  /** The tester's open sitting, with these capture settings and a head shot of the astronaut. */
  async function sitting(params: Record<string, unknown>): Promise<number> {
    await token(TESTER);
    const { rows } = await s.db.query<{ id: number }>(
      `SELECT t.id FROM tests t JOIN users u ON u.id = t.user_id WHERE u.login_id = $1 AND t.status < 7
        ORDER BY t.id DESC LIMIT 1`,
      [TESTER],
    );
    const id = Number(rows[0]!.id);
    const key = await appImageStore(s.app).save('head_shot', id, readFileSync(fx.astronaut));
    await s.db.query(
      `UPDATE tests SET head_shot_key = $2, startup_parameters = startup_parameters || $3::jsonb WHERE id = $1`,
      [id, key, JSON.stringify(params)],
    );
    return id;
  }

  async function send(image: Buffer, ageMs = 200, key = `still-${++n}-abcdef`) {
    return call(TESTER, 'POST', '/tester/capture.php', {
      image: image.toString('base64'),
      content_type: 'image/jpeg',
      client_key: key,
      age_ms: ageMs,
    });
  }

  /** Matches the tester to the checker (both poll as their pages do). */
  async function match(): Promise<void> {
    await call(CHECKER, 'POST', '/matching.php', {});
    await call(TESTER, 'POST', '/matching.php', { channel_status: 'open' });
    await call(CHECKER, 'POST', '/matching.php', {});
  }

  const feed = async (query = '') => {
    const res = await call(CHECKER, 'GET', `/checker/live_feed.php${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return envelope<LiveFeedResult>(res).result;
  };

  const markings = (testId: number) =>
    s.db
      .query<{
        flag: string;
        analysis_type: string;
        score: number;
        excused: boolean;
        excuse_reason: string | null;
        capture_id: number;
        last_capture_id: number;
      }>(
        `SELECT flag, analysis_type, score, excused, excuse_reason, capture_id, last_capture_id
           FROM ai_markings WHERE test_id = $1 AND source = 'capture' ORDER BY id`,
        [testId],
      )
      .then((r) => r.rows);

  const scores = (testId: number) =>
    s.db
      .query<{ ai_total_score: number; cheating_level: number }>(
        `SELECT ai_total_score, cheating_level FROM tests WHERE id = $1`,
        [testId],
      )
      .then((r) => r.rows[0]!);

  it('no AI check (type 0): the still is stored in object storage and shown to the checker, never analysed', async () => {
    const testId = await sitting({ capture_interval: 5, capture_type: 0, is_capture_show: 1 });
    await match();
    const res = await send(jpeg.noFace);
    expect(res.statusCode, res.body).toBe(200);
    const r = envelope<CaptureResult>(res).result;
    expect(r).toMatchObject({ analysis: 'none', interval: 5 });
    const row = (
      await s.db.query<{ status: string; bucket: string; object_key: string }>(
        `SELECT status, bucket, object_key FROM captures WHERE id = $1`,
        [r.capture_id],
      )
    ).rows[0]!;
    expect(row.status).toBe('stored');
    // In the bucket, not on the instance's disk.
    expect(row.object_key).toMatch(new RegExp(`^captures/${testId}/`));
    expect(await storage.getObject({ bucket: row.bucket, key: row.object_key })).toEqual(jpeg.noFace);
    await analyser.idle();
    expect(await markings(testId)).toEqual([]);

    const f = await feed();
    const pane = f.panes.find((p) => p.test_id === testId)!;
    expect(pane).toMatchObject({ capture_type: 0, is_capture_show: true, flag_count: 0, flags: [] });
    expect(pane.latest_capture?.id).toBe(r.capture_id);
    // The presigned URL serves the still itself.
    const got = await fetch(pane.latest_capture!.url!);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer())).toEqual(jpeg.noFace);
  });

  it('AI realtime (type 1): a face-less still becomes a "no face" marking with its still, the next one extends it, and the checker is alerted', async () => {
    const testId = await sitting({ capture_interval: 5, capture_type: 1, is_capture_show: 1 });
    await match();
    const first = envelope<CaptureResult>(await send(jpeg.noFace)).result;
    expect(first.analysis).toBe('realtime');
    await analyser.idle();
    let m = await markings(testId);
    expect(m).toHaveLength(1);
    expect(m[0]).toMatchObject({
      flag: 'no_face',
      analysis_type: 'eye_rot',
      excused: false,
      capture_id: first.capture_id,
    });
    expect(m[0]!.score).toBeGreaterThanOrEqual(90);
    expect((await scores(testId)).ai_total_score).toBe(m[0]!.score);

    // The next still of the same episode extends the marking instead of adding one.
    const second = envelope<CaptureResult>(await send(jpeg.noFace)).result;
    await analyser.idle();
    m = await markings(testId);
    expect(m).toHaveLength(1);
    expect(m[0]!.last_capture_id).toBe(second.capture_id);

    // The examinee alone, facing the camera: nothing new.
    await send(jpeg.face);
    // Two people: another episode of another kind.
    await send(jpeg.two);
    await analyser.idle();
    m = await markings(testId);
    expect(m.map((x) => x.flag)).toEqual(['no_face', 'several_people']);

    const f = await feed();
    const pane = f.panes.find((p) => p.test_id === testId)!;
    expect(pane.flag_count).toBe(2);
    const noFace = pane.flags.find((x) => x.flag === 'no_face')!;
    expect(noFace).toMatchObject({ excused: false, alert: true });
    expect(noFace.image_url).toMatch(/^http/);
    const still = await fetch(noFace.image_url!);
    expect(Buffer.from(await still.arrayBuffer())).toEqual(jpeg.noFace);

    // Managers see the marking with its still; the examinee's detail too (what was flagged and when).
    const detail = envelope<TesterDetail>(
      await call('sysadmin01', 'GET', `/tester/detail.php?test_id=${testId}`),
    ).result;
    const ai = detail.ai_markings.find((x) => x.flag === 'no_face')!;
    expect(ai).toMatchObject({ source: 'capture', mark: 'eye_rot', excused: false });
    expect(ai.url).toMatch(/^http/);
    expect(detail.ai_marking_total_score).toBe((await scores(testId)).ai_total_score);
  });

  it('AI realtime without stills on the monitor screen: flags arrive, pictures do not', async () => {
    const testId = await sitting({ capture_interval: 5, capture_type: 1, is_capture_show: 0 });
    await match();
    await send(jpeg.noFace);
    await analyser.idle();
    const pane = (await feed()).panes.find((p) => p.test_id === testId)!;
    expect(pane.latest_capture?.url).toBeNull();
    expect(pane.flags.map((x) => [x.flag, x.image_url])).toEqual([['no_face', null]]);
  });

  it('AI post analysis (type 2): stills wait until the sitting is over, then become markings', async () => {
    const testId = await sitting({ capture_interval: 5, capture_type: 2 });
    const r = envelope<CaptureResult>(await send(jpeg.noFace)).result;
    expect(r.analysis).toBe('post');
    await send(jpeg.two);
    await analyser.sweep();
    await analyser.idle();
    expect(await markings(testId)).toEqual([]);
    const queued = await s.db.query(`SELECT 1 FROM captures WHERE test_id = $1 AND status = 'queued'`, [
      testId,
    ]);
    expect(queued.rows).toHaveLength(2);

    // The exam ends.
    await s.db.query(`UPDATE tests SET status = 7 WHERE id = $1`, [testId]);
    await analyser.sweep();
    await analyser.idle();
    expect((await markings(testId)).map((x) => x.flag)).toEqual(['no_face', 'several_people']);
    expect((await scores(testId)).ai_total_score).toBeGreaterThan(0);
  });

  it('a still of a sitting without stills (capture_interval 0) is refused; bad stills get 4xx and store nothing', async () => {
    await sitting({ capture_interval: 0, capture_type: 1 });
    const off = await send(jpeg.face);
    expect(off.statusCode).toBe(409);
    expect(off.json()).toMatchObject({ status: 409, code: 'capture_off', result: null });

    const testId = await sitting({ capture_interval: 5, capture_type: 1 });
    const notImage = await send(Buffer.from('not an image at all'));
    expect(notImage.statusCode).toBe(415);
    const huge = await send(Buffer.concat([jpeg.face, Buffer.alloc(600 * 1024)]));
    expect(huge.statusCode).toBe(413);
    expect(huge.json()).toMatchObject({ status: 413, result: null });
    // Within the body limit, above the still's limit.
    const big = await send(Buffer.concat([jpeg.face, Buffer.alloc(520 * 1024 - jpeg.face.length)]));
    expect(big.statusCode).toBe(413);
    const badKey = await call(TESTER, 'POST', '/tester/capture.php', {
      image: jpeg.face.toString('base64'),
      client_key: 'no spaces!',
      age_ms: 0,
    });
    expect(badKey.statusCode).toBe(400);
    const oldAge = await call(TESTER, 'POST', '/tester/capture.php', {
      image: jpeg.face.toString('base64'),
      client_key: 'abcdefgh1',
      age_ms: 99_000_000,
    });
    expect(oldAge.statusCode).toBe(400);
    const asChecker = await call(CHECKER, 'POST', '/tester/capture.php', {
      image: jpeg.face.toString('base64'),
      client_key: 'abcdefgh2',
      age_ms: 0,
    });
    expect(asChecker.statusCode).toBe(403);
    const count = await s.db.query(`SELECT 1 FROM captures WHERE test_id = $1`, [testId]);
    expect(count.rows).toHaveLength(0);

    // A resend of the same still (its answer was lost) is the stored one.
    const a = envelope<CaptureResult>(await send(jpeg.face, 100, 'same-key-123')).result;
    const b = envelope<CaptureResult>(await send(jpeg.face, 100, 'same-key-123')).result;
    expect(b.capture_id).toBe(a.capture_id);
    // At most four stills per interval (the page's queue of three, and the new one).
    for (let i = 0; i < 3; i++) expect((await send(jpeg.face)).statusCode).toBe(200);
    const flood = await send(jpeg.face);
    expect(flood.statusCode).toBe(429);
    expect(flood.json()).toMatchObject({ status: 429, result: null });
  });

  it('excused: a still that arrives long after it was taken (queued while offline) is kept, shown, not scored', async () => {
    const testId = await sitting({ capture_interval: 5, capture_type: 1, matching_timeout: 5 });
    await match();
    const before = await scores(testId);
    // Taken 40 s ago: more than 3 polls of 5 s.
    await send(jpeg.noFace, 40_000);
    await analyser.idle();
    const m = await markings(testId);
    expect(m).toEqual([expect.objectContaining({ flag: 'no_face', excused: true, excuse_reason: 'late' })]);
    expect(await scores(testId)).toEqual(before);
    const pane = (await feed()).panes.find((p) => p.test_id === testId)!;
    expect(pane).toMatchObject({ flag_count: 0, excused_count: 1 });
    expect(pane.flags[0]).toMatchObject({ excused: true, alert: false });
    const detail = envelope<TesterDetail>(
      await call('sysadmin01', 'GET', `/tester/detail.php?test_id=${testId}`),
    ).result;
    expect(detail.ai_markings[0]).toMatchObject({ excused: true, excuse_reason: 'late' });
    expect(detail.ai_marking_total_score).toBe(0);
    expect(detail.ai_marking_summaries).toEqual([]);
  });

  it('excused: a connection gap found in the matching polls excuses flags taken inside it, also afterwards', async () => {
    const testId = await sitting({ capture_interval: 5, capture_type: 1, matching_timeout: 5 });
    await match();
    // A flag from a still taken 2 s ago, scored at first.
    await send(jpeg.noFace, 2000);
    await analyser.idle();
    expect((await markings(testId))[0]).toMatchObject({ excused: false });
    expect((await scores(testId)).ai_total_score).toBeGreaterThan(0);

    // The examinee's polls stopped 60 s ago; the next poll finds the silence.
    await s.db.query(
      `UPDATE matchings SET last_tester_poll_at = now() - interval '60 seconds' WHERE test_id = $1`,
      [testId],
    );
    const version = (await feed()).version;
    await call(TESTER, 'POST', '/matching.php', { channel_status: 'open' });
    const gaps = await s.db.query(`SELECT 1 FROM connection_gaps WHERE test_id = $1`, [testId]);
    expect(gaps.rows).toHaveLength(1);
    expect((await markings(testId))[0]).toMatchObject({ excused: true, excuse_reason: 'connection_gap' });
    expect(await scores(testId)).toMatchObject({ ai_total_score: 0, cheating_level: 0 });
    // The checker's feed changed with it.
    expect((await feed()).version).not.toBe(version);

    // A still taken inside the recorded gap that arrives now (3 s old: not late) is excused too.
    await send(jpeg.two, 3000);
    await analyser.idle();
    expect((await markings(testId)).map((x) => [x.flag, x.excused])).toEqual([
      ['no_face', true],
      ['several_people', true],
    ]);
    expect((await scores(testId)).ai_total_score).toBe(0);
  });

  it('a connection gap is recorded by the poll’s batched liveness write, once, even when polls race', async () => {
    const testId = await sitting({ capture_interval: 5, capture_type: 1, matching_timeout: 5 });
    await match();
    await send(jpeg.noFace, 2000);
    await analyser.idle();
    await s.db.query(
      `UPDATE matchings SET last_tester_poll_at = now() - interval '25 seconds' WHERE test_id = $1`,
      [testId],
    );
    // A server that fell behind finds a gap on every examinee's next poll: those polls must stay on the
    // one-statement path, not take a transaction each.
    const transaction = vi.spyOn(s.db, 'transaction');
    try {
      const answers = await Promise.all(
        [1, 2, 3].map(() => call(TESTER, 'POST', '/matching.php', { channel_status: 'open' })),
      );
      for (const a of answers) expect(a.statusCode).toBe(200);
      // (The periodic sweep may run its own transaction meanwhile.)
      const pollTransactions = transaction.mock.calls.filter(([fn]) =>
        String(fn).includes('recordTesterPoll'),
      );
      expect(pollTransactions).toEqual([]);
    } finally {
      transaction.mockRestore();
    }
    const gaps = await s.db.query<{ seconds: number }>(
      `SELECT extract(epoch FROM ended_at - started_at)::float8 AS seconds FROM connection_gaps WHERE test_id = $1`,
      [testId],
    );
    // From when the first missed poll was due (25 − 5 s ago) until the poll.
    expect(gaps.rows).toHaveLength(1);
    expect(gaps.rows[0]!.seconds).toBeGreaterThan(19);
    expect(gaps.rows[0]!.seconds).toBeLessThan(25);
    expect((await markings(testId))[0]).toMatchObject({ excused: true, excuse_reason: 'connection_gap' });
    // The next poll on time finds no silence.
    await call(TESTER, 'POST', '/matching.php', { channel_status: 'open' });
    expect(
      (await s.db.query(`SELECT 1 FROM connection_gaps WHERE test_id = $1`, [testId])).rows,
    ).toHaveLength(1);
  });

  it('the feed: only the checker’s own examinees; a waiting request answers when a flag arrives', async () => {
    const testId = await sitting({ capture_interval: 5, capture_type: 1, is_capture_show: 1 });
    await match();
    const other = await loginAs(s.app, 'checker03');
    const theirs = envelope<LiveFeedResult>(
      await injectAs(s.app, other, { method: 'GET', url: '/api/v1/checker/live_feed.php' }),
    ).result;
    expect(theirs.panes.some((p) => p.test_id === testId)).toBe(false);
    for (const who of [TESTER, 'manager01', 'sysadmin01']) {
      const res = await call(who, 'GET', '/checker/live_feed.php');
      expect(res.statusCode, who).toBe(403);
    }
    expect((await call(CHECKER, 'GET', '/checker/live_feed.php?wait=99')).statusCode).toBe(400);

    const first = await feed();
    expect(first.panes.find((p) => p.test_id === testId)!.flags).toEqual([]);
    // The console waits with its current version: the new still answers it, then the still's flag answers the
    // next wait.
    const waiting = feed(`?version=${encodeURIComponent(first.version)}&wait=20`);
    const sent = envelope<CaptureResult>(await send(jpeg.noFace)).result;
    const stored = await waiting;
    expect(stored.version).not.toBe(first.version);
    const pane = stored.panes.find((p) => p.test_id === testId)!;
    expect(pane.latest_capture?.id).toBe(sent.capture_id);
    let latest = stored;
    while (!latest.panes.find((p) => p.test_id === testId)!.flags.length) {
      const again = await feed(`?version=${encodeURIComponent(latest.version)}&wait=20`);
      expect(again.version).not.toBe(latest.version);
      latest = again;
    }
    expect(latest.panes.find((p) => p.test_id === testId)!.flags.map((x) => x.flag)).toEqual(['no_face']);
  });

  it('retention deletes a sitting’s stills from object storage with its recordings', async () => {
    const testId = await sitting({ capture_interval: 5, capture_type: 0 });
    const r = envelope<CaptureResult>(await send(jpeg.face)).result;
    const row = (
      await s.db.query<{ bucket: string; object_key: string }>(
        `SELECT bucket, object_key FROM captures WHERE id = $1`,
        [r.capture_id],
      )
    ).rows[0]!;
    const { runRetention } = await import('../src/lib/retention-job');
    const deleted: string[] = [];
    await s.db.query(`UPDATE tests SET status = 7, stop_at = now() - interval '4000 days' WHERE id = $1`, [
      testId,
    ]);
    const report = await runRetention(s.db, new Date(), {
      deleteObject: async (ref) => {
        deleted.push(ref.key);
        await storage.deleteObject(ref);
      },
    });
    expect(report.deletedTestIds).toContain(testId);
    expect(deleted).toContain(row.object_key);
    expect(await storage.getObject({ bucket: row.bucket, key: row.object_key })).toBeNull();
  });
});
