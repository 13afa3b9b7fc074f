import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setupStore } from '../../app/store';
import type { CheckerMatching } from '../../api/checker';
import type * as CheckerApi from '../../api/checker';
import { loginState } from '../../../tests/render';
import { BEFORE_CLOSE_DELAY_FACTOR, decideOnViewerState, stillSameMatching } from './monitoring-lifecycle';
import {
  chatReceived,
  matchingsPolled,
  monitoringStarted,
  paneViewStatusChanged,
  selectPane,
  type Pane,
} from './monitoring-slice';
import { reconnectRequested } from './monitoring-thunks';
import {
  CREDENTIAL_REFRESH_MARGIN_MS,
  connectPaneViewer,
  isPaneViewerActive,
  paneCredentials,
  rememberPaneCredentials,
  stopAllPaneViewers,
  viewerStateChanged,
} from './monitoring-viewers';

const api = vi.hoisted(() => ({
  deleteCheckerMatching: vi.fn((..._a: unknown[]) => Promise.resolve(true)),
  getExamineeMessages: vi.fn((..._a: unknown[]) => Promise.resolve([])),
  pollCheckerMatchings: vi.fn((..._a: unknown[]) => new Promise<never>(() => undefined)),
  reconnectViewerChannel: vi.fn((..._a: unknown[]) => Promise.resolve(null)),
}));

vi.mock('../../api/checker', async (orig) => ({
  ...(await orig<typeof CheckerApi>()),
  deleteCheckerMatching: api.deleteCheckerMatching,
  getExamineeMessages: api.getExamineeMessages,
  pollCheckerMatchings: api.pollCheckerMatchings,
  reconnectViewerChannel: api.reconnectViewerChannel,
  getExamineeSummary: () => new Promise(() => undefined),
  getHeadShot: () => new Promise(() => undefined),
  getMonitorActivations: () => Promise.resolve([]),
  getFixedNotifications: () => Promise.resolve([]),
  postCheckerMessage: () => Promise.resolve(null),
}));
vi.mock('../../api/markings', () => ({ getMarks: () => Promise.resolve([]) }));
// The live feed of the same start event: not under test here.
vi.mock('../../api/capture', () => ({ getLiveFeed: () => new Promise(() => undefined) }));
vi.mock('../../media/viewer', () => ({
  openViewer: () => new Promise(() => undefined),
}));

function m(testerId: number, monitorId: number): CheckerMatching {
  return {
    monitorId,
    testerId,
    testId: 1,
    loginId: `t${testerId}`,
    exLoginId: null,
    examName: 'E',
    matchingStatus: 2,
    testerStatus: 2,
    rejected: 0,
    kicked: 0,
    matchingConnectedTime: 0,
    matchingCommand: 0,
    channel: null,
    widerView: { screen: false, roomScan: false, phone: false },
    identityCheck: 'checker',
    phone: null,
  };
}

const pane = (over: Partial<Pane> = {}) => ({ monitorId: 7, beforeClose: false, ...over }) as Pane;

describe('decideOnViewerState (spec §4)', () => {
  it('deletes on disconnected, failed and closed; ignores connecting and connected', () => {
    for (const s of ['disconnected', 'failed', 'closed'] as const) {
      expect(decideOnViewerState(pane(), 7, s, 5)).toEqual({ kind: 'delete' });
    }
    expect(decideOnViewerState(pane(), 7, 'connecting', 5)).toEqual({ kind: 'ignore' });
    expect(decideOnViewerState(pane(), 7, 'connected', 5)).toEqual({ kind: 'ignore' });
  });

  it('delays by 4 × matchingTimeout after BEFORE_CLOSE', () => {
    expect(decideOnViewerState(pane({ beforeClose: true }), 7, 'failed', 5)).toEqual({
      kind: 'deleteLater',
      afterMs: BEFORE_CLOSE_DELAY_FACTOR * 5000,
    });
  });

  it('ignores a pane that is gone or belongs to another matching', () => {
    expect(decideOnViewerState(undefined, 7, 'failed', 5)).toEqual({ kind: 'ignore' });
    expect(decideOnViewerState(pane({ monitorId: 8 }), 7, 'failed', 5)).toEqual({ kind: 'ignore' });
    expect(stillSameMatching(pane({ monitorId: 8 }), 7)).toBe(false);
    expect(stillSameMatching(pane(), 7)).toBe(true);
  });
});

