/**
 * Recording effects (issue #5, spec §4 "Recording"): start the recorder when the exam starts (tester phase
 * `examing`, or `examRecordingRequested`), stop, send the rest and complete (DELETE) when it ends, dispose on
 * logout or kick-out, resume stored recordings after a reload or crash, drive the layout's upload counter,
 * and warn before leaving with unsent data.
 */
import type { ListenerEffectAPI } from '@reduxjs/toolkit';
import type { AppStartListening, ListenerDispatch } from '../../app/listener';
import type { RootState } from '../../app/store';
import { isApiError, NETWORK_ERROR_STATUS } from '../../api/api-error';
import {
  endRecording,
  getRecordingCredentials,
  startRecording,
  type RecordingCredentials as ServerCredentials,
} from '../../api/recording';
import { getTesterDetail } from '../../api/tester';
import { openChunkStore, type ChunkStore, type UploadMeta } from '../../media/recording/chunk-store';
import { browserIsTypeSupported, chooseMimeType } from '../../media/recording/quality';
import {
  RECORDING_START_FAILED,
  RecordingError,
  type RecordingErrorKey as LibraryErrorKey,
} from '../../media/recording/recorder';
import {
  createRecordingSession,
  recordingKeyOf,
  type RecordingCredentials,
  type RecordingSession,
  type RecordingStatus,
} from '../../media/recording/recording-session';
import { UploadGiveUpError } from '../../media/recording/retry-policy';
import type { UploadProgress } from '../../media/recording/uploader';
import { LOCAL_STREAM_ID, getStream, onStreamChange } from '../../media/stream-registry';
import { logger } from '../../lib/logger';
import { showAlert } from '../layout/layout-thunks';
import { uploadFinished, uploadStarted } from '../layout/layout-slice';
import type { AppDispatch } from '../../app/store';
import { loggedOut } from '../session/session-slice';
import { examPhaseChanged, sittingClosing, testerStateChanged } from '../tester/tester-slice';
import { TESTER_STATUS } from '../../../contract/constants/tester';
import { recordingDeadlineFrom } from '../tester/tester-thunks';
import { drainStoredRecording, recordOfKey, recoverStored } from './recording-backlog';
import {
  backlogChanged,
  deviceChecked,
  examRecordingRequested,
  examRecordingStopRequested,
  recordingCompleted,
  recordingDisposed,
  recordingFailed,
  recordingStarted,
  recordingStarting,
  recordingStatusChanged,
  uploadRetryRequested,
  type RecordingErrorKey,
  type RecordingStatusReport,
} from './recording-slice';

/** How long the start waits for the camera stream the live channel acquires. */
export const STREAM_WAIT_MS = 20_000;
/** Delay between attempts of a start or an end that failed on the network (or a 503). */
export const SERVER_RETRY_MS = 2_000;
/** Attempts at completing (DELETE) before the error state. */
export const END_ATTEMPTS = 30;

/** A running recording: the session and the server's record. */
interface Active {
  session: RecordingSession;
  recordId: number;
  recordingKey: string;
  stopping: boolean;
}

/** Module state: the media objects and timers of the recording (the store holds ids and counts only). */
const runtime: {
  store: Promise<{ store: ChunkStore; durable: boolean }> | null;
  active: Active | null;
  starting: Promise<void> | null;
  /** Sessions still sending after stop (exam end) by record id. */
  finishing: Map<number, Active>;
  /** Keys of recordings a session of this page owns (never treated as backlog). */
  liveKeys: Set<string>;
  backlog: Promise<void> | null;
  backlogAbort: AbortController | null;
  backlogPending: number;
  uploadCounterOn: boolean;
  /** Bumped by every dispose (logout, kick-out): a start still running then gives up. */
  generation: number;
  unloadGuard: ((e: BeforeUnloadEvent) => void) | null;
} = {
  store: null,
  active: null,
  starting: null,
  finishing: new Map(),
  liveKeys: new Set(),
  backlog: null,
  backlogAbort: null,
  backlogPending: 0,
  uploadCounterOn: false,
  generation: 0,
  unloadGuard: null,
};

/** Test helper: forgets the module state (each test store starts clean). */
export function resetRecordingRuntime(): void {
  runtime.store = null;
  runtime.active = null;
  runtime.starting = null;
  runtime.finishing.clear();
  runtime.liveKeys.clear();
  runtime.backlog = null;
  runtime.backlogAbort?.abort();
  runtime.backlogAbort = null;
  runtime.backlogPending = 0;
  runtime.uploadCounterOn = false;
  if (runtime.unloadGuard && typeof window !== 'undefined')
    window.removeEventListener('beforeunload', runtime.unloadGuard);
  runtime.unloadGuard = null;
}

