import type { AppStartListening, ListenerDispatch } from '../../app/listener';
import type { RootState } from '../../app/store';
import {
  deleteCheckerMatching,
  getExamineeMessages,
  getExamineeSummary,
  getFixedNotifications,
  getHeadShot,
  getMonitorActivations,
  pollCheckerMatchings,
  postCheckerMessage,
  type ViewerReport,
} from '../../api/checker';
import { getMarks } from '../../api/markings';
import { logger } from '../../lib/logger';
import { loggedOut, selectLogin } from '../session/session-slice';
import { decideOnViewerState, stillSameMatching } from './monitoring-lifecycle';
import {
  activationLoaded,
  chatReceived,
  examineeLoaded,
  listsLoaded,
  matchingsPolled,
  monitoringStarted,
  monitoringStopped,
  paneConnectionChanged,
  paneRemoved,
  selectChat,
  selectMatchingTimeout,
  selectMonitoringRunning,
  selectPane,
  selectPanes,
} from './monitoring-slice';
import {
  connectPaneViewer,
  forgetPaneCredentials,
  isPaneViewerActive,
  rememberPaneCredentials,
  reportViewerFailed,
  stopAllPaneViewers,
  stopPaneViewer,
  viewerStartFailed,
  viewerStateChanged,
} from './monitoring-viewers';

/** How often each pane's chat is fetched (ms). */
export const MESSAGE_POLL_MS = 2000;

type Store = { dispatch: ListenerDispatch; getState: () => RootState };

/** Fixed markers a checker posts itself (contract/messages.ts CLIENT_COMMANDS). */
const ACK = { received: 'MESSAGE_RECEIVED', beforeCloseOk: 'BEFORE_CLOSE_OK' } as const;

/** Polls matching.php once and makes the viewers follow the matchings. */
export async function pollAndReconcile(store: Store, report?: ViewerReport): Promise<void> {
  const before = new Map(selectPanes(store.getState()).map((p) => [p.testerId, p.monitorId]));
  let r;
  try {
    r = await pollCheckerMatchings(report);
  } catch {
    return; // recorded by the API client; the next poll tries again
  }
  if (!selectMonitoringRunning(store.getState())) return;
  store.dispatch(matchingsPolled({ ...r, at: Date.now() }));
  for (const [testerId, monitorId] of before) {
    if (!r.matchings.some((m) => m.testerId === testerId && m.monitorId === monitorId)) {
      stopPaneViewer(testerId);
      if (!r.matchings.some((m) => m.testerId === testerId)) forgetPaneCredentials(testerId);
    }
  }
  for (const m of r.matchings) {
    const isNew = before.get(m.testerId) !== m.monitorId;
    if (isNew) {
      void loadExaminee(store, m.testerId);
      void pollMessages(store, m.testerId);
    }
    if (!m.channel) continue;
    rememberPaneCredentials(m.testerId, m.channel);
    const pane = selectPane(store.getState(), m.testerId);
    if (!isNew && m.matchingCommand === 1) {
      // The examinee reset its channel: reconnect with a fresh client id.
      store.dispatch(
        paneConnectionChanged({
          testerId: m.testerId,
          monitorId: m.monitorId,
          connection: 'reconnecting',
          at: Date.now(),
        }),
      );
      void connectPaneViewer(store, m.testerId, m.monitorId, m.channel);
    } else if (pane && pane.connection !== 'lost' && !isPaneViewerActive(m.testerId)) {
      void connectPaneViewer(store, m.testerId, m.monitorId, m.channel);
    }
  }
}

/** tester/detail and head_shot for a pane's name and images. */
export async function loadExaminee(store: Store, testerId: number): Promise<void> {
  try {
    const [detail, headShot] = await Promise.all([getExamineeSummary(testerId), getHeadShot(testerId)]);
    store.dispatch(
      examineeLoaded({
        testerId,
        name: detail.name,
        headShot: {
          url: headShot.url ?? detail.headShotUrl,
          updatedAt: headShot.updatedAt ?? detail.headShotUpdatedAt,
        },
        idCard: { url: detail.idCardUrl, updatedAt: detail.idCardUpdatedAt },
      }),
    );
  } catch (e) {
    logger.error('monitoring', `examinee ${testerId}: ${String(e)}`);
  }
}

const inFlight = new Set<number>();

/**
 * Fetches a pane's new messages. On new ones from the examinee: BEFORE_CLOSE is answered with BEFORE_CLOSE_OK,
 * a chat message with MESSAGE_RECEIVED, and AUTHENTICATING reloads the images (not for the first load).
 */
