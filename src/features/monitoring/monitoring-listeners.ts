import { TaskAbortError } from '@reduxjs/toolkit';
import type { AppStartListening } from '../../app/listener';
import type { AppThunkDispatch, RootState } from '../../app/store';
import {
  type CheckerMatching,
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
import { isServerUnreachable } from '../../api/api-error';
import { getLiveFeed } from '../../api/capture';
import { getMarks } from '../../api/markings';
import { WIDER_VIEW_COMMANDS } from '@contract/constants/wider-view';
import { i18next } from '../../i18n';
import { logger } from '../../lib/logger';
import {
  onAttention,
  playCue,
  readAlertSoundPreference,
  setTitleCount,
  unlockSound,
  windowHasAttention,
  writeAlertSoundPreference,
} from '../../platform/attention';
import {
  notificationPermission,
  pageHidden,
  showDesktopNotification,
} from '../../platform/desktop-notification';
import { loggedOut, selectLogin } from '../session/session-slice';
import { decideOnViewerState, stillSameMatching } from './monitoring-lifecycle';
import {
  activationLoaded,
  alertRaised,
  alertsCleared,
  alertSoundLoaded,
  alertSoundToggled,
  alertsSeen,
  chatReceived,
  chatUnreadAdded,
  liveFeedReceived,
  notifyPermissionChanged,
  paneSelected,
  selectAlerts,
  type ConsoleAlert,
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
  type Pane,
  selectMonitoring,
  selectServerReach,
  serverPollAnswered,
  serverPollFailed,
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
import { MESSAGE_COMMANDS, SEND_TYPE } from '@contract/constants/messages';
import { TESTER_STATUS } from '@contract/constants/tester';

/** How often each pane's chat is fetched (ms). */
export const MESSAGE_POLL_MS = 2000;
/** How long one live-feed request waits for news (s); the server answers at once when something changed. */
export const FEED_WAIT_SECONDS = 25;
/** Pause before the live feed is asked again after a failure (ms). */
export const FEED_RETRY_MS = 2000;
/** Shortest time between two alert sounds (ms): a burst of alerts plays one cue. */
export const ALERT_SOUND_GAP_MS = 1500;
/** Why an ended matching counts as a lost connection (the others are the examinee's own doing). */
const CONNECTION_LOST_REASONS = new Set(['connection_lost', 'no_response']);

type Store = { dispatch: AppThunkDispatch; getState: () => RootState };

/**
 * Polls in a row that the server said a phone publishes while this checker's viewer of it showed no frames,
 * before that viewer is started again (its offer went unanswered: the phone's signaling was reconnecting).
 */
export const PHONE_VIEW_RESTART_POLLS = 4;
const phoneViewWaits = new Map<number, number>();

/** Stops a pane's viewers (the camera's and the phone's) and forgets their credentials. */
function stopPane(testerId: number, forget: boolean): void {
  stopPaneViewer(testerId);
  stopPaneViewer(testerId, 'phone');
  phoneViewWaits.delete(testerId);
  if (!forget) return;
  forgetPaneCredentials(testerId);
  forgetPaneCredentials(testerId, 'phone');
}

/**
 * The phone's view follows the matching's phone (README "Phone as a second camera"): this checker views the
 * phone's channel while the server says the phone publishes and hands out its credentials; the viewer starts
 * again when the phone published anew (rescanned, or back after a loss: `since` moved) or for a new matching
 * (a new ClientId), and stops when the phone is lost, replaced (paired, not publishing yet) or gone.
 */
function followPhone(
  store: Store,
  m: CheckerMatching,
  before: Pane['phone'] | undefined,
  isNew: boolean,
): void {
  const phone = m.phone;
  if (!phone || phone.state !== 'live' || !phone.channel) {
    if (isPaneViewerActive(m.testerId, 'phone')) stopPaneViewer(m.testerId, 'phone');
    forgetPaneCredentials(m.testerId, 'phone');
    phoneViewWaits.delete(m.testerId);
    return;
  }
  rememberPaneCredentials(m.testerId, phone.channel, 'phone');
  const republished = before?.state === 'live' && before.since !== phone.since;
  const showing = selectPane(store.getState(), m.testerId)?.viewStatus.phone === 'live';
  const waits = showing ? 0 : (phoneViewWaits.get(m.testerId) ?? 0) + 1;
  phoneViewWaits.set(m.testerId, waits);
  const stuck = waits > PHONE_VIEW_RESTART_POLLS;
  if (isNew || republished || stuck || !isPaneViewerActive(m.testerId, 'phone')) {
    phoneViewWaits.set(m.testerId, 0);
    void connectPaneViewer(store, m.testerId, m.monitorId, phone.channel, 'phone');
  }
}

/** Polls matching.php once and makes the viewers follow the matchings. */
export async function pollAndReconcile(store: Store, report?: ViewerReport): Promise<void> {
  const before = new Map(selectPanes(store.getState()).map((p) => [p.testerId, p.monitorId]));
  const phonesBefore = new Map(selectPanes(store.getState()).map((p) => [p.testerId, p.phone]));
  const statusBefore = new Map(selectPanes(store.getState()).map((p) => [p.testerId, p.testerStatus]));
  let r;
  try {
    r = await pollCheckerMatchings(report);
  } catch (e) {
    // Recorded by the API client; the next poll tries again.
    noteServerReach(store, e);
    return;
  }
  noteServerReach(store);
  if (!selectMonitoringRunning(store.getState())) return;
  store.dispatch(matchingsPolled({ ...r, at: Date.now() }));
  for (const [testerId, monitorId] of before) {
    if (!r.matchings.some((m) => m.testerId === testerId && m.monitorId === monitorId))
      stopPane(testerId, !r.matchings.some((m) => m.testerId === testerId));
  }
  for (const m of r.matchings) {
    const isNew = before.get(m.testerId) !== m.monitorId;
    if (isNew) {
      void loadExaminee(store, m.testerId);
      void pollMessages(store, m.testerId);
    } else if (
      m.identityCheck === 'ai' &&
      (statusBefore.get(m.testerId) ?? 0) < TESTER_STATUS.identificated &&
      m.testerStatus >= TESTER_STATUS.identificated
    ) {
      // The AI's check let the examinee through: read what it decided (passed, or continued for the manager's
      // review) and the photos it kept, for the pane to say so.
      void loadExaminee(store, m.testerId);
    }
    // A phone camera that was paired and is lost now (README "Phone as a second camera").
    const phoneBefore = phonesBefore.get(m.testerId);
    const wasPaired = ['connecting', 'live'].includes(phoneBefore?.state ?? '');
    if (!isNew && wasPaired && m.phone?.state === 'lost') raiseAlert(store, 'phone', m.testerId);
    followPhone(store, m, isNew ? undefined : phoneBefore, isNew);
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
        testName: detail.testName,
        headShot: {
          url: headShot.url ?? detail.headShotUrl,
          updatedAt: headShot.updatedAt ?? detail.headShotUpdatedAt,
        },
        idCard: { url: detail.idCardUrl, updatedAt: detail.idCardUpdatedAt },
        aiAuthStatus: detail.aiAuthStatus,
      }),
    );
  } catch (e) {
    logger.error('monitoring', `examinee ${testerId}: ${String(e)}`);
  }
}

