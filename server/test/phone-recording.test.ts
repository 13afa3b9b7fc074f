import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UploadPartCommand } from '@aws-sdk/client-s3';
import type { OnetimeUriResult, RecordingCredentials, RecordingEndResult } from '../../contract/recording';
import type { TesterDetail } from '../../contract/tester';
import { build, envelope, injectAs, loginAs, loginAsActor, pairPhone, type TestServer } from './helper';
import { browserS3Client } from './browser-s3';

/**
 * The phone's recording (README "Phone as a second camera"): the paired phone records its own camera as the
 * sitting's `phone` stream with its own session, and nothing else; the examinee records every other stream and
 * never the phone's; the phone records only when the sitting records (is_record) and has the phone camera.
 */
const PART = 64 * 1024;

process.env.RECORDING_PART_SIZE = String(PART);
process.env.RECORDING_FINALIZE_TICK_MS = '50';

let s: TestServer;
let dataDir: string;
let base: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'phone-recording-'));
  s = await build({ dataDir });
  await s.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(s.app.server.address() as AddressInfo).port}`;
  s.app.config.publicOrigin = base;
  const res = await s.app.inject({ method: 'POST', url: '/__s3/config', payload: { minPartSize: 4096 } });
  expect(res.statusCode).toBe(200);
});

afterAll(async () => {
  await s.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** The examinee's session, its open sitting with `startup`, and a phone paired with it. */
async function examineeWithPhone(loginId: string, startup: object) {
  const tester = await loginAs(s.app, loginId);
  const { rows } = await s.db.query<{ id: number }>(
    `UPDATE tests SET startup_parameters = startup_parameters || $2::jsonb
      WHERE id = (SELECT t.id FROM tests t JOIN users u ON u.id = t.user_id
                   WHERE u.login_id = $1 AND t.status < 7 ORDER BY t.id DESC LIMIT 1)
      RETURNING id`,
    [loginId, JSON.stringify(startup)],
  );
  const phone = await pairPhone(s.app, tester);
  return { tester, phone, testId: Number(rows[0]!.id) };
}

const call = (token: string, method: 'GET' | 'POST', url: string, payload?: object) =>
  injectAs(s.app, token, { method, url: `/api/v1${url}`, payload });

const start = (token: string, stream?: string) =>
  call(token, 'POST', '/tester/recording.php', {
    method: 'PUT',
    mime_type: 'video/webm;codecs=vp8',
    ...(stream ? { stream } : {}),
  });

async function started(token: string, stream?: string): Promise<RecordingCredentials> {
  const res = await start(token, stream);
  expect(res.statusCode, res.body).toBe(200);
  return envelope<RecordingCredentials>(res).result;
}

async function uploadPart(c: RecordingCredentials, n: number, body: Uint8Array) {
  const r = await browserS3Client(c).send(
    new UploadPartCommand({ Bucket: c.bucket, Key: c.key, UploadId: c.uploadId, PartNumber: n, Body: body }),
  );
  return { PartNumber: n, ETag: r.ETag! };
}

const end = (token: string, recordId: number, parts?: object[]) =>
  call(token, 'POST', '/tester/recording.php', {
    method: 'DELETE',
    record_id: recordId,
    ...(parts ? { parts } : {}),
  });

const refresh = (token: string, recordId: number) =>
  call(token, 'GET', `/tester/recording.php?record_id=${recordId}`);

async function waitStopped(recordId: number): Promise<{ part_count: number; finalize_reason: string }> {
  const until = Date.now() + 15_000;
  for (;;) {
    const { rows } = await s.db.query<{ stop_at: Date | null; part_count: number; finalize_reason: string }>(
      `SELECT stop_at, part_count, finalize_reason FROM records WHERE id = $1`,
      [recordId],
    );
    if (rows[0]!.stop_at !== null || Date.now() > until) return rows[0]!;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('the phone’s recording', () => {
  it('records the phone’s camera as the sitting’s phone stream, which a manager plays beside the camera', async () => {
    const { tester, phone, testId } = await examineeWithPhone('tester01', {
      is_record: 1,
      is_phone_camera: 1,
    });
    const rec = await started(phone, 'phone');
    expect(rec).toMatchObject({ stream: 'phone', segment: 1 });
    expect(rec.key).toBe(`recordings/${testId}/phone/${rec.record_id}-1.webm`);
    // The examinee's camera is its own recording, started with the examinee's session.
    const camera = await started(tester);
    expect(camera.stream).toBe('camera');

    const bytes = randomBytes(6000);
    const part = await uploadPart(rec, 1, bytes);
    // Fresh upload credentials for the phone's own recording (S3 said ExpiredToken).
    const fresh = await refresh(phone, rec.record_id);
    expect(fresh.statusCode, fresh.body).toBe(200);
    expect(envelope<RecordingCredentials>(fresh).result).toMatchObject({
      record_id: rec.record_id,
      key: rec.key,
    });
    const done = await end(phone, rec.record_id, [part]);
    expect(done.statusCode, done.body).toBe(200);
    expect(envelope<RecordingEndResult>(done).result).toMatchObject({ stream: 'phone', completed: true });

    const manager = await loginAsActor(s.app, 3);
    const detail = envelope<TesterDetail>(
      await injectAs(s.app, manager, { method: 'GET', url: `/api/v1/tester/detail.php?test_id=${testId}` }),
    ).result;
    expect(detail.records.map((r) => r.stream).sort()).toEqual(['camera', 'phone']);
    const play = await injectAs(s.app, manager, {
      method: 'GET',
      url: `/api/v1/get_onetime_uri.php?record_id=${rec.record_id}`,
    });
    expect(play.statusCode, play.body).toBe(200);
    const uri = envelope<OnetimeUriResult>(play).result;
    expect(uri.stream).toBe('phone');
    const played = await (await fetch(uri.url.startsWith('http') ? uri.url : base + uri.url)).arrayBuffer();
    expect(Buffer.from(played).equals(bytes)).toBe(true);
  });

  it('lets the phone touch nothing but its own sitting’s phone recordings', async () => {
    const { tester, phone } = await examineeWithPhone('tester02', {
      is_record: 1,
      is_phone_camera: 1,
      is_screen_record: 1,
    });
    // Any other stream, named or by default (the camera), is refused.
    for (const stream of [undefined, 'camera', 'screen', 'room_scan']) {
      const res = await start(phone, stream);
      expect(res.statusCode, `${stream}: ${res.body}`).toBe(403);
    }
    expect((await call(phone, 'GET', '/tester/recording.php')).statusCode).toBe(403);
    // The examinee's camera recording: no credentials, no completion, no recovery for the phone.
    const camera = await started(tester);
    expect((await refresh(phone, camera.record_id)).statusCode).toBe(403);
    expect((await end(phone, camera.record_id)).statusCode).toBe(403);
    expect((await call(phone, 'POST', '/recovery.php', { record_id: camera.record_id })).statusCode).toBe(
      403,
    );

    // Another examinee's phone recording is not this phone's either.
    const other = await examineeWithPhone('tester03', { is_record: 1, is_phone_camera: 1 });
    const theirs = await started(other.phone, 'phone');
    expect((await refresh(phone, theirs.record_id)).statusCode).toBe(403);
    expect((await end(phone, theirs.record_id)).statusCode).toBe(403);
  });

  it('refuses the phone’s stream to the examinee’s own session', async () => {
    const { tester, phone } = await examineeWithPhone('tester04', { is_record: 1, is_phone_camera: 1 });
    const res = await start(tester, 'phone');
    expect(res.statusCode).toBe(403);
    expect(envelope(res).message).toMatch(/paired phone/);
    expect((await call(tester, 'GET', '/tester/recording.php?stream=phone')).statusCode).toBe(403);
    const rec = await started(phone, 'phone');
    expect((await refresh(tester, rec.record_id)).statusCode).toBe(403);
    expect((await end(tester, rec.record_id)).statusCode).toBe(403);
    expect((await call(tester, 'POST', '/recovery.php', { record_id: rec.record_id })).statusCode).toBe(403);
    // Still open: the phone completes it.
    const part = await uploadPart(rec, 1, randomBytes(5000));
    expect((await end(phone, rec.record_id, [part])).statusCode).toBe(200);
  });

  it('records the phone only when the sitting records and has the phone camera', async () => {
    const { phone, testId } = await examineeWithPhone('tester05', { is_record: 0, is_phone_camera: 1 });
    const off = await start(phone, 'phone');
    expect(off.statusCode).toBe(409);
    expect(envelope(off).message).toContain('is_record');
    // phone/poll.php tells the phone so: it does not try.
    const poll = await call(phone, 'POST', '/phone/poll.php', {});
    expect(envelope<{ recording: unknown }>(poll).result.recording).toBeNull();

    await s.db.query(
      `UPDATE tests SET startup_parameters = startup_parameters || '{"is_record": 1, "is_phone_camera": 0}'::jsonb
        WHERE id = $1`,
      [testId],
    );
    const noPhone = await start(phone, 'phone');
    expect(noPhone.statusCode).toBe(409);
    expect(envelope(noPhone).message).toContain('is_phone_camera');
  });

  it('after the sitting ended: no new phone recording, but the open one is still sent and completed', async () => {
    const { tester, phone } = await examineeWithPhone('tester06', { is_record: 1, is_phone_camera: 1 });
    const rec = await started(phone, 'phone');
    const first = await uploadPart(rec, 1, randomBytes(5000));
    const logout = await call(tester, 'POST', '/logout.php?p=self');
    expect(logout.statusCode, logout.body).toBe(200);
    // The examinee logged out (its sitting's row may still be open): the phone starts nothing new.
    const again = await start(phone, 'phone');
    expect(again.statusCode).toBe(409);
    expect(envelope(again).code).toBe('no_open_sitting');
    // What the phone still holds goes up and is completed with the phone's session.
    expect((await refresh(phone, rec.record_id)).statusCode).toBe(200);
    const done = await end(phone, rec.record_id, [first]);
    expect(done.statusCode, done.body).toBe(200);
    expect(envelope<RecordingEndResult>(done).result.completed).toBe(true);
  });

  it('a replaced phone’s unfinished recording is completed by the server from the parts it holds', async () => {
    const { tester, phone } = await examineeWithPhone('tester07', { is_record: 1, is_phone_camera: 1 });
    const rec = await started(phone, 'phone');
    await uploadPart(rec, 1, randomBytes(5000));
    await uploadPart(rec, 2, randomBytes(3000));
    // The examinee scans a new code with another phone: the first one can no longer call.
    const second = await pairPhone(s.app, tester);
    expect((await end(phone, rec.record_id)).statusCode).toBe(401);
    const scheduled = await s.db.query<{ finalize_reason: string }>(
      `SELECT finalize_reason FROM records WHERE id = $1`,
      [rec.record_id],
    );
    expect(scheduled.rows[0]!.finalize_reason).toBe('phone_replaced');
    // The grace is over at once here.
    await s.db.query(`UPDATE records SET finalize_at = now() - interval '1 second' WHERE id = $1`, [
      rec.record_id,
    ]);
    expect(await waitStopped(rec.record_id)).toMatchObject({ part_count: 2 });
    // The new phone records its own recording, the stream's next segment.
    expect(await started(second, 'phone')).toMatchObject({ stream: 'phone', segment: 2 });
  });
});
