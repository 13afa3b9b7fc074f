/**
 * One MediaRecorder run (a "segment"): every chunk it produces is stored encrypted in the chunk store and
 * only then handed on. A recorder restarted after a failure starts a new segment with its own WebM header.
 */
import { logger } from '../../lib/logger';
import type { ChunkInfo, ChunkStore } from './chunk-store';
import type { Bitrates } from './quality';
import {
  RECORDING_FAILED,
  RECORDING_START_FAILED,
  RECORDING_STORE_FAILED,
  RecordingError,
} from './recording-errors';

/**
 * How often the recorder is asked for its data. With a 15 s timeslice a crash would lose up to 15 s;
 * asking every 5 s bounds the loss to about 5 s while parts still fill to 5 MiB (perf-reliability.md §3).
 */
export const REQUEST_DATA_INTERVAL_MS = 5000;

/** The browser constructors the recorder uses (tests pass fakes; jsdom has neither). */
export interface RecorderEnvironment {
  MediaRecorder: typeof MediaRecorder;
  MediaStream: typeof MediaStream;
}

/** What a recorder needs. */
export interface RecorderOptions {
  stream: MediaStream;
  /** From `chooseMimeType`; null lets the browser pick. */
  mimeType: string | null;
  bitrates: Bitrates;
  timesliceMs: number;
  /**
   * spec §3 `isVoiceRecording`. When false the audio tracks are left out of the recording. The live stream
   * to the proctor is untouched: this only decides what is stored.
   */
  voiceRecording: boolean;
  store: Pick<ChunkStore, 'put'>;
  recordingKey: string;
  /** The segment this run writes (0 for the first run; +1 after each restart). */
  segment: number;
  /** Called with each chunk after it is stored, in order. */
  onChunk(chunk: ChunkInfo): void;
  /** Failures after a successful start (`recording:failed`, `recording:storeFailed`). */
  onError(error: RecordingError): void;
  requestDataIntervalMs?: number;
  /** How long to wait for the `start` event before calling it a start failure. Default 5 s. */
  startTimeoutMs?: number;
  environment?: RecorderEnvironment;
}

/** A running segment recorder. */
export interface Recorder {
  /** The recorder's real MIME type (e.g. video/x-matroska for a webm/avc1 request): store this one. */
  readonly mimeType: string;
  readonly segment: number;
  /** Stops, waits for the last chunk to be stored and handed on. */
  stop(): Promise<void>;
}

function defaultEnvironment(): RecorderEnvironment {
  return { MediaRecorder: globalThis.MediaRecorder, MediaStream: globalThis.MediaStream };
}

/**
 * Starts recording `stream` into a new segment. Rejects with `RecordingError('recording:startFailed')`
 * when the recorder cannot be created or does not start (spec §8).
 */
export async function createRecorder(options: RecorderOptions): Promise<Recorder> {
  const env = options.environment ?? defaultEnvironment();
  const { recordingKey, segment } = options;
  let seq = 0;
  let chain: Promise<void> = Promise.resolve();
  let stopping = false;
  let failed = false;
  let storeBroken = false;
  let started = false;
  let interval: ReturnType<typeof setInterval> | undefined;

  let recorder: MediaRecorder;
  try {
    const tracks = options.voiceRecording ? options.stream.getTracks() : options.stream.getVideoTracks();
    const source = options.voiceRecording ? options.stream : new env.MediaStream(tracks);
    const init: MediaRecorderOptions = { videoBitsPerSecond: options.bitrates.videoBitsPerSecond };
    if (options.voiceRecording) init.audioBitsPerSecond = options.bitrates.audioBitsPerSecond;
    if (options.mimeType) init.mimeType = options.mimeType;
    recorder = new env.MediaRecorder(source, init);
  } catch (err) {
    throw new RecordingError(RECORDING_START_FAILED, { cause: err });
  }

  function fail(error: RecordingError): void {
    if (failed) return;
    failed = true;
    logger.error('recording', error.messageKey, error.cause instanceof Error ? error.cause.message : '');
    options.onError(error);
  }

  recorder.addEventListener('dataavailable', (event: BlobEvent) => {
    const blob = event.data;
    if (!blob || blob.size === 0) return;
    const n = seq;
    seq += 1;
    // Chained so chunks are stored and handed on in recording order, each before any upload sees it.
    chain = chain.then(async () => {
      // After a lost chunk the rest of this segment would follow a hole: drop it, the session restarts.
      if (storeBroken) return;
      try {
        const data = new Uint8Array(await blob.arrayBuffer());
        const info = await options.store.put({ recordingKey, segment, seq: n, data });
        options.onChunk(info);
      } catch (err) {
        storeBroken = true;
        fail(new RecordingError(RECORDING_STORE_FAILED, { cause: err }));
      }
    });
  });

  const stopped = new Promise<void>((resolve) => {
    recorder.addEventListener('stop', () => {
      clearInterval(interval);
      interval = undefined;
      // A stop we did not ask for: the track ended or the encoder gave up.
      if (started && !stopping) fail(new RecordingError(RECORDING_FAILED));
      resolve();
    });
  });

  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      reject(new RecordingError(RECORDING_START_FAILED, { cause: new Error('no start event') }));
    }, options.startTimeoutMs ?? 5000);
    recorder.addEventListener(
      'start',
      () => {
        clearTimeout(timer);
        started = true;
        resolve();
      },
      { once: true },
    );
    recorder.addEventListener('error', (event: Event) => {
      const cause = (event as Event & { error?: unknown }).error ?? event;
      if (!started) {
        clearTimeout(timer);
        reject(new RecordingError(RECORDING_START_FAILED, { cause }));
      } else {
        fail(new RecordingError(RECORDING_FAILED, { cause }));
      }
    });
    try {
      recorder.start(options.timesliceMs);
    } catch (err) {
      clearTimeout(timer);
      reject(new RecordingError(RECORDING_START_FAILED, { cause: err }));
    }
  }).catch((err: unknown) => {
    try {
      if (recorder.state !== 'inactive') recorder.stop();
    } catch {
      // Already unusable; the start failure is what the caller needs.
    }
    throw err;
  });

  interval = setInterval(() => {
    if (recorder.state === 'recording') {
      try {
        recorder.requestData();
      } catch {
        // The recorder is going away; its stop/error event reports it.
      }
    }
  }, options.requestDataIntervalMs ?? REQUEST_DATA_INTERVAL_MS);

  return {
    get mimeType() {
      return recorder.mimeType || options.mimeType || '';
    },
    segment,
    async stop() {
      stopping = true;
      clearInterval(interval);
      if (recorder.state !== 'inactive') {
        try {
          recorder.stop();
        } catch {
          // Already stopping; wait for its stop event below.
        }
      }
      await stopped;
      await chain;
    },
  };
}
