import { beforeEach, describe, expect, it, vi } from 'vitest';
import type { RecoveryResult } from '../../api/recording';
import { createChunkStore, createMemoryBackend, type UploadMeta } from '../../media/recording/chunk-store';
import { createRechunker, partBounds } from '../../media/recording/rechunker';
import type { S3ClientSettings, S3PartClient, UploadPartInput } from '../../media/recording/uploader';
import { drainStoredRecording } from './recording-backlog';

const api = vi.hoisted(() => ({
  endRecording: vi.fn(),
  getRecordingCredentials: vi.fn(),
  recoverRecording: vi.fn(),
}));
vi.mock('../../api/recording', () => api);

const RK = 'rec/recordings/7/41-1.webm?uploadId=U1';
const PART = 8;
const CHUNK = 10;
const CHUNKS = 5; // 50 bytes: parts 1–6 of 8 bytes and a last one of 2

function bytesOf(seq: number): Uint8Array {
  return Uint8Array.from({ length: CHUNK }, (_, i) => (seq * CHUNK + i) % 251);
}
const all = new Uint8Array(CHUNKS * CHUNK).map((_, i) => i % 251);

/** A fake S3 that keeps every UploadPart it accepts. */
function fakeS3() {
  const sent: UploadPartInput[] = [];
  const settings: S3ClientSettings[] = [];
  const factory = vi.fn(async (s: S3ClientSettings): Promise<S3PartClient> => {
    settings.push(s);
    return {
      uploadPart(input) {
        sent.push({ ...input, Body: new Uint8Array(input.Body) });
        return Promise.resolve({ ETag: `"s3-${input.PartNumber}"` });
      },
    };
  });
  return { sent, settings, factory };
}

function recovery(parts: RecoveryResult['parts'], completed = false): RecoveryResult {
  return {
    recordId: 41,
    stream: 'camera',
    segment: 1,
    uploadId: 'U1',
    key: 'recordings/7/41-1.webm',
    bucket: 'rec',
    parts,
    nextPartNumber: parts.length + 1,
    completed,
    movieStatus: completed ? '01' : '00',
    partSize: PART,
    credentials: completed
      ? null
      : ({
          accessKeyId: 'ASIA1',
          secretAccessKey: 'secret',
          sessionToken: 'token',
          region: 'us-east-1',
          endpoint: 'http://127.0.0.1:9/s3',
          bucket: 'rec',
          key: 'recordings/7/41-1.webm',
          uploadId: 'U1',
          recordId: 41,
          partSize: PART,
        } as unknown as RecoveryResult['credentials']),
  };
}

/**
 * A page that died mid-recording: all five chunks stored, parts 1–3 planned, only part 1 confirmed locally
 * (the page died before it heard about part 2), parts 4–7 never planned.
 */
async function storedRecording() {
  const backend = createMemoryBackend();
  const store = createChunkStore(backend, { storage: undefined });
  for (let seq = 0; seq < CHUNKS; seq += 1)
    await store.put({ recordingKey: RK, segment: 0, seq, data: bytesOf(seq) });
  const r = createRechunker({ partSize: PART });
  const planned = [0, 1, 2].flatMap((seq) => r.push({ segment: 0, seq, size: CHUNK })).slice(0, 3);
  const meta: UploadMeta = {
    recordingKey: RK,
    bucket: 'rec',
    key: 'recordings/7/41-1.webm',
    uploadId: 'U1',
    partSize: PART,
    mimeType: 'video/webm;codecs=vp8,opus',
    lastSegment: 0,
    finished: false,
    parts: planned.map((p) => ({
      PartNumber: p.partNumber,
      size: p.size,
      ETag: p.partNumber === 1 ? '"local-1"' : null,
      ...partBounds(p),
    })),
  };
  await store.putMeta(meta);
  return { backend, store, meta };
}

