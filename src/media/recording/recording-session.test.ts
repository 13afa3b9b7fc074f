import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createChunkStore, createMemoryBackend, type ChunkStore } from './chunk-store';
import {
  createRecordingSession,
  recordingKeyOf,
  type RecordingCredentials,
  type RecordingSessionOptions,
  type RecordingStatus,
} from './recording-session';
import type { S3ClientSettings, S3PartClient, UploadPartInput } from './uploader';
import { FakeMediaRecorder, fakeCameraStream, fakeEnvironment } from './test-fakes';

const CREDS: RecordingCredentials = {
  accessKeyId: 'ASIA1',
  secretAccessKey: 'secret',
  sessionToken: 'token',
  bucket: 'rec',
  key: 'exam/7/cam.webm',
  uploadId: 'U7',
  interval: 15,
  endpoint: 'http://127.0.0.1:8080/s3',
};

/** An S3 that keeps the bytes of every part; `offline` makes every call fail like a dropped network. */
function fakeS3() {
  const parts = new Map<number, Uint8Array>();
  const calls: UploadPartInput[] = [];
  const settings: S3ClientSettings[] = [];
  const s3 = {
    offline: false,
    parts,
    calls,
    settings,
    factory: async (s: S3ClientSettings): Promise<S3PartClient> => {
      settings.push(s);
      return {
        async uploadPart(input) {
          calls.push(input);
          if (s3.offline) throw new TypeError('Failed to fetch');
          parts.set(input.PartNumber, new Uint8Array(input.Body));
          return { ETag: `"e${input.PartNumber}"` };
        },
      };
    },
    /** The object S3 would assemble from the parts, in part order. */
    object(): Uint8Array {
      const sorted = [...parts.entries()].sort((a, b) => a[0] - b[0]).map(([, b]) => b);
      return Uint8Array.from(sorted.flatMap((b) => [...b]));
    },
  };
  return s3;
}

function bytes(n: number, seed: number): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (seed * 31 + i) % 256);
}

const recorderNow = () => FakeMediaRecorder.instances.at(-1) as FakeMediaRecorder;

