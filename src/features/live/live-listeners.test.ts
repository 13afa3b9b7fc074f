import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setupStore } from '../../app/store';
import { loginState } from '../../../tests/render';
import { liveStartRequested, liveStopRequested, selectLive } from './live-slice';
import { ApiError } from '../../api/api-error';
import type * as MatchingApi from '../../api/matching';
import type { Matching } from '../../api/matching';
import { selectTester } from '@/features/tester/tester-slice';

const api = vi.hoisted(() => ({
  pollMatching: vi.fn(),
  deleteMatching: vi.fn(),
  kvsReconnect: vi.fn(),
  postMessage: vi.fn(),
  startMaster: vi.fn(),
}));

vi.mock('../../api/matching', async (orig) => ({
  ...(await orig<typeof MatchingApi>()),
  pollMatching: api.pollMatching,
  deleteMatching: api.deleteMatching,
  kvsReconnect: api.kvsReconnect,
}));
vi.mock('../../api/messages', () => ({ postMessage: api.postMessage, getMessages: vi.fn(async () => []) }));
vi.mock('../../media/master', () => ({ startMaster: api.startMaster }));
vi.mock('../../api/tester', () => ({ postTesterStatus: vi.fn(async () => ({ status: 2 })) }));
vi.mock('../../media/devices', () => ({ acquireLocalMedia: vi.fn(async () => ({})) }));

const CHANNEL = {
  region: 'ap-northeast-1',
  accessKeyId: 'AK',
  secretAccessKey: 'SK',
  sessionToken: 'ST',
  channelName: 'exam-1',
  endpoint: 'http://127.0.0.1/kvs',
  expiration: '2099-01-01T00:00:00Z',
};

function matching(over: Partial<Matching> = {}): Matching {
  return {
    monitorId: 1,
    testerId: 7,
    testId: 1,
    checkerId: 2,
    fileName: '',
    matchingStatus: 2,
    loginId: 'tester03',
    exLoginId: null,
    examName: '',
    testerStatus: 1,
    rejected: 0,
    kicked: 0,
    matchingTotalTime: 0,
    matchingConnectedTime: 0,
    startupParameters: {},
    matchingCommand: 0,
    signalingChannel: CHANNEL,
    viewerClientId: 'viewer-of-checker-2',
    ...over,
  };
}

function fakeMaster() {
  return {
    channelName: 'exam-1',
    stop: vi.fn(async () => undefined),
    reconnect: vi.fn(async () => undefined),
    matchedViewerChanged: vi.fn(),
    stats: () => ({ status: 'live' as const, viewers: 1, peers: {} }),
  };
}

