import { createSlice, type PayloadAction } from '@reduxjs/toolkit';
import { loggedOut } from '../session/session-slice';
import { disconnectFlagReset, matchingPolled, networkErrorOccurred } from '../live/live-slice';
import type { ReportData } from '../../components/report/examinee-report';
import { TESTER_STATUS } from '@contract/constants/tester';
import type { TranslationKey } from '../../lib/translation-key';

/** Spec §4 step bar: 1 env setting, 2 terms agree, 3 identification, 4 before exam. */
export type StepBar = 1 | 2 | 3 | 4;
/** Spec §4 device permission: 1 before check, 2 allowed, 3 denied. */
export type DeviceState = 1 | 2 | 3;
export const DEVICE = { beforeCheck: 1, allowed: 2, denied: 3 } as const;

/** Spec §4 window exit modes. */
export type ExitMode = 'none' | 'logout' | 'kickOutMyself' | 'kickOutMyselfAi';

export type LoadStatus = 'idle' | 'loading' | 'loaded' | 'failed';

/** One chat line (spec §3 chatItems, newest first). */
export interface ChatItem {
  id: number;
  /** 0 checker, 1 tester. */
  sendType: number;
  message: string;
  createdAt: string;
}

export interface AiFixedText {
  /** i18n key of the text (identification:ai.fixed.*). */
  text: TranslationKey;
  check: boolean;
  isError: boolean;
}

/** Spec §3 AI notice: placeholders for remaining tries, limit − 1, limit and the failure string. */
export interface AiNotice {
  selectedStr: TranslationKey;
  limite: number;
  retry: number;
  failStr: string;
  noticeType: 'info' | 'caution' | 'error';
}

export interface MarkingItem {
  markingAt: string;
  label: string;
  message: string;
  score: number;
}

export interface RecordItem {
  id: number;
  startAt: string;
  stopAt: string | null;
}

/** Where the exam on /examining stands; 'ended' when the sitting ended otherwise (kick-out, a lost session). */
export type ExamPhase =
  'notes' | 'ready' | 'opening' | 'examing' | 'interrupted' | 'finishing' | 'finished' | 'ended';

/** How a tester page left (spec §4 window exit modes). */
export type ExitState = 'none' | 'kickedOut' | 'loggedOut' | 'monitoringEnded';

/** Spec §3 "Tester page state". */
export interface TesterState {
  testerId: number | null;
  stepBar: StepBar;
  disconnected: boolean;
  authError: boolean;
  envTermAgreed: boolean;
  examTermAgreed: boolean;
  proctorTermRead: boolean;
  proctorTermAgreed: boolean;
  camera: DeviceState;
  microphone: DeviceState;
  /** Reason a device is denied (i18n key suffix), or null. */
  cameraError: string | null;
  microphoneError: string | null;
  popup: 'unchecked' | 'ok' | 'blocked';
  envTerm: { status: LoadStatus; body: string };
  examiningTerm: { status: LoadStatus; body: string };
  /** Next on env-setting: 'networkError' shows "press Next again" (spec §8). */
  envNext: 'idle' | 'sending' | 'networkError' | 'failed';
  /**
   * /env-setting first asks where the sitting stands ('checking'); a sitting already under way goes straight
   * back to its page, so the device checks only show once it is known to start here ('ready').
   */
  envResume: 'checking' | 'ready';
  /** Identity-check flags of spec §4. */
  identity: { pending: boolean; finished: boolean; ng: boolean };
  chatItems: ChatItem[];
  /** The newest chat message the examinee has seen (messages from the checker after it are unread). */
  chatReadUpTo: number;
  lastMessageId: number;
  loggedInToTestSystem: boolean;
  /** This page holds the exam window (false after a reload or a new login: it can be opened again). */
  examWindowAttached: boolean;
  /**
   * When the maximum recording time runs out, in this browser's clock (epoch ms), counted from the sitting's
   * first recording start on the server; null while unknown or unlimited.
   */
  recordingDeadline: number | null;
  testerState: number;
  /**
   * /examining knows where the sitting stands (examining-thunks.ts `examiningEntered`: tester/detail answered and
   * the exam phase follows it). Until then the page shows only its loading state (or, when tester/detail could
   * not be had, its error and a retry) and the header no logout: the defaults above (notes, login) are a guess
   * about a sitting that may be running (a reload mid-exam).
   */
  examiningSittingKnown: boolean;
  examPhase: ExamPhase;
  /** i18n key of an exam-page error (network, exam URL, …) or null. */
  examErrorKey: TranslationKey | null;
  markings: MarkingItem[];
  markingTotalScore: number;
  records: RecordItem[];
  summaryStatus: LoadStatus;
  /** The examinee's own sitting as its printable report (/exam-end), once tester/detail answered. */
  summaryReport: ReportData | null;
  identityImage: string | null;
  idImage: string | null;
  retryCount: number;
  aiFixedTexts: AiFixedText[];
  aiNotice: AiNotice | null;
  exit: ExitState;
  /** i18n key of the text shown after the exit (kick-out, recording time, auth error). */
  exitMessageKey: TranslationKey | null;
}

