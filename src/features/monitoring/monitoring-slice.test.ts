import { describe, expect, it } from 'vitest';
import type { ChatMessage, CheckerMatching } from '../../api/checker';
import reducer, {
  chatReceived,
  matchingsPolled,
  monitoringStarted,
  SERVER_UNREACHABLE_AFTER_MS,
  serverPollAnswered,
  serverPollFailed,
  type MonitoringState,
} from './monitoring-slice';

function matching(monitorId: number, over: Partial<CheckerMatching> = {}): CheckerMatching {
  return {
    monitorId,
    testerId: 11,
    testId: 211,
    loginId: 'tester11',
    exLoginId: null,
    examName: 'E',
    matchingStatus: 2,
    testerStatus: 5,
    rejected: 0,
    kicked: 0,
    matchingConnectedTime: 0,
    matchingCommand: 0,
    channel: null,
    widerView: { screen: false, roomScan: true, phone: false },
    identityCheck: 'checker',
    phone: null,
    ...over,
  };
}

const marker = (id: number, message: string, sendType = 0): ChatMessage => ({
  id,
  sendType,
  messageType: 2,
  kind: 'command',
  message,
  createdAt: '2026-01-01T00:00:00Z',
});
const said = (id: number, message: string): ChatMessage => ({ ...marker(id, message, 1), kind: 'message' });

/** The sitting's conversation so far, newest first (as webrtc_message answers). */
const conversation = [
  marker(6, 'ROOM_SCAN_DONE'),
  marker(5, 'ROOM_SCAN_STARTED', 1),
  marker(4, 'ROOM_SCAN_REQUESTED'),
  marker(3, 'ACCEPTED'),
  said(2, 'お願いします'),
  marker(1, 'AUTHENTICATING', 1),
];

const polled = (state: MonitoringState | undefined, matchings: CheckerMatching[]) =>
  reducer(state, matchingsPolled({ matchings, matchingTimeout: 5, at: Date.now() }));

/** A pane that has read the whole conversation. */
function paneThatReadAll(): MonitoringState {
  const s = polled(undefined, [matching(111)]);
  return reducer(s, chatReceived({ testerId: 11, messages: conversation }));
}

describe('matchingsPolled: a new matching of the same sitting (the examinee reloaded)', () => {
  it('keeps what the markers said: identity accepted and the room scan done, as a checker loading afresh reads', () => {
    const before = paneThatReadAll();
    expect(before.panes.entities[11]).toMatchObject({ auth: 'accepted', roomScan: 'done' });

    const after = polled(before, [matching(112)]);
    expect(after.panes.entities[11]).toMatchObject({ monitorId: 112, auth: 'accepted', roomScan: 'done' });
    // The conversation stays (its markers are not sent again).
    expect(after.chats[11]).toHaveLength(conversation.length);

    // The checker who reloads reads the same conversation into a new pane: the same identity state.
    const fresh = reducer(
      polled(undefined, [matching(112)]),
      chatReceived({ testerId: 11, messages: conversation }),
    );
    expect(fresh.panes.entities[11]!.auth).toBe(after.panes.entities[11]!.auth);
    expect(fresh.panes.entities[11]!.roomScan).toBe(after.panes.entities[11]!.roomScan);
  });

  it('takes the latest marker: an identity request still waiting stays waiting, a rejection stays rejected', () => {
    let s = polled(undefined, [matching(111)]);
    s = reducer(s, chatReceived({ testerId: 11, messages: [marker(1, 'AUTHENTICATING', 1)] }));
    expect(polled(s, [matching(112)]).panes.entities[11]!.auth).toBe('authenticating');

    s = reducer(s, chatReceived({ testerId: 11, messages: [marker(2, 'REJECTED')] }));
    expect(polled(s, [matching(112)]).panes.entities[11]!.auth).toBe('rejected');
    // The matching's own rejected flag wins over any marker.
    const accepted = paneThatReadAll();
    expect(polled(accepted, [matching(112, { rejected: 1 })]).panes.entities[11]!.auth).toBe('rejected');
  });

  it('a matching of another sitting of the examinee starts with an empty conversation and no identity check', () => {
    const after = polled(paneThatReadAll(), [matching(112, { testId: 212 })]);
    expect(after.panes.entities[11]).toMatchObject({ testId: 212, auth: 'none', roomScan: 'none' });
    expect(after.chats[11]).toEqual([]);
  });

  it('a pane whose conversation was not read yet starts with none, and the first read sets it', () => {
    const s = polled(polled(undefined, [matching(111)]), [matching(112)]);
    expect(s.panes.entities[11]!.auth).toBe('none');
    const read = reducer(s, chatReceived({ testerId: 11, messages: conversation }));
    expect(read.panes.entities[11]!.auth).toBe('accepted');
  });
});

describe('serverPollFailed / serverPollAnswered: whether the server is reached', () => {
  const t0 = 1_000_000;
  const failed = (s: MonitoringState, at: number) => reducer(s, serverPollFailed({ at }));

  it('says unreachable only after polls failed in a row for a while, not on one blip', () => {
    let s = reducer(undefined, monitoringStarted());
    s = failed(s, t0);
    expect(s.server.status).toBe('reachable');
    // Five panes' chat polls failing in the same round are one moment, not a while.
    for (let i = 0; i < 4; i++) s = failed(s, t0 + 10);
    expect(s.server.status).toBe('reachable');
    s = failed(s, t0 + SERVER_UNREACHABLE_AFTER_MS - 1);
    expect(s.server.status).toBe('reachable');
    s = failed(s, t0 + SERVER_UNREACHABLE_AFTER_MS);
    expect(s.server.status).toBe('unreachable');
  });

  it('two matching polls 5 s apart are enough; one answer ends it (restored) and starts the count again', () => {
    let s = failed(failed(reducer(undefined, monitoringStarted()), t0), t0 + 5000);
    expect(s.server.status).toBe('unreachable');
    s = reducer(s, serverPollAnswered());
    expect(s.server).toEqual({ status: 'restored', failingSince: null, failures: 0 });
    s = failed(s, t0 + 6000);
    expect(s.server.status).toBe('restored');
    s = reducer(s, serverPollAnswered());
    s = failed(failed(s, t0 + 7000), t0 + 7000 + SERVER_UNREACHABLE_AFTER_MS);
    expect(s.server.status).toBe('unreachable');
    // The console opened again starts from "reachable".
    expect(reducer(s, monitoringStarted()).server.status).toBe('reachable');
  });
});
