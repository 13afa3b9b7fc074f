import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { setupStore } from '../../app/store';
import type { ChatMessage, CheckerMatching } from '../../api/checker';
import type * as CheckerApi from '../../api/checker';
import { loginState } from '../../../tests/render';
import { ApiError, NETWORK_ERROR_STATUS } from '../../api/api-error';
import { pollAndReconcile, pollMessages } from './monitoring-listeners';
import {
  matchingsPolled,
  monitoringStarted,
  monitoringStopped,
  paneRemoved,
  selectAlerts,
  selectPane,
  selectServerReach,
  SERVER_UNREACHABLE_AFTER_MS,
} from './monitoring-slice';

/** The sitting's conversation on the server (webrtc_message answers those after since_id, newest first). */
let conversation: ChatMessage[] = [];
const api = vi.hoisted(() => ({
  getExamineeMessages: vi.fn(),
  postCheckerMessage: vi.fn(),
  pollCheckerMatchings: vi.fn(),
}));

vi.mock('../../api/checker', async (orig) => ({
  ...(await orig<typeof CheckerApi>()),
  getExamineeMessages: api.getExamineeMessages,
  postCheckerMessage: api.postCheckerMessage,
  // The start event's own polls never answer unless a test says otherwise (they are not under test).
  pollCheckerMatchings: api.pollCheckerMatchings,
  deleteCheckerMatching: () => Promise.resolve(true),
  getExamineeSummary: () => new Promise(() => undefined),
  getHeadShot: () => new Promise(() => undefined),
  getMonitorActivations: () => Promise.resolve([]),
  getFixedNotifications: () => Promise.resolve([]),
}));
vi.mock('../../api/markings', () => ({ getMarks: () => Promise.resolve([]) }));
vi.mock('../../api/capture', () => ({ getLiveFeed: () => new Promise(() => undefined) }));
vi.mock('../../media/viewer', () => ({ openViewer: () => new Promise(() => undefined) }));

