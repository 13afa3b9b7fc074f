import type {
  DeleteMatchingResult,
  KvsReconnectResult,
  Matching,
  MatchingHistoriesResult,
  MatchingEndReason,
  MatchingResult,
  MonitorActivateListResult,
  MonitorActivateResult,
  SignalingChannel,
} from '@contract/matching';
import type { FixedNotificationList, WebrtcMessage, WebrtcMessageList } from '@contract/messages';
import type {
  HeadShotResult,
  KickOutResult,
  RejectedResult,
  TesterDetail,
  TesterStatusResult,
} from '@contract/tester';
import { WIDER_VIEW_PARAMS } from '@contract/constants/wider-view';
import type { PhoneCamera, PhoneLostReason, PhoneState } from '@contract/constants/phone';
import type { AiAuthStatusCode } from '@contract/constants/ai-auth';
import { call } from './client';
import { DEFAULT_MATCHING_TIMEOUT_SECONDS } from '@contract/constants/matching';

/**
 * The calls a checker (actor 2) makes on the monitoring page (spec §7): its matchings, the viewer's channel
 * credentials, identity decisions, kick-out, chat and history. snake_case stays in this file.
 */

/** Signaling channel credentials of one matched examinee (spec §3), for a KVS VIEWER. */
export interface ViewerChannelCredentials {
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  channelName: string;
  /** Endpoint override (local stand-in only). */
  endpoint: string | null;
  /** ISO 8601 expiry of the credentials. */
  expiration: string;
  /** The ClientId the server chose for this checker's viewer (the examinee answers only it); absent: any. */
  clientId?: string;
}

/** One matched examinee as the checker sees it (spec §3 "Matching"). */
export interface CheckerMatching {
  monitorId: number;
  testerId: number;
  testId: number;
  loginId: string;
  exLoginId: string | null;
  examName: string;
  matchingStatus: number;
  testerStatus: number;
  rejected: number;
  kicked: number;
  /** Seconds connected (status 2), including the current connection. */
  matchingConnectedTime: number;
  /** 1 = the examinee reset its channel: reconnect the viewer. */
  matchingCommand: number;
  /** Null when no channel is needed (not proctored, kicked) or the credentials are incomplete. */
  channel: ViewerChannelCredentials | null;
  /** The sitting's wider view (start-up flags): its screen shared, room scans, a phone as a second camera. */
  widerView: { screen: boolean; roomScan: boolean; phone: boolean };
  /** Who checks the examinee's identity (start-up is_auth, is_ai_auth): nobody, a checker, or the AI. */
  identityCheck: IdentityCheck;
  /** The sitting's phone camera (README "Phone as a second camera"); null when the sitting has none. */
  phone: CheckerPhone | null;
}

/** The sitting's phone as the checker sees it: its state, and the viewer credentials of the phone's channel. */
export interface CheckerPhone {
  state: PhoneState;
  /** ISO 8601: since when the phone is in `state`. */
  since: string | null;
  lostReason: PhoneLostReason | null;
  camera: PhoneCamera | null;
  /** VIEWER credentials of the phone's channel (with the matching's ClientId), while a phone is paired. */
  channel: ViewerChannelCredentials | null;
}

/** A matching of this checker that ended recently, and why (the pane says so instead of vanishing). */
export interface EndedExaminee {
  monitorId: number;
  testerId: number;
  testId: number;
  loginId: string;
  examName: string;
  reason: MatchingEndReason;
  /** ISO 8601. */
  endedAt: string;
  /** The sitting is still open and nobody watches it (the examinee's window went away). */
  unwatched: boolean;
}

/** Result of a checker's matching poll. */
export interface CheckerPoll {
  matchings: CheckerMatching[];
  /** Poll interval in seconds (spec §3 matchingTimeout). */
  matchingTimeout: number;
  /** Recently ended matchings (empty from a server that does not report them). */
  ended: EndedExaminee[];
}

/** A report about one examinee's viewer channel, sent with a poll. */
export interface ViewerReport {
  testerId: number;
  channelStatus: 'open' | 'close' | 'failed' | 'error';
}

