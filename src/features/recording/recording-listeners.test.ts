import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setupStore } from '../../app/store';
import { loginState } from '../../../tests/render';
import {
  examPhaseChanged,
  sittingClosing,
  testerExited,
  testerStateChanged,
  selectTester,
} from '../tester/tester-slice';
import { loggedOut } from '../session/session-slice';
import { examRecordingRequested, uploadRetryRequested, selectRecording } from './recording-slice';
import type { RecordingStatus } from '../../media/recording/recording-session';
import {
  RECORDING_CREDENTIALS as CREDS,
  fakeCameraStream as fakeStream,
  fakeRecordingSession as fakeSession,
} from '../../../tests/fixtures/recording';

const m = vi.hoisted(() => ({
  startRecording: vi.fn(),
  getRecordingCredentials: vi.fn(),
  endRecording: vi.fn(),
  recoverRecording: vi.fn(),
  getTesterDetail: vi.fn(),
  createRecordingSession: vi.fn(),
  listMeta: vi.fn(),
  stream: null as unknown,
  onStatus: null as null | ((s: unknown) => void),
}));

vi.mock('../../api/recording', () => ({
  startRecording: m.startRecording,
  getRecordingCredentials: m.getRecordingCredentials,
  endRecording: m.endRecording,
  recoverRecording: m.recoverRecording,
}));
vi.mock('../../api/tester', () => ({ getTesterDetail: m.getTesterDetail }));
vi.mock('../../media/recording/chunk-store', () => ({
  openChunkStore: async () => ({
    durable: true,
    store: {
      listMeta: m.listMeta,
      persist: async () => true,
      clear: vi.fn(),
      putMeta: vi.fn(),
      list: vi.fn(),
    },
  }),
}));
vi.mock('../../media/recording/recording-session', async (orig) => ({
  ...(await orig<object>()),
  createRecordingSession: m.createRecordingSession,
}));
vi.mock('../../media/stream-registry', async (orig) => ({
  ...(await orig<object>()),
  LOCAL_STREAM_ID: 'local',
  getStream: () => m.stream,
  onStreamChange: () => () => undefined,
}));

function status(over: Partial<RecordingStatus>): RecordingStatus {
  return {
    state: 'recording',
    recording: true,
    partsDone: 0,
    partsTotal: 0,
    bytesPending: 0,
    mimeType: null,
    ...over,
  };
}

let current: ReturnType<typeof setupStore> | null = null;

function store(isRecord = 1) {
  const s = setupStore(loginState(1));
  current = s;
  m.getTesterDetail.mockResolvedValue({ startupParameters: { is_record: isRecord, is_voice_recording: 1 } });
  return s;
}

const flush = () => new Promise((r) => setTimeout(r, 0));
async function until(fn: () => boolean) {
  for (let i = 0; i < 100 && !fn(); i++) await flush();
  expect(fn()).toBe(true);
}

beforeEach(() => {
  vi.clearAllMocks();
  m.stream = fakeStream();
  m.listMeta.mockResolvedValue([]);
  m.startRecording.mockResolvedValue(CREDS);
  m.endRecording.mockResolvedValue({ record_id: 41, completed: true });
});
// Each store has its own recording runtime; a logout ends the one a test left running (and its unload guard).
afterEach(() => {
  current?.dispatch(loggedOut());
  current = null;
});