const isNetwork = (e: unknown) => isApiError(e) && (e.status === NETWORK_ERROR_STATUS || e.status === 503);

function num(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return Number(v);
  return null;
}

/** The sitting's recording settings: the server's copy of the start-up parameters first, then the page's. */
interface RecordSettings {
  isRecord: boolean;
  voiceRecording: boolean;
  startupCodec: string | null;
  videoLevel: number | null;
  audioLevel: number | null;
}

async function recordSettings(state: RootState): Promise<RecordSettings> {
  const p = state.startup.params;
  let server: Record<string, unknown> = {};
  try {
    server = (await getTesterDetail()).startupParameters;
  } catch {
    // The page's start-up parameters decide; the server refuses a recording that is off anyway.
  }
  const pick = (snake: string, client: unknown) => num(server[snake]) ?? num(client);
  const codec = typeof server.video_codec === 'string' ? server.video_codec : p.videoCodec;
  return {
    isRecord: pick('is_record', p.isRecord) === 1,
    voiceRecording: pick('is_voice_recording', p.isVoiceRecording) !== 0,
    startupCodec: codec || null,
    videoLevel: pick('video_recording_preference', p.videoRecordingPreference),
    audioLevel: pick('voice_quality_preference', p.voiceQualityPreference),
  };
}

/** The library's credentials from the server's. */
export function toSessionCredentials(c: ServerCredentials): RecordingCredentials {
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

function getStore(): Promise<{ store: ChunkStore; durable: boolean }> {
  runtime.store ??= openChunkStore().then(({ store, durable }) => ({ store: tapped(store), durable }));
  return runtime.store;
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

/** Waits for the examinee's camera stream (the live channel acquires it), or null after `ms`. */
function waitForStream(ms: number): Promise<MediaStream | null> {
  const now = getStream(LOCAL_STREAM_ID);
  if (now) return Promise.resolve(now);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      off();
      resolve(null);
    }, ms);
    const off = onStreamChange((id) => {
      const s = id === LOCAL_STREAM_ID ? getStream(id) : null;
      if (!s) return;
      clearTimeout(timer);
      off();
      resolve(s);
    });
  });
}

function alert(dispatch: ListenerDispatch, messageKey: string): Promise<void> {
  return showAlert({ type: 'error', messageKey })(dispatch as unknown as AppDispatch);
}

/** Whether any recording data of this page is still unsent. */
function hasUnsent(): boolean {
  if (runtime.backlogPending > 0) return true;
  const sessions = [runtime.active, ...runtime.finishing.values()];
  return sessions.some((a) => a !== null && a.session.pending().unsent);
}

/** spec: leaving with unsent data warns first. */
function syncUnloadGuard(): void {
  if (typeof window === 'undefined') return;
  const want = runtime.active !== null || runtime.finishing.size > 0 || runtime.backlogPending > 0;
  if (want && !runtime.unloadGuard) {
    runtime.unloadGuard = (e: BeforeUnloadEvent) => {
      if (!hasUnsent()) return;
      e.preventDefault();
      e.returnValue = '';
    };
    window.addEventListener('beforeunload', runtime.unloadGuard);
  } else if (!want && runtime.unloadGuard) {
    window.removeEventListener('beforeunload', runtime.unloadGuard);
    runtime.unloadGuard = null;
  }
}

/** The layout's upload alert shows while recorded data is sent after the recorder stopped (or a backlog). */
function syncUploadCounter(dispatch: ListenerDispatch, state: RootState): void {
  const r = state.recording;
  const afterStop =
    !r.recorderRunning &&
    (r.phase === 'uploading' || r.phase === 'waiting-network' || runtime.finishing.size > 0) &&
    r.counts.partsDone < r.counts.partsTotal;
  const want = afterStop || r.backlog.bytesPending > 0 || r.backlog.partsDone < r.backlog.partsTotal;
  if (want && !runtime.uploadCounterOn) {
    runtime.uploadCounterOn = true;
    dispatch(uploadStarted());
  } else if (!want && runtime.uploadCounterOn) {
    runtime.uploadCounterOn = false;
    dispatch(uploadFinished());
  }
}

/**
 * Sends every recording stored by an earlier page to the end, one after another, then completes it. Runs in
 * the background; `exclude` are the keys of this page's own sessions. Returns the highest server segment seen.
 */