export const initialTesterState: TesterState = {
  testerId: null,
  stepBar: 1,
  disconnected: false,
  authError: false,
  envTermAgreed: false,
  examTermAgreed: false,
  proctorTermRead: false,
  proctorTermAgreed: false,
  camera: DEVICE.beforeCheck,
  microphone: DEVICE.beforeCheck,
  cameraError: null,
  microphoneError: null,
  popup: 'unchecked',
  envTerm: { status: 'idle', body: '' },
  examiningTerm: { status: 'idle', body: '' },
  envNext: 'idle',
  envResume: 'checking',
  identity: { pending: false, finished: false, ng: false },
  chatItems: [],
  chatReadUpTo: 0,
  lastMessageId: 0,
  loggedInToTestSystem: false,
  examWindowAttached: false,
  recordingDeadline: null,
  testerState: TESTER_STATUS.login,
  examiningSittingKnown: false,
  examPhase: 'notes',
  examErrorKey: null,
  markings: [],
  markingTotalScore: 0,
  records: [],
  summaryStatus: 'idle',
  summaryReport: null,
  identityImage: null,
  idImage: null,
  retryCount: 0,
  aiFixedTexts: [],
  aiNotice: null,
  exit: 'none',
  exitMessageKey: null,
};

const testerSlice = createSlice({
  name: 'tester',
  initialState: initialTesterState,
  reducers: {
    /** tester/detail answered: who the examinee is and where the sitting stands. */
    testerDetailLoaded(
      state,
      action: PayloadAction<{ testerId: number; status: number; rejected: boolean; kicked: boolean }>,
    ) {
      state.testerId = action.payload.testerId;
      state.testerState = action.payload.status;
      if (action.payload.rejected) state.identity = { pending: false, finished: true, ng: true };
      else if (action.payload.status >= TESTER_STATUS.identificated)
        state.identity = { pending: false, finished: true, ng: false };
    },
    /** The tester state changed through tester/status (or was observed on the server). */
    testerStateChanged(state, action: PayloadAction<number>) {
      state.testerState = action.payload;
    },
    /** The page moved the step bar. */
    stepReached(state, action: PayloadAction<StepBar>) {
      state.stepBar = action.payload;
    },
    /** The camera/microphone check finished. */
    devicesChecked(state, action: PayloadAction<{ camera: string | null; microphone: string | null }>) {
      state.camera = action.payload.camera === null ? DEVICE.allowed : DEVICE.denied;
      state.microphone = action.payload.microphone === null ? DEVICE.allowed : DEVICE.denied;
      state.cameraError = action.payload.camera;
      state.microphoneError = action.payload.microphone;
    },
    /** The popup-block check ran. */
    popupChecked(state, action: PayloadAction<boolean>) {
      state.popup = action.payload ? 'ok' : 'blocked';
    },
    envResumeChecking(state) {
      state.envResume = 'checking';
    },
    envResumeChecked(state) {
      state.envResume = 'ready';
    },
    envTermLoadStarted(state) {
      state.envTerm.status = 'loading';
    },
    /** The env-setting term arrived (or failed: body '' and the default text shows). */
    envTermLoaded(state, action: PayloadAction<{ body: string; failed: boolean }>) {
      state.envTerm = { status: action.payload.failed ? 'failed' : 'loaded', body: action.payload.body };
    },
    examiningTermLoadStarted(state) {
      state.examiningTerm.status = 'loading';
    },
    examiningTermLoaded(state, action: PayloadAction<{ body: string; failed: boolean }>) {
      state.examiningTerm = {
        status: action.payload.failed ? 'failed' : 'loaded',
        body: action.payload.body,
      };
    },
    /** The env-setting terms checkbox changed. */
    envTermAgreementChanged(state, action: PayloadAction<boolean>) {
      state.envTermAgreed = action.payload;
      state.proctorTermRead = true;
      state.proctorTermAgreed = action.payload;
    },
    /** The exam-notes checkbox on /examining changed. */
    examTermAgreementChanged(state, action: PayloadAction<boolean>) {
      state.examTermAgreed = action.payload;
      if (state.examPhase === 'notes' || state.examPhase === 'ready')
        state.examPhase = action.payload ? 'ready' : 'notes';
    },
    envNextStarted(state) {
      state.envNext = 'sending';
    },
    /** Next failed: a network error asks to press Next again (spec §8). */
    envNextFailed(state, action: PayloadAction<'networkError' | 'failed'>) {
      state.envNext = action.payload;
    },
    envNextSucceeded(state) {
      state.envNext = 'idle';
      state.stepBar = 3;
    },
    /** The examinee posted AUTHENTICATING: the monitor's check is pending. */
    identityCheckRequested(state) {
      state.identity = { pending: true, finished: false, ng: false };
    },
    /** ACCEPTED and tester status IDENTIFICATED (spec §4). */
    identityAccepted(state) {
      state.identity = { pending: false, finished: true, ng: false };
      state.testerState = Math.max(state.testerState, TESTER_STATUS.identificated);
      state.stepBar = 4;
    },
    /** REJECTED (spec §4: finished, NG). */
    identityRejected(state) {
      state.identity = { pending: false, finished: true, ng: true };
    },
    /** New chat messages arrived (newest first); merged without duplicates. */
    chatReceived(state, action: PayloadAction<ChatItem[]>) {
      const seen = new Set(state.chatItems.map((c) => c.id));
      const fresh = action.payload.filter((c) => !seen.has(c.id));
      state.chatItems = [...fresh, ...state.chatItems].sort((a, b) => b.id - a.id);
      for (const c of action.payload) state.lastMessageId = Math.max(state.lastMessageId, c.id);
    },
    /** The examinee has seen the chat up to this message (opened, focused, or answered it). */
    chatRead(state, action: PayloadAction<number>) {
      state.chatReadUpTo = Math.max(state.chatReadUpTo, action.payload);
    },
    /**
     * A signalling marker arrived through webrtc_message (KICK_OUT, ACCEPTED, REJECTED, MARKING_ALERT:…).
     * `initial`: it was already there when the page started polling (history, not news).
     */
    commandReceived(
      _state,
      _action: PayloadAction<{
        command: string;
        payload: string | null;
        id: number;
        initial: boolean;
        /** 0 from the checker, 1 from the examinee (an earlier window of this sitting). */
        sendType?: number;
      }>,
    ) {},
    /** A tester page after env-setting opened: transmission and the message poll must run. */
    testerPageEntered() {},
    /** The examinee (or a rule) asked to leave the tester pages with an exit mode (spec §4). */
    testerExitRequested(
      _state,
      _action: PayloadAction<{ mode: ExitMode; after?: { exit: ExitState; messageKey: TranslationKey } }>,
    ) {},
    /** The chat/marker poll should run (identification, examining). */
    messagePollStarted() {},
    /** The chat/marker poll should stop. */
    messagePollStopped() {},
    /** Command messages were handled up to this id. */
    messagesSeen(state, action: PayloadAction<number>) {
      state.lastMessageId = Math.max(state.lastMessageId, action.payload);
    },
    /** /examining knows where the sitting stands, and shows it. */
    examiningOpened(state) {
      state.examiningSittingKnown = true;
    },
    /** /examining went away: the next visit asks again before it shows anything. */
    examiningLeft(state) {
      state.examiningSittingKnown = false;
    },
    examPhaseChanged(state, action: PayloadAction<ExamPhase>) {
      state.examPhase = action.payload;
    },
    examErrorOccurred(state, action: PayloadAction<TranslationKey | null>) {
      state.examErrorKey = action.payload;
    },
    /** The exam system window was opened with a token (spec §6: changes the 500 rule). */
    loggedInToTestSystem(state) {
      state.loggedInToTestSystem = true;
    },
    /** Whether this page holds the exam window. */
    examWindowAttachedChanged(state, action: PayloadAction<boolean>) {
      state.examWindowAttached = action.payload;
    },
    /** The recording-time limit is known (or changed): see `recordingDeadline`. */
    recordingDeadlineKnown(state, action: PayloadAction<number | null>) {
      state.recordingDeadline = action.payload;
    },
    /**
     * The page is leaving the sitting on purpose (finish, logout, kick-out, an exit mode): what runs must finish
     * what it can — the recording stops and sends what it recorded.
     */
    sittingClosing() {},
    summaryLoadStarted(state) {
      state.summaryStatus = 'loading';
    },
    /** tester/detail for /exam-end answered. */
    summaryLoaded(
      state,
      action: PayloadAction<{
        markings: MarkingItem[];
        markingTotalScore: number;
        records: RecordItem[];
        report?: ReportData;
      }>,
    ) {
      state.summaryStatus = 'loaded';
      state.summaryReport = action.payload.report ?? null;
      state.markings = action.payload.markings;
      state.markingTotalScore = action.payload.markingTotalScore;
      state.records = action.payload.records;
    },
    summaryLoadFailed(state) {
      state.summaryStatus = 'failed';
    },
    /** A face or ID photo was taken (data URL preview). */
    photoTaken(state, action: PayloadAction<{ kind: 'face' | 'idCard'; dataUrl: string | null }>) {
      if (action.payload.kind === 'face') state.identityImage = action.payload.dataUrl;
      else state.idImage = action.payload.dataUrl;
    },
    /** AI attempt counted against the limits. */
    aiRetryCounted(state, action: PayloadAction<number>) {
      state.retryCount = action.payload;
    },
    aiFixedTextsSet(state, action: PayloadAction<AiFixedText[]>) {
      state.aiFixedTexts = action.payload;
    },
    aiNoticeChanged(state, action: PayloadAction<AiNotice | null>) {
      state.aiNotice = action.payload;
    },
    /** A 401 ended monitoring (spec §8 "authentication error, monitoring ends"). */
    authErrorOccurred(state) {
      state.authError = true;
    },
    /** The page's session ended in a special way; the page shows `messageKey`. */
    testerExited(state, action: PayloadAction<{ exit: ExitState; messageKey: TranslationKey | null }>) {
      state.exit = action.payload.exit;
      state.exitMessageKey = action.payload.messageKey;
    },
  },
  extraReducers: (b) => {
    b.addCase(networkErrorOccurred, (state) => {
      state.disconnected = true;
    });
    b.addCase(matchingPolled, (state) => {
      state.disconnected = false;
    });
    b.addCase(disconnectFlagReset, (state) => {
      state.disconnected = false;
    });
    b.addCase(loggedOut, (state) => ({
      ...initialTesterState,
      // The forced-exit text stays for the page that explains it.
      exit: state.exit,
      exitMessageKey: state.exitMessageKey,
      authError: state.authError,
    }));
  },
});