/** spec §3: the channel is valid only with region, both keys and the channel name. */
export function toViewerChannel(
  c: SignalingChannel | null,
  clientId?: string | null,
): ViewerChannelCredentials | null {
  if (!c || !c.region || !c.access_key_id || !c.secret_access_key || !c.channel_name) return null;
  return {
    ...(clientId ? { clientId } : {}),
    region: c.region,
    accessKeyId: c.access_key_id,
    secretAccessKey: c.secret_access_key,
    sessionToken: c.session_token,
    channelName: c.channel_name,
    endpoint: c.endpoint ?? null,
    expiration: c.expiration,
  };
}

function toCheckerMatching(m: Matching): CheckerMatching {
  return {
    monitorId: m.monitor_id,
    testerId: m.tester_id,
    testId: m.test_id,
    loginId: m.login_id,
    exLoginId: m.ex_login_id,
    examName: m.exam_name,
    matchingStatus: m.matching_status,
    testerStatus: m.tester_status,
    rejected: m.rejected,
    kicked: m.kicked,
    matchingConnectedTime: m.matching_connected_time,
    matchingCommand: m.matching_command,
    channel: toViewerChannel(m.signaling_channel, m.viewer_client_id),
    widerView: widerViewOf(m.startup_parameters),
    identityCheck: identityCheckOf(m.startup_parameters),
    phone: m.phone
      ? {
          state: m.phone.state,
          since: m.phone.since,
          lostReason: m.phone.lost_reason ?? null,
          camera: m.phone.camera,
          channel: toViewerChannel(m.phone.signaling_channel, m.viewer_client_id),
        }
      : null,
  };
}

/** A start-up flag as the stored parameters hold it (1, '1', true). */
const on = (v: unknown) => v === 1 || v === '1' || v === true;

/** Who checks a sitting's identity: nobody (is_auth 0), the AI (is_ai_auth 1, its default) or a checker. */
export type IdentityCheck = 'none' | 'checker' | 'ai';

/**
 * Who checks a sitting's identity, from its stored start-up parameters, as the examinee's page decides where
 * it goes (tester-thunks.ts `resumePath`): is_auth 0 skips the check; otherwise is_ai_auth (default 1, spec §2)
 * picks the AI or a checker.
 */
export function identityCheckOf(p: Record<string, unknown> | null | undefined): IdentityCheck {
  const n = (v: unknown) => (v === undefined || v === null || v === '' ? null : Number(v));
  if (n(p?.is_auth) === 0) return 'none';
  return (n(p?.is_ai_auth) ?? 1) === 1 ? 'ai' : 'checker';
}

/** The wider view's flags of a sitting's start-up parameters. */
export function widerViewOf(p: Record<string, unknown> | null | undefined): CheckerMatching['widerView'] {
  return {
    screen: on(p?.[WIDER_VIEW_PARAMS.screen]),
    roomScan: on(p?.[WIDER_VIEW_PARAMS.roomScan]),
    phone: on(p?.[WIDER_VIEW_PARAMS.phone]),
  };
}

/**
 * POST matching as a checker: reports liveness (and optionally one examinee's channel status) and returns the
 * checker's matchings (at most five) with VIEWER credentials, and the poll interval.
 */
export async function pollCheckerMatchings(report?: ViewerReport): Promise<CheckerPoll> {
  const r = await call<MatchingResult>('matching', {
    method: 'POST',
    data: report ? { tester_id: report.testerId, channel_status: report.channelStatus } : {},
  });
  return {
    matchings: (r?.matchings ?? []).map(toCheckerMatching),
    matchingTimeout: r?.matching_timeout > 0 ? r.matching_timeout : DEFAULT_MATCHING_TIMEOUT_SECONDS,
    ended: (r?.ended ?? []).map((e) => ({
      monitorId: e.monitor_id,
      testerId: e.tester_id,
      testId: e.test_id,
      loginId: e.login_id,
      examName: e.exam_name,
      reason: e.reason,
      endedAt: e.ended_at,
      unwatched: e.unwatched === true,
    })),
  };
}

