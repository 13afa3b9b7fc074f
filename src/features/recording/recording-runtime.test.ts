import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { RootState } from '../../app/store';
import { ApiError, NETWORK_ERROR_STATUS } from '../../api/api-error';
import startup from '../startup/startup-slice';
import { initialTesterState } from '../tester/tester-slice';
import { RecordingPage } from './recording-page';
import { RecordingRuntime, SERVER_RETRY_MS } from './recording-runtime';
import type { RecordingEffects } from './recording-report';
import {
  recordingCompleted,
  recordingStarted,
  recordingStarting,
  streamRecordingChanged,
} from './recording-slice';
import {
  RECORDING_CREDENTIALS as CREDS,
  fakeCameraStream,
  fakeRecordingSession as fakeSession,
} from '../../../tests/fixtures/recording';

// The runtime alone: no store, no listeners. Its edges (server calls, chunk store, recorder, camera) are fakes.
const m = vi.hoisted(() => ({
  startRecording: vi.fn(),
  getRecordingCredentials: vi.fn(),
  endRecording: vi.fn(),
  getTesterDetail: vi.fn(),
  createRecordingSession: vi.fn(),
  listMeta: vi.fn(),
  stream: null as unknown,
}));

vi.mock('../../api/recording', () => ({
  startRecording: m.startRecording,
  getRecordingCredentials: m.getRecordingCredentials,
  endRecording: m.endRecording,
  recoverRecording: vi.fn(),
}));
vi.mock('../../api/tester', () => ({ getTesterDetail: m.getTesterDetail }));
vi.mock('../../media/recording/chunk-store', () => ({
  openChunkStore: async () => ({
    durable: true,
    store: { listMeta: m.listMeta, persist: async () => true },
  }),
}));
vi.mock('../../media/recording/recording-session', async (orig) => ({
  ...(await orig<object>()),
  createRecordingSession: m.createRecordingSession,
}));
vi.mock('../../media/stream-registry', async (orig) => ({
  ...(await orig<object>()),
  getStream: (id: string) => (id === 'camera' ? m.stream : null),
  onStreamChange: () => () => undefined,
}));

const camera = fakeCameraStream();

/** The listener API the runtime uses, over a fixed state; `delay` resolves at once. */
function effects(): RecordingEffects & { dispatch: ReturnType<typeof vi.fn> } {
  const state = {
    startup: startup(undefined, { type: 'init' }),
    tester: { ...initialTesterState, examPhase: 'examing' },
  } as unknown as RootState;
  return {
    dispatch: vi.fn((a: unknown) => a),
    getState: () => state,
    delay: vi.fn(async () => undefined),
    take: vi.fn(() => new Promise(() => undefined)),
  } as unknown as RecordingEffects & { dispatch: ReturnType<typeof vi.fn> };
}

const types = (api: { dispatch: ReturnType<typeof vi.fn> }) =>
  api.dispatch.mock.calls.map(([a]) => (a as { type?: string }).type);

function unloadEvent(): Event {
  const e = new Event('beforeunload', { cancelable: true });
  window.dispatchEvent(e);
  return e;
}

let page: RecordingPage;
let runtime: RecordingRuntime;

beforeEach(() => {
  vi.clearAllMocks();
  m.stream = camera;
  m.listMeta.mockResolvedValue([]);
  m.startRecording.mockResolvedValue(CREDS);
  m.endRecording.mockResolvedValue({ record_id: 41, completed: true });
  m.getTesterDetail.mockResolvedValue({ startupParameters: { is_record: 1, is_voice_recording: 1 } });
  page = new RecordingPage();
  runtime = new RecordingRuntime(page, { streamId: 'camera' });
});
afterEach(() => page.dispose());

