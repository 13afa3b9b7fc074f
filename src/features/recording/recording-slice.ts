import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import type { StreamKind } from '@contract/constants/wider-view';
import { loggedOut } from '../session/session-slice';

/**
 * What the examinee sees of the recording (spec §2 /examining "a recording state"): recording,
 * uploading n of m, waiting for the network, done, or an error.
 */
export type RecordingPhase =
  'idle' | 'starting' | 'recording' | 'uploading' | 'waiting-network' | 'done' | 'error';

/** The error keys the recording may show (spec §8; the library's keys). */
export type RecordingErrorKey =
  'recording:startFailed' | 'recording:failed' | 'recording:storeFailed' | 'recording:uploadFailed';

/** Upload counts; `bytesPending` is what the store has not confirmed yet. */
export interface RecordingCounts {
  partsDone: number;
  partsTotal: number;
  bytesPending: number;
}

export interface RecordingSliceState {
  phase: RecordingPhase;
  /** spec §8: camera or microphone unavailable → false; null before the first start. */
  allow: boolean | null;
  /** The server's record of the running (or last) recording. */
  recordId: number | null;
  /** Its segment (1-based): a restarted recorder writes segment n + 1. */
  segment: number | null;
  mimeType: string | null;
  /** True once the recorder runs; false after stop. */
  recorderRunning: boolean;
  /** The running recording's uploads. */
  counts: RecordingCounts;
  /** Uploads of earlier recordings found on this device after a reload or crash (resumed in background). */
  backlog: RecordingCounts & { recordings: number };
  /** False when the browser gave no IndexedDB (a crash would lose unsent data). */
  durable: boolean | null;
  errorKey: RecordingErrorKey | null;
  /** For `recording:uploadFailed`: why the retries stopped (network-exhausted, …). */
  errorReason: string | null;
  /**
   * The other recorded streams of the wider view (the screen, room scans), each its own recording: what it
   * does now. The fields above are the camera's (the spec's recording).
   */
  streams: Partial<Record<ExtraStream, StreamRecording>>;
}

/** A recorded stream other than the camera. */
export type ExtraStream = Exclude<StreamKind, 'camera'>;

/** Where one extra stream's recording stands. */
export interface StreamRecording {
  phase: RecordingPhase;
  /** The server's record of its running (or last) recording. */
  recordId: number | null;
  counts: RecordingCounts;
  errorKey: RecordingErrorKey | null;
}

const ZERO: RecordingCounts = { partsDone: 0, partsTotal: 0, bytesPending: 0 };

export const initialRecordingState: RecordingSliceState = {
  phase: 'idle',
  allow: null,
  recordId: null,
  segment: null,
  mimeType: null,
  recorderRunning: false,
  counts: ZERO,
  backlog: { ...ZERO, recordings: 0 },
  durable: null,
  errorKey: null,
  errorReason: null,
  streams: {},
};

/** A status report of the recording session (serializable copy of the library's RecordingStatus). */
export interface RecordingStatusReport extends RecordingCounts {
  state: 'idle' | 'recording' | 'uploading' | 'waiting-network' | 'done' | 'error';
  recording: boolean;
  mimeType: string | null;
  errorKey?: RecordingErrorKey;
  errorReason?: string;
}

