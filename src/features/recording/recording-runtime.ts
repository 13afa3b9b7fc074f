/**
 * The recording of one stream of the exam (spec §4 "Recording"), as one object with an explicit lifecycle:
 * `start` (server start, recorder, uploads), `finish` (stop, send the rest, complete with DELETE), `dispose`
 * (logout or kick-out: stop, keep the data on the device) and `retryUpload`. Its state is its fields; the
 * store holds only ids and counts. The listeners (recording-listeners.ts) only decide when to call it; it
 * loads with the first recording (recording-machinery.ts).
 */
import { isApiError, NETWORK_ERROR_STATUS } from '../../api/api-error';
import {
  endRecording,
  getRecordingCredentials,
  startRecording,
  type RecordingCredentials as ServerCredentials,
} from '../../api/recording';
import {
  RECORDING_START_FAILED,
  RecordingError,
  type RecordingErrorKey as LibraryErrorKey,
} from '../../media/recording/recording-errors';
import type { RecordingSession, RecordingStatus } from '../../media/recording/recording-session';
import { getStream, onStreamChange } from '../../media/stream-registry';
import { logger } from '../../lib/logger';
import { loggedOut } from '../session/session-slice';
import type { RecordedStream, RecordingPage } from './recording-page';
import { alert, recordSettings, reporterOf, type RecordingEffects, type Reporter } from './recording-report';
import { uploadRetryRequested, type RecordingErrorKey, type RecordingStatusReport } from './recording-slice';
import type { StreamKind } from '@contract/constants/wider-view';
import { selectTester } from '@/features/tester/tester-slice';

/** How long the start waits for the camera stream the live channel acquires. */
export const STREAM_WAIT_MS = 20_000;
/** Delay between attempts of a start or an end that failed on the network (or a 503). */
export const SERVER_RETRY_MS = 2_000;
/** Attempts at completing (DELETE) before the error state. */
export const END_ATTEMPTS = 30;

export interface RecordingRuntimeOptions {
  /** The stream-registry id of the recorded stream. */
  streamId: string;
  /**
   * What it records (README "The wider view"): the camera (default: the spec's recording, shown on the exam
   * page, the recording-time limit), or the screen or the room scan, each its own series of recordings.
   */
  stream?: StreamKind;
}

/** A running recording: the session and the server's record. */
interface Active {
  session: RecordingSession;
  recordId: number;
  recordingKey: string;
  stopping: boolean;
}

// A start or an end that failed on the network or on a busy server (503) is tried again.
const isNetwork = (e: unknown) => isApiError(e) && (e.status === NETWORK_ERROR_STATUS || e.status === 503);

export class RecordingRuntime implements RecordedStream {
  private active: Active | null = null;
  private starting: Promise<void> | null = null;
  /** Sessions still sending after stop (exam end) by record id. */
  private readonly finishing = new Map<number, Active>();
  /** Bumped by every dispose (logout, kick-out): a start still running then gives up. */
  private generation = 0;
  /** A finish was asked while the start still retries (an extra stream stops retrying then). */
  private finishAsked = false;
  private readonly kind: StreamKind;
  private readonly out: Reporter;

  constructor(
    private readonly page: RecordingPage,
    private readonly options: RecordingRuntimeOptions,
  ) {
    this.kind = options.stream ?? 'camera';
    this.out = reporterOf(this.kind);
    page.attach(this);
  }

  /** The server's record of the recording running now, or null. */
  recordId(): number | null {
    return this.active?.recordId ?? null;
  }

  /** Starts the recording (once): a call while one runs or starts waits for that start. */
  start(api: RecordingEffects): Promise<void> {
    if (this.active || this.starting) return this.starting ?? Promise.resolve();
    this.finishAsked = false;
    this.starting = this.runStart(api).finally(() => {
      this.starting = null;
    });
    return this.starting;
  }

