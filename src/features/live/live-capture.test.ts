import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setupStore } from '../../app/store';
import { loginState } from '../../../tests/render';
import { ApiError, NETWORK_ERROR_STATUS } from '../../api/api-error';
import { logger } from '../../lib/logger';
import { takesStills } from './live-capture';
import { CaptureQueue } from './live-stills';
import { liveStartRequested, liveStopRequested, matchingPolled } from './live-slice';
import { testerStateChanged } from '../tester/tester-slice';
import type * as StreamRegistry from '../../media/stream-registry';
import type * as MatchingApi from '../../api/matching';

const media = vi.hoisted(() => ({ captureLiveStill: vi.fn(), postCapture: vi.fn(), stream: {} }));

vi.mock('../../media/frame-capture', () => ({ captureLiveStill: media.captureLiveStill }));
vi.mock('../../media/stream-registry', async (orig) => ({
  ...(await orig<typeof StreamRegistry>()),
  getStream: () => media.stream,
}));
vi.mock('../../api/capture', () => ({ postCapture: media.postCapture }));
// The live loop of the same start event polls matching; it is not under test here.
vi.mock('../../api/matching', async (orig) => ({
  ...(await orig<typeof MatchingApi>()),
  pollMatching: vi.fn(() => new Promise(() => undefined)),
}));

describe('CaptureQueue', () => {
  const still = (n: number) => ({ key: `k${n}`, image: `img${n}`, takenAt: n });

  it('keeps the newest three and says which one it dropped', () => {
    const q = new CaptureQueue();
    expect([1, 2, 3].map((n) => q.add(still(n)))).toEqual([null, null, null]);
    expect(q.add(still(4))).toEqual(still(1));
    expect(q.size).toBe(3);
  });

  it('sends oldest first, stops at the first one that must wait, and empties on "stop"', async () => {
    const q = new CaptureQueue();
    for (const n of [1, 2, 3]) q.add(still(n));
    const seen: string[] = [];
    expect(await q.flush(async (s) => (seen.push(s.key), s.key === 'k2' ? 'retry' : 'sent'))).toBe(1);
    expect(seen).toEqual(['k1', 'k2']);
    expect(q.size).toBe(2);
    expect(await q.flush(async () => 'drop')).toBe(0);
    expect(q.size).toBe(0);
    q.add(still(5));
    q.add(still(6));
    expect(await q.flush(async () => 'stop')).toBe(0);
    expect(q.size).toBe(0);
  });

  it('takes stills from the accepted identity to the end of the exam', () => {
    expect([1, 2, 3, 4, 5, 6, 7].map(takesStills)).toEqual([false, false, true, true, true, true, false]);
  });
});

describe('the examinee page’s stills', () => {
  let errors: string[];
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance', 'Date'] });
    errors = [];
    vi.spyOn(logger, 'error').mockImplementation((_m, msg) => void errors.push(msg));
    let n = 0;
    media.captureLiveStill.mockReset().mockImplementation(async () => ({
      image: `img${++n}`,
      width: 640,
      height: 480,
      takenAt: performance.now(),
    }));
    media.postCapture.mockReset();
  });
  afterEach(() => {
    vi.useRealTimers();
    vi.restoreAllMocks();
  });

  function start(interval: number) {
    const store = setupStore(loginState(1));
    store.dispatch(testerStateChanged(5));
    store.dispatch(liveStartRequested({ testerId: 7, matchingTimeout: 5 }));
    store.dispatch(
      matchingPolled({
        matchingTimeout: 5,
        monitorId: 1,
        checkerId: 2,
        matchingStatus: 2,
        channelName: 'c',
        capture: { interval, type: 1 },
      }),
    );
    return store;
  }

  it('sends one still every capture interval, with its age', async () => {
    media.postCapture.mockResolvedValue({ captureId: 1, analysis: 'realtime', interval: 5 });
    const store = start(5);
    // One at once, then one every 5 s.
    await vi.advanceTimersByTimeAsync(5000 * 2 + 100);
    const sent = media.postCapture.mock.calls.map((c) => c[0] as { image: string; ageMs: number });
    expect(sent.map((s) => s.image)).toEqual(['img1', 'img2', 'img3']);
    expect(sent.every((s) => s.ageMs >= 0 && s.ageMs < 1000)).toBe(true);
    store.dispatch(liveStopRequested());
  });

  it('keeps going through a network gap: keeps the newest three, logs the dropped one, sends them late', async () => {
    const offline = new ApiError('tester/capture', NETWORK_ERROR_STATUS, 'Network error', 'errors:network');
    media.postCapture.mockRejectedValue(offline);
    const store = start(5);
    // Five stills while offline: the first two are pushed out.
    await vi.advanceTimersByTimeAsync(5000 * 4 + 100);
    expect(media.captureLiveStill).toHaveBeenCalledTimes(5);
    expect(errors.filter((e) => e.includes('dropped the oldest'))).toHaveLength(2);
    // Back online: the next round takes a sixth (pushing the third out) and sends the three kept, oldest first,
    // each with its age.
    media.postCapture.mockReset().mockResolvedValue({ captureId: 1, analysis: 'realtime', interval: 5 });
    await vi.advanceTimersByTimeAsync(5000);
    expect(errors.filter((e) => e.includes('dropped the oldest'))).toHaveLength(3);
    const sent = media.postCapture.mock.calls.map(
      (c) => c[0] as { image: string; ageMs: number; clientKey: string },
    );
    expect(sent.map((s) => s.image)).toEqual(['img4', 'img5', 'img6']);
    expect(sent.map((s) => Math.round(s.ageMs / 1000))).toEqual([10, 5, 0]);
    expect(new Set(sent.map((s) => s.clientKey)).size).toBe(3);
    store.dispatch(liveStopRequested());
  });

  it('takes no still while capture_interval is 0', async () => {
    const store = start(0);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(media.captureLiveStill).not.toHaveBeenCalled();
    store.dispatch(liveStopRequested());
  });
});