export const {
  testerDetailLoaded,
  testerStateChanged,
  stepReached,
  devicesChecked,
  popupChecked,
  envResumeChecking,
  envResumeChecked,
  envTermLoadStarted,
  envTermLoaded,
  examiningTermLoadStarted,
  examiningTermLoaded,
  envTermAgreementChanged,
  examTermAgreementChanged,
  envNextStarted,
  envNextFailed,
  envNextSucceeded,
  identityCheckRequested,
  identityAccepted,
  identityRejected,
  chatReceived,
  chatRead,
  commandReceived,
  testerPageEntered,
  testerExitRequested,
  messagePollStarted,
  messagePollStopped,
  messagesSeen,
  examiningOpened,
  examiningLeft,
  examPhaseChanged,
  examErrorOccurred,
  loggedInToTestSystem,
  examWindowAttachedChanged,
  recordingDeadlineKnown,
  sittingClosing,
  summaryLoadStarted,
  summaryLoaded,
  summaryLoadFailed,
  photoTaken,
  aiRetryCounted,
  aiFixedTextsSet,
  aiNoticeChanged,
  authErrorOccurred,
  testerExited,
} = testerSlice.actions;
export default testerSlice.reducer;

type WithTester = { tester?: TesterState };
/** The tester state; its initial state until a route registered the tester feature (app/store.ts). */
export const selectTester = (s: WithTester): TesterState => s.tester ?? initialTesterState;
export const selectTesterId = (s: WithTester) => selectTester(s).testerId;
export const selectTesterState = (s: WithTester) => selectTester(s).testerState;
export const selectChatItems = (s: WithTester) => selectTester(s).chatItems;
/**
 * The recording-time deadline in this browser's clock: the sitting's first recording start plus the maximum
 * recording time (seconds), moved from the server's clock to this one with the server time of the same answer.
 * Null when there is no limit or no recording yet.
 */