  /** Stops the recorder, waits for every part and completes the recording on the server. */
  async finish(api: RecordingEffects): Promise<void> {
    this.finishAsked = true;
    if (this.starting) await this.starting;
    const active = this.active;
    if (!active || active.stopping) return;
    active.stopping = true;
    this.active = null;
    this.finishing.set(active.recordId, active);
    const { dispatch } = api;
    try {
      // Loaded already: the recording started with it.
      const { UploadGiveUpError } = await this.page.media();
      let parts;
      for (;;) {
        try {
          parts = await active.session.stop();
          break;
        } catch (e) {
          if (!(e instanceof UploadGiveUpError)) throw e;
          // spec §8: keep the data and tell the user; a retry starts with fresh counts.
          this.out.failed(dispatch, 'recording:uploadFailed', e.reason);
          const [retry] = await api.take((a) => uploadRetryRequested.match(a) || loggedOut.match(a));
          if (!uploadRetryRequested.match(retry)) return;
          active.session.retryUpload();
        }
      }
      if (parts.length > 0) {
        for (let attempt = 1; ; attempt++) {
          try {
            await endRecording(active.recordId, parts);
            break;
          } catch (e) {
            if (!isNetwork(e) || attempt >= END_ATTEMPTS) throw e;
            await api.delay(SERVER_RETRY_MS);
          }
        }
      }
      await active.session.complete();
      this.page.release(active.recordingKey);
      this.out.completed(dispatch);
    } catch (e) {
      logger.error('recording', 'finishing the recording failed', e instanceof Error ? e.message : String(e));
      // Disposed by a logout meanwhile: the data stays for a later page, nothing to show.
      if (this.finishing.has(active.recordId)) this.out.failed(dispatch, 'recording:uploadFailed');
    } finally {
      this.finishing.delete(active.recordId);
      this.page.syncUnloadGuard();
    }
  }

  /** Logout or kick-out: stop recording and sending, keep the data on the device for a later page. */
  async dispose(): Promise<void> {
    const sessions = [this.active, ...this.finishing.values()].filter((a): a is Active => a !== null);
    this.generation += 1;
    this.active = null;
    this.finishing.clear();
    await Promise.all(sessions.map((a) => a.session.dispose().catch(() => undefined)));
    for (const a of sessions) this.page.release(a.recordingKey);
  }

  /** The examinee asked for a retry after the uploads gave up during the exam (finishing waits for its own). */
  retryUpload(): void {
    this.active?.session.retryUpload();
  }

  holdsRecording(): boolean {
    return this.active !== null || this.finishing.size > 0;
  }

  hasUnsent(): boolean {
    return [this.active, ...this.finishing.values()].some((a) => a !== null && a.session.pending().unsent);
  }

  isFinishing(): boolean {
    return this.finishing.size > 0;
  }

