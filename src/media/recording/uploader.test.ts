import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { UploadMeta } from './chunk-store';
import { createRechunker, type PartSpan } from './rechunker';
import { DEFAULT_RETRY_POLICY } from './retry-policy';
import {
  createSdkS3Factory,
  createUploader,
  type S3ClientSettings,
  type S3PartClient,
  type UploadPartInput,
  type UploadProgress,
} from './uploader';

const RK = 'rec/exam/1/cam.webm?uploadId=U1';
const CREDS = { accessKeyId: 'ASIA1', secretAccessKey: 'secret', sessionToken: 'token' };

function newMeta(parts: UploadMeta['parts'] = []): UploadMeta {
  return {
    recordingKey: RK,
    bucket: 'rec',
    key: 'exam/1/cam.webm',
    uploadId: 'U1',
    partSize: 10,
    mimeType: null,
    lastSegment: 0,
    finished: false,
    parts,
  };
}

/** Parts of 10 bytes over chunks of 10 bytes: part n is chunk n-1. */
function layouts(n: number) {
  const r = createRechunker({ partSize: 10 });
  return Array.from({ length: n }, (_, seq) => r.push({ segment: 0, seq, size: 10 })).flat();
}

/** A fake S3: records calls, answers from a script of outcomes, one call at a time is checked. */
function fakeS3(script: Array<'ok' | Error | 'hang'> = []) {
  const calls: Array<{ input: UploadPartInput; settings: S3ClientSettings }> = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const factory = vi.fn(async (settings: S3ClientSettings): Promise<S3PartClient> => ({
    async uploadPart(input, { abortSignal }) {
      calls.push({ input, settings });
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      try {
        const outcome = script.shift() ?? 'ok';
        if (outcome === 'hang') {
          await new Promise((_, reject) =>
            abortSignal.addEventListener('abort', () => reject(abortSignal.reason)),
          );
        }
        if (outcome instanceof Error) throw outcome;
        return { ETag: `"etag-${input.PartNumber}"` };
      } finally {
        inFlight -= 1;
      }
    },
  }));
  return { factory, calls, maxInFlight: () => maxInFlight };
}

function setup(options: { meta?: UploadMeta; script?: Array<'ok' | Error | 'hang'> } = {}) {
  const s3 = fakeS3(options.script);
  const saved: UploadMeta[] = [];
  const progress: UploadProgress[] = [];
  const confirmed: number[] = [];
  const readPart = vi.fn(async (_rk: string, span: PartSpan) =>
    new Uint8Array(span.size).fill(span.PartNumber),
  );
  const getCredentials = vi.fn(async () => ({ ...CREDS, accessKeyId: 'ASIA2' }));
  const uploader = createUploader({
    region: 'ap-northeast-1',
    endpoint: 'http://127.0.0.1:8080/s3',
    credentials: CREDS,
    getCredentials,
    s3Factory: s3.factory,
    meta: options.meta ?? newMeta(),
    store: {
      readPart,
      putMeta: async (m) => {
        saved.push(structuredClone(m));
      },
    },
    onProgress: (p) => progress.push(p),
    onPartConfirmed: (_meta, part) => {
      confirmed.push(part.PartNumber);
    },
  });
  return { uploader, s3, saved, progress, confirmed, readPart, getCredentials };
}

