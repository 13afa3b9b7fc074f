import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GetObjectCommand, S3Client, UploadPartCommand } from '@aws-sdk/client-s3';
import type {
  OnetimeUriResult,
  RecordingCredentials,
  RecordingEndResult,
  RecoveryResult,
} from '../../contract/recording';
import { createObjectStorage, type ObjectStorage } from '../src/lib/object-storage';
import { conversionSettings, RecordingConverter } from '../src/lib/recording/conversion';
import { claimConversion } from '../src/lib/recording/store';
import { FfmpegMissingError, remuxWithDuration } from '../src/lib/webm-duration';
import { build, envelope, injectAs, loginAs, type TestServer } from './helper';
import { browserS3Client } from './browser-s3';

const FFMPEG = '/usr/bin/ffmpeg';
const FFPROBE = '/usr/bin/ffprobe';
const HAS_FFMPEG = existsSync(FFMPEG) && existsSync(FFPROBE);
const MIB5 = 5 * 1024 * 1024;
/** Small parts keep the WebM test fast; the strict test puts the stand-in back to 5 MiB. */
const SMALL_PART = 4096;

// Read by the recording routes at registration: the answer's part_size may go this low (never below the store's).
process.env.RECORDING_PART_SIZE = String(SMALL_PART);

interface Server {
  s: TestServer;
  base: string;
  dataDir: string;
}

let srv: Server;
let tmp: string;
const ids: Record<string, number> = {};
const tokens: Record<string, string> = {};

async function startServer(): Promise<Server> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'recording-test-'));
  const s = await build({ dataDir });
  // The browser-side S3Client and the server's own client need real HTTP to reach the stand-in.
  await s.app.listen({ host: '127.0.0.1', port: 0 });
  const base = `http://127.0.0.1:${(s.app.server.address() as AddressInfo).port}`;
  s.app.config.publicOrigin = base;
  return { s, base, dataDir };
}

async function stopServer(x: Server): Promise<void> {
  await x.s.close();
  await rm(x.dataDir, { recursive: true, force: true });
}

async function token(loginId: string, x: Server = srv): Promise<string> {
  const k = `${x.base}|${loginId}`;
  tokens[k] ??= await loginAs(x.s.app, loginId);
  return tokens[k];
}

async function call(
  loginId: string,
  method: 'GET' | 'POST',
  url: string,
  payload?: unknown,
  x: Server = srv,
): Promise<LightMyRequestResponse> {
  return injectAs(x.s.app, await token(loginId, x), {
    method,
    url: `/api/v1${url}`,
    ...(payload === undefined ? {} : { payload: payload as object }),
  });
}

async function openTestId(loginId: string, x: Server = srv): Promise<number> {
  await token(loginId, x);
  const { rows } = await x.s.db.query<{ id: number }>(
    `SELECT t.id FROM tests t JOIN users u ON u.id = t.user_id WHERE u.login_id = $1 AND t.status < 7 ORDER BY t.id DESC LIMIT 1`,
    [loginId],
  );
  return rows[0]!.id;
}

/** Sets the start-up parameters of the tester's open sitting. */
async function setStartup(loginId: string, params: object, x: Server = srv): Promise<number> {
  const testId = await openTestId(loginId, x);
  await x.s.db.query(`UPDATE tests SET startup_parameters = $2 WHERE id = $1`, [
    testId,
    JSON.stringify(params),
  ]);
  return testId;
}

/** Recording on for the tester's open sitting (start-up parameter is_record = 1). */
function enableRecording(loginId: string, x: Server = srv): Promise<number> {
  return setStartup(loginId, { is_record: 1 }, x);
}

async function s3Config(body: object, x: Server = srv): Promise<void> {
  const res = await x.s.app.inject({ method: 'POST', url: '/__s3/config', payload: body });
  expect(res.statusCode).toBe(200);
}

async function startRecording(
  loginId: string,
  mime = 'video/webm;codecs=vp8',
  segment?: number,
  x: Server = srv,
) {
  const res = await call(
    loginId,
    'POST',
    '/tester/recording.php',
    { method: 'PUT', mime_type: mime, segment },
    x,
  );
  expect(res.statusCode, res.body).toBe(200);
  return envelope<RecordingCredentials>(res).result;
}

async function endRecording(
  loginId: string,
  recordId: number,
  parts?: { PartNumber: number; ETag: string }[],
) {
  return call(loginId, 'POST', '/tester/recording.php', { method: 'DELETE', record_id: recordId, parts });
}

