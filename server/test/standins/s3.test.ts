import { createHash, createHmac } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  PutObjectTaggingCommand,
  UploadPartCommand,
  UploadPartCopyCommand,
  type S3Client,
} from '@aws-sdk/client-s3';
import { SignatureV4 } from '@smithy/signature-v4';
import { S3_BROWSER_ACTIONS } from '../../src/lib/aws/session-policy';
import type { TemporaryCredentials } from '../../src/lib/credentials';
import { OPERATION_ACTIONS, type S3Operation } from '../../src/standins/s3/operations';
import { build } from '../helper';
import { MIB5, REGION, bytes, failure, md5, sha256, startS3Server, type S3TestServer } from './s3-helpers';

const BUCKET = 'rec';
let srv: S3TestServer;
let seq = 0;

/** A fresh object key with credentials scoped to it, and the browser-shaped client. */
async function target(extra: Parameters<S3TestServer['client']>[1] = {}) {
  const key = `exam/1/examinee-${++seq}/cam.webm`;
  const creds = await srv.issue(BUCKET, key);
  return { key, creds, s3: srv.client(creds, extra) };
}

async function create(s3: S3Client, key: string, checksum?: 'CRC32'): Promise<string> {
  const out = await s3.send(
    new CreateMultipartUploadCommand({
      Bucket: BUCKET,
      Key: key,
      ContentType: 'video/webm',
      ChecksumAlgorithm: checksum,
    }),
  );
  if (!out.UploadId) throw new Error('no UploadId');
  return out.UploadId;
}

async function put(s3: S3Client, key: string, uploadId: string, partNumber: number, body: Uint8Array) {
  const out = await s3.send(
    new UploadPartCommand({
      Bucket: BUCKET,
      Key: key,
      UploadId: uploadId,
      PartNumber: partNumber,
      Body: body,
    }),
  );
  return { PartNumber: partNumber, ETag: out.ETag ?? '' };
}

async function complete(
  s3: S3Client,
  key: string,
  uploadId: string,
  parts: { PartNumber: number; ETag: string }[],
) {
  return s3.send(
    new CompleteMultipartUploadCommand({
      Bucket: BUCKET,
      Key: key,
      UploadId: uploadId,
      MultipartUpload: { Parts: parts },
    }),
  );
}

/** Node's crypto as the `Sha256` constructor smithy's signer expects. */
type SourceData = string | ArrayBuffer | ArrayBufferView;
const toBuf = (d: SourceData) =>
  typeof d === 'string'
    ? Buffer.from(d)
    : ArrayBuffer.isView(d)
      ? Buffer.from(d.buffer, d.byteOffset, d.byteLength)
      : Buffer.from(d);
class NodeSha256 {
  private readonly h;
  constructor(secret?: SourceData) {
    this.h = secret === undefined ? createHash('sha256') : createHmac('sha256', toBuf(secret));
  }
  update(data: SourceData) {
    this.h.update(toBuf(data));
  }
  async digest() {
    return new Uint8Array(this.h.digest());
  }
}

