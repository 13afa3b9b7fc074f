/**
 * One exam recording, end to end: record (recorder.ts) → store encrypted (chunk-store.ts) → cut 5 MiB parts
 * (rechunker.ts) → upload one at a time (uploader.ts). The page starts it with the recording credentials from
 * the server, stops it at the end, and tells the server to complete the upload with the returned parts
 * (spec §4 "Recording": start, parts upload, stop and finalise).
 */
import { logger } from '../../lib/logger';
import type { ChunkStore, UploadMeta } from './chunk-store';
import {
  bitratesFor,
  browserIsTypeSupported,
  chooseMimeType,
  timesliceFor,
  timesliceRuleFor,
  type IsTypeSupported,
} from './quality';
import {
  DEFAULT_PART_SIZE,
  createRechunker,
  deletableUpTo,
  resumeFeed,
  type ChunkRef,
  type PartLayout,
  type Rechunker,
} from './rechunker';
import { createRecorder, type Recorder, type RecorderEnvironment } from './recorder';
import { RECORDING_START_FAILED, type RecordingError, type RecordingErrorKey } from './recording-errors';
import type { Clock, GiveUpReason, RetryPolicy } from './retry-policy';
import {
  createUploader,
  type CompletedPart,
  type S3Credentials,
  type S3Factory,
  type UploadProgress,
  type Uploader,
} from './uploader';

/**
 * spec §3 "Recording credentials" as the client sees them, plus `endpoint` (the local S3 stand-in only) and
 * `region` (default ap-northeast-1, spec §9). `interval` is carried but not used here: its meaning is not
 * settled by the spec (see README).
 */
export interface RecordingCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
  bucket: string;
  key: string;
  uploadId: string;
  interval?: number;
  endpoint?: string;
  region?: string;
}

/** The upload credentials of a server's recording start (`tester/recording.php`, camelCase) as a session needs them. */
export function fromServerCredentials(c: RecordingCredentials & { region: string }): RecordingCredentials {
  const out: RecordingCredentials = {
    accessKeyId: c.accessKeyId,
    secretAccessKey: c.secretAccessKey,
    sessionToken: c.sessionToken,
    bucket: c.bucket,
    key: c.key,
    uploadId: c.uploadId,
    interval: c.interval,
    region: c.region,
  };
  if (c.endpoint) out.endpoint = c.endpoint;
  return out;
}

/** spec §9: the storage region. */
export const DEFAULT_REGION = 'ap-northeast-1';

/** The session's state for the UI, in precedence order: an error wins over everything. */
export type RecordingState = 'idle' | 'recording' | 'uploading' | 'waiting-network' | 'done' | 'error';

/** What the page shows: "recording", "uploading n of m", "waiting for the network", "done", an error. */
export interface RecordingStatus {
  state: RecordingState;
  /** True while a recorder runs (uploads also run in the background then). */
  recording: boolean;
  partsDone: number;
  partsTotal: number;
  /** Recorded bytes S3 has not confirmed yet (planned parts plus the unplanned tail). */
  bytesPending: number;
  /** The recorder's real MIME type, once known. */
  mimeType: string | null;
  /** In `error`: an i18n key (`recording:*`) and, for upload give-ups, the reason. */
  error?: { messageKey: RecordingErrorKey | 'recording:uploadFailed'; reason?: GiveUpReason };
}

/** The i18n key for an upload that stopped retrying; `reason` tells which (spec §8). */
export const RECORDING_UPLOAD_FAILED = 'recording:uploadFailed';

/** Session-wide settings. */
export interface RecordingSessionOptions {
  store: ChunkStore;
  /** Fetches the recording credentials again (GET tester/recording); used when S3 says ExpiredToken. */
  refreshCredentials(): Promise<RecordingCredentials>;
  onStatus?(status: RecordingStatus): void;
  /** Part size for new recordings (a resumed one keeps its stored size). Default 5,242,880 (spec §9). */
  partSize?: number;
  /**
   * Keep chunks until `complete()` instead of deleting them once their parts are confirmed. Safer against a
   * server that loses the upload, at the cost of holding the whole exam locally (~2.3 GB per hour).
   */
  retainUntilComplete?: boolean;
  /** How often a failed recorder is restarted as a new segment. Default 3. */
  maxRecorderRestarts?: number;
  s3Factory?: S3Factory;
  policy?: RetryPolicy;
  clock?: Clock;
  requestTimeoutMs?: number;
  isTypeSupported?: IsTypeSupported;
  recorderEnvironment?: RecorderEnvironment;
  /** Overrides the recorder's ask-for-data period (tests). */
  requestDataIntervalMs?: number;
}

