import {
  createEntityAdapter,
  createSelector,
  createSlice,
  type EntityState,
  type PayloadAction,
} from '@reduxjs/toolkit';
import type {
  ChatMessage,
  CheckerMatching,
  EndedExaminee,
  FixedNotification,
  MatchingHistoryEntry,
} from '../../api/checker';
import type { Mark } from '../../api/markings';
import { loggedOut } from '../session/session-slice';

/** What a person reads at a glance on a pane (issue #4). */
export type PaneConnection = 'connecting' | 'live' | 'reconnecting' | 'lost';

/** Identity check by a checker (spec §4): none yet, authenticating, accepted, rejected. */
export type PaneAuth = 'none' | 'authenticating' | 'accepted' | 'rejected';

/** One matched examinee's pane (spec §3 "Monitor page per-tester data"). Only serializable values. */
export interface Pane {
  testerId: number;
  monitorId: number;
  testId: number;
  loginId: string;
  exLoginId: string | null;
  examName: string;
  /** From tester/detail; null until loaded. */
  name: string | null;
  testerStatus: number;
  kicked: boolean;
  /** The server handed viewer credentials (null: not proctored, nothing to view). */
  hasChannel: boolean;
  connection: PaneConnection;
  /** Epoch ms of the connection the elapsed time counts from; null = unknown (--:--:--). */
  connectedSince: number | null;
  /** Changes whenever the registry holds a new stream for this pane. */
  streamVersion: number;
  muted: boolean;
  auth: PaneAuth;
  /** The examinee announced BEFORE_CLOSE (spec §4: delayed deletion). */
  beforeClose: boolean;
  headShot: { url: string | null; updatedAt: string | null };
  idCard: { url: string | null; updatedAt: string | null };
}

/** A chat line or marker (newest first in the list). */
export type ChatItem = ChatMessage;

export type LoadStatus = 'idle' | 'loading' | 'loaded' | 'failed';

export interface MarkingDraft {
  testerId: number;
  /** The still captured when the modal opened, or null when the video had no frame. */
  image: string | null;
  capturedAt: number;
  status: 'editing' | 'saving';
}

const panesAdapter = createEntityAdapter<Pane, number>({ selectId: (p) => p.testerId });

export interface MonitoringState {
  status: 'stopped' | 'running';
  /** Poll interval in seconds (matching.php `matching_timeout`; spec default unknown, 5 here). */
  matchingTimeout: number;
  panes: EntityState<Pane, number>;
  /** Chat per examinee, newest first (kept apart so a message does not re-render the whole pane). */
  chats: Record<number, ChatItem[]>;
  /** Own monitor id (the checker's user id) and whether it receives new examinees; null until known. */
  activation: { monitorId: number; active: boolean; status: 'idle' | 'saving' } | null;
  marks: Mark[];
  fixedNotifications: FixedNotification[];
  marking: MarkingDraft | null;
  history: { open: boolean; status: LoadStatus; users: MatchingHistoryEntry[] };
  /** The examinee whose identity check modal is open. */
  authTesterId: number | null;
  /** Examinees whose matching with this checker ended recently (logout, kick-out, finished, lost, …). */
  ended: EndedExaminee[];
  /** Ended matchings the checker dismissed (monitor ids). */
  dismissedEnded: number[];
}

export const DEFAULT_MATCHING_TIMEOUT_SECONDS = 5;

const initialState: MonitoringState = {
  status: 'stopped',
  matchingTimeout: DEFAULT_MATCHING_TIMEOUT_SECONDS,
  panes: panesAdapter.getInitialState(),
  chats: {},
  activation: null,
  marks: [],
  fixedNotifications: [],
  marking: null,
  history: { open: false, status: 'idle', users: [] },
  authTesterId: null,
  ended: [],
  dismissedEnded: [],
};