describe('createUploader', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('sends parts in order, one at a time, with Uint8Array bodies, and records ETags', async () => {
    const t = setup();
    t.uploader.start();
    for (const part of layouts(3)) await t.uploader.enqueue(part);
    await t.uploader.updateMeta({ finished: true });
    const parts = await t.uploader.drain();

    expect(parts).toEqual([
      { PartNumber: 1, ETag: '"etag-1"' },
      { PartNumber: 2, ETag: '"etag-2"' },
      { PartNumber: 3, ETag: '"etag-3"' },
    ]);
    expect(t.s3.calls.map((c) => c.input.PartNumber)).toEqual([1, 2, 3]);
    expect(t.s3.maxInFlight()).toBe(1);
    const first = t.s3.calls[0];
    expect(first?.input).toMatchObject({
      Bucket: 'rec',
      Key: 'exam/1/cam.webm',
      UploadId: 'U1',
      PartNumber: 1,
    });
    expect(first?.input.Body).toBeInstanceOf(Uint8Array);
    expect(first?.input.Body).toEqual(new Uint8Array(10).fill(1));
    expect(first?.settings).toEqual({
      region: 'ap-northeast-1',
      endpoint: 'http://127.0.0.1:8080/s3',
      credentials: CREDS,
    });
    expect(t.confirmed).toEqual([1, 2, 3]);
    // Each plan is stored before its upload; each ETag is stored before it counts.
    const last = t.saved.at(-1);
    expect(last?.parts.map((p) => p.ETag)).toEqual(['"etag-1"', '"etag-2"', '"etag-3"']);
    expect(last?.finished).toBe(true);
    expect(t.uploader.progress()).toEqual({ partsDone: 3, partsTotal: 3, bytesPending: 0, state: 'done' });
    expect(t.progress.some((p) => p.state === 'uploading')).toBe(true);
  });

  it('resumes: re-sends only the parts without an ETag', async () => {
    const planned = layouts(4).map((l, i) => ({
      PartNumber: l.partNumber,
      size: l.size,
      firstChunk: { segment: 0, seq: i },
      lastChunk: { segment: 0, seq: i },
      offsets: { start: 0, end: 10 },
      ETag: i < 2 ? `"old-${i + 1}"` : null,
    }));
    const t = setup({ meta: { ...newMeta(planned), finished: true } });
    t.uploader.start();
    const parts = await t.uploader.drain();
    expect(t.s3.calls.map((c) => c.input.PartNumber)).toEqual([3, 4]);
    expect(t.readPart.mock.calls.map((c) => c[1].PartNumber)).toEqual([3, 4]);
    expect(parts.map((p) => p.ETag)).toEqual(['"old-1"', '"old-2"', '"etag-3"', '"etag-4"']);
  });

  it('waits for the network, then continues', async () => {
    const t = setup({ script: [new TypeError('Failed to fetch'), new TypeError('Failed to fetch'), 'ok'] });
    t.uploader.start();
    const [part] = layouts(1);
    if (part) await t.uploader.enqueue(part);
    await vi.advanceTimersByTimeAsync(0);
    expect(t.uploader.progress().state).toBe('waiting-network');
    await vi.advanceTimersByTimeAsync(2000);
    expect(await t.uploader.drain()).toEqual([{ PartNumber: 1, ETag: '"etag-1"' }]);
    expect(t.s3.calls).toHaveLength(3);
    expect(t.progress.map((p) => p.state)).toContain('waiting-network');
    expect(t.uploader.progress().state).toBe('idle');
  });

  it('gives up after 60 minutes offline, keeps the part, and uploads it on retry', async () => {
    const offline = Array.from({ length: 3601 }, () => new TypeError('Failed to fetch'));
    const t = setup({ script: offline });
    t.uploader.start();
    const [part] = layouts(1);
    if (part) await t.uploader.enqueue(part);
    const drained = t.uploader.drain();
    const failed = expect(drained).rejects.toMatchObject({ reason: 'network-exhausted' });
    await vi.advanceTimersByTimeAsync(DEFAULT_RETRY_POLICY.networkWindowMs);
    await failed;
    expect(t.uploader.progress()).toMatchObject({
      state: 'error',
      reason: 'network-exhausted',
      bytesPending: 10,
    });

    t.uploader.retry();
    await expect(t.uploader.drain()).resolves.toEqual([{ PartNumber: 1, ETag: '"etag-1"' }]);
  });

  it('times a hung request out after the request timeout and retries it', async () => {
    const t = setup({ script: ['hang', 'ok'] });
    t.uploader.start();
    const [part] = layouts(1);
    if (part) await t.uploader.enqueue(part);
    await vi.advanceTimersByTimeAsync(60_000 + 1000);
    await expect(t.uploader.drain()).resolves.toHaveLength(1);
    expect(t.s3.calls).toHaveLength(2);
  });

  it('refreshes credentials and rebuilds the client on ExpiredToken', async () => {
    const expired = Object.assign(new Error('expired'), {
      name: 'ExpiredToken',
      $metadata: { httpStatusCode: 400 },
    });
    const t = setup({ script: [expired, 'ok'] });
    t.uploader.start();
    const [part] = layouts(1);
    if (part) await t.uploader.enqueue(part);
    await expect(t.uploader.drain()).resolves.toHaveLength(1);
    expect(t.getCredentials).toHaveBeenCalledTimes(1);
    expect(t.s3.factory).toHaveBeenCalledTimes(2);
    expect(t.s3.calls[1]?.settings.credentials.accessKeyId).toBe('ASIA2');
  });

  it('aborts at once on other errors and stops sending later parts', async () => {
    const noUpload = Object.assign(new Error('NoSuchUpload'), {
      name: 'NoSuchUpload',
      $metadata: { httpStatusCode: 404 },
    });
    const t = setup({ script: [noUpload] });
    t.uploader.start();
    for (const part of layouts(2)) await t.uploader.enqueue(part);
    await expect(t.uploader.drain()).rejects.toMatchObject({ reason: 'rejected' });
    expect(t.s3.calls).toHaveLength(1);
    expect(t.uploader.progress()).toMatchObject({
      state: 'error',
      partsDone: 0,
      partsTotal: 2,
      bytesPending: 20,
    });
  });

  it('fails when S3 hides the ETag (CORS ExposeHeaders missing)', async () => {
    const t = setup();
    t.s3.factory.mockImplementation(async () => ({ uploadPart: async () => ({}) }));
    t.uploader.start();
    const [part] = layouts(1);
    if (part) await t.uploader.enqueue(part);
    await expect(t.uploader.drain()).rejects.toMatchObject({ reason: 'rejected' });
  });

  it('rejects drain on dispose and sends nothing more', async () => {
    const t = setup({ script: ['hang'] });
    t.uploader.start();
    const [part] = layouts(1);
    if (part) await t.uploader.enqueue(part);
    const drained = t.uploader.drain();
    t.uploader.dispose();
    await expect(drained).rejects.toThrow('disposed');
    await vi.advanceTimersByTimeAsync(120_000);
    expect(t.s3.calls).toHaveLength(1);
  });
});