/**
 * POST delete_matching for one matched examinee. With `monitorId`, only that matching is deleted (spec §4: a
 * delayed deletion happens only if the same matching is still present). `connectionLost`: the viewer's
 * connection was lost (the console then shows the examinee as "connection lost"). Resolves whether one was
 * deleted.
 */
export async function deleteCheckerMatching(
  testerId: number,
  monitorId?: number,
  connectionLost = false,
): Promise<boolean> {
  const data: Record<string, unknown> = { tester_id: testerId };
  if (monitorId !== undefined) data.monitor_id = monitorId;
  if (connectionLost) data.reason = 'connection_lost';
  const r = await call<DeleteMatchingResult>('delete_matching', { method: 'POST', data });
  return r?.deleted === true;
}

/** GET kvs_reconnect: the matching with fresh viewer credentials (the examinee is told to reset), or null. */
export async function reconnectViewerChannel(testerId: number): Promise<CheckerMatching | null> {
  const r = await call<KvsReconnectResult>('kvs_reconnect', {
    method: 'GET',
    params: { tester_id: testerId },
  });
  return r ? toCheckerMatching(r) : null;
}

/** A monitor (checker) and whether it receives new examinees. */
export interface MonitorActivation {
  monitorId: number;
  loginId: string;
  activation: boolean;
}

/** GET tester/monitor_activate_list: every monitor with its activation. */
export async function getMonitorActivations(): Promise<MonitorActivation[]> {
  const r = await call<MonitorActivateListResult>('tester/monitor_activate_list', { method: 'GET' });
  return (r?.monitors ?? []).map((m) => ({
    monitorId: m.monitor_id,
    loginId: m.login_id,
    activation: m.activation,
  }));
}

/** POST tester/monitor_activate: turn receiving new examinees on or off; resolves the stored value. */
export async function setMonitorActivation(monitorId: number, activation: boolean): Promise<boolean> {
  const r = await call<MonitorActivateResult>('tester/monitor_activate', {
    method: 'POST',
    data: { monitor_id: monitorId, activation },
  });
  return r.activation;
}

/** One row of the matching history (spec §3 "Matching history user"). */
export interface MatchingHistoryEntry {
  examUserId: number;
  testId: number;
  loginId: string;
  exLoginId: string | null;
  examName: string;
  status: number;
  statusString: string;
  updatedAt: string;
  matchedAt: string | null;
}

/** GET checkers/matching_histories: the checker's own history, newest first. */
export async function getMatchingHistories(limit = 100): Promise<MatchingHistoryEntry[]> {
  const r = await call<MatchingHistoriesResult>('checkers/matching_histories', {
    method: 'GET',
    params: { limit },
  });
  return (r?.users ?? []).map((u) => ({
    examUserId: u.exam_user_id,
    testId: u.test_id,
    loginId: u.login_id,
    exLoginId: u.ex_login_id,
    examName: u.exam_name,
    status: u.status,
    statusString: u.status_string,
    updatedAt: u.updated_at,
    matchedAt: u.matched_at,
  }));
}

/** What the pane shows from tester/detail. */
export interface ExamineeSummary {
  testerId: number;
  testId: number;
  name: string;
  /** The exam's name (the sitting's test_name; the matching's exam_name is the examinee's name). */
  testName: string;
  status: number;
  headShotUrl: string | null;
  idCardUrl: string | null;
  /** When the head shot / ID card image was last stored (null when unknown or none). */
  headShotUpdatedAt: string | null;
  idCardUpdatedAt: string | null;
  /** The AI identity check's status (AI_AUTH_STATUS), or null when the sitting has had none. */
  aiAuthStatus: AiAuthStatusCode | null;
}

/** GET tester/detail for a matched examinee (its current sitting). */
export async function getExamineeSummary(testerId: number): Promise<ExamineeSummary> {
  const r = await call<TesterDetail>('tester/detail', { method: 'GET', params: { tester_id: testerId } });
  return {
    testerId: r.tester_id,
    testId: r.test_id,
    name: r.name,
    testName: r.test_name,
    status: r.status,
    headShotUrl: r.head_shot_uri,
    idCardUrl: r.id_card_uri,
    headShotUpdatedAt: r.head_shot_updated_at ?? null,
    idCardUpdatedAt: r.id_card_updated_at ?? null,
    aiAuthStatus: (r.ai_auth?.status ?? null) as AiAuthStatusCode | null,
  };
}

