/**
 * What the recorded streams of one page share (spec §4 "Recording"): the device's chunk store, the
 * recordings an earlier page left on the device (resumed in the background), the warning before leaving
 * with unsent data, and the layout's upload counter. Each recorded stream is a {@link RecordingRuntime} of
 * this page; the page answers for all of them.
 */
import type { AppThunkDispatch, RootState } from '../../app/store';
import type { ChunkStore, UploadMeta } from '../../media/recording/chunk-store';
import type { UploadProgress } from '../../media/recording/uploader';
import { logger } from '../../lib/logger';
import { uploadFinished, uploadStarted } from '../layout/layout-slice';
import type * as RecordingMediaModule from './recording-media';
import { backlogChanged, selectRecording } from './recording-slice';
import type { StreamKind } from '@contract/constants/wider-view';

type RecordingMedia = typeof RecordingMediaModule;

/** What the page asks of each of its recorded streams. */
export interface RecordedStream {
  /** A session of this stream runs or still sends (the page warns before leaving). */
  holdsRecording(): boolean;
  /** Some of its recorded data is not confirmed by storage yet. */
  hasUnsent(): boolean;
  /** It is sending after its recorder stopped (the layout's upload alert shows). */
  isFinishing(): boolean;
  /** Logout or kick-out: stop recording and sending, keep the data on the device. */
  dispose(): Promise<void>;
}

export class RecordingPage {
  private mediaLoad: Promise<RecordingMedia> | null = null;
  private store: Promise<{ store: ChunkStore; durable: boolean }> | null = null;
  /** Keys of recordings a session of this page owns (never treated as backlog). */
  private readonly liveKeys = new Set<string>();
  private backlog: Promise<void> | null = null;
  private backlogAbort: AbortController | null = null;
  /** Bytes and parts of the backlog not confirmed yet. */
  private backlogPending = 0;
  private uploadCounterOn = false;
  private unloadGuard: ((e: BeforeUnloadEvent) => void) | null = null;
  private readonly streams: RecordedStream[] = [];

  /** Adds a recorded stream: the page's guard and counter answer for it from now on. */
  attach(stream: RecordedStream): void {
    this.streams.push(stream);
  }

  /**
   * The recording's media code (recording-media.ts), loaded once; also called ahead, when the examinee
   * agrees to the exam notes, so the exam's start does not wait for it. A failed load is tried again by the
   * next call.
   */
  media(): Promise<RecordingMedia> {
    this.mediaLoad ??= import('./recording-media').catch((e: unknown) => {
      this.mediaLoad = null;
      throw e;
    });
    return this.mediaLoad;
  }

  /** The device's chunk store, opened once. */
  chunkStore(): Promise<{ store: ChunkStore; durable: boolean }> {
    this.store ??= this.media()
      .then((m) => m.openChunkStore())
      .then(({ store, durable }) => ({ store: tapped(store), durable }));
    return this.store;
  }

  /** A session of this page records under `key` (the backlog leaves it alone). */
  own(key: string): void {
    this.liveKeys.add(key);
  }

  /** The session under `key` completed or was disposed. */
  release(key: string): void {
    this.liveKeys.delete(key);
  }

  /**
   * Sends every recording stored by an earlier page to the end, one after another, then completes it. Runs in
   * the background; this page's own sessions are left out. Returns the highest server segment seen of the
   * stream `kind` (segments are numbered per stream).
   */
  async resumeBacklog(
    dispatch: AppThunkDispatch,
    store: ChunkStore,
    kind: StreamKind = 'camera',
  ): Promise<number> {
    const { drainStoredRecording, recordOfKey, recoverStored } = await this.media();
    const maxSegment = (metas: UploadMeta[]) =>
      metas.reduce((m, meta) => {
        const r = recordOfKey(meta.key);
        return r && r.stream === kind ? Math.max(m, r.segment) : m;
      }, 0);
    let metas: UploadMeta[];
    try {
      metas = (await store.listMeta()).filter((m) => !this.liveKeys.has(m.recordingKey));
    } catch {
      return 0;
    }
    if (metas.length === 0 || this.backlog) return maxSegment(metas);
    const recoveries = [];
    for (const meta of metas) {
      try {
        const r = await recoverStored(meta);
        if (r) recoveries.push({ meta, recovery: r });
      } catch (e) {
        // Another tester's recording on a shared device (403) or the network: left for a later page.
        logger.debug('recording', 'recovery failed', e instanceof Error ? e.message : String(e));
      }
    }
    const top = recoveries.reduce(
      (m, r) => ((r.recovery.stream ?? 'camera') === kind ? Math.max(m, r.recovery.segment) : m),
      maxSegment(metas),
    );
    if (recoveries.length === 0) return top;
    const abort = new AbortController();
    this.backlogAbort = abort;
    const progress = new Map<string, UploadProgress>();
    const publish = () => {
      let done = 0;
      let total = 0;
      let bytes = 0;
      for (const p of progress.values()) {
        done += p.partsDone;
        total += p.partsTotal;
        bytes += p.bytesPending;
      }
      this.backlogPending = bytes + (total - done);
      dispatch(
        backlogChanged({
          partsDone: done,
          partsTotal: total,
          bytesPending: bytes,
          recordings: progress.size,
        }),
      );
    };
    this.backlog = (async () => {
      for (const { meta, recovery } of recoveries) {
        if (abort.signal.aborted) break;
        try {
          await drainStoredRecording({
            store,
            meta,
            recovery,
            signal: abort.signal,
            onProgress: (p) => {
              progress.set(meta.recordingKey, p);
              publish();
              this.syncUnloadGuard();
            },
          });
          progress.delete(meta.recordingKey);
        } catch (e) {
          logger.error(
            'recording',
            'resuming a stored recording failed',
            e instanceof Error ? e.message : '',
          );
          progress.delete(meta.recordingKey);
        }
        publish();
      }
    })().finally(() => {
      this.backlog = null;
      this.backlogAbort = null;
      this.backlogPending = 0;
      dispatch(backlogChanged({ partsDone: 0, partsTotal: 0, bytesPending: 0, recordings: 0 }));
      this.syncUnloadGuard();
    });
    this.syncUnloadGuard();
    return top;
  }

