import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createChunkStore, createMemoryBackend, type ChunkInfo, type ChunkStore } from './chunk-store';
import { bitratesFor } from './quality';
import { createRecorder, type RecorderOptions } from './recorder';
import { RECORDING_START_FAILED, RecordingError } from './recording-errors';
import { FakeMediaRecorder, type FakeMediaStream, fakeCameraStream, fakeEnvironment } from './test-fakes';

const RK = 'rec/k?uploadId=U';

function options(store: ChunkStore, overrides: Partial<RecorderOptions> = {}) {
  const chunks: ChunkInfo[] = [];
  const errors: RecordingError[] = [];
  const opts: RecorderOptions = {
    stream: fakeCameraStream(),
    mimeType: 'video/webm;codecs=vp9,opus',
    bitrates: bitratesFor({}),
    timesliceMs: 15_000,
    voiceRecording: true,
    store,
    recordingKey: RK,
    segment: 0,
    onChunk: (c) => chunks.push(c),
    onError: (e) => errors.push(e),
    environment: fakeEnvironment(),
    ...overrides,
  };
  return { opts, chunks, errors };
}

const last = () => FakeMediaRecorder.instances.at(-1) as FakeMediaRecorder;

describe('createRecorder', () => {
  let store: ChunkStore;
  beforeEach(() => {
    FakeMediaRecorder.instances = [];
    store = createChunkStore(createMemoryBackend(), { storage: undefined });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('records with the chosen type, bitrates and timeslice, and reports the real MIME type', async () => {
    FakeMediaRecorder.nextFaults = { reportedMimeType: 'video/x-matroska;codecs=avc1,opus' };
    const { opts } = options(store, { mimeType: 'video/webm;codecs=avc1,opus' });
    const rec = await createRecorder(opts);
    expect(last().options).toEqual({
      mimeType: 'video/webm;codecs=avc1,opus',
      videoBitsPerSecond: 5_000_000,
      audioBitsPerSecond: 128_000,
    });
    expect(last().timeslice).toBe(15_000);
    expect(last().stream).toBe(opts.stream);
    expect(rec.mimeType).toBe('video/x-matroska;codecs=avc1,opus');
    await rec.stop();
  });

  it('leaves audio out when voice recording is off', async () => {
    const { opts } = options(store, { voiceRecording: false });
    const rec = await createRecorder(opts);
    const recorded = last().stream as FakeMediaStream;
    expect(recorded).not.toBe(opts.stream);
    expect(recorded.getTracks().map((t) => t.kind)).toEqual(['video']);
    expect(last().options.audioBitsPerSecond).toBeUndefined();
    await rec.stop();
  });

  it('stores each chunk encrypted before handing it on, in order', async () => {
    const seen: Array<{ info: ChunkInfo; storedAlready: boolean }> = [];
    const { opts } = options(store, {
      segment: 2,
      onChunk: (info) => {
        void store
          .list(RK)
          .then((l) => seen.push({ info, storedAlready: l.some((c) => c.seq === info.seq) }));
      },
    });
    const rec = await createRecorder(opts);
    last().emit(new Uint8Array([1, 2, 3]));
    last().emit(new Uint8Array(0));
    last().emit(new Uint8Array([4, 5]));
    last().finalChunk = new Uint8Array([6]);
    await rec.stop();
    await vi.waitFor(() => expect(seen).toHaveLength(3));
    expect(seen.map((s) => [s.info.segment, s.info.seq, s.info.size, s.storedAlready])).toEqual([
      [2, 0, 3, true],
      [2, 1, 2, true],
      [2, 2, 1, true],
    ]);
    expect(await store.readPlain(RK, { segment: 2, seq: 1 })).toEqual(new Uint8Array([4, 5]));
  });

  it('asks for data every 5 s while recording', async () => {
    vi.useFakeTimers();
    const { opts } = options(store);
    const rec = await createRecorder(opts);
    await vi.advanceTimersByTimeAsync(15_000);
    expect(last().requestDataCalls).toBe(3);
    const stopping = rec.stop();
    await vi.advanceTimersByTimeAsync(10_000);
    await stopping;
    expect(last().requestDataCalls).toBe(3);
  });

  it.each([
    ['the constructor throws', { throwOnConstruct: true }],
    ['start() throws', { throwOnStart: true }],
    ['an error comes before start', { errorOnStart: true }],
  ])('fails with recording:startFailed when %s', async (_, faults) => {
    FakeMediaRecorder.nextFaults = faults;
    const { opts } = options(store);
    const err = await createRecorder(opts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RecordingError);
    expect((err as RecordingError).messageKey).toBe(RECORDING_START_FAILED);
    expect(RECORDING_START_FAILED).toBe('recording:startFailed');
  });

  it('fails with recording:startFailed when start never comes', async () => {
    vi.useFakeTimers();
    FakeMediaRecorder.nextFaults = { silentStart: true };
    const { opts } = options(store);
    const started = createRecorder(opts);
    const failed = expect(started).rejects.toMatchObject({ messageKey: 'recording:startFailed' });
    await vi.advanceTimersByTimeAsync(5000);
    await failed;
  });

  it('reports a recorder that stops by itself as recording:failed', async () => {
    const { opts, errors } = options(store);
    await createRecorder(opts);
    last().crash();
    expect(errors.map((e) => e.messageKey)).toEqual(['recording:failed']);
  });

  it('reports a chunk that cannot be stored as recording:storeFailed', async () => {
    const full = { put: () => Promise.reject(new DOMException('full', 'QuotaExceededError')) };
    const { opts, errors, chunks } = options(store, { store: full });
    const rec = await createRecorder(opts);
    last().emit(new Uint8Array([1]));
    await rec.stop();
    expect(chunks).toEqual([]);
    expect(errors.map((e) => e.messageKey)).toEqual(['recording:storeFailed']);
  });
});