const recordingSlice = createSlice({
  name: 'recording',
  initialState: initialRecordingState,
  reducers: {
    /**
     * The exam started (or resumed after a reload) and wants its recording: the hook the examining page
     * may dispatch itself. The listener also starts on tester phase `examing`; a second request is ignored.
     */
    examRecordingRequested() {},
    /** The exam ended: stop the recorder, send what is left and complete the upload. */
    examRecordingStopRequested() {},
    /** The examinee pressed "retry" after the uploads gave up (spec §8: data kept). */
    uploadRetryRequested() {},
    /** The listener began starting a recording. */
    recordingStarting(state) {
      state.phase = 'starting';
      state.errorKey = null;
      state.errorReason = null;
      state.counts = ZERO;
    },
    /** The camera/microphone stream was (not) there (spec §8: unavailable → allow false). */
    deviceChecked(state, action: PayloadAction<boolean>) {
      state.allow = action.payload;
    },
    /** The server opened the record and the recorder runs. */
    recordingStarted(
      state,
      action: PayloadAction<{ recordId: number; segment: number; mimeType: string; durable: boolean }>,
    ) {
      state.recordId = action.payload.recordId;
      state.segment = action.payload.segment;
      state.mimeType = action.payload.mimeType;
      state.durable = action.payload.durable;
      state.recorderRunning = true;
      if (state.phase === 'starting') state.phase = 'recording';
    },
    /** The session reported its status. */
    recordingStatusChanged(state, action: PayloadAction<RecordingStatusReport>) {
      const s = action.payload;
      state.counts = { partsDone: s.partsDone, partsTotal: s.partsTotal, bytesPending: s.bytesPending };
      state.recorderRunning = s.recording;
      if (s.mimeType) state.mimeType = s.mimeType;
      if (s.state === 'error') {
        state.phase = 'error';
        state.errorKey = s.errorKey ?? 'recording:failed';
        state.errorReason = s.errorReason ?? null;
      } else if (s.state !== 'idle') {
        state.phase = s.state;
        state.errorKey = null;
        state.errorReason = null;
      }
    },
    /** The background upload of earlier recordings moved. */
    backlogChanged(state, action: PayloadAction<RecordingCounts & { recordings: number }>) {
      state.backlog = action.payload;
    },
    /** Starting or finishing failed for good (the data stays on the device). */
    recordingFailed(state, action: PayloadAction<{ errorKey: RecordingErrorKey; reason?: string }>) {
      state.phase = 'error';
      state.errorKey = action.payload.errorKey;
      state.errorReason = action.payload.reason ?? null;
      state.recorderRunning = false;
    },
    /** The server completed the upload (DELETE answered) and the local copy was removed. */
    recordingCompleted(state) {
      state.phase = 'done';
      state.recorderRunning = false;
      state.counts = { ...state.counts, partsDone: state.counts.partsTotal, bytesPending: 0 };
    },
    /** An extra stream's recording moved (started, uploads, completed, failed): its new state. */
    streamRecordingChanged(state, action: PayloadAction<{ stream: ExtraStream } & Partial<StreamRecording>>) {
      const { stream, ...change } = action.payload;
      const prev: StreamRecording = state.streams[stream] ?? {
        phase: 'idle',
        recordId: null,
        counts: ZERO,
        errorKey: null,
      };
      state.streams[stream] = { ...prev, ...change };
    },
    /** The session was torn down without completing (logout, kick-out); its data stays for a resume. */
    recordingDisposed(state) {
      state.phase = 'idle';
      state.recorderRunning = false;
      for (const x of Object.values(state.streams)) x.phase = 'idle';
    },
  },
  extraReducers: (b) => {
    b.addCase(loggedOut, () => initialRecordingState);
  },
});

export const {
  examRecordingRequested,
  examRecordingStopRequested,
  uploadRetryRequested,
  recordingStarting,
  deviceChecked,
  recordingStarted,
  recordingStatusChanged,
  backlogChanged,
  recordingFailed,
  recordingCompleted,
  recordingDisposed,
  streamRecordingChanged,
} = recordingSlice.actions;
export default recordingSlice.reducer;

type WithRecording = { recording?: RecordingSliceState };
/** The recording state; its initial state until a route registered the recording feature (app/store.ts). */
export const selectRecording = (s: WithRecording): RecordingSliceState =>
  s.recording ?? initialRecordingState;
/** Parts confirmed and planned, the running recording and the resumed backlog together. */
export const selectUploadCounts = (s: WithRecording) => ({
  done: selectRecording(s).counts.partsDone + selectRecording(s).backlog.partsDone,
  total: selectRecording(s).counts.partsTotal + selectRecording(s).backlog.partsTotal,
});
/** Whether unsent recording data is on this device (leaving warns first). */
export const selectHasUnsent = (s: WithRecording) =>
  selectRecording(s).counts.bytesPending > 0 ||
  selectRecording(s).backlog.bytesPending > 0 ||
  Object.values(selectRecording(s).streams).some((x) => x.counts.bytesPending > 0);
/** An extra stream's recording (the screen, the room scan), or null before its first. */
export const selectStreamRecording = (s: WithRecording, stream: ExtraStream): StreamRecording | null =>
  selectRecording(s).streams[stream] ?? null;