  /** spec: leaving with unsent data warns first. The guard is on while anything may still need sending. */
  syncUnloadGuard(): void {
    if (typeof window === 'undefined') return;
    const want = this.streams.some((s) => s.holdsRecording()) || this.backlogPending > 0;
    if (want && !this.unloadGuard) {
      this.unloadGuard = (e: BeforeUnloadEvent) => {
        if (!this.hasUnsent()) return;
        e.preventDefault();
        e.returnValue = '';
      };
      window.addEventListener('beforeunload', this.unloadGuard);
    } else if (!want && this.unloadGuard) {
      window.removeEventListener('beforeunload', this.unloadGuard);
      this.unloadGuard = null;
    }
  }

  /** The layout's upload alert shows while recorded data is sent after the recorder stopped (or a backlog). */
  syncUploadCounter(dispatch: AppThunkDispatch, state: RootState): void {
    const r = selectRecording(state);
    const afterStop =
      (!r.recorderRunning &&
        (r.phase === 'uploading' ||
          r.phase === 'waiting-network' ||
          this.streams.some((s) => s.isFinishing())) &&
        r.counts.partsDone < r.counts.partsTotal) ||
      // Another stream (a screen share that ended, a scan that is over) still sending what it recorded.
      Object.values(r.streams).some(
        (x) =>
          (x.phase === 'uploading' || x.phase === 'waiting-network') &&
          x.counts.partsDone < x.counts.partsTotal,
      );
    const want = afterStop || r.backlog.bytesPending > 0 || r.backlog.partsDone < r.backlog.partsTotal;
    if (want && !this.uploadCounterOn) {
      this.uploadCounterOn = true;
      dispatch(uploadStarted());
    } else if (!want && this.uploadCounterOn) {
      this.uploadCounterOn = false;
      dispatch(uploadFinished());
    }
  }

  /** Logout or kick-out: every stream stops recording and sending, the backlog stops; the data stays. */
  async dispose(): Promise<void> {
    const streams = Promise.all(this.streams.map((s) => s.dispose()));
    this.backlogAbort?.abort();
    await streams;
    this.syncUnloadGuard();
  }

  /** Whether any recording data of this page is still unsent. */
  private hasUnsent(): boolean {
    return this.backlogPending > 0 || this.streams.some((s) => s.hasUnsent());
  }
}

/**
 * Test hook: when an end-to-end test registered `window.__recordingChunkTap` (Playwright exposeFunction),
 * every chunk is reported once it is durable, so the test can compare the object with what was recorded.
 * Without that function this is the store itself.
 */
function tapped(store: ChunkStore): ChunkStore {
  const tap = (globalThis as { __recordingChunkTap?: (c: unknown) => unknown }).__recordingChunkTap;
  if (typeof tap !== 'function') return store;
  return {
    ...store,
    async put(chunk) {
      const info = await store.put(chunk);
      let bin = '';
      for (let i = 0; i < chunk.data.length; i += 0x8000)
        bin += String.fromCharCode(...chunk.data.subarray(i, i + 0x8000));
      void tap({ recordingKey: chunk.recordingKey, segment: chunk.segment, seq: chunk.seq, data: btoa(bin) });
      return info;
    },
  };
}
