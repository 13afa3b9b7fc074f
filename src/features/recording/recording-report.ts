/**
 * What the recording of a stream reports and reads (spec §4 "Recording"), apart from the runtime that records
 * (recording-runtime.ts, loaded with the first recording): where its progress goes, the sitting's recording
 * settings, and its alerts. The listeners use it when the runtime itself could not be loaded.
 */
import type { ListenerEffectAPI } from '@reduxjs/toolkit';
import type { AppThunkDispatch, RootState } from '../../app/store';
import { getTesterDetail } from '../../api/tester';
import { addTexts, hasTexts } from '../../i18n';
import { RECORDING_START_FAILED } from '../../media/recording/recording-errors';
import { showAlert } from '../layout/layout-thunks';
import {
  deviceChecked,
  recordingCompleted,
  recordingFailed,
  recordingStarted,
  recordingStarting,
  recordingStatusChanged,
  streamRecordingChanged,
  type ExtraStream,
  type RecordingErrorKey,
  type RecordingStatusReport,
} from './recording-slice';
import { STREAM_FLAG, type StreamKind } from '@contract/constants/wider-view';
import type { TranslationKey } from '../../lib/translation-key';

/** What the runtime needs of the listener that calls it. */
export type RecordingEffects = Pick<
  ListenerEffectAPI<RootState, AppThunkDispatch>,
  'dispatch' | 'getState' | 'delay' | 'take'
>;

/** Where a runtime's progress goes: the camera's into the recording slice's own fields, the others' apart. */
export interface Reporter {
  starting(d: AppThunkDispatch): void;
  deviceChecked(d: AppThunkDispatch, ok: boolean): void;
  started(
    d: AppThunkDispatch,
    r: { recordId: number; segment: number; mimeType: string; durable: boolean },
  ): void;
  status(d: AppThunkDispatch, r: RecordingStatusReport): void;
  failed(d: AppThunkDispatch, errorKey: RecordingErrorKey, reason?: string): void;
  completed(d: AppThunkDispatch): void;
}

const CAMERA_REPORTER: Reporter = {
  starting: (d) => d(recordingStarting()),
  deviceChecked: (d, ok) => d(deviceChecked(ok)),
  started: (d, r) => d(recordingStarted(r)),
  status: (d, r) => d(recordingStatusChanged(r)),
  failed: (d, errorKey, reason) =>
    d(recordingFailed(reason === undefined ? { errorKey } : { errorKey, reason })),
  completed: (d) => d(recordingCompleted()),
};

function extraReporter(stream: ExtraStream): Reporter {
  const change = (d: AppThunkDispatch, c: Omit<Parameters<typeof streamRecordingChanged>[0], 'stream'>) =>
    d(streamRecordingChanged({ stream, ...c }));
  return {
    // A new recording of the stream: the last one's record is not this one's.
    starting: (d) => change(d, { phase: 'starting', errorKey: null, recordId: null }),
    deviceChecked: () => undefined,
    started: (d, r) => change(d, { phase: 'recording', recordId: r.recordId }),
    status: (d, r) =>
      change(d, {
        phase: r.state === 'error' ? 'error' : r.state === 'idle' ? 'recording' : r.state,
        counts: { partsDone: r.partsDone, partsTotal: r.partsTotal, bytesPending: r.bytesPending },
        errorKey: r.state === 'error' ? (r.errorKey ?? 'recording:failed') : null,
      }),
    failed: (d, errorKey) => change(d, { phase: 'error', errorKey }),
    completed: (d) => change(d, { phase: 'done' }),
  };
}

/** The reporter of a stream's recordings. */
export function reporterOf(kind: StreamKind): Reporter {
  return kind === 'camera' ? CAMERA_REPORTER : extraReporter(kind);
}

function num(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v.trim())) return Number(v);
  return null;
}

/** The sitting's recording settings: the server's copy of the start-up parameters first, then the page's. */
export interface RecordSettings {
  isRecord: boolean;
  voiceRecording: boolean;
  startupCodec: string | null;
  videoLevel: number | null;
  audioLevel: number | null;
}

export async function recordSettings(state: RootState, kind: StreamKind): Promise<RecordSettings> {
  const p = state.startup.params;
  let server: Record<string, unknown> = {};
  try {
    server = (await getTesterDetail()).startupParameters;
  } catch {
    // The page's start-up parameters decide; the server refuses a recording that is off anyway.
  }
  const pick = (snake: string, client: unknown) => num(server[snake]) ?? num(client);
  const codec = typeof server.video_codec === 'string' ? server.video_codec : p.videoCodec;
  // A stream is recorded when its start-up flag is on (STREAM_FLAG); the page's own copy only for the camera.
  const flag = STREAM_FLAG[kind];
  return {
    isRecord: (kind === 'camera' ? pick(flag, p.isRecord) : num(server[flag])) === 1,
    voiceRecording: pick('is_voice_recording', p.isVoiceRecording) !== 0,
    startupCodec: codec || null,
    videoLevel: pick('video_recording_preference', p.videoRecordingPreference),
    audioLevel: pick('voice_quality_preference', p.voiceQualityPreference),
  };
}

/**
 * A recording alert (the camera's recording did not start). Its texts load with the recording's status on
 * /examining, so they are normally in already; otherwise they come first (and the alert shows anyway if they
 * cannot be loaded).
 */
export async function alert(dispatch: AppThunkDispatch, messageKey: TranslationKey): Promise<void> {
  if (!hasTexts(['recording']))
    await import('../../i18n/locales/ja/recording.json')
      .then((m) => addTexts({ recording: m.default }))
      .catch(() => undefined);
  return dispatch(showAlert({ type: 'error', messageKey }));
}

/**
 * The recording of `kind` could not start because its code did not load (recording-machinery.ts): reported as
 * the runtime reports a start whose media code did not load, for a sitting that records that stream.
 */
export async function reportStartFailure(api: RecordingEffects, kind: StreamKind): Promise<void> {
  const settings = await recordSettings(api.getState(), kind);
  if (!settings.isRecord) return;
  const out = reporterOf(kind);
  out.starting(api.dispatch);
  out.failed(api.dispatch, RECORDING_START_FAILED);
  if (kind === 'camera') await alert(api.dispatch, RECORDING_START_FAILED);
}