describe('live channel listeners', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    Object.values(api).forEach((f) => f.mockReset());
    api.deleteMatching.mockResolvedValue({ deleted: true, monitorId: null });
    api.postMessage.mockResolvedValue(null);
  });
  afterEach(() => vi.useRealTimers());

  const store = () => setupStore(loginState(1));

  it('polls matching every matchingTimeout seconds (server value wins)', async () => {
    api.pollMatching.mockResolvedValue({ matchings: [], matchingTimeout: 3 });
    const s = store();
    s.dispatch(liveStartRequested({ testerId: 7, matchingTimeout: 5 }));
    await vi.advanceTimersByTimeAsync(0);
    expect(api.pollMatching).toHaveBeenCalledTimes(1);
    expect(api.pollMatching.mock.calls[0]![0]).toMatchObject({ testerId: 7, channelStatus: 'close' });
    await vi.advanceTimersByTimeAsync(2900);
    expect(api.pollMatching).toHaveBeenCalledTimes(1);
    await vi.advanceTimersByTimeAsync(200);
    expect(api.pollMatching).toHaveBeenCalledTimes(2);
    expect(selectLive(s.getState()).matchingTimeout).toBe(3);
    s.dispatch(liveStopRequested());
    await vi.advanceTimersByTimeAsync(20_000);
    expect(selectLive(s.getState()).status).toBe('stopped');
  });

  it('starts the master on a valid channel and reports the channel open', async () => {
    const m = fakeMaster();
    api.startMaster.mockResolvedValue(m);
    api.pollMatching.mockResolvedValue({ matchings: [matching()], matchingTimeout: 5 });
    const s = store();
    s.dispatch(liveStartRequested({ testerId: 7, matchingTimeout: 5 }));
    await vi.advanceTimersByTimeAsync(10);
    expect(api.startMaster).toHaveBeenCalledTimes(1);
    expect(api.startMaster.mock.calls[0]![0].channel.channelName).toBe('exam-1');
    // The master answers only the matched checker's viewer ClientId, as the latest poll names it.
    expect(api.startMaster.mock.calls[0]![0].allowedViewer?.()).toBe('viewer-of-checker-2');
    api.pollMatching.mockResolvedValue({
      matchings: [matching({ checkerId: null, viewerClientId: null })],
      matchingTimeout: 5,
    });
    await vi.advanceTimersByTimeAsync(5000);
    expect(api.pollMatching.mock.calls[1]![0]).toMatchObject({ channelStatus: 'open' });
    expect(api.startMaster.mock.calls[0]![0].allowedViewer?.()).toBeNull();
    expect(m.matchedViewerChanged).toHaveBeenCalled();
    expect(api.startMaster).toHaveBeenCalledTimes(1);
    s.dispatch(liveStopRequested());
    await vi.advanceTimersByTimeAsync(20_000);
    // spec §4: the master close waits 2 × matchingTimeout.
    expect(m.stop).toHaveBeenCalledWith(10_000);
  });

  it('deletes the matching when signaling start-up failed (after the master’s 3 tries)', async () => {
    api.startMaster.mockRejectedValue(new Error('signaling closed while opening'));
    api.pollMatching.mockResolvedValue({ matchings: [matching()], matchingTimeout: 5 });
    const s = store();
    s.dispatch(liveStartRequested({ testerId: 7, matchingTimeout: 5 }));
    await vi.advanceTimersByTimeAsync(10);
    expect(api.deleteMatching).toHaveBeenCalledWith(7);
    expect(selectLive(s.getState()).signalingFailures).toBe(1);
    expect(selectLive(s.getState()).status).toBe('lost');
    s.dispatch(liveStopRequested());
    await vi.advanceTimersByTimeAsync(20_000);
  });

  it('keeps a master whose signaling was lost (its peers still send) and reconnects it once a poll brings the channel', async () => {
    let status: 'live' | 'lost' = 'live';
    const m = { ...fakeMaster(), stats: () => ({ status, viewers: 1, peers: {} }) };
    api.startMaster.mockResolvedValue(m);
    api.pollMatching.mockResolvedValue({ matchings: [matching()], matchingTimeout: 5 });
    const s = store();
    s.dispatch(liveStartRequested({ testerId: 7, matchingTimeout: 5 }));
    await vi.advanceTimersByTimeAsync(10);
    // The server went away: the master's reconnect failed every attempt (spec §4: the matching is deleted).
    status = 'lost';
    api.startMaster.mock.calls[0]![0].callbacks.onLost('signaling closed while opening');
    await vi.advanceTimersByTimeAsync(10);
    expect(api.deleteMatching).toHaveBeenCalledWith(7);
    expect(selectLive(s.getState()).status).toBe('lost');
    // Not let go: it alone can close the peer of a checker the next matching no longer names.
    expect(m.stop).not.toHaveBeenCalled();
    // The server answers again: the same master reopens its signaling; no second master beside it.
    await vi.advanceTimersByTimeAsync(5000);
    expect(m.reconnect).toHaveBeenCalledTimes(1);
    expect(m.matchedViewerChanged).toHaveBeenCalled();
    expect(api.startMaster).toHaveBeenCalledTimes(1);
    s.dispatch(liveStopRequested());
    await vi.advanceTimersByTimeAsync(20_000);
    expect(m.stop).toHaveBeenCalled();
  });

  it('matching command 1 resets the signaling channel and acknowledges it on the next poll', async () => {
    const first = fakeMaster();
    const second = fakeMaster();
    api.startMaster.mockResolvedValueOnce(first).mockResolvedValueOnce(second);
    api.pollMatching
      .mockResolvedValueOnce({ matchings: [matching()], matchingTimeout: 5 })
      .mockResolvedValueOnce({ matchings: [matching({ matchingCommand: 1 })], matchingTimeout: 5 })
      .mockResolvedValue({ matchings: [matching()], matchingTimeout: 5 });
    const s = store();
    s.dispatch(liveStartRequested({ testerId: 7, matchingTimeout: 5 }));
    await vi.advanceTimersByTimeAsync(10);
    await vi.advanceTimersByTimeAsync(5000);
    expect(first.stop).toHaveBeenCalled();
    expect(api.startMaster).toHaveBeenCalledTimes(2);
    await vi.advanceTimersByTimeAsync(5000);
    expect(api.pollMatching.mock.calls[2]![0]).toMatchObject({ matchingCommand: 1 });
    s.dispatch(liveStopRequested());
    await vi.advanceTimersByTimeAsync(20_000);
  });

  it('a network error sets the disconnect flag, tells the proctor once, and resets after matchingTimeout', async () => {
    api.pollMatching.mockRejectedValue(
      new ApiError('matching', 0, 'Network Error', 'errors:network', 'network'),
    );
    const s = store();
    s.dispatch(liveStartRequested({ testerId: 7, matchingTimeout: 4 }));
    await vi.advanceTimersByTimeAsync(10);
    expect(selectTester(s.getState()).disconnected).toBe(true);
    expect(api.postMessage).toHaveBeenCalledTimes(1);
    expect(api.postMessage.mock.calls[0]![0]).toMatchObject({ testerId: 7, messageType: 3 });
    await vi.advanceTimersByTimeAsync(3000);
    expect(selectTester(s.getState()).disconnected).toBe(true);
    api.pollMatching.mockReset();
    api.pollMatching.mockImplementation(() => new Promise(() => undefined));
    await vi.advanceTimersByTimeAsync(1100);
    expect(selectTester(s.getState()).disconnected).toBe(false);
    s.dispatch(liveStopRequested());
    await vi.advanceTimersByTimeAsync(20_000);
  });
});
