import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UploadPartCommand } from '@aws-sdk/client-s3';
import type {
  OnetimeUriResult,
  RecordingCredentials,
  RecordingEndResult,
  RecoveryResult,
} from '../../contract/recording';
import type { TesterDetail } from '../../contract/tester';
import { build, envelope, injectAs, loginAs, loginAsActor, type TestServer } from './helper';
import { browserS3Client } from './browser-s3';

/**
 * A sitting records several streams (README "The wider view"): the camera, the screen, room scans and the phone
 * are each their own recordings with their own segments, keys, quota and playback; only the camera counts for
 * the recording-time limit, the markings' position and the AI analyses.
 */
const PART = 64 * 1024;

// Read by the recording routes at registration: small parts, and quotas of one second at 1 Mbit/s × 1.25 =
// 156,250 bytes per stream (max_rectime 1 s, no extra seconds; room scans 1 s together).
process.env.RECORDING_PART_SIZE = String(PART);
process.env.RECORDING_QUOTA_EXTRA_SECONDS = '0';
process.env.RECORDING_QUOTA_BITS_PER_SECOND = '1000000';
process.env.RECORDING_ROOM_SCAN_QUOTA_SECONDS = '1';

let s: TestServer;
let dataDir: string;
const tokens = new Map<string, string>();

async function token(loginId: string): Promise<string> {
  let t = tokens.get(loginId);
  if (!t) tokens.set(loginId, (t = await loginAs(s.app, loginId)));
  return t;
}

async function api(loginId: string, method: 'GET' | 'POST', url: string, payload?: object) {
  return injectAs(s.app, await token(loginId), { method, url: `/api/v1${url}`, payload });
}

/** Sets the start-up parameters of the tester's open sitting; returns its test id. */
async function sitting(loginId: string, startup: object): Promise<number> {
  await token(loginId);
  const { rows } = await s.db.query<{ id: number }>(
    `UPDATE tests SET startup_parameters = $2
      WHERE id = (SELECT t.id FROM tests t JOIN users u ON u.id = t.user_id
                   WHERE u.login_id = $1 AND t.status < 7 ORDER BY t.id DESC LIMIT 1)
      RETURNING id`,
    [loginId, JSON.stringify(startup)],
  );
  return Number(rows[0]!.id);
}

async function start(loginId: string, stream?: string, segment?: number) {
  return api(loginId, 'POST', '/tester/recording.php', {
    method: 'PUT',
    mime_type: 'video/webm;codecs=vp8',
    ...(stream ? { stream } : {}),
    ...(segment ? { segment } : {}),
  });
}

async function started(loginId: string, stream?: string, segment?: number): Promise<RecordingCredentials> {
  const res = await start(loginId, stream, segment);
  expect(res.statusCode, res.body).toBe(200);
  return envelope<RecordingCredentials>(res).result;
}

const upload = (c: RecordingCredentials, n: number, size = PART) =>
  browserS3Client(c).send(
    new UploadPartCommand({
      Bucket: c.bucket,
      Key: c.key,
      UploadId: c.uploadId,
      PartNumber: n,
      Body: randomBytes(size),
    }),
  );

async function sdkError(p: Promise<unknown>): Promise<string | null> {
  return p.then(
    () => null,
    (e: unknown) => (e as { name: string }).name,
  );
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'recording-streams-'));
  s = await build({ dataDir });
  await s.app.listen({ host: '127.0.0.1', port: 0 });
  s.app.config.publicOrigin = `http://127.0.0.1:${(s.app.server.address() as AddressInfo).port}`;
  const res = await s.app.inject({ method: 'POST', url: '/__s3/config', payload: { minPartSize: PART } });
  expect(res.statusCode).toBe(200);
});

