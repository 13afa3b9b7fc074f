import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { http, HttpResponse } from 'msw';
import { setupStore } from '../../app/store';
import { scrubPairingCode } from '../../lib/phone-link';
import { fail, ok, server } from '../../../tests/msw/server';
import { PHONE_SESSION_KEY } from './phone-camera-listeners';
import {
  phoneCameraChosen,
  phoneEnded,
  phonePageOpened,
  phonePairingRetried,
  phoneStopRequested,
  selectPhoneCamera,
} from './phone-camera-slice';

const media = vi.hoisted(() => ({
  startMaster: vi.fn(),
  acquirePhoneCamera: vi.fn(),
  keepScreenAwake: vi.fn(() => () => undefined),
  sessionStart: vi.fn(),
  sessionStop: vi.fn(),
  sessionComplete: vi.fn(),
}));
vi.mock('../../media/recording/chunk-store', () => ({
  openChunkStore: async () => ({ store: {}, durable: true }),
}));
vi.mock('../../media/recording/recording-session', async (orig) => ({
  ...(await orig<object>()),
  createRecordingSession: () => ({
    start: media.sessionStart,
    stop: media.sessionStop,
    complete: media.sessionComplete,
    dispose: async () => undefined,
  }),
}));
vi.mock('../../media/stream-registry', async (orig) => ({
  ...(await orig<object>()),
  getStream: () => ({ getTracks: () => [] }),
}));
vi.mock('../../media/master', () => ({ startMaster: media.startMaster }));
vi.mock('../../media/devices', () => ({
  PHONE_STREAM_ID: 'phone-camera',
  acquirePhoneCamera: media.acquirePhoneCamera,
}));
vi.mock('../../platform/wake-lock', () => ({ keepScreenAwake: media.keepScreenAwake }));

const CODE = 'c0de-c0de-c0de-c0de-c0de-c0de-c0de-c0de-000';
const PAIRED = {
  access_token: 'phone-token-0123456789abcdef',
  expires_at: '2099-01-01T00:00:00.000+09:00',
  exam_user_name: '山田 花子',
  login_id: 's2026001',
  test_name: 'Demo Exam',
  lang: 'ja',
  // One-second polls keep the test short (a real sitting polls every few seconds).
  matching_timeout: 1,
};
const CHANNEL = {
  region: 'ap-northeast-1',
  access_key_id: 'AK',
  secret_access_key: 'SK',
  session_token: 'ST',
  channel_name: 'exam-1-abcdefabcdef-phone',
  endpoint: 'http://127.0.0.1/kvs',
  expiration: '2099-01-01T00:00:00Z',
};
const poll = (over: Record<string, unknown> = {}) => ({
  sitting: 'open',
  state: 'live',
  matching_timeout: 1,
  signaling_channel: CHANNEL,
  viewer_client_id: 'viewer-of-checker-2',
  recording: null,
  ...over,
});

/** The phone's page was opened from the QR code's link. */
function openedWithCode(code = CODE): void {
  scrubPairingCode(
    { pathname: '/phone', hash: `#${code}`, href: `http://exam.test/phone?lang=ja#${code}` },
    { state: null, replaceState: () => undefined },
  );
}

function fakeMaster(status: 'live' | 'connecting' | 'lost' = 'live', viewers = 1) {
  return {
    channelName: CHANNEL.channel_name,
    stop: vi.fn(async () => undefined),
    reconnect: vi.fn(async () => undefined),
    matchedViewerChanged: vi.fn(),
    replaceVideoTrack: vi.fn(async () => undefined),
    stats: () => ({ status, viewers, peers: {} }),
  };
}

/** What the phone sent to phone/poll, in order. */
const polled: Record<string, unknown>[] = [];
const bearers: (string | null)[] = [];

beforeEach(() => {
  sessionStorage.clear();
  polled.length = 0;
  bearers.length = 0;
  Object.values(media).forEach((f) => f.mockReset());
  media.keepScreenAwake.mockReturnValue(() => undefined);
  media.acquirePhoneCamera.mockResolvedValue({ ok: true, track: { kind: 'video' } });
  media.sessionStart.mockResolvedValue({
    mimeType: 'video/webm',
    resumed: false,
    segment: 0,
    timesliceMs: 15000,
  });
  media.sessionStop.mockResolvedValue([{ PartNumber: 1, ETag: '"e1"' }]);
  media.sessionComplete.mockResolvedValue(undefined);
});
afterEach(() => {
  vi.useRealTimers();
  // A page left waiting (a camera to choose) polls on: it is closed, so it asks nothing in later tests.
  for (const p of pages.splice(0)) p.dispatch(phoneEnded('stopped'));
});