async function startBacklog(dispatch: ListenerDispatch, store: ChunkStore): Promise<number> {
  let metas: UploadMeta[];
  try {
    metas = (await store.listMeta()).filter((m) => !runtime.liveKeys.has(m.recordingKey));
  } catch {
    return 0;
  }
  if (metas.length === 0 || runtime.backlog) return maxSegment(metas);
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
  const top = recoveries.reduce((m, r) => Math.max(m, r.recovery.segment), maxSegment(metas));
  if (recoveries.length === 0) return top;
  const abort = new AbortController();
  runtime.backlogAbort = abort;
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
    runtime.backlogPending = bytes + (total - done);
    dispatch(
      backlogChanged({ partsDone: done, partsTotal: total, bytesPending: bytes, recordings: progress.size }),
    );
  };
  runtime.backlog = (async () => {
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
            syncUnloadGuard();
          },
        });
        progress.delete(meta.recordingKey);
      } catch (e) {
        logger.error('recording', 'resuming a stored recording failed', e instanceof Error ? e.message : '');
        progress.delete(meta.recordingKey);
      }
      publish();
    }
  })().finally(() => {
    runtime.backlog = null;
    runtime.backlogAbort = null;
    runtime.backlogPending = 0;
    dispatch(backlogChanged({ partsDone: 0, partsTotal: 0, bytesPending: 0, recordings: 0 }));
    syncUnloadGuard();
  });
  syncUnloadGuard();
  return top;
}

function maxSegment(metas: UploadMeta[]): number {
  return metas.reduce((m, meta) => Math.max(m, recordOfKey(meta.key)?.segment ?? 0), 0);
}

type EffectApi = ListenerEffectAPI<RootState, ListenerDispatch>;

/** Starts the exam's recording (once). */
function startExamRecording(api: EffectApi): Promise<void> {
  if (runtime.active || runtime.starting) return runtime.starting ?? Promise.resolve();
  runtime.starting = runStart(api).finally(() => {
    runtime.starting = null;
  });
  return runtime.starting;
}

async function runStart(api: EffectApi): Promise<void> {
  const { dispatch } = api;
  const generation = runtime.generation;
  try {
    const settings = await recordSettings(api.getState());
    if (!settings.isRecord) return;
    dispatch(recordingStarting());
    const stream = await waitForStream(STREAM_WAIT_MS);
    const video = stream?.getVideoTracks().some((t) => t.readyState !== 'ended') ?? false;
    const audio = stream?.getAudioTracks().some((t) => t.readyState !== 'ended') ?? false;
    // spec §8: camera or microphone unavailable → allow false.
    dispatch(deviceChecked(video && (audio || !settings.voiceRecording)));
    if (!stream || !video) {
      dispatch(recordingFailed({ errorKey: RECORDING_START_FAILED }));
      await alert(dispatch, RECORDING_START_FAILED);
      return;
    }
    const { store, durable } = await getStore();
    void store.persist().catch(() => false);
    const lastSegment = await startBacklog(dispatch, store);
    const mimeType = chooseMimeType(settings.startupCodec, browserIsTypeSupported()) ?? 'video/webm';

    let creds: ServerCredentials | null = null;
    for (let attempt = 0; !creds; attempt++) {
      const phase = api.getState().tester.examPhase;
      if (attempt > 0 && phase !== 'examing' && phase !== 'interrupted') return;
      try {
        creds = await startRecording(mimeType, lastSegment > 0 ? lastSegment + 1 : undefined);
      } catch (e) {
        if (isApiError(e) && e.status === 409 && lastSegment > 0 && attempt === 0) {
          // That segment is taken (completed): let the server pick the next free one.
          creds = await startRecording(mimeType).catch(() => null);
          if (creds) break;
        }
        if (!isNetwork(e)) throw e;
        await api.delay(SERVER_RETRY_MS);
      }
    }
    if (generation !== runtime.generation) return;
    const server = creds;
    const credentials = toSessionCredentials(server);
    const recordingKey = recordingKeyOf(credentials);
    runtime.liveKeys.add(recordingKey);
    const session = createRecordingSession({
      store,
      partSize: server.partSize,
      refreshCredentials: async () => toSessionCredentials(await getRecordingCredentials(server.recordId)),
      onStatus: (s) => {
        dispatch(recordingStatusChanged(report(s)));
        syncUnloadGuard();
      },
    });
    const active: Active = { session, recordId: server.recordId, recordingKey, stopping: false };
    runtime.active = active;
    syncUnloadGuard();
    const started = await session.start({
      stream,
      credentials,
      voiceRecording: settings.voiceRecording && audio,
      startupCodec: settings.startupCodec,
      videoLevel: settings.videoLevel,
      audioLevel: settings.audioLevel,
    });
    if (generation !== runtime.generation) {
      // Logged out or kicked while starting: the recorder must not outlive the session.
      if (runtime.active === active) runtime.active = null;
      await session.dispose();
      return;
    }
    dispatch(
      recordingStarted({
        recordId: server.recordId,
        segment: server.segment,
        mimeType: started.mimeType,
        durable,
      }),
    );
    // The recording-time limit counts from the sitting's first recording start on the server.
    void getTesterDetail()
      .then((d) => dispatch(recordingDeadlineFrom(d)))
      .catch(() => undefined);
  } catch (e) {
    const key: RecordingErrorKey =
      e instanceof RecordingError ? (e.messageKey as RecordingErrorKey) : RECORDING_START_FAILED;
    logger.error('recording', 'the recording did not start', e instanceof Error ? e.message : String(e));
    const failed = runtime.active;
    if (failed) {
      runtime.active = null;
      await failed.session.dispose().catch(() => undefined);
    }
    dispatch(recordingFailed({ errorKey: key }));
    syncUnloadGuard();
    await alert(dispatch, key);
  }
}