async function uploadPart(c: RecordingCredentials, partNumber: number, body: Uint8Array) {
  const out = await browserS3Client(c).send(
    new UploadPartCommand({
      Bucket: c.bucket,
      Key: c.key,
      UploadId: c.uploadId,
      PartNumber: partNumber,
      Body: body,
    }),
  );
  return { PartNumber: partNumber, ETag: out.ETag ?? '' };
}

function chunks(data: Uint8Array, size: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < data.length; i += size) out.push(data.subarray(i, i + size));
  return out;
}

async function waitStatus(recordId: number, done: string[], x: Server = srv) {
  const until = Date.now() + 20_000;
  for (;;) {
    const { rows } = await x.s.db.query<{
      movie_status: string;
      detail: string;
      duration_ms: string | null;
      size_bytes: string;
    }>(`SELECT movie_status, detail, duration_ms, size_bytes FROM records WHERE id = $1`, [recordId]);
    const r = rows[0]!;
    if (done.includes(r.movie_status.trim()) || Date.now() > until)
      return { ...r, movie_status: r.movie_status.trim() };
    await new Promise((res) => setTimeout(res, 100));
  }
}

function run(bin: string, args: string[], input?: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      bin,
      args,
      { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) =>
        err ? reject(new Error(`${bin}: ${err.message} ${stderr.toString()}`)) : resolve(stdout),
    );
    if (input) child.stdin?.end(input);
  });
}

/** The duration the container header declares (read from a pipe, so ffprobe cannot scan to the end): seconds or NaN. */
async function headerDuration(data: Buffer): Promise<number> {
  const out = await run(
    FFPROBE,
    ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', '-i', 'pipe:0'],
    data,
  );
  return Number(out.toString().trim());
}

/** A 3 s VP8 WebM written like MediaRecorder writes it: live, to a pipe, so no Duration and no Cues. */
function recorderLikeWebm(): Promise<Buffer> {
  return run(FFMPEG, [
    '-hide_banner',
    '-loglevel',
    'error',
    '-f',
    'lavfi',
    '-i',
    'testsrc=size=160x120:rate=10',
    '-frames:v',
    '30',
    '-c:v',
    'libvpx',
    '-live',
    '1',
    '-f',
    'webm',
    'pipe:1',
  ]);
}