const inFlight = new Set<number>();
/**
 * Per sitting (tester id and test id), the newest message this console has read: messages after it are news
 * (answered and alerted), those up to it never are. It outlives the sitting's panes, so a pane that comes back
 * (a new matching after the examinee's reload, or the same one after the pane was dropped here) and reads the
 * conversation again does not take what was already read for news. The first read of a sitting is history.
 */
const chatReadUpTo = new Map<string, number>();

/**
 * Fetches a pane's new messages. On news from the examinee: BEFORE_CLOSE is answered with BEFORE_CLOSE_OK, a
 * chat message with MESSAGE_RECEIVED and an alert, AUTHENTICATING reloads the images and alerts (while the
 * examinee still waits for the decision).
 */
export async function pollMessages(store: Store, testerId: number): Promise<void> {
  if (inFlight.has(testerId)) return;
  inFlight.add(testerId);
  try {
    const since = selectChat(store.getState(), testerId)[0]?.id ?? 0;
    let msgs;
    try {
      msgs = await getExamineeMessages(testerId, since);
    } catch (e) {
      noteServerReach(store, e);
      return; // recorded by the API client; the next round tries again
    }
    noteServerReach(store);
    const pane = selectPane(store.getState(), testerId);
    if (!pane) return;
    const key = `${testerId}:${pane.testId}`;
    const readUpTo = chatReadUpTo.get(key);
    chatReadUpTo.set(key, Math.max(readUpTo ?? 0, since, ...msgs.map((m) => m.id)));
    const fresh = msgs.filter((m) => m.id > since);
    if (fresh.length === 0) return;
    store.dispatch(chatReceived({ testerId, messages: fresh }));
    if (readUpTo === undefined) return;
    const news = fresh.filter((m) => m.id > readUpTo);
    const fromTester = news.filter((m) => m.sendType === SEND_TYPE.tester);
    const commands = new Set(fromTester.filter((m) => m.kind === 'command').map((m) => m.message));
    // A request already decided (a later ACCEPTED or REJECTED) needs nobody.
    const waiting = selectPane(store.getState(), testerId)?.auth === 'authenticating';
    if (commands.has(MESSAGE_COMMANDS.authenticating) && waiting) {
      void loadExaminee(store, testerId);
      raiseAlert(store, 'identity', testerId);
    }
    // The wider view: the examinee's screen share ended (its exam is held until it shares again).
    if (commands.has(WIDER_VIEW_COMMANDS.screenShareEnded)) raiseAlert(store, 'screen', testerId);
    const said = fromTester.filter((m) => m.kind === 'message').length;
    if (said > 0) {
      store.dispatch(chatUnreadAdded({ testerId, count: said }));
      raiseAlert(store, 'chat', testerId);
    }
    const acks: string[] = [];
    if (commands.has(MESSAGE_COMMANDS.beforeClose)) acks.push(MESSAGE_COMMANDS.beforeCloseOk);
    if (fromTester.some((m) => m.kind === 'message')) acks.push(MESSAGE_COMMANDS.messageReceived);
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
 * What a poll's outcome says about the server (the console's "server unreachable" notice): a failure for want
 * of an answer counts; an answer, even an error the server gave, ends a failing stretch. Only a change is
 * dispatched (the chat polls of five panes answer every 2 s).
 */
function noteServerReach(store: Store, error?: unknown): void {
  if (error !== undefined && isServerUnreachable(error)) {
    if (selectMonitoringRunning(store.getState())) store.dispatch(serverPollFailed({ at: Date.now() }));
    return;
  }
  const reach = selectServerReach(store.getState());
  if (reach.failures > 0 || reach.status === 'unreachable') store.dispatch(serverPollAnswered());
}

/** Raises an alert about a pane's examinee (nothing when the pane is gone). */
function raiseAlert(
  store: Store,
  kind: ConsoleAlert['kind'],
  testerId: number,
  extra: { flag?: ConsoleAlert['flag']; loginId?: string } = {},
): void {
  const pane = selectPane(store.getState(), testerId);
  const loginId = pane?.loginId ?? extra.loginId;
  if (!loginId) return;
  store.dispatch(
    alertRaised({
      kind,
      testerId,
      loginId,
      name: pane?.name ?? null,
      at: Date.now(),
      ...(extra.flag ? { flag: extra.flag } : {}),
    }),
  );
}

/** The words of an alert: which pane and examinee, and what happened (also the desktop notification). */
export function alertText(a: ConsoleAlert): { title: string; body: string } {
  const t = i18next.getFixedT(null, 'monitoring');
  const who = a.name ? `${a.name} (${a.loginId})` : a.loginId;
  const what =
    a.kind === 'flag'
      ? t('alerts.kind.flag', { flag: t(`flags.${a.flag ?? 'no_face'}`) })
      : t(`alerts.kind.${a.kind}`);
  return {
    title: a.pane > 0 ? t('alerts.titlePane', { pane: a.pane, who }) : t('alerts.title', { who }),
    body: what,
  };
}

/**
 * The checker's live feed (one request for all panes): answers at once the first time, then waits for news
 * (FEED_WAIT_SECONDS). A flag at or above its sitting's sensitivity that was not there before alerts the
 * checker; the flags an examinee already had when its pane first appeared do not.
 */
async function followLiveFeed(
  store: Store,
  task: { signal: AbortSignal; pause<T>(p: Promise<T>): Promise<T>; delay(ms: number): Promise<void> },
): Promise<void> {
  let version: string | null = null;
  const known = new Map<number, Map<number, boolean>>();
  for (;;) {
    let feed;
    try {
      feed = await task.pause(getLiveFeed(version, FEED_WAIT_SECONDS, task.signal));
    } catch (e) {
      if (e instanceof TaskAbortError) throw e;
      await task.delay(FEED_RETRY_MS);
      continue;
    }
    if (!selectMonitoringRunning(store.getState())) return;
    store.dispatch(liveFeedReceived({ feed, at: Date.now() }));
    for (const p of feed.panes) {
      const first = !known.has(p.testerId);
      const seen = known.get(p.testerId) ?? new Map<number, boolean>();
      known.set(p.testerId, seen);
      for (const f of p.flags) {
        if (!first && f.alert && !seen.get(f.id)) raiseAlert(store, 'flag', p.testerId, { flag: f.flag });
        seen.set(f.id, f.alert);
      }
    }
    for (const id of [...known.keys()]) if (!feed.panes.some((p) => p.testerId === id)) known.delete(id);
    version = feed.version;
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
  stopPane(testerId, false);
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
      chatReadUpTo.clear();
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
      const feeding = api.fork((task) => followLiveFeed(store, task));
      api.dispatch(alertSoundLoaded(readAlertSoundPreference()));
      api.dispatch(notifyPermissionChanged({ permission: notificationPermission() }));
      // Coming back to the console clears the count in the title; a click or key makes the sound audible.
      const offAttention = onAttention(() => api.dispatch(alertsSeen()));
      const unlock = () => unlockSound();
      window.addEventListener('pointerdown', unlock);
      window.addEventListener('keydown', unlock);
      await api.condition((action) => monitoringStopped.match(action) || loggedOut.match(action));
      polling.cancel();
      chatting.cancel();
      feeding.cancel();
      offAttention();
      window.removeEventListener('pointerdown', unlock);
      window.removeEventListener('keydown', unlock);
      setTitleCount(0);
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

  // Alerts: a short sound unless muted (one per burst), a desktop notification while the tab is
  // hidden, and the count in the title until the checker looks at the console again.
  let lastSoundAt = 0;
  startListening({
    actionCreator: alertRaised,
    effect: (action, api) => {
      const alerts = selectAlerts(api.getState());
      const alert = alerts.items[0];
      if (!alert) return;
      if (windowHasAttention()) {
        api.dispatch(alertsSeen());
      } else {
        setTitleCount(alerts.unseen);
      }
      const now = Date.now();
      if (alerts.soundOn && now - lastSoundAt >= ALERT_SOUND_GAP_MS) {
        lastSoundAt = now;
        playCue();
      }
      if (pageHidden()) {
        const { title, body } = alertText(alert);
        showDesktopNotification({
          title,
          body,
          tag: `monitoring-${alert.kind}-${alert.testerId}`,
          onClick: () => api.dispatch(paneSelected(alert.testerId)),
        });
      }
      void action;
    },
  });
  startListening({
    predicate: (action) => alertsSeen.match(action) || alertsCleared.match(action),
    effect: () => setTitleCount(0),
  });
  startListening({
    actionCreator: alertSoundToggled,
    effect: (_action, api) => writeAlertSoundPreference(selectAlerts(api.getState()).soundOn),
  });
  // A lost connection: the pane's viewer lost the examinee, or the server ended the matching for it.
  startListening({
    actionCreator: paneConnectionChanged,
    effect: (action, api) => {
      if (action.payload.connection !== 'lost') return;
      raiseAlert({ dispatch: api.dispatch, getState: api.getState }, 'connection', action.payload.testerId);
    },
  });
  startListening({
    actionCreator: matchingsPolled,
    effect: (action, api) => {
      const before = new Set(selectMonitoring(api.getOriginalState()).ended.map((e) => e.monitorId));
      const lostPanes = new Set(
        selectMonitoring(api.getOriginalState())
          .alerts.items.filter((a) => a.kind === 'connection' && Date.now() - a.at < 60_000)
          .map((a) => a.testerId),
      );
      for (const e of action.payload.ended ?? []) {
        if (before.has(e.monitorId) || !CONNECTION_LOST_REASONS.has(e.reason)) continue;
        // Already said when the pane's own viewer lost it.
        if (lostPanes.has(e.testerId)) continue;
        api.dispatch(
          alertRaised({
            kind: 'connection',
            testerId: e.testerId,
            loginId: e.loginId,
            name: null,
            at: Date.now(),
          }),
        );
      }
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
