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
  IdentityCheck,
  MatchingHistoryEntry,
} from '../../api/checker';
import type { AiAuthStatusCode } from '@contract/constants/ai-auth';
import type { Mark } from '../../api/markings';
import type { LiveFeed, LiveFlag } from '../../api/capture';
import { loggedOut } from '../session/session-slice';
import { MESSAGE_COMMANDS, SEND_TYPE, parseCommand } from '@contract/constants/messages';
import { DEFAULT_MATCHING_TIMEOUT_SECONDS } from '@contract/constants/matching';
import { viewsOf, type PaneViewId, type PaneViewStatus } from './pane-views';
import { WIDER_VIEW_COMMANDS } from '@contract/constants/wider-view';
import type { PhoneLostReason, PhoneState } from '@contract/constants/phone';

/**
 * What a person reads at a glance on a pane: the connection in words, not only a colour. `stalled`: connected,
 * but no new camera frame for a couple of seconds (the picture shown is frozen).
 */
export type PaneConnection = 'connecting' | 'live' | 'stalled' | 'reconnecting' | 'lost';

/** A room scan as the checker follows it (README "The wider view"). */
export type PaneRoomScan = 'none' | 'requested' | 'scanning' | 'done';

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
  /** The exam's name, from tester/detail; null until loaded. */
  testName: string | null;
  testerStatus: number;
  kicked: boolean;
  /** The server handed viewer credentials (null: not proctored, nothing to view). */
  hasChannel: boolean;
  connection: PaneConnection;
  /** Epoch ms of the connection the elapsed time counts from; null = unknown (--:--:--). */
  connectedSince: number | null;
  /** Changes whenever the registry holds a new stream for this pane. */
  streamVersion: number;
  /** The views the sitting offers (pane-views.ts): the camera first, then the screen and the phone. */
  views: PaneViewId[];
  /** The view shown large in the pane; the others are small beside it. */
  mainView: PaneViewId;
  /** What each extra view shows now (the camera's is `connection`). */
  viewStatus: Partial<Record<PaneViewId, PaneViewStatus>>;
  /** The sitting has room scans (is_room_scan): the checker may ask for one. */
  roomScanEnabled: boolean;
  /** The room scan the chat markers tell of: none yet, asked for, under way, done. */
  roomScan: PaneRoomScan;
  /** The sitting's phone camera as the server last reported it (null: the sitting has none). */
  phone: { state: PhoneState; since: string | null; lostReason: PhoneLostReason | null } | null;
  muted: boolean;
  /** The identity check by a checker, as the sitting's markers (and `rejected`) tell of it. */
  auth: PaneAuth;
  /** Who checks this sitting's identity (start-up is_auth, is_ai_auth). */
  identityCheck: IdentityCheck;
  /** The AI identity check's status from tester/detail (AI_AUTH_STATUS); null before it is read or without one. */
  aiAuthStatus: AiAuthStatusCode | null;
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

/** What an examinee's live stills say now (checker/live_feed): settings, newest still, AI flags. */
export interface PaneLive {
  captureInterval: number;
  captureType: number;
  showStills: boolean;
  sensitivity: 'strict' | 'standard' | 'relaxed';
  latestCapture: { id: number; capturedAt: string; status: string; url: string | null } | null;
  flagCount: number;
  excusedCount: number;
  /** Flags of the last minutes, oldest first. */
  flags: LiveFlag[];
}

/**
 * What needs the checker: an identity check asked for, a chat message, an AI flag, a lost connection, the screen
 * share ended, a lost phone camera.
 */
export type AlertKind = 'identity' | 'chat' | 'flag' | 'connection' | 'screen' | 'phone';

/** One alert: which pane (its number, 1–5, as the shortcut keys name it) and examinee, what and when. */
export interface ConsoleAlert {
  id: number;
  kind: AlertKind;
  testerId: number;
  loginId: string;
  name: string | null;
  /** 1-based position of the pane when the alert was raised (0: the examinee has no pane any more). */
  pane: number;
  at: number;
  /** For an AI flag: what it showed. */
  flag?: LiveFlag['flag'];
}