/** A presigned GET made by the SDK's own signer, as @aws-sdk/s3-request-presigner does it. */
async function sdkPresign(
  creds: TemporaryCredentials | { accessKeyId: string; secretAccessKey: string },
  key: string,
  expiresIn: number,
  signingDate = new Date(),
) {
  const url = new URL(`${srv.base}/s3/${BUCKET}/${key}`);
  const signer = new SignatureV4({
    credentials: creds,
    region: REGION,
    service: 's3',
    sha256: NodeSha256,
    uriEscapePath: false,
  });
  const signed = await signer.presign(
    {
      method: 'GET',
      protocol: 'http:',
      hostname: url.hostname,
      port: Number(url.port),
      path: url.pathname,
      query: { 'x-id': 'GetObject' },
      headers: { host: url.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
    },
    { expiresIn, signingDate },
  );
  const qs = Object.entries(signed.query ?? {})
    .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`)
    .join('&');
  return `${srv.base}${signed.path}?${qs}`;
}

beforeAll(async () => {
  srv = await startS3Server();
});

afterAll(async () => {
  await srv.close();
});

beforeEach(async () => {
  await srv.hook('POST', 'reset');
});

describe('multipart upload with the real S3Client', () => {
  it('uploads 2×5 MiB + a small last part; the object bytes, Range GET and HEAD match', async () => {
    const { key, s3 } = await target();
    const chunks = [bytes(MIB5, 1), bytes(MIB5, 2), bytes(1234, 3)];
    const uploadId = await create(s3, key);
    const parts = [];
    for (const [i, c] of chunks.entries()) parts.push(await put(s3, key, uploadId, i + 1, c));
    expect(parts.map((p) => p.ETag)).toEqual(chunks.map((c) => `"${md5(c)}"`));

    const done = await complete(s3, key, uploadId, parts);
    const md5s = Buffer.concat(chunks.map((c) => Buffer.from(md5(c), 'hex')));
    expect(done.ETag).toBe(`"${createHash('md5').update(md5s).digest('hex')}-3"`);
    expect(done.Key).toBe(key);

    const all = Buffer.concat(chunks);
    expect(sha256(await readFile(srv.app.s3local!.objectPath(BUCKET, key)))).toBe(sha256(all));
    // Reading is the server's business: the browser credential may only write (see 'session policy').
    const server = srv.serverClient();
    const got = await server.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(sha256(await got.Body!.transformToByteArray())).toBe(sha256(all));
    expect(got.ContentType).toBe('video/webm');

    const ranged = await server.send(new GetObjectCommand({ Bucket: BUCKET, Key: key, Range: 'bytes=0-3' }));
    expect(ranged.$metadata.httpStatusCode).toBe(206);
    expect(ranged.ContentRange).toBe(`bytes 0-3/${all.length}`);
    expect(Buffer.from(await ranged.Body!.transformToByteArray())).toEqual(all.subarray(0, 4));
    const tail = await server.send(new GetObjectCommand({ Bucket: BUCKET, Key: key, Range: 'bytes=-5' }));
    expect(Buffer.from(await tail.Body!.transformToByteArray())).toEqual(all.subarray(all.length - 5));

    const head = await server.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(head.ContentLength).toBe(all.length);
    expect(head.ETag).toBe(done.ETag);
    expect(head.AcceptRanges).toBe('bytes');
    expect(head.LastModified).toBeInstanceOf(Date);

    const bad = await failure(
      server.send(new GetObjectCommand({ Bucket: BUCKET, Key: key, Range: `bytes=${all.length}-` })),
    );
    expect(bad).toMatchObject({ name: 'InvalidRange', status: 416 });

    // A lost Complete response is retried: the same result, not NoSuchUpload.
    expect((await complete(s3, key, uploadId, parts)).ETag).toBe(done.ETag);
  });

  it('rejects a small non-last part at Complete with EntityTooSmall (strict 5 MiB)', async () => {
    const { key, s3 } = await target();
    const uploadId = await create(s3, key);
    const parts = [
      await put(s3, key, uploadId, 1, bytes(1024, 4)),
      await put(s3, key, uploadId, 2, bytes(10, 5)),
    ];
    expect(await failure(complete(s3, key, uploadId, parts))).toMatchObject({
      name: 'EntityTooSmall',
      status: 400,
    });
    // A single small part is the last part, which may be smaller.
    expect((await complete(s3, key, uploadId, parts.slice(0, 1))).ETag).toMatch(/-1"$/);
  });

  it('rejects parts out of order, wrong ETags and unknown uploads; ETag quotes are optional', async () => {
    const { key, s3 } = await target();
    await srv.hook('POST', 'config', { minPartSize: 1 });
    const uploadId = await create(s3, key);
    const p1 = await put(s3, key, uploadId, 1, bytes(100, 6));
    const p2 = await put(s3, key, uploadId, 2, bytes(100, 7));
    expect(await failure(complete(s3, key, uploadId, [p2, p1]))).toMatchObject({
      name: 'InvalidPartOrder',
      status: 400,
    });
    expect(await failure(complete(s3, key, uploadId, [p1, p1]))).toMatchObject({ name: 'InvalidPartOrder' });
    const wrong = { PartNumber: 2, ETag: `"${md5(bytes(100, 8))}"` };
    expect(await failure(complete(s3, key, uploadId, [p1, wrong]))).toMatchObject({
      name: 'InvalidPart',
      status: 400,
    });
    expect(await failure(complete(s3, key, uploadId, [p1, { PartNumber: 3, ETag: p2.ETag }]))).toMatchObject({
      name: 'InvalidPart',
    });

    expect(await failure(put(s3, key, 'NoSuchUploadIdAtAllXyz123', 1, bytes(10, 9)))).toMatchObject({
      name: 'NoSuchUpload',
      status: 404,
    });
    expect(await failure(put(s3, key, uploadId, 10_001, bytes(10, 9)))).toMatchObject({
      name: 'InvalidArgument',
      status: 400,
    });
    expect(await failure(put(s3, key, uploadId, 0, bytes(10, 9)))).toMatchObject({ name: 'InvalidArgument' });

    const done = await complete(s3, key, uploadId, [p1, { PartNumber: 2, ETag: p2.ETag.replace(/"/g, '') }]);
    expect(done.ETag).toMatch(/-2"$/);
  });

  it('aborts: 204, parts gone, later calls are NoSuchUpload', async () => {
    const { key, s3 } = await target();
    const uploadId = await create(s3, key);
    await put(s3, key, uploadId, 1, bytes(100, 10));
    const server = srv.serverClient();
    const out = await server.send(
      new AbortMultipartUploadCommand({ Bucket: BUCKET, Key: key, UploadId: uploadId }),
    );
    expect(out.$metadata.httpStatusCode).toBe(204);
    const state = (await srv.hook('GET', 'state')) as { uploads: { uploadId: string }[] };
    expect(state.uploads.find((u) => u.uploadId === uploadId)).toBeUndefined();
    expect(
      await failure(server.send(new ListPartsCommand({ Bucket: BUCKET, Key: key, UploadId: uploadId }))),
    ).toMatchObject({
      name: 'NoSuchUpload',
      status: 404,
    });
    expect(await failure(put(s3, key, uploadId, 2, bytes(10, 11)))).toMatchObject({ name: 'NoSuchUpload' });
  });

  it('pages ListParts with part-number-marker, and the server completes from stored parts', async () => {
    const { key, s3 } = await target();
    await srv.hook('POST', 'config', { minPartSize: 64 });
    const uploadId = await create(s3, key);
    const chunks = [1, 2, 3, 4, 5].map((n) => bytes(64 + n, 20 + n));
    for (const [i, c] of chunks.entries()) await put(s3, key, uploadId, i + 1, c);

    const seen: number[] = [];
    let marker: string | undefined;
    let pages = 0;
    const server = srv.serverClient();
    for (;;) {
      const page = await server.send(
        new ListPartsCommand({
          Bucket: BUCKET,
          Key: key,
          UploadId: uploadId,
          MaxParts: 2,
          PartNumberMarker: marker,
        }),
      );
      pages++;
      seen.push(...(page.Parts ?? []).map((p) => p.PartNumber ?? 0));
      expect(page.Parts?.[0]?.Size).toBe(64 + (page.Parts?.[0]?.PartNumber ?? 0));
      if (!page.IsTruncated) break;
      marker = page.NextPartNumberMarker;
    }
    expect(seen).toEqual([1, 2, 3, 4, 5]);
    expect(pages).toBe(3);

    const svc = srv.app.s3local!;
    expect((await svc.listParts(BUCKET, key, uploadId)).map((p) => p.etag)).toEqual(
      chunks.map((c) => `"${md5(c)}"`),
    );
    const obj = await svc.completeFromStoredParts(BUCKET, key, uploadId);
    expect(obj.size).toBe(chunks.reduce((n, c) => n + c.length, 0));
    expect(sha256(await readFile(svc.objectPath(BUCKET, key)))).toBe(sha256(Buffer.concat(chunks)));
  });

  it('the server side uses the real SDK through clientConfig() and a server-created upload', async () => {
    const svc = srv.app.s3local!;
    const { key, s3 } = await target();
    const uploadId = await svc.createMultipartUpload(BUCKET, key, 'video/webm');
    const part = await put(s3, key, uploadId, 1, bytes(300, 30));
    const server = srv.client(svc.clientConfig().credentials);
    const listed = await server.send(new ListPartsCommand({ Bucket: BUCKET, Key: key, UploadId: uploadId }));
    expect(listed.Parts?.map((p) => p.ETag)).toEqual([part.ETag]);
    await complete(server, key, uploadId, [part]);
    expect((await svc.headObject(BUCKET, key))?.contentType).toBe('video/webm');
  });
});

describe('checksums (media-stack.md §4.3)', () => {
  it('strict mode rejects a CRC32 part on an upload created without a checksum algorithm', async () => {
    const { key, creds } = await target();
    const s3 = srv.client(creds, { requestChecksumCalculation: 'WHEN_SUPPORTED' });
    const uploadId = await create(s3, key);
    const e = await failure(put(s3, key, uploadId, 1, bytes(100, 40)));
    expect(e).toMatchObject({ name: 'InvalidRequest', status: 400 });
    expect(e.message).toMatch(/Checksum Type mismatch/);

    await srv.hook('POST', 'config', { strictChecksum: false });
    expect((await put(s3, key, uploadId, 1, bytes(100, 40))).ETag).toBe(`"${md5(bytes(100, 40))}"`);
  });

  it('verifies CRC32 parts of a CRC32 upload (BadDigest), echoes them, and Complete needs them', async () => {
    const { key, creds } = await target();
    const s3 = srv.client(creds, { requestChecksumCalculation: 'WHEN_SUPPORTED' });
    await srv.hook('POST', 'config', { minPartSize: 1 });
    const uploadId = await create(s3, key, 'CRC32');
    const body = bytes(1000, 41);
    const ok = await s3.send(
      new UploadPartCommand({
        Bucket: BUCKET,
        Key: key,
        UploadId: uploadId,
        PartNumber: 1,
        Body: body,
        ChecksumAlgorithm: 'CRC32',
      }),
    );
    expect(ok.ChecksumCRC32).toMatch(/^[A-Za-z0-9+/]{6}==$/);
    const bad = await failure(
      s3.send(
        new UploadPartCommand({
          Bucket: BUCKET,
          Key: key,
          UploadId: uploadId,
          PartNumber: 2,
          Body: body,
          ChecksumCRC32: 'AAAAAA==',
        }),
      ),
    );
    expect(bad).toMatchObject({ name: 'BadDigest', status: 400 });
    // A part without a checksum on a CRC32 upload is the mismatch the other way round.
    const plain = srv.client(creds);
    expect(await failure(put(plain, key, uploadId, 2, body))).toMatchObject({ name: 'InvalidRequest' });

    expect(
      await failure(complete(s3, key, uploadId, [{ PartNumber: 1, ETag: ok.ETag ?? '' }])),
    ).toMatchObject({ name: 'InvalidPart' });
    const done = await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: BUCKET,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: [{ PartNumber: 1, ETag: ok.ETag, ChecksumCRC32: ok.ChecksumCRC32 }] },
      }),
    );
    expect(done.ChecksumCRC32).toMatch(/-1$/);
  });

  it('answers aws-chunked streaming bodies with 501 NotImplemented', async () => {
    const { key, creds } = await target();
    const s3 = srv.client(creds, { requestChecksumCalculation: 'WHEN_SUPPORTED' });
    const uploadId = await create(s3, key, 'CRC32');
    const { Readable } = await import('node:stream');
    const e = await failure(
      s3.send(
        new UploadPartCommand({
          Bucket: BUCKET,
          Key: key,
          UploadId: uploadId,
          PartNumber: 1,
          Body: Readable.from([Buffer.from(bytes(100, 42))]),
          ContentLength: 100,
          ChecksumAlgorithm: 'CRC32',
        }),
      ),
    );
    expect(e).toMatchObject({ name: 'NotImplemented', status: 501 });
  });
});

describe('fault hooks (next N UploadParts)', () => {
  it('destroy: the SDK sees a network error; the next part goes through', async () => {
    const { key, s3 } = await target();
    const uploadId = await create(s3, key);
    await srv.hook('POST', 'faults', { kind: 'destroy', count: 1 });
    const e = await failure(put(s3, key, uploadId, 1, bytes(2000, 50)));
    expect(e.status).toBeUndefined();
    expect(e.message).toMatch(/socket hang up|ECONNRESET|EPIPE|other side closed/i);
    expect((await put(s3, key, uploadId, 1, bytes(2000, 50))).ETag).toBe(`"${md5(bytes(2000, 50))}"`);
  });

  it('stall: the client request timeout fires', async () => {
    const { key, creds } = await target();
    const s3 = srv.client(creds, { requestHandler: { requestTimeout: 300, throwOnRequestTimeout: true } });
    const uploadId = await create(s3, key);
    await srv.hook('POST', 'faults', { kind: 'stall', ms: 10_000 });
    const started = Date.now();
    const e = await failure(put(s3, key, uploadId, 1, bytes(100, 51)));
    expect(e.name).toBe('TimeoutError');
    expect(e.message).toMatch(/requestTimeout/);
    expect(Date.now() - started).toBeLessThan(3000);
    expect((await put(s3, key, uploadId, 1, bytes(100, 51))).ETag).toBeTruthy();
  });

  it('500, 503 and ExpiredToken, each once, in order', async () => {
    const { key, s3 } = await target();
    const uploadId = await create(s3, key);
    await srv.hook('POST', 'faults', { kind: 'status', status: 500 });
    await srv.hook('POST', 'faults', { kind: 'status', status: 503 });
    await srv.hook('POST', 'faults', { kind: 'expired-token' });
    const body = bytes(MIB5, 52);
    expect(await failure(put(s3, key, uploadId, 1, body))).toMatchObject({
      name: 'InternalError',
      status: 500,
    });
    expect(await failure(put(s3, key, uploadId, 1, body))).toMatchObject({ name: 'SlowDown', status: 503 });
    expect(await failure(put(s3, key, uploadId, 1, body))).toMatchObject({
      name: 'ExpiredToken',
      status: 400,
    });
    expect((await put(s3, key, uploadId, 1, body)).ETag).toBe(`"${md5(body)}"`);
    const state = (await srv.hook('GET', 'state')) as {
      faults: { pending: unknown[]; fired: Record<string, number> };
    };
    expect(state.faults.pending).toEqual([]);
    expect(state.faults.fired.status).toBeGreaterThanOrEqual(2);
  });

  it('count and key filters apply faults to the next N UploadParts of that key only', async () => {
    const a = await target();
    const b = await target();
    const ua = await create(a.s3, a.key);
    const ub = await create(b.s3, b.key);
    await srv.hook('POST', 'faults', { kind: 'status', status: 503, count: 2, key: a.key });
    expect((await put(b.s3, b.key, ub, 1, bytes(10, 53))).ETag).toBeTruthy();
    expect(await failure(put(a.s3, a.key, ua, 1, bytes(10, 53)))).toMatchObject({ status: 503 });
    expect(await failure(put(a.s3, a.key, ua, 1, bytes(10, 53)))).toMatchObject({ status: 503 });
    expect((await put(a.s3, a.key, ua, 1, bytes(10, 53))).ETag).toBeTruthy();
  });
});

describe('auth', () => {
  it('a credential for one key cannot touch another key (403 AccessDenied)', async () => {
    const mine = await target();
    const other = await target();
    const uploadId = await create(other.s3, other.key);
    expect(await failure(create(mine.s3, other.key))).toMatchObject({ name: 'AccessDenied', status: 403 });
    expect(await failure(put(mine.s3, other.key, uploadId, 1, bytes(10, 60)))).toMatchObject({
      name: 'AccessDenied',
      status: 403,
    });
    const foreignBucket = await srv.issue('other-bucket', mine.key);
    expect(await failure(create(srv.client(foreignBucket), mine.key))).toMatchObject({
      name: 'AccessDenied',
    });
  });

  it('expired credentials are ExpiredToken (400); unknown keys, bad tokens and bad secrets are refused', async () => {
    const { key, creds, s3 } = await target();
    const uploadId = await create(s3, key);
    srv.issuer.expire(creds.accessKeyId);
    expect(await failure(put(s3, key, uploadId, 1, bytes(10, 61)))).toMatchObject({
      name: 'ExpiredToken',
      status: 400,
    });

    const fresh = await srv.issue(BUCKET, key);
    expect(
      await failure(create(srv.client({ ...fresh, sessionToken: 'x' + fresh.sessionToken }), key)),
    ).toMatchObject({
      name: 'InvalidToken',
      status: 400,
    });
    expect(await failure(create(srv.client({ ...fresh, secretAccessKey: 'wrong' }), key))).toMatchObject({
      name: 'SignatureDoesNotMatch',
      status: 403,
    });
    expect(await failure(create(srv.client({ ...fresh, accessKeyId: 'ASIAUNKNOWN' }), key))).toMatchObject({
      name: 'InvalidAccessKeyId',
      status: 403,
    });
    const anon = await fetch(`${srv.base}/s3/${BUCKET}/${key}`);
    expect(anon.status).toBe(403);
    expect(await anon.text()).toMatch(/<Code>AccessDenied<\/Code>.*<RequestId>/s);
  });

  it('S3_LOCAL_VERIFY_SIGNATURE=0 skips only the signature comparison, not the key scope', async () => {
    const lax = await startS3Server({ verifySignature: false });
    try {
      const key = 'exam/lax/cam.webm';
      const creds = await lax.issue(BUCKET, key);
      const wrongSecret = lax.client({ ...creds, secretAccessKey: 'wrong' });
      expect(await create(wrongSecret, key)).toBeTruthy();
      expect(await failure(create(wrongSecret, 'exam/lax/other.webm'))).toMatchObject({
        name: 'AccessDenied',
      });
    } finally {
      await lax.close();
    }
  });

  it('presigned GET by the server key works for <video src> (presignGet and the SDK signer); expired → 403', async () => {
    const { key, s3 } = await target();
    const serverCreds = srv.app.s3local!.serverCredentials;
    const body = bytes(4096, 62);
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body, ContentType: 'video/webm' }));

    const url = srv.app.s3local!.presignGet(BUCKET, key, 60);
    expect(url.startsWith(`${srv.base}/s3/${BUCKET}/`)).toBe(true);
    const whole = await fetch(url);
    expect(whole.status).toBe(200);
    expect(whole.headers.get('content-type')).toBe('video/webm');
    expect(sha256(new Uint8Array(await whole.arrayBuffer()))).toBe(sha256(body));
    const part = await fetch(url, { headers: { range: 'bytes=10-19' } });
    expect(part.status).toBe(206);
    expect(Buffer.from(await part.arrayBuffer())).toEqual(Buffer.from(body.subarray(10, 20)));

    const viaSdk = await fetch(await sdkPresign(serverCreds, key, 60));
    expect(viaSdk.status).toBe(200);
    const expired = await fetch(await sdkPresign(serverCreds, key, 1, new Date(Date.now() - 10_000)));
    expect(expired.status).toBe(403);
    expect(await expired.text()).toMatch(/AccessDenied/);
    const tampered = await fetch(url.replace(/X-Amz-Expires=\d+/, 'X-Amz-Expires=3600'));
    expect(tampered.status).toBe(403);
    expect(await tampered.text()).toMatch(/SignatureDoesNotMatch/);
    // Presigned URLs are for playback only.
    expect((await fetch(url, { method: 'DELETE' })).status).toBe(403);
  });
});

describe('browser credentials hold to their STS session policy (s3:PutObject on one key)', () => {
  /** AccessDenied as S3 words an IAM denial of `action`. */
  const denied = (action: string) => ({
    name: 'AccessDenied',
    status: 403,
    message: expect.stringContaining(`not authorized to perform: ${action} on resource`),
  });

  it('a browser may do exactly the operations IAM authorises as S3_BROWSER_ACTIONS', () => {
    const allowed = (Object.keys(OPERATION_ACTIONS) as S3Operation[]).filter((op) =>
      OPERATION_ACTIONS[op].every((a) => S3_BROWSER_ACTIONS.includes(a)),
    );
    expect(allowed.sort()).toEqual([
      'CompleteMultipartUpload',
      'CreateMultipartUpload',
      'PutObject',
      'UploadPart',
    ]);
  });

  it('may UploadPart, PutObject, CreateMultipartUpload and CompleteMultipartUpload on its own key', async () => {
    const { key, s3 } = await target();
    const server = srv.serverClient();
    const body = bytes(500, 90);
    expect((await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }))).ETag).toBe(
      `"${md5(body)}"`,
    );
    const uploadId = await create(s3, key);
    const part = await put(s3, key, uploadId, 1, bytes(300, 91));
    expect(part.ETag).toBe(`"${md5(bytes(300, 91))}"`);
    expect((await complete(s3, key, uploadId, [part])).ETag).toMatch(/-1"$/);
    const got = await server.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(sha256(await got.Body!.transformToByteArray())).toBe(sha256(bytes(300, 91)));
  });

  it('ListParts, Abort, GetObject, HEAD and DeleteObject on its own key are 403 AccessDenied and change nothing', async () => {
    const { key, creds, s3 } = await target();
    const server = srv.serverClient();
    const uploadId = await srv.app.s3local!.createMultipartUpload(BUCKET, key, 'video/webm');
    const part = await put(s3, key, uploadId, 1, bytes(200, 92));
    const ref = { Bucket: BUCKET, Key: key, UploadId: uploadId };

    expect(await failure(s3.send(new ListPartsCommand(ref)))).toMatchObject(
      denied('s3:ListMultipartUploadParts'),
    );
    expect(await failure(s3.send(new AbortMultipartUploadCommand(ref)))).toMatchObject(
      denied('s3:AbortMultipartUpload'),
    );
    expect((await server.send(new ListPartsCommand(ref))).Parts?.map((p) => p.ETag)).toEqual([part.ETag]);

    await complete(s3, key, uploadId, [part]);
    expect(await failure(s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key })))).toMatchObject(
      denied('s3:GetObject'),
    );
    expect(
      await failure(s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key, Range: 'bytes=0-9' }))),
    ).toMatchObject(denied('s3:GetObject'));
    // HEAD answers carry no body, on AWS as here: the status is all the SDK sees.
    expect(await failure(s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key })))).toMatchObject({
      status: 403,
    });
    expect(await failure(s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key })))).toMatchObject(
      denied('s3:DeleteObject'),
    );
    expect((await server.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }))).ContentLength).toBe(200);

    // A presigned GET signed by the browser credential is a GetObject too; the error is S3's XML document.
    const res = await fetch(await sdkPresign(creds, key, 60));
    expect(res.status).toBe(403);
    expect(res.headers.get('content-type')).toMatch(/application\/xml/);
    expect(await res.text()).toMatch(
      /^<\?xml[^>]*>\s*<Error><Code>AccessDenied<\/Code><Message>User: ASIALOCAL\w+ is not authorized to perform: s3:GetObject on resource: &quot;arn:aws:s3:::rec\/exam\/1\/examinee-\d+\/cam\.webm&quot; because no session policy allows the s3:GetObject action<\/Message><RequestId>[0-9A-F]{16}<\/RequestId><\/Error>$/,
    );
  });

  it('any operation on another key or bucket, or with a KVS credential, is 403 AccessDenied', async () => {
    const mine = await target();
    const other = await target();
    const server = srv.serverClient();
    const uploadId = await srv.app.s3local!.createMultipartUpload(BUCKET, other.key, 'video/webm');
    const part = await put(other.s3, other.key, uploadId, 1, bytes(100, 93));
    const obj = { Bucket: BUCKET, Key: other.key };
    const ref = { ...obj, UploadId: uploadId };
    const s3 = mine.s3;
    const attempts: [string, () => Promise<unknown>][] = [
      ['s3:PutObject', () => s3.send(new PutObjectCommand({ ...obj, Body: bytes(10, 94) }))],
      ['s3:PutObject', () => create(s3, other.key)],
      ['s3:PutObject', () => put(s3, other.key, uploadId, 2, bytes(10, 95))],
      ['s3:PutObject', () => complete(s3, other.key, uploadId, [part])],
      ['s3:ListMultipartUploadParts', () => s3.send(new ListPartsCommand(ref))],
      ['s3:AbortMultipartUpload', () => s3.send(new AbortMultipartUploadCommand(ref))],
      ['s3:GetObject', () => s3.send(new GetObjectCommand(obj))],
      ['s3:DeleteObject', () => s3.send(new DeleteObjectCommand(obj))],
    ];
    for (const [action, attempt] of attempts) expect(await failure(attempt())).toMatchObject(denied(action));
    expect(await failure(s3.send(new HeadObjectCommand(obj)))).toMatchObject({ status: 403 });
    expect((await server.send(new ListPartsCommand(ref))).Parts?.map((p) => p.PartNumber)).toEqual([1]);

    const foreignBucket = srv.client(await srv.issue('other-bucket', mine.key));
    expect(await failure(put(foreignBucket, mine.key, uploadId, 1, bytes(10, 96)))).toMatchObject(
      denied('s3:PutObject'),
    );
    const kvs = await srv.issuer.issue({ kind: 'kvs', channelName: 'exam-1', role: 'master' }, 900);
    expect(
      await failure(
        srv.client(kvs).send(new PutObjectCommand({ Bucket: BUCKET, Key: mine.key, Body: bytes(10, 97) })),
      ),
    ).toMatchObject(denied('s3:PutObject'));
  });

  it('copies, ACLs and tagging are 403 for a browser credential; the server key gets past authorisation', async () => {
    const { key, s3 } = await target();
    const server = srv.serverClient();
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: bytes(100, 98) }));
    const uploadId = await create(s3, key);
    const obj = { Bucket: BUCKET, Key: key };
    const source = `${BUCKET}/${key}`;
    const requests = (c: S3Client): [string, () => Promise<unknown>][] => [
      ['s3:GetObject', () => c.send(new CopyObjectCommand({ ...obj, CopySource: source }))],
      [
        's3:GetObject',
        () =>
          c.send(
            new UploadPartCopyCommand({ ...obj, UploadId: uploadId, PartNumber: 1, CopySource: source }),
          ),
      ],
      [
        's3:PutObjectAcl',
        () => c.send(new PutObjectCommand({ ...obj, Body: bytes(10, 99), ACL: 'private' })),
      ],
      [
        's3:PutObjectTagging',
        () =>
          c.send(new PutObjectTaggingCommand({ ...obj, Tagging: { TagSet: [{ Key: 'k', Value: 'v' }] } })),
      ],
    ];
    for (const [action, attempt] of requests(s3))
      expect(await failure(attempt())).toMatchObject(denied(action));
    // The server key is allowed all of them; the stand-in serves none but PutObject (whose ACL it ignores).
    for (const [action, attempt] of requests(server)) {
      if (action === 's3:PutObjectAcl') expect((await attempt()) as object).toHaveProperty('ETag');
      else expect(await failure(attempt())).toMatchObject({ name: 'NotImplemented', status: 501 });
    }
    // The refused UploadPartCopy stored no part.
    expect(
      (await server.send(new ListPartsCommand({ Bucket: BUCKET, Key: key, UploadId: uploadId }))).Parts ?? [],
    ).toEqual([]);
  });

  it('the server key may do every operation on any key', async () => {
    const { key } = await target();
    const server = srv.serverClient();
    const body = bytes(400, 100);
    await server.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
    expect((await server.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }))).ContentLength).toBe(400);
    const uploadId = await create(server, key);
    const part = await put(server, key, uploadId, 1, bytes(300, 101));
    const ref = { Bucket: BUCKET, Key: key, UploadId: uploadId };
    expect((await server.send(new ListPartsCommand(ref))).Parts?.map((p) => p.ETag)).toEqual([part.ETag]);
    await complete(server, key, uploadId, [part]);
    const got = await server.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(sha256(await got.Body!.transformToByteArray())).toBe(sha256(bytes(300, 101)));
    const spare = await create(server, key);
    expect(
      (await server.send(new AbortMultipartUploadCommand({ ...ref, UploadId: spare }))).$metadata
        .httpStatusCode,
    ).toBe(204);
    expect(
      (await server.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: key }))).$metadata.httpStatusCode,
    ).toBe(204);
    expect(await srv.app.s3local!.headObject(BUCKET, key)).toBeNull();
  });
});

describe('HTTP surface', () => {
  it('HEAD of a missing key is 404; GET is NoSuchKey XML', async () => {
    const { key } = await target();
    const s3 = srv.serverClient();
    expect(await failure(s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key })))).toMatchObject({
      status: 404,
    });
    expect(await failure(s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key })))).toMatchObject({
      name: 'NoSuchKey',
      status: 404,
    });
  });

  it('CORS preflight reflects the request and exposes ETag; responses carry CORS headers', async () => {
    const origin = 'http://127.0.0.1:5173';
    const res = await fetch(`${srv.base}/s3/${BUCKET}/exam/1/cam.webm?partNumber=1&uploadId=x`, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'PUT',
        'access-control-request-headers':
          'authorization,x-amz-date,x-amz-content-sha256,x-amz-security-token,x-amz-checksum-mode',
      },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe(origin);
    expect(res.headers.get('access-control-allow-methods')).toMatch(/PUT/);
    expect(res.headers.get('access-control-allow-headers')).toMatch(/x-amz-checksum-mode/);
    const exposed = (res.headers.get('access-control-expose-headers') ?? '').toLowerCase();
    for (const h of ['etag', 'x-amz-checksum-crc32', 'content-range', 'accept-ranges', 'content-length'])
      expect(exposed).toContain(h);

    const err = await fetch(`${srv.base}/s3/${BUCKET}/exam/1/cam.webm`, { headers: { origin } });
    expect(err.status).toBe(403);
    expect(err.headers.get('access-control-allow-origin')).toBe(origin);
    expect(err.headers.get('access-control-expose-headers')).toMatch(/ETag/);
  });

  it('keys with spaces, unicode, + and parentheses survive SigV4, routing and presigning', async () => {
    const key = `exam/1/日本 語+(x)!'*.webm`;
    const s3 = srv.client(await srv.issue(BUCKET, key));
    const body = bytes(333, 70);
    const put1 = await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }));
    expect(put1.ETag).toBe(`"${md5(body)}"`);
    const got = await srv.serverClient().send(new GetObjectCommand({ Bucket: BUCKET, Key: key }));
    expect(got.ContentType).toBe('application/octet-stream'); // what the SDK sends for a Uint8Array body
    expect(sha256(await got.Body!.transformToByteArray())).toBe(sha256(body));
    const viaUrl = await fetch(srv.app.s3local!.presignGet(BUCKET, key, 30));
    expect(viaUrl.status).toBe(200);
    expect((await srv.app.s3local!.headObject(BUCKET, key))?.size).toBe(333);
  });

  it('a stalled UploadPart does not hold app.close()', async () => {
    const other = await startS3Server();
    try {
      const key = 'exam/9/cam.webm';
      const s3 = other.client(await other.issue(BUCKET, key));
      const uploadId = await create(s3, key);
      await other.hook('POST', 'faults', { kind: 'stall', ms: 60_000 });
      const pending = failure(put(s3, key, uploadId, 1, bytes(10, 71)));
      await new Promise((r) => setTimeout(r, 100));
      const started = Date.now();
      await other.app.close();
      expect(Date.now() - started).toBeLessThan(2000);
      expect((await pending).status).toBeUndefined();
    } finally {
      await other.close();
    }
  });

  it('bucket-level requests are NotImplemented XML', async () => {
    const res = await fetch(`${srv.base}/s3/${BUCKET}`);
    expect(res.status).toBe(501);
    expect(await res.text()).toMatch(/<Code>NotImplemented<\/Code>/);
  });

  it('is off when S3_ENDPOINT is set', async () => {
    process.env.S3_ENDPOINT = 'https://s3.ap-northeast-1.amazonaws.com';
    try {
      const off = await startS3Server();
      try {
        expect(off.app.s3local).toBeNull();
        expect((await fetch(`${off.base}/s3/${BUCKET}/k`)).status).toBe(404);
      } finally {
        await off.close();
      }
    } finally {
      delete process.env.S3_ENDPOINT;
    }
  });
});