describe('recording runtime (alone)', () => {
  it('start → finish: records the stream it was made for, completes the record, warns on leaving meanwhile', async () => {
    const session = fakeSession();
    m.createRecordingSession.mockReturnValue(session);
    const api = effects();
    await runtime.start(api);
    expect(session.start).toHaveBeenCalledWith(expect.objectContaining({ stream: camera }));
    expect(types(api)).toEqual(expect.arrayContaining([recordingStarting.type, recordingStarted.type]));
    expect(runtime.holdsRecording()).toBe(true);
    expect(unloadEvent().defaultPrevented).toBe(true);

    await runtime.finish(api);
    expect(m.endRecording).toHaveBeenCalledWith(41, [{ PartNumber: 1, ETag: '"e1"' }]);
    expect(session.complete).toHaveBeenCalled();
    expect(types(api)).toContain(recordingCompleted.type);
    expect(runtime.holdsRecording()).toBe(false);
    expect(unloadEvent().defaultPrevented).toBe(false);
  });

  it('records the screen as its own stream: its flag, its segments, its own reports; each share its own recording', async () => {
    const screenStream = fakeCameraStream();
    m.stream = screenStream;
    m.getTesterDetail.mockResolvedValue({ startupParameters: { is_record: 1, is_screen_record: 1 } });
    m.listMeta.mockResolvedValue([
      // An earlier page's camera recording (segment 4) and screen recording (segment 2) on this device.
      { recordingKey: 'a', key: 'recordings/7/40-4.webm' },
      { recordingKey: 'b', key: 'recordings/7/screen/41-2.webm' },
    ]);
    // The fake registry holds the one stream under 'camera'.
    const screen = new RecordingRuntime(page, { streamId: 'camera', stream: 'screen' });
    const session = fakeSession();
    m.createRecordingSession.mockReturnValue(session);
    const api = effects();
    await screen.start(api);
    // The screen's own next segment, whatever the camera's.
    expect(m.startRecording).toHaveBeenCalledWith(expect.any(String), 3, 'screen');
    expect(session.start).toHaveBeenCalledWith(expect.objectContaining({ stream: screenStream }));
    expect(screen.recordId()).toBe(CREDS.recordId);
    // Its progress goes to its own entry, not to the camera's recording state.
    expect(types(api)).not.toContain(recordingStarting.type);
    expect(api.dispatch).toHaveBeenCalledWith(
      streamRecordingChanged({ stream: 'screen', phase: 'recording', recordId: CREDS.recordId }),
    );
    await screen.finish(api);
    expect(api.dispatch).toHaveBeenCalledWith(streamRecordingChanged({ stream: 'screen', phase: 'done' }));
    // Shared again: a new recording.
    await screen.start(api);
    expect(m.createRecordingSession).toHaveBeenCalledTimes(2);
  });

  it('records no screen for a sitting without is_screen_record', async () => {
    m.getTesterDetail.mockResolvedValue({ startupParameters: { is_record: 1 } });
    const screen = new RecordingRuntime(page, { streamId: 'screen', stream: 'screen' });
    await screen.start(effects());
    expect(m.startRecording).not.toHaveBeenCalled();
  });

  it('a second start while the first runs makes no second recorder', async () => {
    m.createRecordingSession.mockReturnValue(fakeSession());
    const api = effects();
    await Promise.all([runtime.start(api), runtime.start(api)]);
    await runtime.start(api);
    expect(m.createRecordingSession).toHaveBeenCalledTimes(1);
    expect(m.startRecording).toHaveBeenCalledTimes(1);
  });

  it('disposed while the recorder starts: the recorder is disposed and never reported as started', async () => {
    let release: () => void = () => undefined;
    const session = fakeSession({
      start: vi.fn(
        () =>
          new Promise((resolve) => {
            release = () =>
              resolve({ mimeType: CREDS.mimeType, resumed: false, segment: 0, timesliceMs: 15000 });
          }),
      ),
    });
    m.createRecordingSession.mockReturnValue(session);
    const api = effects();
    const started = runtime.start(api);
    await vi.waitFor(() => expect(session.start).toHaveBeenCalled());
    await page.dispose();
    release();
    await started;
    expect(session.dispose).toHaveBeenCalled();
    expect(types(api)).not.toContain(recordingStarted.type);
    expect(runtime.holdsRecording()).toBe(false);
    expect(unloadEvent().defaultPrevented).toBe(false);
  });

  it('disposed while the server start is retried on the network: no recorder is made', async () => {
    m.startRecording.mockRejectedValue(
      new ApiError('tester/recording', NETWORK_ERROR_STATUS, 'x', 'errors:network'),
    );
    const api = effects();
    let calls = 0;
    api.delay = vi.fn(async (ms: number) => {
      expect(ms).toBe(SERVER_RETRY_MS);
      calls += 1;
      if (calls === 2) {
        await page.dispose();
        m.startRecording.mockResolvedValue(CREDS);
      }
    }) as unknown as RecordingEffects['delay'];
    await runtime.start(api);
    expect(m.startRecording).toHaveBeenCalledTimes(3);
    expect(m.createRecordingSession).not.toHaveBeenCalled();
  });

  it('finishing after a dispose does nothing', async () => {
    const session = fakeSession();
    m.createRecordingSession.mockReturnValue(session);
    const api = effects();
    await runtime.start(api);
    await runtime.dispose();
    await runtime.finish(api);
    expect(session.dispose).toHaveBeenCalled();
    expect(session.stop).not.toHaveBeenCalled();
    expect(m.endRecording).not.toHaveBeenCalled();
  });
});
