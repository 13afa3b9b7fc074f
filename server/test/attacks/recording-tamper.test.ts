import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PutObjectCommand, S3Client, UploadPartCommand } from '@aws-sdk/client-s3';
import type { OnetimeUriResult, RecordingCredentials } from '../../../contract/recording';
import { build, envelope, injectAs, loginAs, type TestServer } from '../helper';
import { browserS3Client } from '../browser-s3';

/**
 * An examinee holding its recording's upload credentials tries to replace the finished recording, to make
 * the app's origin serve a page, and to fill the disk. The recording is write-once, served as the recorded
 * media type, and each sitting has a byte quota.
 */
const PART = 64 * 1024;

// Read by the recording routes at registration: small parts, and a quota of one second of recording at
// 1 Mbit/s (× 1.25 = 156,250 bytes) for a sitting whose max_rectime is 1.
process.env.RECORDING_PART_SIZE = String(PART);
process.env.RECORDING_QUOTA_EXTRA_SECONDS = '0';
process.env.RECORDING_QUOTA_BITS_PER_SECOND = '1000000';

let s: TestServer;
let dataDir: string;
let base: string;
const tokens = new Map<string, string>();

async function token(loginId: string): Promise<string> {
  let t = tokens.get(loginId);
  if (!t) tokens.set(loginId, (t = await loginAs(s.app, loginId)));
  return t;
}

async function api(loginId: string, method: 'GET' | 'POST', url: string, payload?: object) {
  return injectAs(s.app, await token(loginId), { method, url: `/api/v1${url}`, payload });
}

async function startRecording(loginId: string, startup: object): Promise<RecordingCredentials> {
  await token(loginId);
  await s.db.query(
    `UPDATE tests SET startup_parameters = $2
      WHERE id = (SELECT t.id FROM tests t JOIN users u ON u.id = t.user_id
                   WHERE u.login_id = $1 AND t.status < 7 ORDER BY t.id DESC LIMIT 1)`,
    [loginId, JSON.stringify({ is_record: 1, ...startup })],
  );
  const res = await api(loginId, 'POST', '/tester/recording.php', {
    method: 'PUT',
    mime_type: 'video/webm;codecs=vp8',
  });
  expect(res.statusCode, res.body).toBe(200);
  return envelope<RecordingCredentials>(res).result;
}

/** The server's own client (no quota): what a browser could do on AWS, where no condition limits sizes. */
function serverClient(): S3Client {
  return new S3Client(s.app.s3local!.clientConfig());
}