/** GET tester/head_shot: the examinee's head shot and when it was taken. */
export async function getHeadShot(
  testerId: number,
): Promise<{ url: string | null; updatedAt: string | null }> {
  const r = await call<HeadShotResult>('tester/head_shot', {
    method: 'GET',
    params: { tester_id: testerId },
  });
  return { url: r?.url ?? null, updatedAt: r?.updated_at ?? null };
}

/** Tester state IDENTIFICATED (spec §4): a matched checker sets it to accept the identity. */
export const IDENTIFICATED_STATUS = 3;

/** POST tester/status 3: accept the examinee's identity (the server sends ACCEPTED). */
export async function acceptIdentity(testerId: number): Promise<void> {
  await call<TesterStatusResult>('tester/status', {
    method: 'POST',
    data: { tester_id: testerId, status: IDENTIFICATED_STATUS },
  });
}

/** POST tester/rejected method PUT: reject the examinee's identity (the server sends REJECTED). */
export async function rejectIdentity(testerId: number): Promise<void> {
  await call<RejectedResult>('tester/rejected', {
    method: 'POST',
    data: { tester_id: testerId, method: 'PUT' },
  });
}

/** POST tester/kick_out method PUT: force the examinee out (the server ends the matching, sends KICK_OUT). */
export async function kickOutExaminee(testerId: number): Promise<void> {
  await call<KickOutResult>('tester/kick_out', {
    method: 'POST',
    data: { tester_id: testerId, method: 'PUT' },
  });
}

/** One chat item or signalling marker (spec §3 "WebRTC message"). */
export interface ChatMessage {
  id: number;
  /** 0 checker, 1 tester. */
  sendType: number;
  messageType: number;
  kind: 'message' | 'command';
  message: string;
  createdAt: string;
}

function toChatMessage(m: WebrtcMessage): ChatMessage {
  return {
    id: m.id,
    sendType: m.send_type,
    messageType: m.message_type,
    kind: m.kind === 'command' ? 'command' : 'message',
    message: m.message,
    createdAt: m.created_at,
  };
}

/** GET webrtc_message: the examinee's messages with id > sinceId, newest first. */
export async function getExamineeMessages(testerId: number, sinceId = 0): Promise<ChatMessage[]> {
  const r = await call<WebrtcMessageList>('webrtc_message', {
    method: 'GET',
    params: { tester_id: testerId, since_id: sinceId, limit: 200 },
  });
  return (r?.messages ?? []).map(toChatMessage);
}

/** Message type "monitoring" (spec §3); identity-check talk uses 2 (identification by checker). */
export const CHECKER_MESSAGE_TYPE = { identification: 2, monitoring: 3 } as const;

/** POST webrtc_message as the checker (send_type 0): a chat text or a client command marker. */
export async function postCheckerMessage(
  testerId: number,
  message: string,
  opts: { kind?: 'message' | 'command'; messageType?: number } = {},
): Promise<ChatMessage | null> {
  const r = await call<WebrtcMessageList>('webrtc_message', {
    method: 'POST',
    data: {
      tester_id: testerId,
      send_type: 0,
      message_type: opts.messageType ?? CHECKER_MESSAGE_TYPE.monitoring,
      message,
      kind: opts.kind ?? 'message',
    },
  });
  const m = r?.messages?.[0];
  return m ? toChatMessage(m) : null;
}

/** A canned message (spec §3 "Fixed notification"). */
export interface FixedNotification {
  id: number;
  message: string;
  orderId: number;
}

/** GET fixed_notifications: the canned messages, in order. */
export async function getFixedNotifications(): Promise<FixedNotification[]> {
  const r = await call<FixedNotificationList>('fixed_notifications', { method: 'GET' });
  return (r?.list ?? []).map((n) => ({ id: n.id, message: n.message, orderId: n.order_id }));
}