describe('viewer lifecycle listener', () => {
  beforeEach(() => {
    vi.useFakeTimers();
    api.deleteCheckerMatching.mockClear();
  });
  afterEach(() => vi.useRealTimers());

  function started() {
    const store = setupStore(loginState(2));
    store.dispatch(monitoringStarted());
    store.dispatch(matchingsPolled({ matchings: [m(11, 111)], matchingTimeout: 5, at: Date.now() }));
    return store;
  }

  it('deletes the matching at once when the viewer is lost', async () => {
    const store = started();
    store.dispatch(viewerStateChanged({ testerId: 11, monitorId: 111, state: 'disconnected' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(api.deleteCheckerMatching).toHaveBeenCalledWith(11, 111, true);
    expect(selectPane(store.getState(), 11)).toBeUndefined();
  });

  it("reports the failed channel to matching.php (tester_id + channel_status 'failed')", async () => {
    const store = started();
    api.pollCheckerMatchings.mockClear();
    store.dispatch(viewerStateChanged({ testerId: 11, monitorId: 111, state: 'failed' }));
    await vi.advanceTimersByTimeAsync(0);
    expect(api.pollCheckerMatchings).toHaveBeenCalledWith({ testerId: 11, channelStatus: 'failed' });
  });

  it('refreshes the viewer credentials through kvs_reconnect shortly before they expire', async () => {
    const store = started();
    const channel = {
      region: 'r',
      accessKeyId: 'a',
      secretAccessKey: 's',
      sessionToken: 't',
      channelName: 'c',
      endpoint: null,
      expiration: new Date(Date.now() + CREDENTIAL_REFRESH_MARGIN_MS + 60_000).toISOString(),
    };
    void connectPaneViewer(store, 11, 111, channel);
    rememberPaneCredentials(11, channel);
    await vi.advanceTimersByTimeAsync(59_000);
    expect(api.reconnectViewerChannel).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(2_000);
    expect(api.reconnectViewerChannel).toHaveBeenCalledWith(11);
    stopAllPaneViewers();
  });

  const creds = (accessKeyId: string, channelName: string, inMs: number) => ({
    region: 'r',
    accessKeyId,
    secretAccessKey: 's',
    sessionToken: 't',
    channelName,
    endpoint: null,
    expiration: new Date(Date.now() + inMs).toISOString(),
  });
  const livePhone = (channel: ReturnType<typeof creds>) => ({
    state: 'live' as const,
    since: '2026-01-01T00:00:00Z',
    lostReason: null,
    camera: 'environment' as const,
    channel,
  });

  it('takes the phone channel’s fresh credentials from that kvs_reconnect too', async () => {
    const store = started();
    const camera = creds('a', 'c', CREDENTIAL_REFRESH_MARGIN_MS + 60_000);
    const phone = creds('p', 'c-phone', CREDENTIAL_REFRESH_MARGIN_MS + 60_000);
    void connectPaneViewer(store, 11, 111, camera);
    rememberPaneCredentials(11, camera);
    rememberPaneCredentials(11, phone, 'phone');
    const freshPhone = creds('p2', 'c-phone', 900_000);
    api.reconnectViewerChannel.mockResolvedValueOnce({
      ...m(11, 111),
      channel: creds('a2', 'c', 900_000),
      phone: livePhone(freshPhone),
    } as never);
    await vi.advanceTimersByTimeAsync(61_000);
    expect(api.reconnectViewerChannel).toHaveBeenCalledWith(11);
    expect(paneCredentials(11, phone, 'phone').accessKeyId).toBe('p2');
    stopAllPaneViewers();
  });

  it('reconnect pressed: the phone’s view reconnects too, with the fresh credentials kvs_reconnect gave', async () => {
    const store = started();
    const freshPhone = creds('p3', 'c-phone', 900_000);
    api.reconnectViewerChannel.mockResolvedValueOnce({
      ...m(11, 111),
      channel: creds('a3', 'c', 900_000),
      phone: livePhone(freshPhone),
    } as never);
    expect(isPaneViewerActive(11, 'phone')).toBe(false);
    void store.dispatch(reconnectRequested(11));
    await vi.advanceTimersByTimeAsync(0);
    expect(isPaneViewerActive(11, 'phone')).toBe(true);
    expect(paneCredentials(11, creds('x', 'c-phone', 1), 'phone').accessKeyId).toBe('p3');
    stopAllPaneViewers();
  });

  it('a screen share that ended stays ended on the pane when the examinee reloads, until a new share', () => {
    const store = setupStore(loginState(2));
    store.dispatch(monitoringStarted());
    const withScreen = (monitorId: number) => ({
      ...m(11, monitorId),
      widerView: { screen: true, roomScan: false, phone: false },
    });
    store.dispatch(matchingsPolled({ matchings: [withScreen(111)], matchingTimeout: 5, at: Date.now() }));
    const marker = (id: number, message: string) =>
      chatReceived({
        testerId: 11,
        messages: [{ id, sendType: 1, messageType: 3, kind: 'command', message, createdAt: '' }],
      });
    store.dispatch(marker(5, 'SCREEN_SHARE_ENDED'));
    expect(selectPane(store.getState(), 11)?.viewStatus.screen).toBe('ended');
    // The reloaded page: its viewer connects again, under a new matching of the same sitting.
    store.dispatch(
      paneViewStatusChanged({ testerId: 11, monitorId: 111, view: 'screen', status: 'connecting' }),
    );
    store.dispatch(matchingsPolled({ matchings: [withScreen(112)], matchingTimeout: 5, at: Date.now() }));
    store.dispatch(
      paneViewStatusChanged({ testerId: 11, monitorId: 112, view: 'screen', status: 'waiting' }),
    );
    expect(selectPane(store.getState(), 11)?.viewStatus.screen).toBe('ended');
    // The new connection's screen track, unmuted with no frame (as Chromium reports it), is not a share.
    store.dispatch(paneViewStatusChanged({ testerId: 11, monitorId: 112, view: 'screen', status: 'live' }));
    expect(selectPane(store.getState(), 11)?.viewStatus.screen).toBe('ended');
    store.dispatch(marker(6, 'SCREEN_SHARED'));
    expect(selectPane(store.getState(), 11)?.viewStatus.screen).toBe('live');
  });

  it('after BEFORE_CLOSE waits 4 × matchingTimeout, then deletes the same matching', async () => {
    const store = started();
    store.dispatch(
      chatReceived({
        testerId: 11,
        messages: [
          { id: 5, sendType: 1, messageType: 3, kind: 'command', message: 'BEFORE_CLOSE', createdAt: '' },
        ],
      }),
    );
    store.dispatch(viewerStateChanged({ testerId: 11, monitorId: 111, state: 'failed' }));
    await vi.advanceTimersByTimeAsync(19_900);
    expect(api.deleteCheckerMatching).not.toHaveBeenCalled();
    expect(selectPane(store.getState(), 11)?.connection).toBe('connecting');
    await vi.advanceTimersByTimeAsync(200);
    expect(api.deleteCheckerMatching).toHaveBeenCalledWith(11, 111, true);
  });

  it('after BEFORE_CLOSE does not delete when the matching changed meanwhile', async () => {
    const store = started();
    store.dispatch(
      chatReceived({
        testerId: 11,
        messages: [
          { id: 5, sendType: 1, messageType: 3, kind: 'command', message: 'BEFORE_CLOSE', createdAt: '' },
        ],
      }),
    );
    store.dispatch(viewerStateChanged({ testerId: 11, monitorId: 111, state: 'closed' }));
    await vi.advanceTimersByTimeAsync(1000);
    // The examinee came back with a new matching (another monitor id).
    store.dispatch(matchingsPolled({ matchings: [m(11, 222)], matchingTimeout: 5, at: Date.now() }));
    await vi.advanceTimersByTimeAsync(25_000);
    expect(api.deleteCheckerMatching).not.toHaveBeenCalled();
    expect(selectPane(store.getState(), 11)?.monitorId).toBe(222);
  });

  it('does not delete when the matching disappeared during the delay', async () => {
    const store = started();
    store.dispatch(
      chatReceived({
        testerId: 11,
        messages: [
          { id: 5, sendType: 1, messageType: 3, kind: 'command', message: 'BEFORE_CLOSE', createdAt: '' },
        ],
      }),
    );
    store.dispatch(viewerStateChanged({ testerId: 11, monitorId: 111, state: 'disconnected' }));
    await vi.advanceTimersByTimeAsync(1000);
    store.dispatch(matchingsPolled({ matchings: [], matchingTimeout: 5, at: Date.now() }));
    await vi.advanceTimersByTimeAsync(25_000);
    expect(api.deleteCheckerMatching).not.toHaveBeenCalled();
  });
});