export function recordingDeadlineOf(
  recordingStartedAt: string | null | undefined,
  serverTime: string | null | undefined,
  maxRectimeSeconds: number | null,
  now: number,
): number | null {
  if (!recordingStartedAt || !maxRectimeSeconds || maxRectimeSeconds <= 0) return null;
  const start = Date.parse(recordingStartedAt);
  if (Number.isNaN(start)) return null;
  const server = serverTime ? Date.parse(serverTime) : NaN;
  const offset = Number.isNaN(server) ? 0 : now - server;
  return start + maxRectimeSeconds * 1000 + offset;
}

/** Checker messages the examinee has not seen yet. */
export const selectChatUnread = (s: WithTester) =>
  selectTester(s).chatItems.filter((c) => c.sendType === 0 && c.id > selectTester(s).chatReadUpTo).length;
/** The newest chat message id (0 without any). */
export const selectNewestChatId = (s: WithTester) => selectTester(s).chatItems[0]?.id ?? 0;
/** Spec §2 Next: camera and microphone allowed, popup ok, terms agreed. */
export const selectCanProceedEnv = (s: WithTester) =>
  selectTester(s).camera === DEVICE.allowed &&
  selectTester(s).microphone === DEVICE.allowed &&
  selectTester(s).popup === 'ok' &&
  selectTester(s).envTermAgreed &&
  selectTester(s).envNext !== 'sending';