/** What `start` needs from the examining page. */
export interface RecordingStartOptions {
  /** The camera (+ microphone) stream. */
  stream: MediaStream;
  /** From the server (spec §7 tester/recording). The same uploadId after a reload resumes. */
  credentials: RecordingCredentials;
  /** spec §3 `isVoiceRecording`: false leaves audio out of the recording. */
  voiceRecording: boolean;
  /** spec §3 `videoCodec`. */
  startupCodec?: string | null;
  /** spec §3 `videoRecordingPreference` (1–20). */
  videoLevel?: number | null;
  /** spec §3 `voiceQualityPreference` (1–10). */
  audioLevel?: number | null;
}

/** The result of `start`. */
export interface RecordingStarted {
  mimeType: string;
  /** True when stored state of the same upload was found (a reload): its unsent parts go first. */
  resumed: boolean;
  /** The segment this recorder writes (0 for a fresh recording). */
  segment: number;
  timesliceMs: number;
}

/** Unsent data, for "leaving with unsent data warns first". */
export interface PendingData {
  unsent: boolean;
  bytes: number;
  parts: number;
  recording: boolean;
}

/** One exam recording. */
export interface RecordingSession {
  /**
   * Starts recording (and resumes a stored upload with the same uploadId). Rejects with
   * `RecordingError('recording:startFailed')` when the recorder cannot start; uploads of resumed data go on.
   */
  start(options: RecordingStartOptions): Promise<RecordingStarted>;
  /**
   * Stops recording, cuts the last (small) part and waits until every part is confirmed. Resolves with the
   * parts for CompleteMultipartUpload, in order; rejects with `UploadGiveUpError` (data kept). Call again
   * after `retryUpload()`; the recorder is only stopped once.
   */
  stop(): Promise<CompletedPart[]>;
  /** After an upload give-up (e.g. `network-exhausted`): retry with fresh counts. */
  retryUpload(): void;
  pending(): PendingData;
  status(): RecordingStatus;
  /** After the server completed the upload: deletes the local chunks and meta. */
  complete(): Promise<void>;
  /** Tears down (logout, kick-out) without completing: stops the recorder and uploads, keeps the data. */
  dispose(): Promise<void>;
}

/** The chunk-store key of a recording: one per multipart upload. */
export function recordingKeyOf(c: Pick<RecordingCredentials, 'bucket' | 'key' | 'uploadId'>): string {
  return `${c.bucket}/${c.key}?uploadId=${c.uploadId}`;
}

function s3Credentials(c: RecordingCredentials): S3Credentials {
  const out: S3Credentials = { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey };
  if (c.sessionToken) out.sessionToken = c.sessionToken;
  return out;
}

function sizeKey(ref: ChunkRef): string {
  return `${ref.segment}/${ref.seq}`;
}