function newPane(m: CheckerMatching, now: number): Pane {
  return {
    testerId: m.testerId,
    monitorId: m.monitorId,
    testId: m.testId,
    loginId: m.loginId,
    exLoginId: m.exLoginId,
    examName: m.examName,
    name: null,
    testerStatus: m.testerStatus,
    kicked: m.kicked === 1,
    hasChannel: m.channel !== null,
    connection: 'connecting',
    connectedSince:
      m.matchingStatus === 2 && m.matchingConnectedTime > 0 ? now - m.matchingConnectedTime * 1000 : null,
    streamVersion: 0,
    muted: false,
    auth: m.rejected === 1 ? 'rejected' : 'none',
    beforeClose: false,
    headShot: { url: null, updatedAt: null },
    idCard: { url: null, updatedAt: null },
  };
}

/** Auth state a command moves to; null when the command is not about the identity check. */
function authAfter(command: string): PaneAuth | null {
  if (command === 'AUTHENTICATING') return 'authenticating';
  if (command === 'ACCEPTED') return 'accepted';
  if (command === 'REJECTED') return 'rejected';
  return null;
}

const monitoringSlice = createSlice({
  name: 'monitoring',
  initialState,
  reducers: {
    /** The monitoring page opened: polling starts. */
    monitoringStarted(state) {
      state.status = 'running';
    },
    /** The monitoring page closed: polling and every viewer stop. */
    monitoringStopped(state) {
      state.status = 'stopped';
    },
    /**
     * A matching poll answered. Panes appear and disappear with the matchings; fields of a pane are only
     * written when they changed, so unchanged panes keep their identity and do not re-render.
     */
    matchingsPolled(
      state,
      action: PayloadAction<{
        matchings: CheckerMatching[];
        matchingTimeout: number;
        at: number;
        ended?: EndedExaminee[];
      }>,
    ) {
      const { matchings, matchingTimeout, at } = action.payload;
      state.matchingTimeout = matchingTimeout;
      const ended = action.payload.ended ?? [];
      state.ended = ended;
      state.dismissedEnded = state.dismissedEnded.filter((id) => ended.some((e) => e.monitorId === id));
      const seen = new Set<number>();
      for (const m of matchings) {
        seen.add(m.testerId);
        const p = state.panes.entities[m.testerId];
        if (!p || p.monitorId !== m.monitorId) {
          panesAdapter.setOne(state.panes, newPane(m, at));
          if (!p) state.chats[m.testerId] = [];
          continue;
        }
        if (p.testerStatus !== m.testerStatus) p.testerStatus = m.testerStatus;
        if (p.kicked !== (m.kicked === 1)) p.kicked = m.kicked === 1;
        if (p.hasChannel !== (m.channel !== null)) p.hasChannel = m.channel !== null;
        if (p.examName !== m.examName) p.examName = m.examName;
        if (m.rejected === 1 && p.auth !== 'rejected') p.auth = 'rejected';
      }
      const gone = state.panes.ids.filter((id) => !seen.has(id));
      panesAdapter.removeMany(state.panes, gone);
      for (const id of gone) delete state.chats[id];
    },
    /** A pane's matching was deleted or ended (kick-out, lost connection) before the next poll. */
    paneRemoved(state, action: PayloadAction<{ testerId: number; monitorId: number }>) {
      const p = state.panes.entities[action.payload.testerId];
      if (!p || p.monitorId !== action.payload.monitorId) return;
      panesAdapter.removeOne(state.panes, p.testerId);
      delete state.chats[p.testerId];
      if (state.authTesterId === p.testerId) state.authTesterId = null;
      if (state.marking?.testerId === p.testerId) state.marking = null;
    },
    /** tester/detail (and head_shot) answered for a pane. */
    examineeLoaded(
      state,
      action: PayloadAction<{
        testerId: number;
        name: string;
        headShot: { url: string | null; updatedAt: string | null };
        idCard: { url: string | null; updatedAt: string | null };
      }>,
    ) {
      const p = state.panes.entities[action.payload.testerId];
      if (!p) return;
      p.name = action.payload.name;
      p.headShot = action.payload.headShot;
      p.idCard = action.payload.idCard;
    },
    /** The viewer of a pane changed state (RTCPeerConnection events, or a reconnect began). */
    paneConnectionChanged(
      state,
      action: PayloadAction<{ testerId: number; monitorId: number; connection: PaneConnection; at: number }>,
    ) {
      const { testerId, monitorId, connection, at } = action.payload;
      const p = state.panes.entities[testerId];
      if (!p || p.monitorId !== monitorId || p.connection === connection) return;
      p.connection = connection;
      if (connection === 'live' && p.connectedSince === null) p.connectedSince = at;
    },
    /** The registry holds a new MediaStream for the pane. */
    paneStreamReceived(state, action: PayloadAction<{ testerId: number; monitorId: number }>) {
      const p = state.panes.entities[action.payload.testerId];
      if (!p || p.monitorId !== action.payload.monitorId) return;
      p.streamVersion += 1;
    },
    /** The checker switched a pane's sound on or off (or autoplay forced it off). */
    paneMutedChanged(state, action: PayloadAction<{ testerId: number; muted: boolean }>) {
      const p = state.panes.entities[action.payload.testerId];
      if (p) p.muted = action.payload.muted;
    },
    /**
     * New messages for a pane arrived (newest first). Markers update the identity check and BEFORE_CLOSE state.
     */
    chatReceived(state, action: PayloadAction<{ testerId: number; messages: ChatItem[] }>) {
      const { testerId, messages } = action.payload;
      const p = state.panes.entities[testerId];
      if (!p || messages.length === 0) return;
      const list = state.chats[testerId] ?? [];
      const known = new Set(list.map((m) => m.id));
      const fresh = messages.filter((m) => !known.has(m.id)).sort((a, b) => b.id - a.id);
      if (fresh.length === 0) return;
      state.chats[testerId] = [...fresh, ...list].sort((a, b) => b.id - a.id);
      // Oldest first, so the latest marker wins.
      for (const m of [...fresh].reverse()) {
        if (m.kind !== 'command') continue;
        const command = m.message.split(':')[0] ?? '';
        const auth = authAfter(command);
        if (auth) p.auth = auth;
        if (command === 'BEFORE_CLOSE' && m.sendType === 1) p.beforeClose = true;
        if (command === 'KICK_OUT') p.kicked = true;
      }
    },
    /** The identity check modal opened for a pane. */
    authModalOpened(state, action: PayloadAction<number>) {
      state.authTesterId = action.payload;
    },
    /** The identity check modal closed. */
    authModalClosed(state) {
      state.authTesterId = null;
    },
    /** The checker accepted or rejected an identity and the server confirmed it. */
    authDecided(state, action: PayloadAction<{ testerId: number; auth: 'accepted' | 'rejected' }>) {
      const p = state.panes.entities[action.payload.testerId];
      if (p) p.auth = action.payload.auth;
      state.authTesterId = null;
    },
    /** Marks and fixed notifications were loaded. */
    listsLoaded(state, action: PayloadAction<{ marks?: Mark[]; fixedNotifications?: FixedNotification[] }>) {
      if (action.payload.marks) state.marks = action.payload.marks;
      if (action.payload.fixedNotifications) state.fixedNotifications = action.payload.fixedNotifications;
    },
    /** The checker's own activation was read or saved. */
    activationLoaded(state, action: PayloadAction<{ monitorId: number; active: boolean }>) {
      state.activation = { ...action.payload, status: 'idle' };
    },
    /** An activation change was sent. */
    activationSaving(state) {
      if (state.activation) state.activation.status = 'saving';
    },
    /** An activation change failed. */
    activationFailed(state) {
      if (state.activation) state.activation.status = 'idle';
    },
    /** The checker closed the notice of an ended matching. */
    endedDismissed(state, action: PayloadAction<number>) {
      if (!state.dismissedEnded.includes(action.payload)) state.dismissedEnded.push(action.payload);
    },
    /** The marking modal opened with the still captured at that moment. */
    markingOpened(
      state,
      action: PayloadAction<{ testerId: number; image: string | null; capturedAt: number }>,
    ) {
      state.marking = { ...action.payload, status: 'editing' };
    },
    /** The marking is being saved. */
    markingSaving(state) {
      if (state.marking) state.marking.status = 'saving';
    },
    /** Saving failed; the modal stays open. */
    markingSaveFailed(state) {
      if (state.marking) state.marking.status = 'editing';
    },
    /** The marking modal closed (saved or cancelled). */
    markingClosed(state) {
      state.marking = null;
    },
    /** The history modal opened and its list is loading. */
    historyRequested(state) {
      state.history = { open: true, status: 'loading', users: [] };
    },
    historyLoaded(state, action: PayloadAction<MatchingHistoryEntry[]>) {
      state.history = { open: true, status: 'loaded', users: action.payload };
    },
    historyFailed(state) {
      state.history = { open: true, status: 'failed', users: [] };
    },
    historyClosed(state) {
      state.history.open = false;
    },
  },
  extraReducers: (builder) => {
    builder.addCase(loggedOut, () => initialState);
  },
});