/** The stores of this test's phone pages. */
const pages: ReturnType<typeof setupStore>[] = [];
function pageStore(): ReturnType<typeof setupStore> {
  const s = setupStore();
  pages.push(s);
  return s;
}

function answerPolls(...answers: Record<string, unknown>[]): void {
  let i = 0;
  server.use(
    http.post('*/api/v1/phone/poll.php', async ({ request }) => {
      polled.push((await request.json()) as Record<string, unknown>);
      bearers.push(request.headers.get('authorization'));
      const a = answers[Math.min(i++, answers.length - 1)]!;
      if ('status' in a) return HttpResponse.json(a, { status: a.status as number });
      return HttpResponse.json({ status: 200, message: 'OK', result: a });
    }),
  );
}

const until = (check: () => boolean) =>
  vi.waitFor(() => expect(check(), String(check)).toBe(true), { timeout: 4000 });

describe('the phone camera’s page', () => {
  it('spends the code once, keeps its session for a reload, and says whose exam it joined', async () => {
    server.use(ok('phone/pair', PAIRED));
    openedWithCode();
    const s = pageStore();
    s.dispatch(phonePageOpened());
    await until(() => selectPhoneCamera(s.getState()).step === 'choose');
    expect(selectPhoneCamera(s.getState())).toMatchObject({ examUserName: '山田 花子', loginId: 's2026001' });
    expect(JSON.parse(sessionStorage.getItem(PHONE_SESSION_KEY)!).token).toBe(PAIRED.access_token);
    // A reload (no code in the address any more) goes on with the same session, without pairing again.
    server.use(fail('phone/pair', 410, 'used', 'phone_pairing_invalid'));
    const again = pageStore();
    again.dispatch(phonePageOpened());
    await until(() => selectPhoneCamera(again.getState()).step === 'choose');
  });

  it('says a used, expired or replaced code cannot be used, and offers a retry only when the network failed', async () => {
    server.use(fail('phone/pair', 410, 'used', 'phone_pairing_invalid'));
    openedWithCode();
    const s = pageStore();
    s.dispatch(phonePageOpened());
    await until(() => selectPhoneCamera(s.getState()).step === 'invalid');
    expect(selectPhoneCamera(s.getState()).pairingError).toBe('invalid');

    server.use(http.post('*/api/v1/phone/pair.php', () => HttpResponse.error()));
    openedWithCode();
    const t = pageStore();
    t.dispatch(phonePageOpened());
    await until(() => selectPhoneCamera(t.getState()).pairingError === 'network');
    server.use(ok('phone/pair', PAIRED));
    t.dispatch(phonePairingRetried());
    await until(() => selectPhoneCamera(t.getState()).step === 'choose');
  });

  it('publishes the chosen camera with its own session, answering only the matched checker, and switches cameras in place', async () => {
    server.use(ok('phone/pair', PAIRED));
    const m = fakeMaster();
    media.startMaster.mockResolvedValue(m);
    answerPolls(poll());
    openedWithCode();
    const s = pageStore();
    s.dispatch(phonePageOpened());
    await until(() => selectPhoneCamera(s.getState()).step === 'choose');
    s.dispatch(phoneCameraChosen('environment'));
    await until(() => media.startMaster.mock.calls.length === 1);
    expect(media.acquirePhoneCamera).toHaveBeenCalledWith('environment');
    const opts = media.startMaster.mock.calls[0]![0];
    expect(opts.streamId).toBe('phone-camera');
    // The live copy is capped like the shared screen's (README "The wider view": the phone's upstream).
    expect(opts.videoLimits).toEqual({ maxBitrate: 1_000_000 });
    expect(opts.channel.channelName).toBe(CHANNEL.channel_name);
    expect(opts.allowedViewer()).toBe('viewer-of-checker-2');
    // Its first poll asks for fresh credentials, every poll carries the phone's own bearer (never a login's).
    expect(polled[0]).toMatchObject({
      channel_status: 'close',
      camera: 'environment',
      fresh_credentials: true,
    });
    expect(bearers[0]).toBe(`Bearer ${PAIRED.access_token}`);
    await until(() => selectPhoneCamera(s.getState()).connection === 'connected');
    expect(selectPhoneCamera(s.getState()).watched).toBe(true);
    await until(() => polled.length >= 2);
    expect(polled[1]).toMatchObject({ channel_status: 'open' });
    expect(polled[1]!.fresh_credentials).toBeUndefined();

    media.acquirePhoneCamera.mockResolvedValue({ ok: true, track: { kind: 'video', id: 'front' } });
    s.dispatch(phoneCameraChosen('user'));
    await until(() => m.replaceVideoTrack.mock.calls.length === 1);
    expect(media.startMaster).toHaveBeenCalledTimes(1);
    expect(selectPhoneCamera(s.getState())).toMatchObject({ step: 'running', camera: 'user' });
    s.dispatch(phoneStopRequested());
    await until(() => selectPhoneCamera(s.getState()).step === 'ended');
  }, 20_000);

  it('keeps a publisher whose signaling was lost (its peers still send) and reopens it at the next poll', async () => {
    server.use(ok('phone/pair', PAIRED));
    const m = fakeMaster();
    let status: 'live' | 'lost' = 'live';
    const master = { ...m, stats: () => ({ status, viewers: 1, peers: {} }) };
    media.startMaster.mockResolvedValue(master);
    answerPolls(poll());
    openedWithCode();
    const s = pageStore();
    s.dispatch(phonePageOpened());
    await until(() => selectPhoneCamera(s.getState()).step === 'choose');
    s.dispatch(phoneCameraChosen('environment'));
    await until(() => media.startMaster.mock.calls.length === 1);
    await until(() => selectPhoneCamera(s.getState()).connection === 'connected');
    // The server went away long enough for every reconnect attempt to fail.
    status = 'lost';
    media.startMaster.mock.calls[0]![0].callbacks.onLost('signaling closed while opening');
    expect(selectPhoneCamera(s.getState()).connection).toBe('reconnecting');
    await until(() => master.reconnect.mock.calls.length === 1);
    expect(master.stop).not.toHaveBeenCalled();
    expect(media.startMaster).toHaveBeenCalledTimes(1);
    s.dispatch(phoneStopRequested());
    await until(() => selectPhoneCamera(s.getState()).step === 'ended');
  }, 20_000);

  it('ends when the sitting ends, and when another phone replaced it', async () => {
    server.use(ok('phone/pair', PAIRED));
    const m = fakeMaster();
    media.startMaster.mockResolvedValue(m);
    answerPolls(poll(), poll({ sitting: 'ended', signaling_channel: null, viewer_client_id: null }));
    openedWithCode();
    const s = pageStore();
    s.dispatch(phonePageOpened());
    await until(() => selectPhoneCamera(s.getState()).step === 'choose');
    s.dispatch(phoneCameraChosen('environment'));
    await until(() => selectPhoneCamera(s.getState()).step === 'ended');
    expect(selectPhoneCamera(s.getState()).endReason).toBe('sittingEnded');
    await until(() => m.stop.mock.calls.length > 0);
    expect(sessionStorage.getItem(PHONE_SESSION_KEY)).toBeNull();

    server.use(ok('phone/pair', PAIRED));
    answerPolls({ status: 401, message: 'replaced', result: null, code: 'phone_replaced' });
    openedWithCode();
    const t = pageStore();
    t.dispatch(phonePageOpened());
    await until(() => selectPhoneCamera(t.getState()).step === 'choose');
    t.dispatch(phoneCameraChosen('environment'));
    await until(() => selectPhoneCamera(t.getState()).step === 'replaced');
  }, 20_000);

  it('a page waiting for a camera to be chosen (a reload) still polls, and notices the sitting ended or a replacement', async () => {
    server.use(ok('phone/pair', PAIRED));
    answerPolls(poll({ sitting: 'ended', signaling_channel: null, viewer_client_id: null }));
    openedWithCode();
    const s = pageStore();
    s.dispatch(phonePageOpened());
    await until(() => selectPhoneCamera(s.getState()).step === 'choose');
    // No camera chosen: the next poll says the exam is over.
    await until(() => selectPhoneCamera(s.getState()).step === 'ended');
    expect(selectPhoneCamera(s.getState()).endReason).toBe('sittingEnded');
    expect(polled[0]).toEqual({ channel_status: 'close' });
    expect(bearers[0]).toBe(`Bearer ${PAIRED.access_token}`);
    expect(media.acquirePhoneCamera).not.toHaveBeenCalled();
    // A reload now does not pick the ended session up again.
    expect(sessionStorage.getItem(PHONE_SESSION_KEY)).toBeNull();

    server.use(ok('phone/pair', PAIRED));
    answerPolls({ status: 401, message: 'replaced', result: null, code: 'phone_replaced' });
    openedWithCode();
    const t = pageStore();
    t.dispatch(phonePageOpened());
    await until(() => selectPhoneCamera(t.getState()).step === 'choose');
    await until(() => selectPhoneCamera(t.getState()).step === 'replaced');
  }, 20_000);

  it("records its camera as the sitting's phone stream at the sitting's quality, and sends the rest when the exam ends", async () => {
    server.use(ok('phone/pair', PAIRED));
    media.startMaster.mockResolvedValue(fakeMaster());
    const recording = { video_level: 10, video_codec: null };
    answerPolls(
      poll({ recording }),
      poll({ recording }),
      poll({ sitting: 'ended', signaling_channel: null, recording }),
    );
    const calls: Record<string, unknown>[] = [];
    server.use(
      http.post('*/api/v1/tester/recording.php', async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>;
        calls.push({ ...body, bearer: request.headers.get('authorization') });
        const result =
          body.method === 'PUT'
            ? {
                record_id: 41,
                segment: 1,
                mime_type: 'video/webm',
                accessKeyId: 'AK',
                secretAccessKey: 'SK',
                sessionToken: 'ST',
                expiration: '2099-01-01T00:00:00Z',
                bucket: 'recordings',
                key: 'recordings/1/phone/41-1.webm',
                uploadId: 'U1',
                interval: 0,
                region: 'ap-northeast-1',
                part_size: 5242880,
              }
            : { record_id: 41, completed: true };
        return HttpResponse.json({ status: 200, message: 'OK', result });
      }),
    );
    openedWithCode();
    const s = pageStore();
    s.dispatch(phonePageOpened());
    await until(() => selectPhoneCamera(s.getState()).step === 'choose');
    s.dispatch(phoneCameraChosen('environment'));
    await until(() => media.sessionStart.mock.calls.length === 1);
    expect(calls[0]).toMatchObject({
      method: 'PUT',
      stream: 'phone',
      bearer: `Bearer ${PAIRED.access_token}`,
    });
    expect(media.sessionStart.mock.calls[0]![0]).toMatchObject({ voiceRecording: false, videoLevel: 10 });
    await until(() => selectPhoneCamera(s.getState()).step === 'ended');
    await until(() => media.sessionComplete.mock.calls.length === 1);
    expect(calls.at(-1)).toMatchObject({
      method: 'DELETE',
      record_id: 41,
      parts: [{ PartNumber: 1, ETag: '"e1"' }],
    });
    expect(selectPhoneCamera(s.getState()).recording).toBe('done');
  }, 20_000);

  it('says why the camera could not open, and lets the examinee choose again', async () => {
    server.use(ok('phone/pair', PAIRED));
    media.acquirePhoneCamera.mockResolvedValue({ ok: false, code: 'denied' });
    openedWithCode();
    const s = pageStore();
    s.dispatch(phonePageOpened());
    await until(() => selectPhoneCamera(s.getState()).step === 'choose');
    s.dispatch(phoneCameraChosen('environment'));
    await until(() => selectPhoneCamera(s.getState()).step === 'cameraFailed');
    expect(selectPhoneCamera(s.getState()).cameraError).toBe('denied');
    expect(media.startMaster).not.toHaveBeenCalled();
  });

  it('stop tells the server the phone leaves, naming the run its polls named', async () => {
    server.use(ok('phone/pair', PAIRED));
    media.startMaster.mockResolvedValue(fakeMaster());
    answerPolls(poll());
    let left = 0;
    const leaves: Record<string, unknown>[] = [];
    server.use(
      http.post('*/api/v1/phone/leave.php', async ({ request }) => {
        left += 1;
        leaves.push((await request.json()) as Record<string, unknown>);
        return HttpResponse.json({ status: 200, message: 'OK', result: { left: true } });
      }),
    );
    openedWithCode();
    const s = pageStore();
    s.dispatch(phonePageOpened());
    await until(() => selectPhoneCamera(s.getState()).step === 'choose');
    s.dispatch(phoneCameraChosen('environment'));
    await until(() => selectPhoneCamera(s.getState()).step === 'running');
    s.dispatch(phoneStopRequested());
    await until(() => selectPhoneCamera(s.getState()).endReason === 'stopped');
    expect(left).toBe(1);
    // One run for the page's publishing: every poll and the leave carry it (a late poll stays lost).
    const runs = new Set(polled.map((p) => p.run));
    expect(runs.size).toBe(1);
    expect(typeof leaves[0]!.run).toBe('string');
    expect(runs.has(leaves[0]!.run)).toBe(true);
  });
});