describe('mounted by the real app (standins/loader.ts)', () => {
  it('answers S3 XML (not the /api envelope) and takes parts above the 1 MiB bodyLimit', async () => {
    const dataDir = await mkdtemp(path.join(os.tmpdir(), 's3-app-test-'));
    const t = await build({ dataDir });
    try {
      await t.app.listen({ host: '127.0.0.1', port: 0 });
      const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
      t.config.publicOrigin = base;
      const svc = t.app.s3local!;
      const key = 'exam/app/cam.webm';
      const creds = await t.app.localCredentials!.issue({ kind: 's3', bucket: BUCKET, key }, 600);
      const s3 = srv.client(creds, { endpoint: `${base}/s3` });
      const uploadId = await svc.createMultipartUpload(BUCKET, key, 'video/webm');
      const body = bytes(MIB5 + 1024, 80);
      await put(s3, key, uploadId, 1, body);
      expect((await svc.completeFromStoredParts(BUCKET, key, uploadId)).size).toBe(body.length);
      const missing = await fetch(`${base}/s3/${BUCKET}/nope`);
      expect(missing.status).toBe(403);
      expect(missing.headers.get('content-type')).toMatch(/xml/);
      const viaUrl = await fetch(svc.presignGet(BUCKET, key, 60), { headers: { range: 'bytes=0-9' } });
      expect(viaUrl.status).toBe(206);
    } finally {
      await t.close();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