export async function pollMessages(store: Store, testerId: number): Promise<void> {
  if (inFlight.has(testerId)) return;
  inFlight.add(testerId);
  try {
    const since = selectChat(store.getState(), testerId)[0]?.id ?? 0;
    const msgs = await getExamineeMessages(testerId, since);
    if (!selectPane(store.getState(), testerId)) return;
    const fresh = msgs.filter((m) => m.id > since);
    if (fresh.length === 0) return;
    store.dispatch(chatReceived({ testerId, messages: fresh }));
    if (since === 0) return;
    const fromTester = fresh.filter((m) => m.sendType === 1);
    const commands = new Set(fromTester.filter((m) => m.kind === 'command').map((m) => m.message));
    if (commands.has('AUTHENTICATING')) void loadExaminee(store, testerId);
    const acks: string[] = [];
    if (commands.has('BEFORE_CLOSE')) acks.push(ACK.beforeCloseOk);
    if (fromTester.some((m) => m.kind === 'message')) acks.push(ACK.received);
    for (const ack of acks) {
      const posted = await postCheckerMessage(testerId, ack, { kind: 'command' }).catch(() => null);
      if (posted) store.dispatch(chatReceived({ testerId, messages: [posted] }));
    }
  } catch {
    // recorded by the API client; the next round tries again
  } finally {
    inFlight.delete(testerId);
  }
}

/**
 * Deletes a pane's matching (only that matching) and drops the pane; `connectionLost` when the viewer's
 * connection was lost (the console then lists the examinee as "connection lost" until it is matched again).
 */
export async function deletePaneMatching(
  store: Store,
  testerId: number,
  monitorId: number,
  connectionLost = false,
): Promise<void> {
  stopPaneViewer(testerId);
  try {
    await deleteCheckerMatching(testerId, monitorId, connectionLost);
  } catch {
    // Already gone or not ours any more: the next poll shows the truth.
  }
  store.dispatch(paneRemoved({ testerId, monitorId }));
}

/** The checker's own activation (monitor id = its user id, found by login id). */
async function loadActivation(store: Store): Promise<void> {
  const loginId = selectLogin(store.getState())?.loginId;
  if (!loginId) return;
  try {
    const me = (await getMonitorActivations()).find((m) => m.loginId === loginId);
    if (me) store.dispatch(activationLoaded({ monitorId: me.monitorId, active: me.activation }));
  } catch {
    /* the toggle stays hidden */
  }
}

async function loadLists(store: Store): Promise<void> {
  const [marks, fixedNotifications] = await Promise.all([
    getMarks().catch(() => undefined),
    getFixedNotifications().catch(() => undefined),
  ]);
  store.dispatch(listsLoaded({ marks, fixedNotifications }));
}

/** The monitoring page's polling, chat and viewer lifecycle (spec §4), wired by app/app-listeners.ts. */
export function addMonitoringListeners(startListening: AppStartListening): void {
  startListening({
    actionCreator: monitoringStarted,
    effect: async (_action, api) => {
      api.cancelActiveListeners();
      const store: Store = { dispatch: api.dispatch, getState: api.getState };
      void loadLists(store);
      void loadActivation(store);
      // spec §4: the matching poll repeats every matchingTimeout seconds.
      const polling = api.fork(async (task) => {
        for (;;) {
          await pollAndReconcile(store);
          await task.delay(selectMatchingTimeout(api.getState()) * 1000);
        }
      });
      const chatting = api.fork(async (task) => {
        for (;;) {
          await task.delay(MESSAGE_POLL_MS);
          await Promise.all(selectPanes(api.getState()).map((p) => pollMessages(store, p.testerId)));
        }
      });
      await api.condition((action) => monitoringStopped.match(action) || loggedOut.match(action));
      polling.cancel();
      chatting.cancel();
      stopAllPaneViewers();
    },
  });

  startListening({
    actionCreator: viewerStateChanged,
    effect: async (action, api) => {
      const { testerId, monitorId, state } = action.payload;
      const store: Store = { dispatch: api.dispatch, getState: api.getState };
      if (state === 'connected') {
        await pollAndReconcile(store, { testerId, channelStatus: 'open' });
        return;
      }
      if (state !== 'disconnected' && state !== 'failed' && state !== 'closed') return;
      // spec §3: the checker reports a failed channel for the examinee.
      if (state === 'failed') void reportViewerFailed(testerId);
      // A BEFORE_CLOSE may have been posted just before the examinee's window closed: read it first.
      await pollMessages(store, testerId);
      const s = api.getState();
      const decision = decideOnViewerState(
        selectPane(s, testerId),
        monitorId,
        state,
        selectMatchingTimeout(s),
      );
      if (decision.kind === 'ignore') return;
      stopPaneViewer(testerId);
      if (decision.kind === 'deleteLater') {
        // spec §4: delay by 4 × matchingTimeout; delete only if the same matching is still present.
        await api.delay(decision.afterMs);
        if (!selectMonitoringRunning(api.getState())) return;
        if (!stillSameMatching(selectPane(api.getState(), testerId), monitorId)) return;
      }
      await deletePaneMatching(store, testerId, monitorId, true);
    },
  });

  startListening({
    actionCreator: viewerStartFailed,
    effect: async (action, api) => {
      // spec §4: signaling start-up is retried 3 times, then the matching is deleted.
      const { testerId, monitorId } = action.payload;
      void reportViewerFailed(testerId);
      await deletePaneMatching({ dispatch: api.dispatch, getState: api.getState }, testerId, monitorId, true);
    },
  });
}