  private async runStart(api: RecordingEffects): Promise<void> {
    const { dispatch } = api;
    const generation = this.generation;
    try {
      const settings = await recordSettings(api.getState(), this.kind);
      if (!settings.isRecord) return;
      this.out.starting(dispatch);
      const {
        browserIsTypeSupported,
        chooseMimeType,
        createRecordingSession,
        fromServerCredentials: toSessionCredentials,
        recordingKeyOf,
      } = await this.page.media();
      const stream = await waitForStream(this.options.streamId, STREAM_WAIT_MS);
      const video = stream?.getVideoTracks().some((t) => t.readyState !== 'ended') ?? false;
      const audio = stream?.getAudioTracks().some((t) => t.readyState !== 'ended') ?? false;
      // spec §8: camera or microphone unavailable → allow false.
      this.out.deviceChecked(dispatch, video && (audio || !settings.voiceRecording));
      if (!stream || !video) {
        this.out.failed(dispatch, RECORDING_START_FAILED);
        if (this.kind === 'camera') await alert(dispatch, RECORDING_START_FAILED);
        return;
      }
      const { store, durable } = await this.page.chunkStore();
      void store.persist().catch(() => false);
      const lastSegment = await this.page.resumeBacklog(dispatch, store, this.kind);
      const mimeType = chooseMimeType(settings.startupCodec, browserIsTypeSupported()) ?? 'video/webm';

      let creds: ServerCredentials | null = null;
      for (let attempt = 0; !creds; attempt++) {
        if (attempt > 0 && !this.keepTrying(api)) return;
        try {
          creds = await startRecording(mimeType, lastSegment > 0 ? lastSegment + 1 : undefined, this.kind);
        } catch (e) {
          if (isApiError(e) && e.status === 409 && lastSegment > 0 && attempt === 0) {
            // That segment is taken (completed): let the server pick the next free one.
            creds = await startRecording(mimeType, undefined, this.kind).catch(() => null);
            if (creds) break;
          }
          if (!isNetwork(e)) throw e;
          await api.delay(SERVER_RETRY_MS);
        }
      }
      if (generation !== this.generation) return;
      const server = creds;
      const credentials = toSessionCredentials(server);
      const recordingKey = recordingKeyOf(credentials);
      this.page.own(recordingKey);
      const session = createRecordingSession({
        store,
        partSize: server.partSize,
        refreshCredentials: async () => toSessionCredentials(await getRecordingCredentials(server.recordId)),
        onStatus: (s) => {
          this.out.status(dispatch, report(s));
          this.page.syncUnloadGuard();
        },
      });
      const active: Active = { session, recordId: server.recordId, recordingKey, stopping: false };
      this.active = active;
      this.page.syncUnloadGuard();
      const started = await session.start({
        stream,
        credentials,
        voiceRecording: settings.voiceRecording && audio,
        startupCodec: settings.startupCodec,
        videoLevel: settings.videoLevel,
        audioLevel: settings.audioLevel,
      });
      if (generation !== this.generation) {
        // Logged out or kicked while starting: the recorder must not outlive the session.
        if (this.active === active) this.active = null;
        await session.dispose();
        return;
      }
      this.out.started(dispatch, {
        recordId: server.recordId,
        segment: server.segment,
        mimeType: started.mimeType,
        durable,
      });
    } catch (e) {
      const key: RecordingErrorKey =
        e instanceof RecordingError ? (e.messageKey as RecordingErrorKey) : RECORDING_START_FAILED;
      logger.error('recording', 'the recording did not start', e instanceof Error ? e.message : String(e));
      const failed = this.active;
      if (failed) {
        this.active = null;
        await failed.session.dispose().catch(() => undefined);
      }
      this.out.failed(dispatch, key);
      this.page.syncUnloadGuard();
      if (this.kind === 'camera') await alert(dispatch, key);
    }
  }

  /**
   * Whether a start that failed on the network tries again: the camera while the exam runs, another stream
   * until it is asked to finish (the share ended, the scan is over) or its stream is gone.
   */
  private keepTrying(api: RecordingEffects): boolean {
    if (this.kind === 'camera') {
      const phase = selectTester(api.getState()).examPhase;
      return phase === 'examing' || phase === 'interrupted';
    }
    return !this.finishAsked && getStream(this.options.streamId) !== null;
  }
}

function report(s: RecordingStatus): RecordingStatusReport {
  const r: RecordingStatusReport = {
    state: s.state,
    recording: s.recording,
    partsDone: s.partsDone,
    partsTotal: s.partsTotal,
    bytesPending: s.bytesPending,
    mimeType: s.mimeType,
  };
  if (s.error) {
    r.errorKey = s.error.messageKey as LibraryErrorKey | 'recording:uploadFailed';
    if (s.error.reason) r.errorReason = s.error.reason;
  }
  return r;
}

/** Waits for the stream registered under `id` (the live channel acquires the camera), or null after `ms`. */
function waitForStream(id: string, ms: number): Promise<MediaStream | null> {
  const now = getStream(id);
  if (now) return Promise.resolve(now);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      off();
      resolve(null);
    }, ms);
    const off = onStreamChange((changed) => {
      const s = changed === id ? getStream(changed) : null;
      if (!s) return;
      clearTimeout(timer);
      off();
      resolve(s);
    });
  });
}