function randomBytes(size: number, seed: number): Uint8Array {
  const out = new Uint8Array(size);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < size; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

beforeAll(async () => {
  tmp = await mkdtemp(path.join(os.tmpdir(), 'recording-test-media-'));
  srv = await startServer();
  const { rows } = await srv.s.db.query<{ id: number; login_id: string }>(`SELECT id, login_id FROM users`);
  for (const r of rows) ids[r.login_id] = r.id;
  // A tester of another group, for the test manager's own-group rule.
  const g = await srv.s.db.query<{ id: number }>(
    `INSERT INTO exam_groups (code, name) VALUES ('OTHER', 'Other') RETURNING id`,
  );
  const u = await srv.s.db.query<{ id: number }>(
    `INSERT INTO users (login_id, password_hash, actor, name, group_id) SELECT 'other01', password_hash, 1, 'Other', $1
       FROM users WHERE login_id = 'tester01' RETURNING id`,
    [g.rows[0]!.id],
  );
  ids.other01 = u.rows[0]!.id;
});

afterAll(async () => {
  await stopServer(srv);
  await rm(tmp, { recursive: true, force: true });
});

describe('recording a real WebM (ffmpeg)', () => {
  it.skipIf(!HAS_FFMPEG)(
    'uploads in parts, completes from the server parts, fixes the duration and plays back with Range',
    async () => {
      await s3Config({ minPartSize: SMALL_PART });
      const testId = await enableRecording('tester01');
      const webm = await recorderLikeWebm();
      expect([...webm.subarray(0, 4)]).toEqual([0x1a, 0x45, 0xdf, 0xa3]);
      expect(Number.isNaN(await headerDuration(webm))).toBe(true); // as MediaRecorder leaves it

      const c = await startRecording('tester01');
      expect(c).toMatchObject({
        segment: 1,
        bucket: 'recordings',
        key: `recordings/${testId}/${c.record_id}-1.webm`,
        region: 'ap-northeast-1',
        endpoint: `${srv.base}/s3`,
        interval: 15,
        part_size: SMALL_PART,
      });
      expect(c.uploadId).toBeTruthy();
      expect(c.sessionToken).toBeTruthy();
      expect(Date.parse(c.expiration)).toBeGreaterThan(Date.now());

      const pieces = chunks(webm, SMALL_PART);
      expect(pieces.length).toBeGreaterThan(2);
      const parts = [];
      for (const [i, p] of pieces.entries()) parts.push(await uploadPart(c, i + 1, p));

      // Recovery after a reload: the server's view of the parts, and fresh credentials.
      const rec = await call('tester01', 'POST', '/recovery.php', { record_id: c.record_id });
      expect(rec.statusCode).toBe(200);
      const r = envelope<RecoveryResult>(rec).result;
      expect(r).toMatchObject({
        record_id: c.record_id,
        upload_id: c.uploadId,
        key: c.key,
        completed: false,
      });
      expect(r.parts.map((p) => [p.PartNumber, p.ETag, p.Size])).toEqual(
        parts.map((p, i) => [p.PartNumber, p.ETag, pieces[i]!.length]),
      );
      expect(r.next_part_number).toBe(pieces.length + 1);
      expect(r.credentials?.accessKeyId).toBeTruthy();
      expect(r.credentials?.accessKeyId).not.toBe(c.accessKeyId);

      const end = await endRecording('tester01', c.record_id, parts);
      expect(end.statusCode, end.body).toBe(200);
      const e = envelope<RecordingEndResult>(end).result;
      expect(e).toMatchObject({
        record_id: c.record_id,
        completed: true,
        size: webm.length,
        part_count: pieces.length,
      });
      expect(['01', '02']).toContain(e.movie_status);
      expect(e.stop_at).not.toBeNull();

      const done = await waitStatus(c.record_id, ['02', '08']);
      expect(done.movie_status, done.detail).toBe('02');
      expect(Number(done.duration_ms)).toBeGreaterThan(2700);
      expect(Number(done.duration_ms)).toBeLessThan(3300);

      // The object now declares its duration in the header (seekable in <video>).
      const server = new S3Client(srv.s.app.s3local!.clientConfig());
      const obj = await server.send(new GetObjectCommand({ Bucket: c.bucket, Key: c.key }));
      const fixed = Buffer.from(await obj.Body!.transformToByteArray());
      expect([...fixed.subarray(0, 4)]).toEqual([0x1a, 0x45, 0xdf, 0xa3]);
      expect(await headerDuration(fixed)).toBeCloseTo(3, 0);
      expect(Number(done.size_bytes)).toBe(fixed.length);

      const { rows: logs } = await srv.s.db.query<{ movie_status: string }>(
        `SELECT movie_status FROM record_status_logs WHERE record_id = $1 ORDER BY id`,
        [c.record_id],
      );
      expect(logs.map((l) => l.movie_status)).toEqual(['00', '01', '02']);
      const { rows: t } = await srv.s.db.query<{ record: boolean }>(
        `SELECT record FROM tests WHERE id = $1`,
        [testId],
      );
      expect(t[0]!.record).toBe(true);

      // Playback: a manager of the group gets a short-lived URL that serves Range requests.
      const uri = await call('manager01', 'GET', `/get_onetime_uri.php?record_id=${c.record_id}`);
      expect(uri.statusCode, uri.body).toBe(200);
      const u = envelope<OnetimeUriResult>(uri).result;
      expect(u.id).toBe(c.record_id);
      expect(u.duration_ms).toBe(Number(done.duration_ms));
      const ranged = await fetch(u.url, { headers: { Range: 'bytes=0-3' } });
      expect(ranged.status).toBe(206);
      expect(ranged.headers.get('content-range')).toBe(`bytes 0-3/${fixed.length}`);
      expect([...new Uint8Array(await ranged.arrayBuffer())]).toEqual([0x1a, 0x45, 0xdf, 0xa3]);
      const whole = await fetch(u.url);
      expect(whole.status).toBe(200);
      expect(Buffer.from(await whole.arrayBuffer()).equals(fixed)).toBe(true);

      // Idempotent end: a repeated DELETE answers the same recording.
      const again = await endRecording('tester01', c.record_id, parts);
      expect(again.statusCode).toBe(200);
      const a = envelope<RecordingEndResult>(again).result;
      expect(a).toMatchObject({
        record_id: c.record_id,
        completed: true,
        stop_at: e.stop_at,
        part_count: e.part_count,
        movie_status: '02',
      });

      // Once completed: recovery answers the parts it was built from, no credentials; no new credentials.
      const r2 = envelope<RecoveryResult>(
        await call('tester01', 'POST', '/recovery.php', { record_id: c.record_id }),
      ).result;
      expect(r2).toMatchObject({ completed: true, credentials: null, movie_status: '02' });
      expect(r2.parts).toHaveLength(pieces.length);
      expect(
        (await call('tester01', 'GET', `/tester/recording.php?record_id=${c.record_id}`)).statusCode,
      ).toBe(409);
    },
  );

  it.skipIf(!HAS_FFMPEG)('remuxWithDuration reports a missing ffmpeg as FfmpegMissingError', async () => {
    const input = path.join(tmp, 'in.webm');
    await writeFile(input, await recorderLikeWebm());
    await expect(
      remuxWithDuration(input, path.join(tmp, 'out.webm'), {
        ffmpegPath: '/nonexistent/ffmpeg',
        format: 'webm',
        timeoutMs: 10_000,
      }),
    ).rejects.toBeInstanceOf(FfmpegMissingError);
  });
});

describe('completion from the server parts', () => {
  it('needs 5 MiB parts on the strict store; completes without the browser list; non-WebM bytes end in 08', async () => {
    await s3Config({ minPartSize: MIB5 });
    await enableRecording('tester02');
    const c = await startRecording('tester02', 'video/webm');
    expect(c.part_size).toBe(MIB5);
    const small = await uploadPart(c, 1, randomBytes(1024 * 1024, 1));
    await uploadPart(c, 2, randomBytes(10, 2));

    const tooSmall = await endRecording('tester02', c.record_id);
    expect(tooSmall.statusCode).toBe(409);
    expect(envelope(tooSmall).message).toContain(`part 1 has 1048576 bytes`);
    expect(small.ETag).toBeTruthy();

    // The browser re-sends part 1 at full size; it ends without a part list: the server's ListParts decides.
    await uploadPart(c, 1, randomBytes(MIB5, 3));
    const end = await endRecording('tester02', c.record_id);
    expect(end.statusCode, end.body).toBe(200);
    expect(envelope<RecordingEndResult>(end).result).toMatchObject({
      completed: true,
      size: MIB5 + 10,
      part_count: 2,
    });
    const done = await waitStatus(c.record_id, ['02', '08']);
    expect(done.movie_status).toBe('08');
    expect(done.detail).toMatch(/not a WebM/);
  });

  it('refuses to complete when the browser list and the stored parts differ, or parts are missing', async () => {
    await s3Config({ minPartSize: SMALL_PART });
    await enableRecording('tester03');
    const c = await startRecording('tester03', 'video/webm');
    const p1 = await uploadPart(c, 1, randomBytes(SMALL_PART, 4));
    const p3 = await uploadPart(c, 3, randomBytes(100, 5));

    const gap = await endRecording('tester03', c.record_id);
    expect(gap.statusCode).toBe(409);
    expect(envelope(gap).message).toContain('part 2 is missing in storage');

    const p2 = await uploadPart(c, 2, randomBytes(SMALL_PART, 6));
    const wrongEtag = await endRecording('tester03', c.record_id, [p1, { PartNumber: 2, ETag: p1.ETag }, p3]);
    expect(wrongEtag.statusCode).toBe(409);
    expect(envelope(wrongEtag).message).toContain('part 2 differs');
    const missing = await endRecording('tester03', c.record_id, [
      p1,
      p2,
      p3,
      { PartNumber: 4, ETag: '"abc"' },
    ]);
    expect(envelope(missing).message).toContain('part 4 is not in storage');
    const unlisted = await endRecording('tester03', c.record_id, [p1, p2]);
    expect(envelope(unlisted).message).toContain("part 3 is in storage but not in the browser's list");

    const ok = await endRecording('tester03', c.record_id, [
      p1,
      { ...p2, ETag: p2.ETag.replace(/"/g, '') },
      p3,
    ]);
    expect(ok.statusCode, ok.body).toBe(200);
    expect(envelope<RecordingEndResult>(ok).result.size).toBe(SMALL_PART * 2 + 100);
  });

  it('MP4 needs no fix: 02 with the .mp4 key', async () => {
    await s3Config({ minPartSize: SMALL_PART });
    await enableRecording('tester04');
    const c = await startRecording('tester04', 'video/mp4;codecs=avc1');
    expect(c.key).toMatch(/\.mp4$/);
    await uploadPart(c, 1, randomBytes(500, 7));
    expect((await endRecording('tester04', c.record_id)).statusCode).toBe(200);
    expect((await waitStatus(c.record_id, ['02', '08'])).movie_status).toBe('02');
  });
});

describe('start, credentials and recovery', () => {
  it('answers 409 when recording is off for the sitting', async () => {
    for (const params of [{ is_record: 0 }, {}, { is_record: '0' }]) {
      await setStartup('tester05', params);
      const res = await call('tester05', 'POST', '/tester/recording.php', {
        method: 'PUT',
        mime_type: 'video/webm',
      });
      expect(res.statusCode).toBe(409);
      expect(envelope(res)).toMatchObject({ status: 409, result: null, code: 'conflict' });
      expect(envelope(res).message).toMatch(/Recording is off/);
    }
    await setStartup('tester05', { is_record: '1' });
    expect(
      (await call('tester05', 'POST', '/tester/recording.php', { method: 'PUT', mime_type: 'video/webm' }))
        .statusCode,
    ).toBe(200);
  });

  it('repeats a start of an open segment, numbers new segments, and renews expired credentials', async () => {
    await s3Config({ minPartSize: SMALL_PART });
    await enableRecording('tester06');
    const a = await startRecording('tester06', 'video/webm', 5);
    const b = await startRecording('tester06', 'video/webm', 5);
    expect(b.record_id).toBe(a.record_id);
    expect(b.uploadId).toBe(a.uploadId);
    const next = await startRecording('tester06', 'video/webm');
    expect(next.segment).toBe(6);
    expect(next.record_id).not.toBe(a.record_id);

    srv.s.app.localCredentials!.expire(a.accessKeyId);
    await expect(uploadPart(a, 1, randomBytes(10, 8))).rejects.toMatchObject({ name: 'ExpiredToken' });
    const fresh = envelope<RecordingCredentials>(
      await call('tester06', 'GET', `/tester/recording.php?record_id=${a.record_id}`),
    ).result;
    expect(fresh).toMatchObject({ record_id: a.record_id, uploadId: a.uploadId, key: a.key });
    expect(fresh.accessKeyId).not.toBe(a.accessKeyId);
    // Without record_id: the newest recording in progress.
    const newest = envelope<RecordingCredentials>(
      await call('tester06', 'GET', '/tester/recording.php'),
    ).result;
    expect(newest.record_id).toBe(next.record_id);
    await uploadPart(fresh, 1, randomBytes(10, 8));
    // Credentials are scoped to one key: not usable for another recording's object.
    await expect(
      uploadPart(
        {
          ...next,
          accessKeyId: fresh.accessKeyId,
          secretAccessKey: fresh.secretAccessKey,
          sessionToken: fresh.sessionToken,
        },
        1,
        randomBytes(10, 9),
      ),
    ).rejects.toMatchObject({ name: 'AccessDenied' });

    expect((await endRecording('tester06', a.record_id)).statusCode).toBe(200);
    const again = await call('tester06', 'POST', '/tester/recording.php', {
      method: 'PUT',
      mime_type: 'video/webm',
      segment: 5,
    });
    expect(again.statusCode).toBe(409);
  });

  it('refuses an empty recording end and reports an aborted upload', async () => {
    await enableRecording('tester07');
    const c = await startRecording('tester07', 'video/webm');
    const empty = await endRecording('tester07', c.record_id);
    expect(empty.statusCode).toBe(409);
    expect(envelope(empty).message).toMatch(/No part/);
    await srv.s.app.s3local!.abort(c.bucket, c.key, c.uploadId);
    const rec = await call('tester07', 'POST', '/recovery.php', { record_id: c.record_id });
    expect(rec.statusCode).toBe(409);
    expect(envelope(rec).message).toMatch(/start a new segment/);
    expect((await endRecording('tester07', c.record_id)).statusCode).toBe(409);
  });
});

describe('permissions', () => {
  let mine: RecordingCredentials;
  let other: RecordingCredentials;

  beforeAll(async () => {
    await s3Config({ minPartSize: SMALL_PART });
    await enableRecording('tester08');
    mine = await startRecording('tester08', 'video/mp4');
    await uploadPart(mine, 1, randomBytes(100, 10));
    expect((await endRecording('tester08', mine.record_id)).statusCode).toBe(200);
    await enableRecording('other01');
    other = await startRecording('other01', 'video/mp4');
    await uploadPart(other, 1, randomBytes(100, 11));
    expect((await endRecording('other01', other.record_id)).statusCode).toBe(200);
  });

  it("a tester cannot touch another tester's recording (403)", async () => {
    expect(
      (await call('tester09', 'GET', `/tester/recording.php?record_id=${mine.record_id}`)).statusCode,
    ).toBe(403);
    expect((await endRecording('tester09', mine.record_id)).statusCode).toBe(403);
    expect((await call('tester09', 'POST', '/recovery.php', { record_id: mine.record_id })).statusCode).toBe(
      403,
    );
    expect((await call('tester09', 'GET', '/tester/recording.php?record_id=99999999')).statusCode).toBe(404);
  });

  it('get_onetime_uri: managers of the group and admins; not the tester, not a checker, not another group', async () => {
    const q = (id: number) => `/get_onetime_uri.php?record_id=${id}`;
    expect((await call('tester08', 'GET', q(mine.record_id))).statusCode).toBe(403);
    expect((await call('checker01', 'GET', q(mine.record_id))).statusCode).toBe(403);
    expect((await call('manager01', 'GET', q(mine.record_id))).statusCode).toBe(200);
    expect((await call('manager01', 'GET', q(other.record_id))).statusCode).toBe(403);
    const admin = await call('sysadmin01', 'GET', q(other.record_id));
    expect(admin.statusCode).toBe(200);
    const url = envelope<OnetimeUriResult>(admin).result.url;
    expect((await fetch(url, { headers: { Range: 'bytes=0-9' } })).status).toBe(206);
    expect((await call('sysadmin01', 'GET', q(99999999))).statusCode).toBe(404);
    // Not finished yet: nothing to play.
    await enableRecording('tester10');
    const open = await startRecording('tester10', 'video/webm');
    expect((await call('sysadmin01', 'GET', q(open.record_id))).statusCode).toBe(409);
  });
});

describe('bad input is a 4xx envelope, never a 500', () => {
  const cases: [string, 'GET' | 'POST', string, unknown, number][] = [
    ['unknown method', 'POST', '/tester/recording.php', { method: 'POST' }, 400],
    ['PUT without mime_type', 'POST', '/tester/recording.php', { method: 'PUT' }, 400],
    [
      'PUT with a non-video type',
      'POST',
      '/tester/recording.php',
      { method: 'PUT', mime_type: 'text/plain' },
      400,
    ],
    [
      'PUT with a header-breaking type',
      'POST',
      '/tester/recording.php',
      { method: 'PUT', mime_type: 'video/webm\r\nx: y' },
      400,
    ],
    [
      'PUT with segment 0',
      'POST',
      '/tester/recording.php',
      { method: 'PUT', mime_type: 'video/webm', segment: 0 },
      400,
    ],
    ['DELETE without record_id', 'POST', '/tester/recording.php', { method: 'DELETE' }, 400],
    [
      'DELETE with a bad record_id',
      'POST',
      '/tester/recording.php',
      { method: 'DELETE', record_id: 'abc' },
      400,
    ],
    [
      'DELETE with bad parts',
      'POST',
      '/tester/recording.php',
      { method: 'DELETE', record_id: 1, parts: [{ PartNumber: 0, ETag: 'x' }] },
      400,
    ],
    [
      'DELETE of an unknown record',
      'POST',
      '/tester/recording.php',
      { method: 'DELETE', record_id: '99999999999999' },
      404,
    ],
    [
      'DELETE of a record id past the safe integers',
      'POST',
      '/tester/recording.php',
      { method: 'DELETE', record_id: '999999999999999999' },
      400,
    ],
    ['GET without record_id and no recording', 'GET', '/tester/recording.php', undefined, 404],
    ['GET with a bad record_id', 'GET', '/tester/recording.php?record_id=x', undefined, 400],
    ['recovery without record_id', 'POST', '/recovery.php', {}, 400],
    ['recovery with a negative id', 'POST', '/recovery.php', { record_id: -1 }, 400],
    ['onetime uri without record_id', 'GET', '/get_onetime_uri.php', undefined, 400],
  ];
  it.each(cases)('%s', async (_name, method, url, payload, status) => {
    const who = url.startsWith('/get_onetime') ? 'sysadmin01' : 'tester11';
    await openTestId('tester11');
    const res = await call(who, method, url, payload);
    expect(res.statusCode, res.body).toBe(status);
    expect(envelope(res)).toMatchObject({ status, result: null });
  });

  it('needs a login (401) and a tester (403) for the tester calls', async () => {
    const res = await srv.s.app.inject({
      method: 'POST',
      url: '/api/v1/tester/recording.php',
      payload: { method: 'PUT', mime_type: 'video/webm' },
    });
    expect(res.statusCode).toBe(401);
    const mgr = await call('manager01', 'POST', '/tester/recording.php', {
      method: 'PUT',
      mime_type: 'video/webm',
    });
    expect(mgr.statusCode).toBe(403);
  });
});

describe('conversion claimed through the database (several server instances)', () => {
  /** Records in '01' of tester11's sitting, as if uploads had just completed. */
  async function converting(n: number, mime = 'video/webm'): Promise<number[]> {
    const testId = await openTestId('tester11');
    const ids: number[] = [];
    for (let i = 0; i < n; i += 1) {
      const { rows } = await srv.s.db.query<{ id: string }>(
        `INSERT INTO records (test_id, tester_id, bucket, object_key, mime_type, segment, stop_at, movie_status)
         SELECT t.id, t.user_id, 'recordings', $4, $3, 100 + $2::int, now(), '01'
           FROM tests t WHERE t.id = $1 RETURNING id`,
        [testId, i, mime, `claim-test/${testId}-${i}.webm`],
      );
      ids.push(Number(rows[0]!.id));
    }
    return ids;
  }

  /** A store whose objects are not WebM (the job ends in '08'), slow enough that both workers get work. */
  function fakeStore(seen: Map<number, string[]>, owner: () => string, recordIds: number[]): ObjectStorage {
    return {
      localPath: () => undefined,
      async downloadToFile(ref: { key: string }, file: string) {
        const id = recordIds.find((r) => ref.key.endsWith(`-${recordIds.indexOf(r)}.webm`));
        if (id !== undefined) seen.set(id, [...(seen.get(id) ?? []), owner()]);
        await new Promise((r) => setTimeout(r, 150));
        await writeFile(file, 'not a webm');
      },
    } as unknown as ObjectStorage;
  }

  it('two converters on one database fix every record exactly once, each taking its own', async () => {
    const recordIds = await converting(6);
    const seen = new Map<number, string[]>();
    const make = () => {
      const c: RecordingConverter = new RecordingConverter({
        db: srv.s.db,
        storage: () => fakeStore(seen, () => c.owner, recordIds),
        log: srv.s.app.log,
        settings: { ...conversionSettings(), pollMs: 60_000 },
      });
      return c;
    };
    const a = make();
    const b = make();
    try {
      a.enqueue();
      b.enqueue();
      await Promise.all([a.idle(), b.idle()]);
      for (const id of recordIds) {
        expect(seen.get(id), `record ${id}`).toHaveLength(1);
        const r = await waitStatus(id, ['02', '08']);
        expect(r.movie_status).toBe('08');
      }
      const owners = new Set([...seen.values()].flat());
      expect(owners).toEqual(new Set([a.owner, b.owner]));
      // Claims are released when done.
      const { rows } = await srv.s.db.query<{ n: string }>(
        `SELECT count(*) AS n FROM records WHERE id = ANY($1::bigint[]) AND convert_owner IS NOT NULL`,
        [recordIds],
      );
      expect(Number(rows[0]!.n)).toBe(0);
    } finally {
      await a.close();
      await b.close();
    }
  });

  it('skips a record another instance holds (row lock or live lease) and takes it over once the lease ran out', async () => {
    const [id] = await converting(1);
    // Another instance is inside its claim transaction: SKIP LOCKED passes over the row (PostgreSQL only:
    // PGlite has one connection, so a second transaction waits instead of running alongside).
    if (srv.s.db.kind === 'postgres') {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => (locked = r));
      const other = srv.s.db.transaction(async (tx) => {
        await tx.query(`SELECT id FROM records WHERE id = $1 FOR UPDATE`, [id]);
        locked();
        await held;
      });
      await isLocked;
      expect(await claimConversion(srv.s.db, 'me', 60_000)).toBeNull();
      release();
      await other;
    }
    // A live lease of a dead instance keeps it…
    await srv.s.db.query(
      `UPDATE records SET convert_owner = 'dead', convert_lease_until = now() + interval '1 minute' WHERE id = $1`,
      [id],
    );
    expect(await claimConversion(srv.s.db, 'me', 60_000)).toBeNull();
    // …until the lease runs out.
    await srv.s.db.query(
      `UPDATE records SET convert_lease_until = now() - interval '1 second' WHERE id = $1`,
      [id],
    );
    expect(await claimConversion(srv.s.db, 'me', 60_000)).toBe(id);
    const { rows } = await srv.s.db.query<{ convert_owner: string }>(
      `SELECT convert_owner FROM records WHERE id = $1`,
      [id],
    );
    expect(rows[0]!.convert_owner).toBe('me');
    await srv.s.db.query(`UPDATE records SET movie_status = '08', convert_owner = NULL WHERE id = $1`, [id]);
  });
});

describe('without ffmpeg', () => {
  let x: Server;
  const saved = process.env.FFMPEG_PATH;

  beforeAll(async () => {
    process.env.FFMPEG_PATH = '/nonexistent/ffmpeg';
    x = await startServer();
  });

  afterAll(async () => {
    if (saved === undefined) delete process.env.FFMPEG_PATH;
    else process.env.FFMPEG_PATH = saved;
    await stopServer(x);
  });

  it("leaves the WebM as uploaded: 02 with 'duration not fixed: ffmpeg missing'", async () => {
    await s3Config({ minPartSize: SMALL_PART }, x);
    await enableRecording('tester12', x);
    const c = await startRecording('tester12', 'video/webm', undefined, x);
    const body = Uint8Array.of(0x1a, 0x45, 0xdf, 0xa3, 1, 2, 3, 4);
    await uploadPart(c, 1, body);
    const end = await call(
      'tester12',
      'POST',
      '/tester/recording.php',
      { method: 'DELETE', record_id: c.record_id },
      x,
    );
    expect(end.statusCode, end.body).toBe(200);
    const done = await waitStatus(c.record_id, ['02', '08'], x);
    expect(done).toMatchObject({
      movie_status: '02',
      detail: 'duration not fixed: ffmpeg missing',
      duration_ms: null,
    });
    expect(Number(done.size_bytes)).toBe(body.length);
  });
});

describe('object-storage', () => {
  /** The production configuration (default credential chain, custom endpoint) pointed at the stand-in. */
  async function remoteStorage(): Promise<{ storage: ObjectStorage; restore: () => void }> {
    const local = srv.s.app.s3local!;
    const saved = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };
    process.env.AWS_ACCESS_KEY_ID = local.serverCredentials.accessKeyId;
    process.env.AWS_SECRET_ACCESS_KEY = local.serverCredentials.secretAccessKey;
    const storage = createObjectStorage({
      bucket: 'recordings',
      local: () => null,
      remote: {
        region: 'ap-northeast-1',
        endpoint: `${srv.base}/s3`,
        forcePathStyle: true,
        publicEndpoint: undefined,
        minPartSize: 5 * 1024 * 1024,
      },
    });
    const restore = () => {
      for (const [k, v] of [
        ['AWS_ACCESS_KEY_ID', saved.id],
        ['AWS_SECRET_ACCESS_KEY', saved.secret],
      ] as const) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    };
    return { storage, restore };
  }

  it('pages ListParts, uploads big files in parts, downloads, reads ranges, presigns and deletes (remote config)', async () => {
    await s3Config({ minPartSize: 1 });
    const { storage, restore } = await remoteStorage();
    try {
      expect(storage.browserEndpoint()).toBeUndefined();
      expect(storage.localPath({ bucket: 'recordings', key: 'x' })).toBeUndefined();
      const ref = { bucket: 'recordings', key: 'storage-test/paged.bin' };
      const uploadId = await storage.createMultipartUpload(ref, 'application/octet-stream');
      const client = browserS3Client({
        region: 'ap-northeast-1',
        endpoint: `${srv.base}/s3`,
        accessKeyId: process.env.AWS_ACCESS_KEY_ID!,
        secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY!,
        sessionToken: '',
      } as RecordingCredentials);
      for (let n = 1; n <= 5; n++) {
        await client.send(
          new UploadPartCommand({
            ...{ Bucket: ref.bucket, Key: ref.key },
            UploadId: uploadId,
            PartNumber: n,
            Body: randomBytes(10 + n, n),
          }),
        );
      }
      const page = await storage.listPartsPage(ref, uploadId, 0, 2);
      expect(page.parts.map((p) => p.partNumber)).toEqual([1, 2]);
      expect(page.nextMarker).toBe(2);
      const all = await storage.listParts(ref, uploadId);
      expect(all.map((p) => [p.partNumber, p.size])).toEqual([1, 2, 3, 4, 5].map((n) => [n, 10 + n]));
      await storage.completeMultipartUpload(ref, uploadId, all);
      expect((await storage.headObject(ref))?.size).toBe(all.reduce((n, p) => n + p.size, 0));
      await storage.abortMultipartUpload(ref, uploadId); // already gone: not an error

      // A 17 MiB file goes up as a server-side multipart upload (parts of 16 MiB).
      const big = path.join(tmp, 'big.bin');
      const bigData = randomBytes(17 * 1024 * 1024, 42);
      await writeFile(big, bigData);
      const bigRef = { bucket: 'recordings', key: 'storage-test/big.bin' };
      expect(await storage.uploadFile(bigRef, big, 'video/webm')).toMatch(/-2"$/);
      const back = path.join(tmp, 'big-back.bin');
      await storage.downloadToFile(bigRef, back);
      expect(Buffer.from(await readFile(back)).equals(Buffer.from(bigData))).toBe(true);
      expect([...(await storage.getObjectRange(bigRef, 5, 8))]).toEqual([...bigData.subarray(5, 9)]);
      const url = await storage.presignGet(bigRef, 60);
      const res = await fetch(url, { headers: { Range: 'bytes=-4' } });
      expect(res.status).toBe(206);
      expect([...new Uint8Array(await res.arrayBuffer())]).toEqual([...bigData.subarray(bigData.length - 4)]);
      await storage.deleteObject(bigRef);
      expect(await storage.headObject(bigRef)).toBeNull();
      expect((await fetch(url)).status).toBe(404);
    } finally {
      restore();
    }
  });
});