/** Desktop notification permission as the browser reports it. */
export type NotifyPermission = 'default' | 'granted' | 'denied' | 'unsupported';

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
  /** Live stills and AI flags per examinee (tester id). */
  live: Record<number, PaneLive>;
  /** Server clock minus this browser's (ms), from the live feed: places flags on the timeline. */
  liveClockOffsetMs: number;
  /** The pane the keyboard shortcuts act on (the last one focused). */
  selectedTesterId: number | null;
  /** The pane shown large (the others stay visible beside it). */
  enlargedTesterId: number | null;
  /** The pane whose chat panel is open. */
  chatTesterId: number | null;
  /** Chat messages from the examinee not yet seen in the chat panel. */
  unread: Record<number, number>;
  /** Which button the identity modal focuses (a shortcut's choice, confirmed with Enter). */
  authIntent: 'accept' | 'reject' | null;
  helpOpen: boolean;
  alerts: {
    items: ConsoleAlert[];
    /** Alerts raised while the console was not looked at (shown in the tab title). */
    unseen: number;
    soundOn: boolean;
    permission: NotifyPermission;
    /** The permission was asked for once already (a click); it is not asked again. */
    asked: boolean;
    nextId: number;
  };
  /** Whether the console's polls reach the server (see ServerReach). */
  server: ServerReach;
}

/** How many alerts the console keeps listed. */
export const MAX_ALERTS = 20;

/**
 * Whether the server answers the console's polls (the matching poll and the chat polls). `unreachable` once
 * they have failed in a row for a while (SERVER_UNREACHABLE_AFTER_MS, at least
 * SERVER_UNREACHABLE_MIN_FAILURES failures); `restored` after an answer ended such a stretch.
 */
export interface ServerReach {
  status: 'reachable' | 'unreachable' | 'restored';
  /** When the polls began failing (epoch ms); null while they are answered. */
  failingSince: number | null;
  /** Polls failed in a row. */
  failures: number;
}
/** How long the polls fail before the console says the server cannot be reached (one blip says nothing). */
export const SERVER_UNREACHABLE_AFTER_MS = 4000;
/** How many polls in a row must fail for that (with no chat polls: two matching polls, 5 s apart). */
export const SERVER_UNREACHABLE_MIN_FAILURES = 2;

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
  live: {},
  liveClockOffsetMs: 0,
  selectedTesterId: null,
  enlargedTesterId: null,
  chatTesterId: null,
  unread: {},
  authIntent: null,
  helpOpen: false,
  alerts: { items: [], unseen: 0, soundOn: true, permission: 'unsupported', asked: false, nextId: 1 },
  server: { status: 'reachable', failingSince: null, failures: 0 },
};

/** Forgets what belonged to a pane that went away. */
function dropPaneState(state: MonitoringState, testerId: number): void {
  delete state.chats[testerId];
  delete state.live[testerId];
  delete state.unread[testerId];
  if (state.selectedTesterId === testerId) state.selectedTesterId = null;
  if (state.enlargedTesterId === testerId) state.enlargedTesterId = null;
  if (state.chatTesterId === testerId) state.chatTesterId = null;
}

/** The pane's copy of the matching's phone (without its credentials: those stay out of the store). */
function phoneOf(m: CheckerMatching): Pane['phone'] {
  return m.phone ? { state: m.phone.state, since: m.phone.since, lostReason: m.phone.lostReason } : null;
}

/**
 * The phone view's status from the server's phone: not connected before a phone is paired, lost when it stopped
 * answering or left, connecting once paired; while the phone publishes, this checker's viewer of the phone's
 * channel says when its frames arrive (`live`), and anything short of that is still connecting.
 */
function phoneViewStatus(phone: Pane['phone'], current: PaneViewStatus | undefined): PaneViewStatus {
  if (!phone || phone.state === 'waiting') return 'waiting';
  if (phone.state === 'lost') return 'lost';
  return phone.state === 'live' && current === 'live' ? 'live' : 'connecting';
}

/** Writes the phone view's status of a pane whose sitting has the phone view. */
function followPhoneView(p: Pane): void {
  if (!p.views.includes('phone')) return;
  const status = phoneViewStatus(p.phone, p.viewStatus.phone);
  if (p.viewStatus.phone !== status) p.viewStatus.phone = status;
}

function newPane(m: CheckerMatching, now: number): Pane {
  return {
    testerId: m.testerId,
    monitorId: m.monitorId,
    testId: m.testId,
    loginId: m.loginId,
    exLoginId: m.exLoginId,
    examName: m.examName,
    name: null,
    testName: null,
    testerStatus: m.testerStatus,
    kicked: m.kicked === 1,
    hasChannel: m.channel !== null,
    connection: 'connecting',
    connectedSince:
      m.matchingStatus === 2 && m.matchingConnectedTime > 0 ? now - m.matchingConnectedTime * 1000 : null,
    streamVersion: 0,
    views: viewsOf(m.widerView),
    mainView: 'camera',
    viewStatus: {},
    roomScanEnabled: m.widerView.roomScan,
    roomScan: 'none',
    phone: phoneOf(m),
    muted: false,
    auth: m.rejected === 1 ? 'rejected' : 'none',
    identityCheck: m.identityCheck,
    aiAuthStatus: null,
    beforeClose: false,
    headShot: { url: null, updatedAt: null },
    idCard: { url: null, updatedAt: null },
  };
}