async function sdkError(p: Promise<unknown>): Promise<string | null> {
  return p.then(
    () => null,
    (e: unknown) => (e as { name: string }).name,
  );
}

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'recording-tamper-'));
  s = await build({ dataDir });
  await s.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(s.app.server.address() as AddressInfo).port}`;
  s.app.config.publicOrigin = base;
  const res = await s.app.inject({ method: 'POST', url: '/__s3/config', payload: { minPartSize: PART } });
  expect(res.statusCode).toBe(200);
});

afterAll(async () => {
  await s.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('an examinee attacks its own recording with its upload credentials', () => {
  it('cannot overwrite the completed recording, and playback is served as the recorded media, not a page', async () => {
    const c = await startRecording('tester01', {});
    const bytes = randomBytes(PART);
    const part = await browserS3Client(c).send(
      new UploadPartCommand({
        Bucket: c.bucket,
        Key: c.key,
        UploadId: c.uploadId,
        PartNumber: 1,
        Body: bytes,
      }),
    );
    const end = await api('tester01', 'POST', '/tester/recording.php', {
      method: 'DELETE',
      record_id: c.record_id,
      parts: [{ PartNumber: 1, ETag: part.ETag }],
    });
    expect(end.statusCode, end.body).toBe(200);

    // The same, still unexpired credentials try to replace the object with a page.
    const overwrite = browserS3Client(c).send(
      new PutObjectCommand({
        Bucket: c.bucket,
        Key: c.key,
        Body: '<html><meta http-equiv="refresh" content="0;url=https://evil.example/"></html>',
        ContentType: 'text/html',
      }),
    );
    expect(await sdkError(overwrite)).toBe('AccessDenied');

    const uri = await api('manager01', 'GET', `/get_onetime_uri.php?record_id=${c.record_id}`);
    expect(uri.statusCode, uri.body).toBe(200);
    const got = await fetch(envelope<OnetimeUriResult>(uri).result.url);
    expect(got.status).toBe(200);
    expect(Buffer.from(await got.arrayBuffer()).equals(bytes)).toBe(true);
    expect(got.headers.get('content-type')).toBe('video/webm;codecs=vp8');
    expect(got.headers.get('content-disposition')).toMatch(/^attachment; filename="recording-\d+\.webm"$/);
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(got.headers.get('content-security-policy')).toContain('sandbox');
  });

  it('gets no playback of a recording whose stored object was replaced behind the server’s back', async () => {
    const c = await startRecording('tester02', {});
    const part = await browserS3Client(c).send(
      new UploadPartCommand({
        Bucket: c.bucket,
        Key: c.key,
        UploadId: c.uploadId,
        PartNumber: 1,
        Body: randomBytes(PART),
      }),
    );
    const end = await api('tester02', 'POST', '/tester/recording.php', {
      method: 'DELETE',
      record_id: c.record_id,
      parts: [{ PartNumber: 1, ETag: part.ETag }],
    });
    expect(end.statusCode, end.body).toBe(200);
    // What STS credentials (which cannot be revoked) could still do on AWS: simulated with the server key.
    await serverClient().send(
      new PutObjectCommand({ Bucket: c.bucket, Key: c.key, Body: 'tampered', ContentType: 'text/html' }),
    );
    const uri = await api('manager01', 'GET', `/get_onetime_uri.php?record_id=${c.record_id}`);
    expect(uri.statusCode).toBe(409);
    const { rows } = await s.db.query<{ type: string }>(
      `SELECT type FROM logs WHERE type = 'recording.modified' AND location = $1`,
      [`record:${c.record_id}`],
    );
    expect(rows).toHaveLength(1);
  });

  it('cannot fill the disk: parts past the sitting’s quota are refused, and so is completing over it', async () => {
    // max_rectime 1 s at 1 Mbit/s × 1.25: a quota of 156,250 bytes, i.e. two 64 KiB parts and change.
    const c = await startRecording('tester03', { max_rectime: 1 });
    const up = (n: number) =>
      browserS3Client(c).send(
        new UploadPartCommand({
          Bucket: c.bucket,
          Key: c.key,
          UploadId: c.uploadId,
          PartNumber: n,
          Body: randomBytes(PART),
        }),
      );
    await up(1);
    await up(2);
    expect(await sdkError(up(3))).toBe('EntityTooLarge');
    // Replacing a part already counted is not more bytes.
    await up(2);
    // A whole object of 300 KB in one request is refused too.
    const big = browserS3Client(c).send(
      new PutObjectCommand({ Bucket: c.bucket, Key: c.key, Body: randomBytes(300_000) }),
    );
    expect(await sdkError(big)).toBe('EntityTooLarge');
  });

  it('cannot complete a recording past the quota even where storage does not limit the parts (AWS)', async () => {
    const c = await startRecording('tester04', { max_rectime: 1 });
    const parts = [];
    for (const n of [1, 2, 3]) {
      const out = await serverClient().send(
        new UploadPartCommand({
          Bucket: c.bucket,
          Key: c.key,
          UploadId: c.uploadId,
          PartNumber: n,
          Body: randomBytes(PART),
        }),
      );
      parts.push({ PartNumber: n, ETag: out.ETag });
    }
    const end = await api('tester04', 'POST', '/tester/recording.php', {
      method: 'DELETE',
      record_id: c.record_id,
      parts,
    });
    expect(end.statusCode).toBe(413);
    expect(envelope(end).code).toBe('payload_too_large');
    // The parts were discarded with the upload.
    const list = await api('tester04', 'POST', '/recovery.php', { record_id: c.record_id });
    expect(list.statusCode).toBe(409);
  });
});