/** Creates a recording session. Nothing happens before `start`. */
export function createRecordingSession(options: RecordingSessionOptions): RecordingSession {
  const { store } = options;
  const maxRestarts = options.maxRecorderRestarts ?? 3;
  let recordingKey = '';
  let uploader: Uploader | null = null;
  let rechunker: Rechunker | null = null;
  let recorder: Recorder | null = null;
  let startOptions: RecordingStartOptions | null = null;
  let recorderSettings: { mimeType: string | null; timesliceMs: number } | null = null;
  let segment = 0;
  let restarts = 0;
  let restarting: Promise<void> | null = null;
  let chunkWork: Promise<void> = Promise.resolve();
  let recordingError: RecordingErrorKey | null = null;
  let stopped: Promise<void> | null = null;
  let disposed = false;
  let mimeType: string | null = null;
  const chunkSizes = new Map<string, number>();

  function status(): RecordingStatus {
    const p: UploadProgress = uploader?.progress() ?? {
      partsDone: 0,
      partsTotal: 0,
      bytesPending: 0,
      state: 'idle',
    };
    const s: RecordingStatus = {
      state: 'idle',
      recording: recorder !== null,
      partsDone: p.partsDone,
      partsTotal: p.partsTotal,
      bytesPending: p.bytesPending + (rechunker?.pendingBytes() ?? 0),
      mimeType,
    };
    if (recordingError) {
      s.state = 'error';
      s.error = { messageKey: recordingError };
    } else if (p.state === 'error') {
      s.state = 'error';
      s.error = { messageKey: RECORDING_UPLOAD_FAILED };
      if (p.reason) s.error.reason = p.reason;
    } else if (p.state === 'waiting-network') s.state = 'waiting-network';
    else if (recorder) s.state = 'recording';
    else if (p.state === 'uploading' || (stopped && p.partsDone < p.partsTotal)) s.state = 'uploading';
    else if (p.state === 'done') s.state = 'done';
    return s;
  }

  const emit = () => options.onStatus?.(status());

  async function enqueueAll(parts: PartLayout[]): Promise<void> {
    for (const part of parts) await uploader?.enqueue(part);
  }

  function onChunk(info: { segment: number; seq: number; size: number }): void {
    chunkSizes.set(sizeKey(info), info.size);
    chunkWork = chunkWork
      .then(() => enqueueAll(rechunker?.push(info) ?? []))
      .catch((err: unknown) => {
        logger.error('recording', 'planning a part failed', err instanceof Error ? err.message : String(err));
        recordingError = 'recording:storeFailed';
        emit();
      });
  }

  async function deleteConfirmed(meta: UploadMeta): Promise<void> {
    if (options.retainUntilComplete) return;
    const upTo = deletableUpTo(
      meta.parts,
      (p) => p.ETag !== null,
      (ref) => chunkSizes.get(sizeKey(ref)),
    );
    if (!upTo) return;
    try {
      await store.deleteUpTo(recordingKey, upTo.upTo, upTo.inclusive);
    } catch (err) {
      // Harmless: confirmed chunks left behind are deleted with the next part or by complete().
      logger.error('recording', 'deleting sent chunks failed', err instanceof Error ? err.message : '');
    }
  }

  async function startRecorder(seg: number): Promise<void> {
    if (!startOptions || !recorderSettings || !uploader) return;
    // Persist the segment first, so a crash during it makes the next run take seg + 1 (a new WebM header).
    await uploader.updateMeta({ lastSegment: seg });
    segment = seg;
    const bitrates = bitratesFor(startOptions);
    const started = await createRecorder({
      stream: startOptions.stream,
      mimeType: recorderSettings.mimeType,
      bitrates,
      timesliceMs: recorderSettings.timesliceMs,
      voiceRecording: startOptions.voiceRecording,
      store,
      recordingKey,
      segment: seg,
      onChunk,
      onError: (error) => onRecorderError(started, error),
      ...(options.recorderEnvironment ? { environment: options.recorderEnvironment } : {}),
      ...(options.requestDataIntervalMs ? { requestDataIntervalMs: options.requestDataIntervalMs } : {}),
    }).catch((err: unknown) => {
      recordingError = RECORDING_START_FAILED;
      emit();
      throw err;
    });
    if (stopped || disposed) {
      // stop() or dispose() ran while this recorder was starting: it must not outlive them.
      await started.stop();
      return;
    }
    recorder = started;
    mimeType = started.mimeType;
    await uploader.updateMeta({ mimeType });
    emit();
  }

  function onRecorderError(failed: Recorder, error: RecordingError): void {
    if (recorder !== failed || stopped || disposed) return;
    recorder = null;
    emit();
    // Set synchronously, so a stop() from now on waits for the restart instead of racing it.
    restarting = (async () => {
      await failed.stop().catch(() => undefined);
      await chunkWork;
      if (stopped || disposed) return;
      if (restarts >= maxRestarts) {
        recordingError = error.messageKey;
        emit();
        return;
      }
      restarts += 1;
      // A new segment rather than going on: the old WebM cluster may be cut mid-way (UP-1).
      await startRecorder(segment + 1).catch(() => undefined);
    })().finally(() => {
      restarting = null;
    });
  }

  return {
    async start(start) {
      if (startOptions) throw new Error('recording-session: already started');
      startOptions = start;
      const { credentials } = start;
      recordingKey = recordingKeyOf(credentials);
      const chunks = await store.list(recordingKey);
      for (const c of chunks) chunkSizes.set(sizeKey(c), c.size);
      const stored = await store.getMeta(recordingKey);
      const meta: UploadMeta = stored ?? {
        recordingKey,
        bucket: credentials.bucket,
        key: credentials.key,
        uploadId: credentials.uploadId,
        partSize: options.partSize ?? DEFAULT_PART_SIZE,
        mimeType: null,
        lastSegment: -1,
        finished: false,
        parts: [],
      };
      if (!stored) await store.putMeta(meta);
      mimeType = meta.mimeType;
      const maxStoredSegment = chunks.reduce((m, c) => Math.max(m, c.segment), -1);
      const nextSegment = Math.max(meta.lastSegment, maxStoredSegment) + 1;

      uploader = createUploader({
        region: credentials.region ?? DEFAULT_REGION,
        ...(credentials.endpoint ? { endpoint: credentials.endpoint } : {}),
        credentials: s3Credentials(credentials),
        getCredentials: async () => s3Credentials(await options.refreshCredentials()),
        ...(options.s3Factory ? { s3Factory: options.s3Factory } : {}),
        meta,
        store,
        onProgress: emit,
        onPartConfirmed: deleteConfirmed,
        ...(options.policy ? { policy: options.policy } : {}),
        ...(options.clock ? { clock: options.clock } : {}),
        ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}),
      });

      // Resume: parts planned before the reload go first, then the stored tail no part covers yet.
      const { nextPartNumber, feed } = resumeFeed(meta.parts, chunks);
      rechunker = createRechunker({ partSize: meta.partSize, nextPartNumber });
      if (!meta.finished) {
        for (const { chunk, startOffset } of feed) await enqueueAll(rechunker.push(chunk, startOffset));
      }
      uploader.start();

      const bitrates = bitratesFor(start);
      const timesliceMs = timesliceFor(bitrates, timesliceRuleFor(bitrates));
      const isTypeSupported = options.isTypeSupported ?? browserIsTypeSupported();
      // A resumed recording keeps its container so the segments concatenate into one file type.
      const chosen =
        meta.mimeType && isTypeSupported(meta.mimeType)
          ? meta.mimeType
          : chooseMimeType(start.startupCodec, isTypeSupported);
      recorderSettings = { mimeType: chosen, timesliceMs };

      if (meta.finished) {
        // Stopped before the reload: only the upload is left to finish.
        stopped = Promise.resolve();
        emit();
        return { mimeType: meta.mimeType ?? '', resumed: true, segment: meta.lastSegment, timesliceMs };
      }
      await startRecorder(nextSegment);
      return { mimeType: mimeType ?? '', resumed: stored !== undefined, segment, timesliceMs };
    },

    async stop() {
      if (!uploader) throw new Error('recording-session: not started');
      const up = uploader;
      stopped ??= (async () => {
        if (restarting) await restarting;
        const current = recorder;
        recorder = null;
        if (current) await current.stop();
        await chunkWork;
        const last = rechunker?.flush();
        if (last) await up.enqueue(last);
        await up.updateMeta({ finished: true });
        emit();
      })();
      await stopped;
      const parts = await up.drain();
      emit();
      return parts;
    },

    retryUpload() {
      uploader?.retry();
    },

    pending() {
      const s = status();
      return {
        unsent: s.bytesPending > 0,
        bytes: s.bytesPending,
        parts: s.partsTotal - s.partsDone,
        recording: s.recording,
      };
    },

    status,

    async complete() {
      uploader?.dispose();
      await store.clear(recordingKey);
    },

    async dispose() {
      if (disposed) return;
      disposed = true;
      if (restarting) await restarting;
      const current = recorder;
      recorder = null;
      await current?.stop().catch(() => undefined);
      await chunkWork;
      uploader?.dispose();
      emit();
    },
  };
}