describe('recording listeners', () => {
  it('starts when the exam starts with isRecord 1, and completes at the end', async () => {
    const session = fakeSession();
    m.createRecordingSession.mockImplementation((opts: { onStatus(s: unknown): void }) => {
      m.onStatus = opts.onStatus;
      return session;
    });
    const s = store();
    s.dispatch(examPhaseChanged('examing'));
    await until(() => selectRecording(s.getState()).phase === 'recording');
    expect(m.startRecording).toHaveBeenCalledWith('video/webm', undefined, 'camera');
    expect(session.start).toHaveBeenCalledWith(
      expect.objectContaining({
        voiceRecording: true,
        credentials: expect.objectContaining({ uploadId: 'U1' }),
      }),
    );
    expect(selectRecording(s.getState()).recordId).toBe(41);

    m.onStatus?.(status({ partsDone: 2, partsTotal: 3, bytesPending: 10 }));
    expect(selectRecording(s.getState()).counts).toEqual({ partsDone: 2, partsTotal: 3, bytesPending: 10 });

    s.dispatch(examPhaseChanged('finishing'));
    await until(() => selectRecording(s.getState()).phase === 'done');
    expect(session.stop).toHaveBeenCalledTimes(1);
    expect(m.endRecording).toHaveBeenCalledWith(41, [{ PartNumber: 1, ETag: '"e1"' }]);
    expect(session.complete).toHaveBeenCalled();
    // A later finish signal does nothing more.
    s.dispatch(testerStateChanged(7));
    await flush();
    expect(session.stop).toHaveBeenCalledTimes(1);
  });

  it('does not record when the sitting has isRecord 0', async () => {
    const s = store(0);
    s.dispatch(examRecordingRequested());
    await flush();
    await flush();
    expect(m.startRecording).not.toHaveBeenCalled();
    expect(selectRecording(s.getState()).phase).toBe('idle');
  });

  it('camera unavailable: allow false, startFailed and the error alert', async () => {
    m.stream = fakeStream(false, true);
    const s = store();
    s.dispatch(examRecordingRequested());
    await until(() => selectRecording(s.getState()).phase === 'error');
    expect(selectRecording(s.getState()).allow).toBe(false);
    expect(selectRecording(s.getState()).errorKey).toBe('recording:startFailed');
    expect(s.getState().layout.modals[0]).toMatchObject({
      messageKey: 'recording:startFailed',
      alertType: 'error',
    });
    expect(m.startRecording).not.toHaveBeenCalled();
  });

  it('recorder cannot start: 録画開始に失敗しました。 alert, session disposed', async () => {
    const { RecordingError } = await import('../../media/recording/recording-errors');
    const session = fakeSession({
      start: vi.fn(async () => {
        throw new RecordingError('recording:startFailed');
      }),
    });
    m.createRecordingSession.mockReturnValue(session);
    const s = store();
    s.dispatch(examPhaseChanged('examing'));
    await until(() => selectRecording(s.getState()).phase === 'error');
    expect(s.getState().layout.modals[0]).toMatchObject({ messageKey: 'recording:startFailed' });
    expect(session.dispose).toHaveBeenCalled();
  });

  it('a kick-out stops the recorder, sends what it holds and completes it (not left "recording")', async () => {
    const session = fakeSession();
    m.createRecordingSession.mockReturnValue(session);
    const s = store();
    s.dispatch(examPhaseChanged('examing'));
    await until(() => selectRecording(s.getState()).phase === 'recording');
    // What kickedOut() dispatches: the exit is shown and the page closes the sitting.
    s.dispatch(testerExited({ exit: 'kickedOut', messageKey: 'tester:kick.removed' }));
    s.dispatch(sittingClosing());
    await until(() => selectRecording(s.getState()).phase === 'done');
    expect(session.stop).toHaveBeenCalledTimes(1);
    expect(m.endRecording).toHaveBeenCalledWith(41, [{ PartNumber: 1, ETag: '"e1"' }]);
    expect(session.complete).toHaveBeenCalled();
    expect(session.dispose).not.toHaveBeenCalled();
    expect(selectRecording(s.getState()).recorderRunning).toBe(false);
  });

  it('learns the recording-time deadline from the server once the recording started', async () => {
    m.createRecordingSession.mockReturnValue(fakeSession());
    const s = store();
    const started = new Date(Date.now() - 10_000).toISOString();
    m.getTesterDetail.mockResolvedValue({
      startupParameters: { is_record: 1, max_rectime: 120 },
      recordingStartedAt: started,
      serverTime: new Date().toISOString(),
    });
    s.dispatch(examPhaseChanged('examing'));
    await until(() => selectTester(s.getState()).recordingDeadline !== null);
    const left = selectTester(s.getState()).recordingDeadline! - Date.now();
    expect(left).toBeGreaterThan(105_000);
    expect(left).toBeLessThanOrEqual(111_000);
  });

  it('logout disposes the session and keeps the data', async () => {
    const session = fakeSession();
    m.createRecordingSession.mockReturnValue(session);
    const s = store();
    s.dispatch(examPhaseChanged('examing'));
    await until(() => selectRecording(s.getState()).phase === 'recording');
    s.dispatch(loggedOut());
    await until(() => session.dispose.mock.calls.length === 1);
    expect(session.complete).not.toHaveBeenCalled();
    expect(selectRecording(s.getState()).phase).toBe('idle');
  });

  it('drives the upload counter while sending after stop and retries after a give-up', async () => {
    const { UploadGiveUpError } = await import('../../media/recording/retry-policy');
    let reject = true;
    const session = fakeSession({
      stop: vi.fn(async () => {
        if (reject) {
          reject = false;
          throw new UploadGiveUpError('network-exhausted', 'network');
        }
        return [{ PartNumber: 1, ETag: '"e1"' }];
      }),
    });
    m.createRecordingSession.mockImplementation((opts: { onStatus(s: unknown): void }) => {
      m.onStatus = opts.onStatus;
      return session;
    });
    const s = store();
    s.dispatch(examPhaseChanged('examing'));
    await until(() => selectRecording(s.getState()).phase === 'recording');
    s.dispatch(examPhaseChanged('finishing'));
    m.onStatus?.(
      status({ state: 'uploading', recording: false, partsDone: 1, partsTotal: 3, bytesPending: 99 }),
    );
    expect(s.getState().layout.uploadingCount).toBe(1);
    await until(() => selectRecording(s.getState()).errorKey === 'recording:uploadFailed');
    expect(selectRecording(s.getState()).errorReason).toBe('network-exhausted');
    s.dispatch(uploadRetryRequested());
    await until(() => selectRecording(s.getState()).phase === 'done');
    expect(session.retryUpload).toHaveBeenCalled();
    expect(s.getState().layout.uploadingCount).toBe(0);
  });

  it('after a reload: resumes the stored recording and starts segment n + 1', async () => {
    const meta = {
      recordingKey: 'recordings/recordings/7/40-2.webm?uploadId=U0',
      bucket: 'recordings',
      key: 'recordings/7/40-2.webm',
      uploadId: 'U0',
      partSize: 262144,
      mimeType: 'video/webm',
      lastSegment: 0,
      finished: true,
      parts: [],
    };
    m.listMeta.mockResolvedValue([meta]);
    m.recoverRecording.mockResolvedValue({
      recordId: 40,
      segment: 2,
      completed: true,
      parts: [],
      credentials: null,
    });
    m.createRecordingSession.mockReturnValue(fakeSession());
    const s = store();
    s.dispatch(examPhaseChanged('examing'));
    await until(() => selectRecording(s.getState()).phase === 'recording');
    expect(m.recoverRecording).toHaveBeenCalledWith(40);
    expect(m.startRecording).toHaveBeenCalledWith('video/webm', 3, 'camera');
  });
});