describe('createSdkS3Factory', () => {
  it('sends UploadPart path-style, without checksum headers, to the given endpoint', async () => {
    const requests: Array<{
      method: string;
      hostname: string;
      path: string;
      query: Record<string, string>;
      headers: Record<string, string>;
      body: unknown;
    }> = [];
    const requestHandler = {
      handle: async (request: (typeof requests)[number]) => {
        requests.push(request);
        return {
          response: {
            statusCode: 200,
            reason: 'OK',
            headers: { etag: '"0123"' },
            body: new Uint8Array(0),
          },
        };
      },
    };
    const client = await createSdkS3Factory({ requestHandler })({
      region: 'ap-northeast-1',
      credentials: CREDS,
      endpoint: 'http://localhost:8080/s3',
    });
    const out = await client.uploadPart(
      {
        Bucket: 'rec',
        Key: 'exam/1/cam.webm',
        UploadId: 'U1',
        PartNumber: 2,
        Body: new Uint8Array([1, 2, 3]),
      },
      { abortSignal: new AbortController().signal },
    );
    expect(out).toEqual({ ETag: '"0123"' });
    const req = requests[0];
    expect(req?.method).toBe('PUT');
    expect(req?.hostname).toBe('localhost');
    expect(req?.path).toBe('/s3/rec/exam/1/cam.webm');
    expect(req?.query).toMatchObject({ partNumber: '2', uploadId: 'U1' });
    expect(Object.keys(req?.headers ?? {}).filter((h) => h.startsWith('x-amz-checksum'))).toEqual([]);
    expect(req?.headers['x-amz-sdk-checksum-algorithm']).toBeUndefined();
    expect(req?.headers['x-amz-security-token']).toBe('token');
    expect(req?.headers.authorization).toMatch(/^AWS4-HMAC-SHA256 Credential=ASIA1\//);
    expect(req?.body).toBeInstanceOf(Uint8Array);
    client.destroy?.();
  });
});