describe('drainStoredRecording', () => {
  beforeEach(() => {
    api.endRecording.mockReset().mockResolvedValue({ size: 50, partCount: 7, movieStatus: '01' });
    api.getRecordingCredentials.mockReset();
    api.recoverRecording.mockReset();
  });

  it('sends only the parts storage lacks, completes with DELETE and clears the local copy', async () => {
    const { store, meta } = await storedRecording();
    const s3 = fakeS3();
    // The server holds parts 1 and 2 (2 was confirmed to S3 but never to the page).
    const result = await drainStoredRecording({
      store,
      meta,
      recovery: recovery([
        { PartNumber: 1, ETag: '"s3-1"', Size: PART },
        { PartNumber: 2, ETag: '"s3-2"', Size: PART },
      ]),
      s3Factory: s3.factory,
    });
    expect(result).toBe('completed');

    // Parts 1 and 2 not re-sent; 3 (planned) and 4–7 (cut from the stored chunks) sent, in order.
    expect(s3.sent.map((p) => p.PartNumber)).toEqual([3, 4, 5, 6, 7]);
    for (const p of s3.sent) {
      expect(p).toMatchObject({ Bucket: 'rec', Key: 'recordings/7/41-1.webm', UploadId: 'U1' });
      const start = (p.PartNumber - 1) * PART;
      expect(Array.from(p.Body)).toEqual(Array.from(all.subarray(start, start + PART)));
    }
    expect(s3.sent.at(-1)?.Body.byteLength).toBe(2);
    expect(s3.settings[0]).toMatchObject({ endpoint: 'http://127.0.0.1:9/s3', region: 'us-east-1' });

    // DELETE (end) once, for the record of the key, with every part.
    expect(api.endRecording).toHaveBeenCalledTimes(1);
    const [recordId, parts] = api.endRecording.mock.calls[0] as [number, { PartNumber: number }[]];
    expect(recordId).toBe(41);
    expect(parts.map((p) => p.PartNumber)).toEqual([1, 2, 3, 4, 5, 6, 7]);

    // Nothing of it left on the device.
    expect(await store.list(RK)).toEqual([]);
    expect(await store.getMeta(RK)).toBeUndefined();
    expect(await store.listMeta()).toEqual([]);
  });

  it('sends nothing when storage holds every part, and still ends and clears', async () => {
    const { store, meta } = await storedRecording();
    const finished: UploadMeta = { ...meta, finished: true };
    await store.putMeta(finished);
    const s3 = fakeS3();
    const held = [1, 2, 3].map((n) => ({ PartNumber: n, ETag: `"s3-${n}"`, Size: PART }));
    await expect(
      drainStoredRecording({ store, meta: finished, recovery: recovery(held), s3Factory: s3.factory }),
    ).resolves.toBe('completed');
    expect(s3.sent).toEqual([]);
    expect(api.endRecording).toHaveBeenCalledTimes(1);
    expect(await store.list(RK)).toEqual([]);
    expect(await store.getMeta(RK)).toBeUndefined();
  });

  it('only clears the local copy of a recording the server already completed', async () => {
    const { store, meta } = await storedRecording();
    const s3 = fakeS3();
    await expect(
      drainStoredRecording({ store, meta, recovery: recovery([], true), s3Factory: s3.factory }),
    ).resolves.toBe('completed');
    expect(s3.factory).not.toHaveBeenCalled();
    expect(api.endRecording).not.toHaveBeenCalled();
    expect(await store.list(RK)).toEqual([]);
    expect(await store.getMeta(RK)).toBeUndefined();
  });

  it('keeps the data when S3 refuses a part', async () => {
    const { store, meta } = await storedRecording();
    const failing = vi.fn(async (): Promise<S3PartClient> => ({
      uploadPart: () =>
        Promise.reject(
          Object.assign(new Error('Access Denied'), {
            name: 'AccessDenied',
            $metadata: { httpStatusCode: 403 },
          }),
        ),
    }));
    await expect(
      drainStoredRecording({ store, meta, recovery: recovery([]), s3Factory: failing }),
    ).rejects.toBeDefined();
    expect(api.endRecording).not.toHaveBeenCalled();
    expect((await store.list(RK)).length).toBe(CHUNKS);
    expect(await store.getMeta(RK)).toBeDefined();
  });
});