/** The room scan a wider-view marker moves a pane to. */
const ROOM_SCAN_AFTER: Record<string, PaneRoomScan | undefined> = {
  [WIDER_VIEW_COMMANDS.roomScanRequested]: 'requested',
  [WIDER_VIEW_COMMANDS.roomScanStarted]: 'scanning',
  [WIDER_VIEW_COMMANDS.roomScanDone]: 'done',
};

/** Auth state a command moves to; null when the command is not about the identity check. */
function authAfter(command: string): PaneAuth | null {
  if (command === MESSAGE_COMMANDS.authenticating) return 'authenticating';
  if (command === MESSAGE_COMMANDS.accepted) return 'accepted';
  if (command === MESSAGE_COMMANDS.rejected) return 'rejected';
  return null;
}

/**
 * The identity check and room scan the sitting's markers tell of (the latest marker wins), read from a chat
 * (newest first): what a checker who loads the pane afresh reads from the same messages.
 */
function fromMarkers(chat: readonly ChatItem[]): { auth: PaneAuth; roomScan: PaneRoomScan } {
  let auth: PaneAuth | null = null;
  let roomScan: PaneRoomScan | null = null;
  for (const m of chat) {
    if (m.kind !== 'command') continue;
    const { command } = parseCommand(m.message);
    auth ??= authAfter(command);
    roomScan ??= ROOM_SCAN_AFTER[command] ?? null;
    if (auth && roomScan) break;
  }
  return { auth: auth ?? 'none', roomScan: roomScan ?? 'none' };
}