describe('createRecordingSession', () => {
  let store: ChunkStore;
  let s3: ReturnType<typeof fakeS3>;
  let statuses: RecordingStatus[];

  function session(overrides: Partial<RecordingSessionOptions> = {}) {
    return createRecordingSession({
      store,
      refreshCredentials: async () => CREDS,
      onStatus: (s) => statuses.push(s),
      partSize: 10,
      s3Factory: s3.factory,
      recorderEnvironment: fakeEnvironment(),
      isTypeSupported: (t) => t.startsWith('video/webm'),
      ...overrides,
    });
  }

  beforeEach(() => {
    FakeMediaRecorder.instances = [];
    store = createChunkStore(createMemoryBackend(), { storage: undefined });
    s3 = fakeS3();
    statuses = [];
  });

  it('records, cuts exact parts, uploads them, and returns the parts on stop', async () => {
    const rec = session();
    const started = await rec.start({ stream: fakeCameraStream(), credentials: CREDS, voiceRecording: true });
    expect(started).toEqual({
      mimeType: 'video/webm;codecs=vp9,opus',
      resumed: false,
      segment: 0,
      timesliceMs: 15_000,
    });
    expect(rec.status().state).toBe('recording');

    const sent = [bytes(7, 1), bytes(7, 2), bytes(12, 3)];
    for (const b of sent) recorderNow().emit(b);
    recorderNow().finalChunk = bytes(3, 4);
    await vi.waitFor(() => expect(s3.parts.size).toBe(2));
    // The S3 client is built on the first upload, from the recording credentials.
    expect(s3.settings[0]).toEqual({
      region: 'ap-northeast-1',
      endpoint: 'http://127.0.0.1:8080/s3',
      credentials: { accessKeyId: 'ASIA1', secretAccessKey: 'secret', sessionToken: 'token' },
    });
    expect(rec.pending()).toMatchObject({ unsent: true, recording: true });

    const parts = await rec.stop();
    expect(parts).toEqual([
      { PartNumber: 1, ETag: '"e1"' },
      { PartNumber: 2, ETag: '"e2"' },
      { PartNumber: 3, ETag: '"e3"' },
    ]);
    expect([...s3.parts.values()].map((b) => b.byteLength)).toEqual([10, 10, 9]);
    expect(s3.object()).toEqual(Uint8Array.from([...sent, bytes(3, 4)].flatMap((b) => [...b])));
    expect(rec.status()).toMatchObject({ state: 'done', recording: false, partsDone: 3, partsTotal: 3 });
    expect(rec.pending()).toEqual({ unsent: false, bytes: 0, parts: 0, recording: false });
    expect(statuses.map((s) => s.state)).toContain('recording');
    // Every chunk is covered by confirmed parts, so the local buffer is empty.
    expect(await store.list(recordingKeyOf(CREDS))).toEqual([]);

    await rec.complete();
    expect(await store.getMeta(recordingKeyOf(CREDS))).toBeUndefined();
  });

  it('uses the level bitrates and the alternate timeslice, and drops audio without voice recording', async () => {
    const rec = session();
    const started = await rec.start({
      stream: fakeCameraStream(),
      credentials: CREDS,
      voiceRecording: false,
      videoLevel: 3,
      audioLevel: 5,
      startupCodec: 'vp8',
    });
    expect(started.mimeType).toBe('video/webm;codecs=vp8,opus');
    expect(started.timesliceMs).toBe(Math.round((75_497_472 / (5_000_000 + 122_222)) * 1000));
    expect(recorderNow().options).toEqual({
      mimeType: 'video/webm;codecs=vp8,opus',
      videoBitsPerSecond: 5_000_000,
    });
    await rec.stop();
  });

  it('resumes after a reload: a new segment, only unconfirmed bytes re-sent, nothing lost', async () => {
    const first = session();
    await first.start({ stream: fakeCameraStream(), credentials: CREDS, voiceRecording: true });
    recorderNow().emit(bytes(10, 1));
    await vi.waitFor(() => expect(s3.parts.size).toBe(1));
    s3.offline = true;
    recorderNow().emit(bytes(8, 2));
    recorderNow().emit(bytes(8, 3));
    await vi.waitFor(() => expect(s3.calls.length).toBeGreaterThan(1));
    // The tab dies: no stop(), the recorder's last bytes never arrive.
    await first.dispose();

    s3.offline = false;
    const callsBefore = s3.calls.length;
    const second = session();
    const started = await second.start({
      stream: fakeCameraStream(),
      credentials: CREDS,
      voiceRecording: true,
    });
    expect(started).toMatchObject({ resumed: true, segment: 1 });
    recorderNow().emit(bytes(5, 4));
    const parts = await second.stop();

    expect(parts.map((p) => p.PartNumber)).toEqual([1, 2, 3, 4]);
    // Part 1 was confirmed before the reload and is not sent again.
    expect(s3.calls.slice(callsBefore).map((c) => c.PartNumber)).toEqual([2, 3, 4]);
    const all = [bytes(10, 1), bytes(8, 2), bytes(8, 3), bytes(5, 4)];
    expect(s3.object()).toEqual(Uint8Array.from(all.flatMap((b) => [...b])));
    expect((await store.getMeta(recordingKeyOf(CREDS)))?.lastSegment).toBe(1);
  });

  it('restarts a failed recorder as the next segment of the same recording', async () => {
    const rec = session();
    await rec.start({ stream: fakeCameraStream(), credentials: CREDS, voiceRecording: true });
    recorderNow().emit(bytes(6, 1));
    const crashed = recorderNow();
    crashed.crash();
    await vi.waitFor(() => expect(FakeMediaRecorder.instances).toHaveLength(2));
    await vi.waitFor(() => expect(rec.status().recording).toBe(true));
    recorderNow().emit(bytes(6, 2));
    await rec.stop();
    const chunksSeen = s3.object();
    expect(chunksSeen).toEqual(Uint8Array.from([...bytes(6, 1), ...bytes(6, 2)]));
    expect((await store.getMeta(recordingKeyOf(CREDS)))?.lastSegment).toBe(1);
    expect(rec.status().state).toBe('done');
  });

  it('reports a start failure with the recording:startFailed key', async () => {
    FakeMediaRecorder.nextFaults = { throwOnConstruct: true };
    const rec = session();
    await expect(
      rec.start({ stream: fakeCameraStream(), credentials: CREDS, voiceRecording: true }),
    ).rejects.toMatchObject({ messageKey: 'recording:startFailed' });
    expect(rec.status()).toMatchObject({ state: 'error', error: { messageKey: 'recording:startFailed' } });
  });

  it('reports an upload give-up with its reason and finishes after retryUpload', async () => {
    const notFound = Object.assign(new Error('NoSuchUpload'), {
      name: 'NoSuchUpload',
      $metadata: { httpStatusCode: 404 },
    });
    let fail = true;
    const rec = session({
      s3Factory: async (s) => {
        const inner = await s3.factory(s);
        return {
          uploadPart: (input, o) => (fail ? Promise.reject(notFound) : inner.uploadPart(input, o)),
        };
      },
    });
    await rec.start({ stream: fakeCameraStream(), credentials: CREDS, voiceRecording: true });
    recorderNow().emit(bytes(4, 1));
    await expect(rec.stop()).rejects.toMatchObject({ reason: 'rejected' });
    expect(rec.status()).toMatchObject({
      state: 'error',
      error: { messageKey: 'recording:uploadFailed', reason: 'rejected' },
    });
    expect(rec.pending()).toMatchObject({ unsent: true, bytes: 4, parts: 1 });

    fail = false;
    rec.retryUpload();
    await expect(rec.stop()).resolves.toEqual([{ PartNumber: 1, ETag: '"e1"' }]);
    expect(FakeMediaRecorder.instances).toHaveLength(1);
  });

  it('returns no parts for an empty recording', async () => {
    const rec = session();
    await rec.start({ stream: fakeCameraStream(), credentials: CREDS, voiceRecording: true });
    await expect(rec.stop()).resolves.toEqual([]);
  });
  it('gives up restarting after repeated store failures and keeps the error key', async () => {
    const broken: ChunkStore = {
      ...store,
      put: () => Promise.reject(new DOMException('full', 'QuotaExceededError')),
    };
    store = broken;
    const rec = session({ maxRecorderRestarts: 2 });
    await rec.start({ stream: fakeCameraStream(), credentials: CREDS, voiceRecording: true });
    for (let i = 0; i < 3; i++) {
      await vi.waitFor(() => expect(FakeMediaRecorder.instances).toHaveLength(i + 1));
      await vi.waitFor(() => expect(rec.status().recording).toBe(true));
      recorderNow().emit(bytes(3, i));
    }
    await vi.waitFor(() => expect(rec.status().state).toBe('error'));
    expect(rec.status().error).toEqual({ messageKey: 'recording:storeFailed' });
    expect(FakeMediaRecorder.instances).toHaveLength(3);
  });

  it('keeps the stored data on dispose', async () => {
    const rec = session();
    await rec.start({ stream: fakeCameraStream(), credentials: CREDS, voiceRecording: true });
    s3.offline = true;
    recorderNow().emit(bytes(4, 1));
    await vi.waitFor(() => expect(s3.calls.length).toBe(0));
    await rec.dispose();
    expect(recorderNow().state).toBe('inactive');
    expect((await store.list(recordingKeyOf(CREDS))).map((c) => c.size)).toEqual([4]);
    expect(await store.getMeta(recordingKeyOf(CREDS))).toMatchObject({ finished: false, lastSegment: 0 });
  });
});