function matching(monitorId: number): CheckerMatching {
  return {
    monitorId,
    testerId: 11,
    testId: 211,
    loginId: 'tester11',
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

let nextId = 1;
function post(message: string, opts: { sendType?: number; kind?: 'message' | 'command' } = {}): void {
  conversation.unshift({
    id: nextId++,
    sendType: opts.sendType ?? 1,
    messageType: 2,
    kind: opts.kind ?? 'command',
    message,
    createdAt: '2026-01-01T00:00:00Z',
  });
}

function started() {
  const store = setupStore(loginState(2));
  store.dispatch(monitoringStarted());
  store.dispatch(matchingsPolled({ matchings: [matching(111)], matchingTimeout: 5, at: Date.now() }));
  return store;
}
const kinds = (store: ReturnType<typeof started>) => selectAlerts(store.getState()).items.map((a) => a.kind);
const acks = () => api.postCheckerMessage.mock.calls.map((c) => c[1] as string);

beforeEach(() => {
  api.pollCheckerMatchings.mockImplementation(() => new Promise(() => undefined));
  conversation = [];
  nextId = 1;
  api.getExamineeMessages.mockImplementation((_t: number, since = 0) =>
    Promise.resolve(conversation.filter((m) => m.id > since)),
  );
  api.postCheckerMessage.mockImplementation((_t: number, message: string) => {
    post(message, { sendType: 0 });
    return Promise.resolve(conversation[0]);
  });
});
let stores: ReturnType<typeof started>[] = [];
afterEach(() => {
  for (const s of stores) s.dispatch(monitoringStopped());
  stores = [];
  vi.clearAllMocks();
});

describe('pollMessages: what is news', () => {
  it('an identity request alerts once; read again after the pane was dropped and came back, it does not', async () => {
    const store = started();
    stores.push(store);
    await pollMessages(store, 11); // first read: nothing yet
    post('AUTHENTICATING');
    await pollMessages(store, 11);
    expect(kinds(store)).toEqual(['identity']);
    post('ACCEPTED', { sendType: 0 });
    post('よろしくお願いします', { kind: 'message' });
    await pollMessages(store, 11);
    expect(kinds(store)).toEqual(['chat', 'identity']);
    expect(acks()).toEqual(['MESSAGE_RECEIVED']);

    // The pane is dropped here (its delete_matching failed, e.g. while the server was unreachable) and the
    // same matching comes back: its conversation is read again from the start.
    store.dispatch(paneRemoved({ testerId: 11, monitorId: 111 }));
    store.dispatch(matchingsPolled({ matchings: [matching(111)], matchingTimeout: 5, at: Date.now() }));
    await pollMessages(store, 11);
    expect(api.getExamineeMessages).toHaveBeenLastCalledWith(11, 0);
    expect(selectPane(store.getState(), 11)!.auth).toBe('accepted');
    // Nothing of it alerts or is answered again.
    expect(kinds(store)).toEqual(['chat', 'identity']);
    expect(acks()).toEqual(['MESSAGE_RECEIVED']);
  });

  it('an identity request decided in the same read (a later ACCEPTED) raises no alert', async () => {
    const store = started();
    stores.push(store);
    await pollMessages(store, 11);
    post('AUTHENTICATING');
    post('ACCEPTED', { sendType: 0 });
    await pollMessages(store, 11);
    expect(selectPane(store.getState(), 11)!.auth).toBe('accepted');
    expect(kinds(store)).toEqual([]);
  });

  it('after the examinee reloaded (a new matching): what the last pane read is not news, what it missed is', async () => {
    const store = started();
    stores.push(store);
    post('AUTHENTICATING');
    await pollMessages(store, 11); // first read: history
    expect(kinds(store)).toEqual([]);
    post('ACCEPTED', { sendType: 0 });
    await pollMessages(store, 11);
    // The examinee writes, then reloads before this console read it.
    post('再読み込みします', { kind: 'message' });
    store.dispatch(matchingsPolled({ matchings: [matching(112)], matchingTimeout: 5, at: Date.now() }));
    await pollMessages(store, 11);
    expect(selectPane(store.getState(), 11)).toMatchObject({ monitorId: 112, auth: 'accepted' });
    expect(kinds(store)).toEqual(['chat']);
    expect(acks()).toEqual(['MESSAGE_RECEIVED']);
  });
});

describe('the server reached or not, from the polls', () => {
  const noAnswer = (endpoint: string) =>
    new ApiError(endpoint, NETWORK_ERROR_STATUS, 'Network Error', 'errors:network', 'network');
  beforeEach(() => vi.useFakeTimers({ toFake: ['Date'] }));
  afterEach(() => vi.useRealTimers());

  it('chat polls without an answer for a while: unreachable; an answer: restored', async () => {
    const store = started();
    stores.push(store);
    api.getExamineeMessages.mockRejectedValue(noAnswer('webrtc_message'));
    await pollMessages(store, 11);
    vi.advanceTimersByTime(2000);
    await pollMessages(store, 11);
    expect(selectServerReach(store.getState()).status).toBe('reachable');
    vi.advanceTimersByTime(SERVER_UNREACHABLE_AFTER_MS - 2000);
    await pollMessages(store, 11);
    expect(selectServerReach(store.getState()).status).toBe('unreachable');

    api.getExamineeMessages.mockResolvedValue([]);
    await pollMessages(store, 11);
    expect(selectServerReach(store.getState()).status).toBe('restored');
  });

  it('the matching poll too (two polls 5 s apart); an error the server answered is an answer', async () => {
    const store = started();
    stores.push(store);
    api.pollCheckerMatchings.mockRejectedValue(noAnswer('matching'));
    await pollAndReconcile(store);
    vi.advanceTimersByTime(5000);
    await pollAndReconcile(store);
    expect(selectServerReach(store.getState()).status).toBe('unreachable');
    // The pane stays (its media is peer to peer).
    expect(selectPane(store.getState(), 11)).toBeDefined();

    // A gateway in front of the server says it is down: still unreachable.
    api.pollCheckerMatchings.mockRejectedValue(new ApiError('matching', 503, 'x', 'errors:internal'));
    await pollAndReconcile(store);
    expect(selectServerReach(store.getState()).status).toBe('unreachable');
    // The server itself refused the chat read: it is there.
    api.getExamineeMessages.mockRejectedValue(new ApiError('webrtc_message', 403, 'x', 'errors:forbidden'));
    await pollMessages(store, 11);
    expect(selectServerReach(store.getState())).toMatchObject({ status: 'restored', failures: 0 });
  });
});