afterAll(async () => {
  await s.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('one sitting, several recorded streams', () => {
  it('records the camera and the screen side by side, each with its own segments, key and upload', async () => {
    const testId = await sitting('tester01', { is_record: 1, is_screen_record: 1, max_rectime: 60 });
    const camera = await started('tester01');
    const screen = await started('tester01', 'screen');
    expect(camera).toMatchObject({ stream: 'camera', segment: 1 });
    expect(screen).toMatchObject({ stream: 'screen', segment: 1 });
    expect(camera.key).toBe(`recordings/${testId}/${camera.record_id}-1.webm`);
    expect(screen.key).toBe(`recordings/${testId}/screen/${screen.record_id}-1.webm`);
    expect(screen.uploadId).not.toBe(camera.uploadId);

    // A repeated start of the screen's segment 1 is the same record, not the camera's.
    expect((await started('tester01', 'screen', 1)).record_id).toBe(screen.record_id);
    // Fresh credentials without a record id: the newest open recording of the stream asked for.
    const fresh = await api('tester01', 'GET', '/tester/recording.php?stream=screen');
    expect(envelope<RecordingCredentials>(fresh).result.record_id).toBe(screen.record_id);
    const cam = await api('tester01', 'GET', '/tester/recording.php');
    expect(envelope<RecordingCredentials>(cam).result.record_id).toBe(camera.record_id);

    // The screen's credentials write only the screen's key.
    expect(
      await sdkError(
        browserS3Client(screen).send(
          new UploadPartCommand({
            Bucket: camera.bucket,
            Key: camera.key,
            UploadId: camera.uploadId,
            PartNumber: 1,
            Body: randomBytes(PART),
          }),
        ),
      ),
    ).toBe('AccessDenied');

    const parts = {
      camera: [{ PartNumber: 1, ETag: (await upload(camera, 1, 1000)).ETag! }],
      screen: [{ PartNumber: 1, ETag: (await upload(screen, 1, 2000)).ETag! }],
    };
    const recovery = await api('tester01', 'POST', '/recovery.php', { record_id: screen.record_id });
    expect(envelope<RecoveryResult>(recovery).result).toMatchObject({
      stream: 'screen',
      next_part_number: 2,
    });

    for (const [c, p, size] of [
      [camera, parts.camera, 1000],
      [screen, parts.screen, 2000],
    ] as const) {
      const end = await api('tester01', 'POST', '/tester/recording.php', {
        method: 'DELETE',
        record_id: c.record_id,
        parts: p,
      });
      expect(end.statusCode, end.body).toBe(200);
      expect(envelope<RecordingEndResult>(end).result).toMatchObject({
        stream: c.stream,
        completed: true,
        size,
      });
    }

    // The next screen recording is the screen's segment 2, whatever the camera does.
    expect(await started('tester01', 'screen')).toMatchObject({ stream: 'screen', segment: 2 });

    // Managers see every recording with its stream and play each one.
    const manager = await loginAsActor(s.app, 3);
    const detail = envelope<TesterDetail>(
      await injectAs(s.app, manager, { method: 'GET', url: `/api/v1/tester/detail.php?test_id=${testId}` }),
    ).result;
    expect(detail.records.map((r) => [r.id, r.stream])).toEqual([
      [camera.record_id, 'camera'],
      [screen.record_id, 'screen'],
      [expect.any(Number), 'screen'],
    ]);
    const play = await injectAs(s.app, manager, {
      method: 'GET',
      url: `/api/v1/get_onetime_uri.php?record_id=${screen.record_id}`,
    });
    expect(play.statusCode, play.body).toBe(200);
    expect(envelope<OnetimeUriResult>(play).result).toMatchObject({ id: screen.record_id, stream: 'screen' });
  });

  // The phone's stream is recorded by the paired phone's own session (phone-recording.test.ts).
  it('records a stream only when its start-up flag is on', async () => {
    await sitting('tester02', { is_record: 1 });
    for (const [stream, flag] of [
      ['screen', 'is_screen_record'],
      ['room_scan', 'is_room_scan'],
    ]) {
      const res = await start('tester02', stream);
      expect(res.statusCode).toBe(409);
      expect(envelope(res).message).toContain(flag);
    }
    await sitting('tester02', { is_record: 0, is_room_scan: 1 });
    expect((await start('tester02')).statusCode).toBe(409);
    expect(await started('tester02', 'room_scan')).toMatchObject({ stream: 'room_scan', segment: 1 });
    const bad = await start('tester02', 'microphone');
    expect(bad.statusCode).toBe(400);
  });

  it('gives every stream its own quota: a full camera does not stop the screen, and the screen stops at its own', async () => {
    await sitting('tester03', { is_record: 1, is_screen_record: 1, is_room_scan: 1, max_rectime: 1 });
    const camera = await started('tester03');
    const screen = await started('tester03', 'screen');
    const scan = await started('tester03', 'room_scan');
    // 156,250 bytes each: two 64 KiB parts fit, a third does not.
    await upload(camera, 1);
    await upload(camera, 2);
    expect(await sdkError(upload(camera, 3))).toBe('EntityTooLarge');
    await upload(screen, 1);
    await upload(screen, 2);
    expect(await sdkError(upload(screen, 3))).toBe('EntityTooLarge');
    await upload(scan, 1);
    await upload(scan, 2);
    expect(await sdkError(upload(scan, 3))).toBe('EntityTooLarge');
  });

  it('keeps the recording-time limit and the AI analyses on the camera', async () => {
    const testId = await sitting('tester04', { is_record: 1, is_screen_record: 1, max_rectime: 60 });
    const screen = await started('tester04', 'screen');
    // Only a screen recording so far: the recording-time limit has not started.
    let detail = envelope<TesterDetail>(await api('tester04', 'GET', '/tester/detail.php')).result;
    expect(detail.recording_started_at).toBeNull();
    const camera = await started('tester04');
    detail = envelope<TesterDetail>(await api('tester04', 'GET', '/tester/detail.php')).result;
    expect(detail.recording_started_at).toBe(detail.records.find((r) => r.id === camera.record_id)!.start_at);

    // A manual analysis request queues the camera's recordings only.
    await s.db.query(`UPDATE records SET stop_at = now(), movie_status = '02' WHERE test_id = $1`, [testId]);
    const { createAnalysisRequest } = await import('../src/lib/ai/analysis-queue');
    const r = await createAnalysisRequest(s.db, {
      inseq: 'streams',
      method: 1,
      testIds: [testId],
      userId: 1,
      env: 'demo',
    });
    expect(r.queued).toBe(1);
    const jobs = await s.db.query<{ record_id: string }>(
      `SELECT record_id FROM analysis_jobs WHERE test_id = $1`,
      [testId],
    );
    expect(jobs.rows.map((j) => Number(j.record_id))).toEqual([camera.record_id]);
    expect(screen.record_id).not.toBe(camera.record_id);
  });
});