export const {
  monitoringStarted,
  monitoringStopped,
  matchingsPolled,
  paneRemoved,
  examineeLoaded,
  paneConnectionChanged,
  paneStreamReceived,
  paneMutedChanged,
  chatReceived,
  authModalOpened,
  authModalClosed,
  authDecided,
  listsLoaded,
  activationLoaded,
  activationSaving,
  activationFailed,
  markingOpened,
  markingSaving,
  markingSaveFailed,
  markingClosed,
  historyRequested,
  historyLoaded,
  historyFailed,
  historyClosed,
  endedDismissed,
} = monitoringSlice.actions;
export default monitoringSlice.reducer;

type WithMonitoring = { monitoring: MonitoringState };

const paneSelectors = panesAdapter.getSelectors((s: WithMonitoring) => s.monitoring.panes);
export const selectPaneIds = paneSelectors.selectIds;
export const selectPanes = paneSelectors.selectAll;
export const selectPane = (s: WithMonitoring, testerId: number): Pane | undefined =>
  s.monitoring.panes.entities[testerId];
const EMPTY_CHAT: ChatItem[] = [];
export const selectChat = (s: WithMonitoring, testerId: number): ChatItem[] =>
  s.monitoring.chats[testerId] ?? EMPTY_CHAT;
export const selectMatchingTimeout = (s: WithMonitoring) => s.monitoring.matchingTimeout;
export const selectMonitoringRunning = (s: WithMonitoring) => s.monitoring.status === 'running';
export const selectActivation = (s: WithMonitoring) => s.monitoring.activation;
export const selectMarks = (s: WithMonitoring) => s.monitoring.marks;
/** Marks the checker may choose (display on). */
export const selectVisibleMarks = createSelector([selectMarks], (marks) =>
  marks.filter((m) => m.display !== 0),
);
export const selectFixedNotifications = (s: WithMonitoring) => s.monitoring.fixedNotifications;
export const selectMarking = (s: WithMonitoring) => s.monitoring.marking;
export const selectHistory = (s: WithMonitoring) => s.monitoring.history;
export const selectAuthTesterId = (s: WithMonitoring) => s.monitoring.authTesterId;
/** Ended matchings to show: not dismissed, and not an examinee who has a pane (matched again) now. */
export const selectEnded = createSelector(
  [
    (s: WithMonitoring) => s.monitoring.ended,
    (s: WithMonitoring) => s.monitoring.dismissedEnded,
    (s: WithMonitoring) => s.monitoring.panes.ids,
  ],
  (ended, dismissed, paneIds) =>
    ended.filter((e) => !dismissed.includes(e.monitorId) && !paneIds.includes(e.testerId)),
);