const monitoringSlice = createSlice({
  name: 'monitoring',
  initialState,
  reducers: {
    /** The monitoring page opened: polling starts. */
    monitoringStarted(state) {
      state.status = 'running';
      state.server = initialState.server;
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
          const pane = newPane(m, at);
          if (p && p.testId === m.testId) {
            // A new matching of the same sitting (the examinee's page reloaded). Its earlier markers are already
            // read and do not come again, so the pane takes what they say from the chat it keeps: the identity
            // check (unless the matching says rejected) and the room scan, as a checker loading the pane afresh
            // would read them; a share that had ended stays ended until the marker of a new share arrives.
            const told = fromMarkers(state.chats[m.testerId] ?? []);
            if (pane.auth !== 'rejected') pane.auth = told.auth;
            pane.roomScan = told.roomScan;
            pane.aiAuthStatus = p.aiAuthStatus;
            if (p.viewStatus.screen === 'ended') pane.viewStatus.screen = 'ended';
          } else {
            // A first pane, or another sitting of the examinee: its conversation starts empty.
            state.chats[m.testerId] = [];
            delete state.unread[m.testerId];
          }
          followPhoneView(pane);
          panesAdapter.setOne(state.panes, pane);
          continue;
        }
        if (p.testerStatus !== m.testerStatus) p.testerStatus = m.testerStatus;
        if (p.kicked !== (m.kicked === 1)) p.kicked = m.kicked === 1;
        if (p.hasChannel !== (m.channel !== null)) p.hasChannel = m.channel !== null;
        if (p.examName !== m.examName) p.examName = m.examName;
        if (m.rejected === 1 && p.auth !== 'rejected') p.auth = 'rejected';
        if (p.roomScanEnabled !== m.widerView.roomScan) p.roomScanEnabled = m.widerView.roomScan;
        if (p.identityCheck !== m.identityCheck) p.identityCheck = m.identityCheck;
        const views = viewsOf(m.widerView);
        if (views.join() !== p.views.join()) {
          p.views = views;
          if (!views.includes(p.mainView)) p.mainView = 'camera';
        }
        const phone = phoneOf(m);
        if (JSON.stringify(phone) !== JSON.stringify(p.phone)) p.phone = phone;
        followPhoneView(p);
      }
      const gone = state.panes.ids.filter((id) => !seen.has(id));
      panesAdapter.removeMany(state.panes, gone);
      for (const id of gone) dropPaneState(state, id);
    },
    /** A pane's matching was deleted or ended (kick-out, lost connection) before the next poll. */
    paneRemoved(state, action: PayloadAction<{ testerId: number; monitorId: number }>) {
      const p = state.panes.entities[action.payload.testerId];
      if (!p || p.monitorId !== action.payload.monitorId) return;
      panesAdapter.removeOne(state.panes, p.testerId);
      dropPaneState(state, p.testerId);
      if (state.authTesterId === p.testerId) state.authTesterId = null;
      if (state.marking?.testerId === p.testerId) state.marking = null;
    },
    /** tester/detail (and head_shot) answered for a pane. */
    examineeLoaded(
      state,
      action: PayloadAction<{
        testerId: number;
        name: string;
        testName: string;
        headShot: { url: string | null; updatedAt: string | null };
        idCard: { url: string | null; updatedAt: string | null };
        aiAuthStatus?: AiAuthStatusCode | null;
      }>,
    ) {
      const p = state.panes.entities[action.payload.testerId];
      if (!p) return;
      if (action.payload.aiAuthStatus !== undefined) p.aiAuthStatus = action.payload.aiAuthStatus;
      p.name = action.payload.name;
      p.testName = action.payload.testName || null;
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
    /** The checker chose which of a pane's views is shown large (the camera, the screen, the phone). */
    paneMainViewChosen(state, action: PayloadAction<{ testerId: number; view: PaneViewId }>) {
      const p = state.panes.entities[action.payload.testerId];
      if (p && p.views.includes(action.payload.view)) p.mainView = action.payload.view;
    },
    /** An extra view of a pane started or stopped showing something (its media, its connection, a notice). */
    paneViewStatusChanged(
      state,
      action: PayloadAction<{
        testerId: number;
        monitorId: number;
        view: PaneViewId;
        status: PaneViewStatus;
      }>,
    ) {
      const { testerId, monitorId, view, status } = action.payload;
      const p = state.panes.entities[testerId];
      if (!p || p.monitorId !== monitorId || p.viewStatus[view] === status) return;
      // The examinee said its share ended: only the marker of a new share makes it live again. Nothing the track
      // does in between counts: going quiet, the viewer connecting again after the examinee's page reloaded, nor
      // the new connection's screen track, which Chromium reports unmuted although no frame ever comes.
      if (p.viewStatus[view] === 'ended') return;
      p.viewStatus[view] = status;
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
        const { command } = parseCommand(m.message);
        const auth = authAfter(command);
        if (auth) p.auth = auth;
        if (command === MESSAGE_COMMANDS.beforeClose && m.sendType === SEND_TYPE.tester) p.beforeClose = true;
        if (command === MESSAGE_COMMANDS.kickOut) p.kicked = true;
        // The wider view's markers (server-written): the screen share and the room scan.
        // (A remote track does not always go muted when its sender stops, so the markers lead; the track's
        // mute and unmute events follow what the media does between them.)
        if (command === WIDER_VIEW_COMMANDS.screenShareEnded) p.viewStatus.screen = 'ended';
        if (command === WIDER_VIEW_COMMANDS.screenShared) p.viewStatus.screen = 'live';
        const scan = ROOM_SCAN_AFTER[command];
        if (scan) p.roomScan = scan;
      }
    },
    /** The checker's request for a room scan reached the server (before its marker comes back in the chat). */
    paneRoomScanRequested(state, action: PayloadAction<{ testerId: number; status: PaneRoomScan }>) {
      const p = state.panes.entities[action.payload.testerId];
      if (p) p.roomScan = action.payload.status;
    },
    /** The identity check modal opened for a pane. */
    authModalOpened(state, action: PayloadAction<number>) {
      state.authTesterId = action.payload;
      state.authIntent = null;
    },
    /** A shortcut (A / R) asked to accept or reject a pane's identity: the modal opens to confirm it. */
    authDecisionRequested(state, action: PayloadAction<{ testerId: number; intent: 'accept' | 'reject' }>) {
      state.authTesterId = action.payload.testerId;
      state.authIntent = action.payload.intent;
    },
    /** The identity check modal closed. */
    authModalClosed(state) {
      state.authTesterId = null;
      state.authIntent = null;
    },
    /** The checker accepted or rejected an identity and the server confirmed it. */
    authDecided(state, action: PayloadAction<{ testerId: number; auth: 'accepted' | 'rejected' }>) {
      const p = state.panes.entities[action.payload.testerId];
      if (p) p.auth = action.payload.auth;
      state.authTesterId = null;
      state.authIntent = null;
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
    /**
     * The live feed answered: each pane's stills and flags. A still or flag already shown keeps its URL (a new
     * signature of the same picture would make the browser fetch it again).
     */
    liveFeedReceived(state, action: PayloadAction<{ feed: LiveFeed; at: number }>) {
      const { feed, at } = action.payload;
      const server = Date.parse(feed.serverTime);
      if (Number.isFinite(server)) state.liveClockOffsetMs = server - at;
      const next: Record<number, PaneLive> = {};
      for (const p of feed.panes) {
        const prev = state.live[p.testerId];
        const keepUrl =
          prev?.latestCapture && p.latestCapture && prev.latestCapture.id === p.latestCapture.id;
        const urls = new Map((prev?.flags ?? []).map((f) => [f.id, f.imageUrl]));
        next[p.testerId] = {
          captureInterval: p.captureInterval,
          captureType: p.captureType,
          showStills: p.isCaptureShow,
          sensitivity: p.sensitivity,
          latestCapture: p.latestCapture
            ? {
                ...p.latestCapture,
                url: keepUrl ? (prev.latestCapture!.url ?? p.latestCapture.url) : p.latestCapture.url,
              }
            : null,
          flagCount: p.flagCount,
          excusedCount: p.excusedCount,
          flags: p.flags.map((f) => ({ ...f, imageUrl: urls.get(f.id) ?? f.imageUrl })),
        };
      }
      state.live = next;
    },
    /** A pane got the keyboard focus (or a number key chose it). */
    paneSelected(state, action: PayloadAction<number>) {
      state.selectedTesterId = action.payload;
    },
    /** A pane was enlarged, or the enlarged one restored. */
    paneEnlargeToggled(state, action: PayloadAction<number>) {
      state.enlargedTesterId = state.enlargedTesterId === action.payload ? null : action.payload;
    },
    /** The enlarged pane went back to its place. */
    paneRestored(state) {
      state.enlargedTesterId = null;
    },
    /** The chat panel opened for a pane: its messages count as seen. */
    chatOpened(state, action: PayloadAction<number>) {
      state.chatTesterId = action.payload;
      delete state.unread[action.payload];
    },
    chatClosed(state) {
      state.chatTesterId = null;
    },
    /** New chat messages from an examinee whose chat panel is not open. */
    chatUnreadAdded(state, action: PayloadAction<{ testerId: number; count: number }>) {
      const { testerId, count } = action.payload;
      if (state.chatTesterId === testerId || !state.panes.entities[testerId]) return;
      state.unread[testerId] = (state.unread[testerId] ?? 0) + count;
    },
    helpToggled(state, action: PayloadAction<boolean>) {
      state.helpOpen = action.payload;
    },
    /** Something needs the checker (see AlertKind). */
    alertRaised(state, action: PayloadAction<Omit<ConsoleAlert, 'id' | 'pane'>>) {
      const pane = state.panes.ids.indexOf(action.payload.testerId) + 1;
      state.alerts.items.unshift({ ...action.payload, id: state.alerts.nextId, pane });
      state.alerts.nextId += 1;
      state.alerts.items.splice(MAX_ALERTS);
      state.alerts.unseen += 1;
    },
    /** The checker is looking at the console (the tab is visible and focused): the title count goes. */
    alertsSeen(state) {
      state.alerts.unseen = 0;
    },
    alertsCleared(state) {
      state.alerts.items = [];
      state.alerts.unseen = 0;
    },
    alertSoundToggled(state) {
      state.alerts.soundOn = !state.alerts.soundOn;
    },
    /** The alert sound preference was read back (it is kept across reloads). */
    alertSoundLoaded(state, action: PayloadAction<boolean>) {
      state.alerts.soundOn = action.payload;
    },
    /** The browser's desktop-notification permission is known (or was just answered). */
    notifyPermissionChanged(state, action: PayloadAction<{ permission: NotifyPermission; asked?: boolean }>) {
      state.alerts.permission = action.payload.permission;
      if (action.payload.asked) state.alerts.asked = true;
    },
    /** A poll got no answer from the server (no response, a timeout, or a gateway's 502–504). */
    serverPollFailed(state, action: PayloadAction<{ at: number }>) {
      const s = state.server;
      s.failures += 1;
      s.failingSince ??= action.payload.at;
      if (
        s.failures >= SERVER_UNREACHABLE_MIN_FAILURES &&
        action.payload.at - s.failingSince >= SERVER_UNREACHABLE_AFTER_MS
      )
        s.status = 'unreachable';
    },
    /** A poll was answered by the server again. */
    serverPollAnswered(state) {
      const s = state.server;
      s.failures = 0;
      s.failingSince = null;
      if (s.status === 'unreachable') s.status = 'restored';
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
  paneMainViewChosen,
  paneViewStatusChanged,
  paneRoomScanRequested,
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
  authDecisionRequested,
  liveFeedReceived,
  paneSelected,
  paneEnlargeToggled,
  paneRestored,
  chatOpened,
  chatClosed,
  chatUnreadAdded,
  helpToggled,
  alertRaised,
  alertsSeen,
  alertsCleared,
  alertSoundToggled,
  alertSoundLoaded,
  notifyPermissionChanged,
  serverPollFailed,
  serverPollAnswered,
} = monitoringSlice.actions;
export default monitoringSlice.reducer;

type WithMonitoring = { monitoring?: MonitoringState };
/** The monitoring state; its initial state until a route registered the monitoring feature (app/store.ts). */
export const selectMonitoring = (s: WithMonitoring): MonitoringState => s.monitoring ?? initialState;

const paneSelectors = panesAdapter.getSelectors((s: WithMonitoring) => selectMonitoring(s).panes);
export const selectPaneIds = paneSelectors.selectIds;
export const selectPanes = paneSelectors.selectAll;
export const selectPane = (s: WithMonitoring, testerId: number): Pane | undefined =>
  selectMonitoring(s).panes.entities[testerId];
const EMPTY_CHAT: ChatItem[] = [];
export const selectChat = (s: WithMonitoring, testerId: number): ChatItem[] =>
  selectMonitoring(s).chats[testerId] ?? EMPTY_CHAT;
export const selectMatchingTimeout = (s: WithMonitoring) => selectMonitoring(s).matchingTimeout;
export const selectMonitoringRunning = (s: WithMonitoring) => selectMonitoring(s).status === 'running';
export const selectActivation = (s: WithMonitoring) => selectMonitoring(s).activation;
export const selectMarks = (s: WithMonitoring) => selectMonitoring(s).marks;
/** Marks the checker may choose (display on). */
export const selectVisibleMarks = createSelector([selectMarks], (marks) =>
  marks.filter((m) => m.display !== 0),
);
export const selectFixedNotifications = (s: WithMonitoring) => selectMonitoring(s).fixedNotifications;
export const selectMarking = (s: WithMonitoring) => selectMonitoring(s).marking;
export const selectHistory = (s: WithMonitoring) => selectMonitoring(s).history;
export const selectAuthTesterId = (s: WithMonitoring) => selectMonitoring(s).authTesterId;
/** Ended matchings to show: not dismissed, and not an examinee who has a pane (matched again) now. */
export const selectEnded = createSelector(
  [
    (s: WithMonitoring) => selectMonitoring(s).ended,
    (s: WithMonitoring) => selectMonitoring(s).dismissedEnded,
    (s: WithMonitoring) => selectMonitoring(s).panes.ids,
  ],
  (ended, dismissed, paneIds) =>
    ended.filter((e) => !dismissed.includes(e.monitorId) && !paneIds.includes(e.testerId)),
);

export const selectAuthIntent = (s: WithMonitoring) => selectMonitoring(s).authIntent;
export const selectPaneLive = (s: WithMonitoring, testerId: number): PaneLive | undefined =>
  selectMonitoring(s).live[testerId];
export const selectLiveClockOffset = (s: WithMonitoring) => selectMonitoring(s).liveClockOffsetMs;
export const selectSelectedTesterId = (s: WithMonitoring) => selectMonitoring(s).selectedTesterId;
export const selectEnlargedTesterId = (s: WithMonitoring) => selectMonitoring(s).enlargedTesterId;
export const selectChatTesterId = (s: WithMonitoring) => selectMonitoring(s).chatTesterId;
export const selectUnread = (s: WithMonitoring, testerId: number) =>
  selectMonitoring(s).unread[testerId] ?? 0;
export const selectHelpOpen = (s: WithMonitoring) => selectMonitoring(s).helpOpen;
export const selectAlerts = (s: WithMonitoring) => selectMonitoring(s).alerts;
/** 1-based number of a pane (its shortcut key), 0 when it has none. */
export const selectPaneNumber = (s: WithMonitoring, testerId: number) =>
  selectMonitoring(s).panes.ids.indexOf(testerId) + 1;
export const selectServerReach = (s: WithMonitoring) => selectMonitoring(s).server;