/** Stops the recorder, waits for every part and completes the recording on the server. */
async function finishExamRecording(api: EffectApi): Promise<void> {
  const active = runtime.active;
  if (!active || active.stopping) return;
  active.stopping = true;
  runtime.active = null;
  runtime.finishing.set(active.recordId, active);
  const { dispatch } = api;
  try {
    let parts;
    for (;;) {
      try {
        parts = await active.session.stop();
        break;
      } catch (e) {
        if (!(e instanceof UploadGiveUpError)) throw e;
        // spec §8: keep the data and tell the user; a retry starts with fresh counts.
        dispatch(recordingFailed({ errorKey: 'recording:uploadFailed', reason: e.reason }));
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
    runtime.liveKeys.delete(active.recordingKey);
    dispatch(recordingCompleted());
  } catch (e) {
    logger.error('recording', 'finishing the recording failed', e instanceof Error ? e.message : String(e));
    // Disposed by a logout meanwhile: the data stays for a later page, nothing to show.
    if (runtime.finishing.has(active.recordId))
      dispatch(recordingFailed({ errorKey: 'recording:uploadFailed' }));
  } finally {
    runtime.finishing.delete(active.recordId);
    syncUnloadGuard();
  }
}

/** Logout or kick-out: stop recording and sending, keep the data on the device for a later page. */
async function disposeAll(): Promise<void> {
  const sessions = [runtime.active, ...runtime.finishing.values()].filter((a): a is Active => a !== null);
  runtime.generation += 1;
  runtime.active = null;
  runtime.finishing.clear();
  runtime.backlogAbort?.abort();
  await Promise.all(sessions.map((a) => a.session.dispose().catch(() => undefined)));
  for (const a of sessions) runtime.liveKeys.delete(a.recordingKey);
  syncUnloadGuard();
}

const EXAM_PHASES = ['examing', 'interrupted'];

/** Registers the recording listeners (wired by app/app-listeners.ts). */
export function addRecordingListeners(startListening: AppStartListening): void {
  // Start: the exam began (or the page came back to a running exam), or the page asked explicitly.
  startListening({
    predicate: (action, state, prev) =>
      examRecordingRequested.match(action) ||
      (examPhaseChanged.match(action) &&
        EXAM_PHASES.includes(state.tester.examPhase) &&
        !EXAM_PHASES.includes(prev.tester.examPhase)),
    effect: async (_action, api) => {
      await startExamRecording(api);
    },
  });

  // End: finishing the exam (before the live channel releases the camera), tester state 7, a planned exit or a
  // kick-out (the page sends what it holds while its session lasts), or explicit.
  startListening({
    predicate: (action, state) =>
      examRecordingStopRequested.match(action) ||
      sittingClosing.match(action) ||
      (examPhaseChanged.match(action) &&
        (state.tester.examPhase === 'finishing' || state.tester.examPhase === 'finished')) ||
      (testerStateChanged.match(action) && action.payload === TESTER_STATUS.finishExam),
    effect: async (_action, api) => {
      if (runtime.starting) await runtime.starting;
      await finishExamRecording(api);
    },
  });

  // The session ended without a planned exit (another window's login, an expired session): dispose, the data
  // stays on the device for the page that continues the sitting.
  startListening({
    actionCreator: loggedOut,
    effect: async (_action, api) => {
      await disposeAll();
      api.dispatch(recordingDisposed());
    },
  });

  // The layout's upload alert counter follows the recording's uploads.
  startListening({
    predicate: (action) =>
      recordingStatusChanged.match(action) ||
      backlogChanged.match(action) ||
      recordingCompleted.match(action) ||
      recordingFailed.match(action) ||
      recordingDisposed.match(action) ||
      loggedOut.match(action),
    effect: (_action, api) => {
      syncUploadCounter(api.dispatch, api.getState());
    },
  });

  // A retry after an upload give-up during the exam (the finishing flow waits for its own retry).
  startListening({
    actionCreator: uploadRetryRequested,
    effect: () => {
      runtime.active?.session.retryUpload();
    },
  });
}
