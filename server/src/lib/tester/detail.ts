import { ACTOR } from '../../../../contract/common';
import type { WebrtcMessage } from '../../../../contract/messages';
import {
  LATEST_MODE,
  type AiAuthSummary,
  type AiMarking,
  type ExamineeLogEntry,
  type Marking,
  type RecordStatusLogEntry,
  type MarkingSummary,
  type TesterDetail,
  type TesterRecord,
} from '../../../../contract/tester';
import type { Db } from '../../db/db';
import type { StreamKind } from '../../../../contract/constants/wider-view';
import { ApiError } from '../api-error';
import type { AuthContext } from '../app-types';
import type { ImageStore } from '../images';
import { toWireTime } from '../management-time';
import {
  iso,
  startupInt,
  startupOf,
  startupText,
  targetTesterId,
  type SittingRow,
  type TesterUser,
} from '../sittings/sittings';

/** A presigned URL of a stored image key (`ImageStore.url`); null for none. */
export type ImageUrl = ImageStore['url'];

const refuseTester = () => new ApiError(403, 'tester_not_visible', 'You may not see this tester.');

/**
 * Read permission on one sitting's detail and recordings (spec §6), decided from what was read of it: the
 * examinee itself; a checker that monitored that sitting (`monitored`: a matching, live or ended, of this
 * checker for it: the history of its examinees); a test manager of the sitting's group (`sittingGroupId`: the
 * sitting's group, else the tester's); system managers and supervisors. Anyone else, a manager of another group
 * included, gets 403 `tester_not_visible` and nothing of the sitting. Returns the scope of the related sittings
 * the caller may see.
 */
function sittingScope(
  auth: AuthContext,
  tester: { id: number },
  facts: { monitored: boolean; sittingGroupId: number | null },
): RelatedScope | null {
  switch (auth.actor) {
    case ACTOR.tester:
      if (auth.userId === tester.id) return null;
      throw refuseTester();
    case ACTOR.checker:
      if (facts.monitored) return { checkerId: auth.userId };
      throw refuseTester();
    case ACTOR.testManager: {
      const groupId = facts.sittingGroupId;
      if (auth.groupId !== null && groupId !== null && Number(groupId) === auth.groupId)
        return { groupId: auth.groupId };
      throw refuseTester();
    }
    default:
      return null;
  }
}

/** `sittingScope` for one sitting by id, reading only what the caller's actor needs. */
export async function assertCanViewSitting(
  db: Db,
  auth: AuthContext,
  tester: { id: number; group_id: number | null },
  testId: number,
): Promise<RelatedScope | null> {
  let monitored = false;
  let sittingGroupId: number | null = null;
  if (auth.actor === ACTOR.checker) {
    const { rows } = await db.query(
      `SELECT 1 FROM matchings WHERE checker_id = $1 AND tester_id = $2 AND test_id = $3 LIMIT 1`,
      [auth.userId, tester.id, testId],
    );
    monitored = rows.length > 0;
  } else if (auth.actor === ACTOR.testManager) {
    const { rows } = await db.query<{ group_id: number | null }>(
      `SELECT coalesce(group_id, $2::bigint) AS group_id FROM tests WHERE id = $1`,
      [testId, tester.group_id],
    );
    sittingGroupId = rows[0]?.group_id ?? null;
  }
  return sittingScope(auth, tester, { monitored, sittingGroupId });
}

// Never echo credentials a start-up URL may carry (JT start-up password, access tokens, keys).
const SECRET_KEY_RE = /password|token|secret|access_?key|session/i;

/** The sitting's start-up parameters for display: secrets removed, is_proctor (default on, as matching assumes) and memo always present. */
export function publicStartup(s: SittingRow & { memo?: string }): TesterDetail['startup_parameters'] {
  const p = startupOf(s);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(p)) if (!SECRET_KEY_RE.test(k)) out[k] = v;
  return {
    ...out,
    is_proctor: startupInt(p, 'is_proctor', 1),
    memo: startupText(p, 'memo') || (s.memo ?? ''),
  };
}

interface MarkingRow {
  id: number;
  marking_at: Date | string;
  image_key: string | null;
  mark_id: number | null;
  message: string | null;
  label: string | null;
  score: number | null;
  record_id: number | null;
  play_time: number | null;
}

/**
 * A sitting's markings, oldest first, with signed image URLs and where each lies in its recording (the
 * marking's time less the recording's start, in whole seconds).
 */
export async function loadMarkings(db: Db, testId: number, imageUrl: ImageUrl): Promise<Marking[]> {
  const { rows } = await db.query<MarkingRow>(listSql(MARKINGS, '$1'), [testId]);
  return markingsOut(rows, imageUrl);
}

/**
 * One list of a sitting's detail: its query for the sitting `testId` (an SQL expression), the order of its rows
 * (by output columns) and how many at most. The same text serves the list alone (`listSql`) and inside the
 * detail's one statement (`jsonListSql`).
 */
interface DetailList {
  select(testId: string): string;
  order: string;
  limit?: number;
}

/** A list's rows alone, for the sitting `$1`. */
const listSql = (l: DetailList, testId: string): string =>
  `${l.select(testId)} ORDER BY ${l.order}${l.limit ? ` LIMIT ${l.limit}` : ''}`;

/**
 * A list's rows as one json array ([] for none) in the list's order, for the sitting `testId`: a column of the
 * detail's one statement. Timestamps arrive as ISO 8601 text, jsonb as objects, numbers as numbers.
 */
const jsonListSql = (l: DetailList, testId: string): string =>
  `(SELECT coalesce(json_agg(x ORDER BY ${l.order}), '[]'::json) FROM (${listSql(l, testId)}) x)`;

const MARKINGS: DetailList = {
  select: (testId) =>
    `SELECT k.id, k.marking_at, k.image_key, k.mark_id, m.message, m.label, m.score, k.record_id,
            CASE WHEN r.id IS NULL THEN NULL
                 ELSE greatest(0, floor(extract(epoch FROM k.marking_at - r.start_at)))::int END AS play_time
       FROM markings k LEFT JOIN marks m ON m.id = k.mark_id LEFT JOIN records r ON r.id = k.record_id
      WHERE k.test_id = ${testId}`,
  order: 'marking_at, id',
};

function markingsOut(rows: MarkingRow[], imageUrl: ImageUrl): Promise<Marking[]> {
  return Promise.all(
    rows.map(async (r) => ({
      id: r.id,
      marking_at: iso(r.marking_at)!,
      url: await imageUrl(r.image_key),
      mark: r.mark_id,
      message: r.message ?? '',
      label: r.label ?? '',
      score: r.score ?? 0,
      record_id: r.record_id,
      play_time_from: r.play_time,
      play_time_to: r.play_time,
    })),
  );
}

/** Count per mark of a list of markings. */
export function summariseMarkings(markings: Marking[]): MarkingSummary[] {
  const by = new Map<number, MarkingSummary>();
  for (const m of markings) {
    if (m.mark === null) continue;
    const s = by.get(m.mark) ?? { mark: m.mark, message: m.message, label: m.label, count: 0 };
    s.count += 1;
    by.set(m.mark, s);
  }
  return [...by.values()].sort((a, b) => a.mark - b.mark);
}

/** Sum of the mark scores of a sitting's markings. */
export async function markingTotalScore(db: Db, testId: number): Promise<number> {
  const { rows } = await db.query<{ total: number }>(
    `SELECT coalesce(sum(m.score), 0)::int AS total FROM markings k JOIN marks m ON m.id = k.mark_id WHERE k.test_id = $1`,
    [testId],
  );
  return rows[0]?.total ?? 0;
}

interface RecordRow {
  id: number;
  stream: StreamKind;
  start_at: Date | string;
  stop_at: Date | string | null;
  encoded_at: Date | string | null;
  ai_analysis_batch_reflected_at: Date | string | null;
  ai_analysis_reflected_at: Date | string | null;
  ai_analysis_batch_flag: number;
  ai_analysis_flag: number;
  movie_status: string;
  detail: string;
  play_time_from: number | null;
  play_time_to: number | null;
  size_bytes: number | string | null;
  duration_ms: number | string | null;
  interrupted: boolean;
}

/**
 * A sitting's recordings, oldest first. Playback addresses come from get_onetime_uri. The playable range
 * is 0 to the duration (known once the upload is complete and its duration fixed; else the stored columns).
 */
export async function loadRecords(db: Db, testId: number): Promise<TesterRecord[]> {
  const { rows } = await db.query<RecordRow>(listSql(RECORDS, '$1'), [testId]);
  return recordsOut(rows);
}

const RECORDS: DetailList = {
  select: (testId) =>
    `SELECT id, stream, start_at, stop_at, encoded_at, ai_analysis_batch_reflected_at, ai_analysis_reflected_at,
            ai_analysis_batch_flag, ai_analysis_flag, movie_status, detail, size_bytes, duration_ms,
            interrupted,
            coalesce(play_time_from, CASE WHEN duration_ms IS NOT NULL THEN 0 END)::int AS play_time_from,
            coalesce(play_time_to, ceil(duration_ms / 1000.0))::int AS play_time_to
       FROM records WHERE test_id = ${testId}`,
  order: 'start_at, id',
};

function recordsOut(rows: RecordRow[]): TesterRecord[] {
  return rows.map((r) => ({
    id: r.id,
    stream: r.stream,
    start_at: iso(r.start_at)!,
    stop_at: iso(r.stop_at),
    encoded_at: iso(r.encoded_at),
    ai_analysis_batch_reflected_at: iso(r.ai_analysis_batch_reflected_at),
    ai_analysis_reflected_at: iso(r.ai_analysis_reflected_at),
    ai_analysis_batch_flag: r.ai_analysis_batch_flag,
    ai_analysis_flag: r.ai_analysis_flag,
    movie_status: r.movie_status.trim(),
    detail: r.detail,
    play_time_from: r.play_time_from,
    play_time_to: r.play_time_to,
    size: r.size_bytes === null || r.size_bytes === undefined ? null : Number(r.size_bytes),
    duration_ms: r.duration_ms === null || r.duration_ms === undefined ? null : Number(r.duration_ms),
    interrupted: r.interrupted,
  }));
}

/** Presigns a GET of a stored still (object storage), for the stills of AI markings from live captures. */
export type CapturePresigner = (ref: { bucket: string; key: string }) => Promise<string>;

interface AiMarkingRow {
  id: number;
  marking_at: Date | string;
  image_key: string | null;
  analysis_type: string;
  score: number;
  record_id: number | null;
  start_ms: number;
  end_ms: number;
  source: 'recording' | 'capture';
  flag: string | null;
  confidence: number;
  excused: boolean;
  excuse_reason: string | null;
  bucket: string | null;
  object_key: string | null;
}

const AI_MARKINGS: DetailList = {
  select: (testId) =>
    `SELECT m.id, m.marking_at, m.image_key, m.analysis_type, m.score, m.record_id, m.start_ms, m.end_ms,
            m.source, m.flag, m.confidence, m.excused, m.excuse_reason, c.bucket, c.object_key
       FROM ai_markings m LEFT JOIN captures c ON c.id = m.capture_id
      WHERE m.test_id = ${testId}`,
  order: 'marking_at, id',
};

function aiMarkingsOut(
  rows: AiMarkingRow[],
  imageUrl: ImageUrl,
  presign: CapturePresigner | null,
): Promise<AiMarking[]> {
  return Promise.all(
    rows.map(async (r) => ({
      id: r.id,
      marking_at: iso(r.marking_at)!,
      url:
        r.bucket && r.object_key && presign
          ? await presign({ bucket: r.bucket, key: r.object_key })
          : await imageUrl(r.image_key),
      mark: r.analysis_type,
      score: r.score,
      record_id: r.record_id,
      start_ms: Number(r.start_ms),
      end_ms: Number(r.end_ms),
      play_time_from: r.record_id === null ? null : Math.floor(Number(r.start_ms) / 1000),
      play_time_to: r.record_id === null ? null : Math.ceil(Number(r.end_ms) / 1000),
      source: r.source,
      flag: r.flag,
      confidence: Math.round(Number(r.confidence) * 1000) / 1000,
      excused: r.excused,
      excuse_reason: r.excuse_reason,
    })),
  );
}

/** The examinee log of a sitting (spec §4 events as recorded), oldest first. */
const EXAMINEE_LOGS: DetailList = {
  select: (testId) => `SELECT id, event, detail, created_at FROM examinee_logs WHERE test_id = ${testId}`,
  order: 'created_at, id',
  limit: 1000,
};

const examineeLogsOut = (
  rows: { event: string; detail: string; created_at: Date | string }[],
): ExamineeLogEntry[] =>
  rows.map((r) => ({ event: r.event, detail: r.detail, created_at: iso(r.created_at)! }));

/** The status history of a sitting's recordings (record status codes 00–08), oldest first. */
const RECORD_STATUS_LOGS: DetailList = {
  select: (testId) =>
    `SELECT l.id, l.record_id, l.movie_status, l.detail, l.created_at
       FROM record_status_logs l JOIN records r ON r.id = l.record_id
      WHERE r.test_id = ${testId}`,
  order: 'created_at, id',
  limit: 1000,
};

function recordStatusLogsOut(
  rows: { record_id: number; movie_status: string; detail: string; created_at: Date | string }[],
): RecordStatusLogEntry[] {
  return rows.map((r) => ({
    record_id: Number(r.record_id),
    movie_status: r.movie_status.trim(),
    detail: r.detail,
    created_at: iso(r.created_at)!,
  }));
}

interface AiAuthRow {
  status: number;
  face_retry: number;
  id_card_retry: number;
  ai_all_retry: number;
  attempts: {
    id: number;
    kind: string;
    outcome: string;
    reason: string;
    scores: Record<string, unknown> | string;
    image_key: string | null;
    created_at: Date | string;
  }[];
}

const AI_AUTH_ATTEMPTS: DetailList = {
  select: (testId) =>
    `SELECT id, kind, outcome, reason, scores, image_key, created_at FROM ai_auth_attempts WHERE test_id = ${testId}`,
  order: 'id',
  limit: 200,
};

/**
 * The AI identity check of a sitting with every attempt and its scores, so a manager can see why each was
 * decided (a json object, null when the sitting had none): a column of the detail's one statement.
 */
const aiAuthSql = (testId: string): string =>
  `(SELECT json_build_object('status', a.status, 'face_retry', a.face_retry, 'id_card_retry', a.id_card_retry,
                             'ai_all_retry', a.ai_all_retry, 'attempts', ${jsonListSql(AI_AUTH_ATTEMPTS, 'a.test_id')})
      FROM ai_auth a WHERE a.test_id = ${testId})`;

async function aiAuthOut(a: AiAuthRow | null, imageUrl: ImageUrl): Promise<AiAuthSummary | null> {
  if (!a) return null;
  return {
    status: a.status,
    face_retry: a.face_retry,
    id_card_retry: a.id_card_retry,
    ai_all_retry: a.ai_all_retry,
    attempts: await Promise.all(
      a.attempts.map(async (r) => {
        const raw = (typeof r.scores === 'string' ? JSON.parse(r.scores) : r.scores) as Record<
          string,
          unknown
        >;
        const scores: Record<string, number> = {};
        for (const [k, v] of Object.entries(raw ?? {}))
          if (typeof v === 'number' && Number.isFinite(v)) scores[k] = v;
        return {
          id: Number(r.id),
          kind: r.kind,
          outcome: r.outcome,
          reason: r.reason,
          scores,
          image_url: await imageUrl(r.image_key),
          created_at: iso(r.created_at)!,
        };
      }),
    ),
  };
}

type MessageRow = Omit<WebrtcMessage, 'created_at'> & { created_at: Date | string };

const MESSAGES: DetailList = {
  select: (testId) =>
    `SELECT id, send_type, message_type, kind, message, created_at FROM messages WHERE test_id = ${testId}`,
  order: 'id DESC',
  limit: 500,
};

const messagesOut = (rows: MessageRow[]): WebrtcMessage[] =>
  rows.map((r) => ({
    id: r.id,
    send_type: r.send_type,
    message_type: r.message_type,
    kind: r.kind,
    message: r.message,
    created_at: iso(r.created_at)!,
  }));

/** Messages of a sitting, newest first (at most `limit`), optionally only those with id > sinceId. */
export async function loadMessages(
  db: Db,
  testId: number,
  sinceId = 0,
  limit = 500,
): Promise<WebrtcMessage[]> {
  const { rows } = await db.query<MessageRow>(
    `${MESSAGES.select('$1')} AND id > $2 ORDER BY id DESC LIMIT $3`,
    [testId, sinceId, limit],
  );
  return messagesOut(rows);
}

interface DetailTestRow extends SittingRow {
  test_name: string;
  region: string;
  test_at: Date | string | null;
  stop_at: Date | string | null;
  exam_name: string;
  is_mc_startup: number;
  cheating_level: number;
  matched_at: Date | string | null;
  authenticated_at: Date | string | null;
  ai_namematch: number | null;
  ai_total_score: number;
  memo: string;
  group_code: string | null;
  group_name: string | null;
  id_card_at: Date | string | null;
}

/** The sitting's row with every list of its detail (json columns, parsed). */
interface DetailBuildRow extends DetailTestRow {
  markings_json: MarkingRow[];
  records_json: RecordRow[];
  ai_markings_json: AiMarkingRow[];
  messages_json: MessageRow[];
  testers_json: RelatedRow[];
  ai_auth_json: AiAuthRow | null;
  examinee_logs_json: { event: string; detail: string; created_at: Date | string }[];
  record_status_logs_json: {
    record_id: number;
    movie_status: string;
    detail: string;
    created_at: Date | string;
  }[];
}

interface DetailTargetRow {
  /** The tester the request names (by tester_id, or the owner of test_id); null: no such sitting. */
  target_id: number | null;
  /** The tester (users row of actor 1); all null: no such tester. */
  who_id: number | null;
  who_login_id: string;
  who_ex_login_id: string | null;
  who_name: string;
  who_group_id: number | null;
  who_group_code: string | null;
  who_kicked: number;
  who_rejected: number;
  /** The sitting picked by the request's mode, whoever's it is. */
  pick_id: number | null;
  pick_user_id: number | null;
  pick_group_id: number | null;
  /** The examinee's own call: its current sitting's login and logout (spec §8 405). */
  current_login_at?: Date | string | null;
  current_logout_at?: Date | string | null;
  /** A checker's call: a matching of it with the tester, ever; with the picked sitting. */
  looked_up?: boolean;
  monitored?: boolean;
}

/**
 * A tester/detail request whole, in one statement: the tester, the sitting the request is about (spec §3
 * latest modes), what the caller may see of them, and the detail of that sitting (detailColumnsSql), with the
 * checks and their answers in the order they always had:
 * 1. the examinee's own call: 405 `tester_logged_out` when its current sitting was logged out after its last
 *    login; another tester's id is a 403 before any query; a call of anyone else naming neither tester_id nor
 *    test_id a 400;
 * 2. test_id alone that names no sitting: 404 `sitting_not_found`; no such tester: 404 `tester_not_found`;
 * 3. may the caller look the examinee up at all, before anything is said of its sittings (so that a manager
 *    of another group or a checker that never monitored it learns nothing, not even whether it has one): the
 *    examinee itself; a checker with a matching, live or ended, with it; a test manager of its group; system
 *    managers and supervisors. Else 403 `tester_not_visible`;
 * 4. no such sitting of this tester: 404 `sitting_not_found`;
 * 5. may it see that sitting (spec §6 per sitting, the rule of `assertCanViewSitting`): 403
 *    `tester_not_visible`.
 * These decisions are made here, on what the statement read. The statement reads the detail's lists only where
 * the same rules, written in SQL, let the caller see the sitting, so a refused call does not cost them; a call
 * allowed here whose detail the statement did not read (the two would have to disagree) reads it with one
 * statement more (buildTesterDetail), never answering with less.
 */
export async function loadTesterDetail(
  db: Db,
  auth: AuthContext,
  q: { tester_id?: number | undefined; test_id?: number | undefined; latest?: number | undefined },
  opts: Omit<DetailOptions, 'relatedScope'>,
): Promise<TesterDetail> {
  const self = auth.actor === ACTOR.tester;
  const checker = auth.actor === ACTOR.checker;
  const manager = auth.actor === ACTOR.testManager;
  let testerId: number | null;
  if (self) testerId = targetTesterId(auth, q.tester_id);
  else if (q.tester_id !== undefined) testerId = q.tester_id;
  else if (q.test_id !== undefined) testerId = null;
  else throw new ApiError(400, 'validation', 'tester_id or test_id is required.');
  const latest = q.latest ?? LATEST_MODE.none;
  const byLatest = latest === LATEST_MODE.latest || latest === LATEST_MODE.examiningLatest;
  const byId = !byLatest && q.test_id !== undefined;

  const params: unknown[] = [];
  const arg = (v: unknown, type: string) => `$${params.push(v)}::${type}`;
  let testIdParam = '';
  const testIdArg = () => (testIdParam ||= arg(q.test_id, 'bigint'));
  const target =
    testerId !== null ? arg(testerId, 'bigint') : `(SELECT user_id FROM tests WHERE id = ${testIdArg()})`;
  // Mode 2 "examining latest": the newest sitting that reached the exam (status 5–7), else the newest one;
  // test_id: that sitting; else the current one (the open one, else the newest).
  const pick = byLatest
    ? `user_id = x.tester_id
       ORDER BY (${arg(latest === LATEST_MODE.examiningLatest, 'boolean')} AND status >= 5) DESC, id DESC LIMIT 1`
    : byId
      ? `id = ${testIdArg()}`
      : `user_id = x.tester_id ORDER BY (status < 7) DESC, id DESC LIMIT 1`;
  const caller = checker ? arg(auth.userId, 'bigint') : '';
  const monitoredSql = checker
    ? `EXISTS (SELECT 1 FROM matchings WHERE checker_id = ${caller} AND tester_id = tu.id AND test_id = p.id)`
    : '';
  // The related sittings a caller may see: a checker those it monitored, a test manager its group's (the scope
  // sittingScope gives when the caller may see the sitting at all).
  const scope: RelatedScope | null = checker
    ? { checkerId: auth.userId }
    : manager
      ? { groupId: auth.groupId }
      : null;
  const scopeArg = checker ? caller : manager ? arg(auth.groupId, 'bigint') : 'NULL';
  // Steps 3 and 5 in SQL, for whether the lists are read (the decisions themselves are below).
  const maySee = self
    ? 'true'
    : checker
      ? monitoredSql
      : manager
        ? `tu.group_id = ${scopeArg} AND coalesce(p.group_id, tu.group_id) = ${scopeArg}`
        : auth.actor === ACTOR.systemManager || auth.actor === ACTOR.supervisor
          ? 'true'
          : 'false';
  const withAiAuth = opts.withAiAuth === true;
  const { rows } = await db.query<DetailTargetRow & Partial<DetailBuildRow>>(
    `SELECT x.tester_id AS target_id,
            tu.id AS who_id, tu.login_id AS who_login_id, tu.ex_login_id AS who_ex_login_id, tu.name AS who_name,
            tu.group_id AS who_group_id, tg.code AS who_group_code, tu.kicked AS who_kicked,
            tu.rejected AS who_rejected,
            p.id AS pick_id, p.user_id AS pick_user_id, p.group_id AS pick_group_id
            ${self ? ', c.login_at AS current_login_at, c.logout_at AS current_logout_at' : ''}
            ${
              checker
                ? `, EXISTS (SELECT 1 FROM matchings WHERE checker_id = ${caller} AND tester_id = tu.id) AS looked_up,
                   ${monitoredSql} AS monitored`
                : ''
            },
            d.*
       FROM (SELECT ${target} AS tester_id) x
       LEFT JOIN users tu ON tu.id = x.tester_id AND tu.actor = 1
       LEFT JOIN exam_groups tg ON tg.id = tu.group_id
       LEFT JOIN LATERAL (SELECT id, user_id, group_id FROM tests WHERE ${pick}) p ON true
       ${
         self
           ? `LEFT JOIN LATERAL (SELECT login_at, logout_at FROM tests WHERE user_id = x.tester_id
                                  ORDER BY (status < 7) DESC, id DESC LIMIT 1) c ON true`
           : ''
       }
       LEFT JOIN LATERAL (
         SELECT ${detailColumnsSql(withAiAuth, scope, 'tu.id', 'tu.ex_login_id', scopeArg)}
           FROM tests t
           ${DETAIL_GROUP_JOIN}
          WHERE t.id = p.id AND tu.id IS NOT NULL AND p.user_id = tu.id AND (${maySee})
       ) d ON true`,
    params,
    // Every parameter is an id (or a flag): the plan is the same for any of them, and planning this statement's
    // ten subqueries for each call cost more than running them.
    { genericPlan: true },
  );
  const r = rows[0]!;
  // spec §8 "405 on tester detail: tester logged out": this session is alive but the sitting was logged out
  // after its last login (logout from another window, a self kick-out, or an AI forced logout).
  if (
    self &&
    r.current_logout_at &&
    (!r.current_login_at || new Date(r.current_logout_at) >= new Date(r.current_login_at))
  )
    throw new ApiError(405, 'tester_logged_out', 'The tester has logged out.');
  if (r.target_id === null) throw new ApiError(404, 'sitting_not_found', 'No such sitting.');
  if (r.who_id === null) throw new ApiError(404, 'tester_not_found', 'No such tester.');
  const tester: TesterUser = {
    id: r.who_id,
    login_id: r.who_login_id,
    ex_login_id: r.who_ex_login_id,
    name: r.who_name,
    group_id: r.who_group_id,
    group_code: r.who_group_code,
    kicked: r.who_kicked,
    rejected: r.who_rejected,
  };
  // 3. Whether the caller may look the examinee up at all.
  const mayLookUp =
    auth.actor === ACTOR.systemManager ||
    auth.actor === ACTOR.supervisor ||
    (self && auth.userId === tester.id) ||
    (checker && r.looked_up === true) ||
    (manager && auth.groupId !== null && auth.groupId === tester.group_id);
  if (!mayLookUp) throw refuseTester();
  if (r.pick_id === null || (byId && r.pick_user_id !== tester.id))
    throw new ApiError(
      404,
      'sitting_not_found',
      byId ? 'No such sitting of this tester.' : 'The tester has no sitting yet.',
    );
  // 5. spec §6 per sitting.
  const relatedScope = sittingScope(auth, tester, {
    monitored: r.monitored === true,
    sittingGroupId: r.pick_group_id ?? tester.group_id,
  });
  const detailOpts = { ...opts, relatedScope };
  const read = r.id !== null && r.id !== undefined && JSON.stringify(relatedScope) === JSON.stringify(scope);
  if (!read) return buildTesterDetail(db, tester, r.pick_id, detailOpts);
  return detailOf(tester, r as DetailBuildRow, detailOpts);
}

/** How the detail of a sitting is built (buildTesterDetail, loadTesterDetail). */
export interface DetailOptions {
  /** Presigned URLs of the sitting's stored images (the app's image store). */
  imageUrl: ImageUrl;
  withAiAuth?: boolean;
  /** Which related sittings the caller may see (a checker: those it monitored); null: all. */
  relatedScope?: RelatedScope | null;
  /** Presigns the stills of AI markings from live captures (without it their url is null). */
  presignCapture?: CapturePresigner;
}

/**
 * The select list of a detail row for the sitting `t` (its columns, its group, every list as a json column).
 * `testerId`, `exLoginId` and `scopeArg` are SQL expressions for the tester's id, its ex_login_id and the scope's
 * id (see relatedTestersSql; they must not name the aliases the lists use inside: u, t, m, k, r, c, l, a, x).
 */
function detailColumnsSql(
  withAiAuth: boolean,
  scope: RelatedScope | null,
  testerId: string,
  exLoginId: string,
  scopeArg: string,
): string {
  return `t.*, g.code AS group_code, g.name AS group_name,
            ${jsonListSql(MARKINGS, 't.id')} AS markings_json,
            ${jsonListSql(RECORDS, 't.id')} AS records_json,
            ${jsonListSql(AI_MARKINGS, 't.id')} AS ai_markings_json,
            ${jsonListSql(MESSAGES, 't.id')} AS messages_json,
            ${relatedTestersSql(scope, testerId, exLoginId, scopeArg)} AS testers_json,
            ${withAiAuth ? aiAuthSql('t.id') : 'NULL::json'} AS ai_auth_json,
            ${jsonListSql(EXAMINEE_LOGS, 't.id')} AS examinee_logs_json,
            ${jsonListSql(RECORD_STATUS_LOGS, 't.id')} AS record_status_logs_json`;
}

/** The sitting `t`'s group: its own, else its tester's. */
const DETAIL_GROUP_JOIN =
  'LEFT JOIN exam_groups g ON g.id = coalesce(t.group_id, (SELECT u.group_id FROM users u WHERE u.id = t.user_id))';

/** The Tester detail entity (spec §3) of one sitting. */
export async function buildTesterDetail(
  db: Db,
  tester: TesterUser,
  testId: number,
  opts: DetailOptions,
): Promise<TesterDetail> {
  const scope = opts.relatedScope ?? null;
  // One statement: the sitting and every list of its detail, each list a json column.
  const { rows } = await db.query<DetailBuildRow>(
    `SELECT ${detailColumnsSql(opts.withAiAuth === true, scope, '$2', '$3', '$4')}
       FROM tests t
       ${DETAIL_GROUP_JOIN}
      WHERE t.id = $1`,
    [testId, tester.id, tester.ex_login_id, ...relatedScopeArg(scope)],
  );
  return detailOf(tester, rows[0]!, opts);
}

/** The Tester detail entity of a detail row (detailColumnsSql). */
async function detailOf(tester: TesterUser, t: DetailBuildRow, opts: DetailOptions): Promise<TesterDetail> {
  const imageUrl = opts.imageUrl;
  const [markings, aiMarkings, aiAuth] = await Promise.all([
    markingsOut(t.markings_json, imageUrl),
    aiMarkingsOut(t.ai_markings_json, imageUrl, opts.presignCapture ?? null),
    opts.withAiAuth ? aiAuthOut(t.ai_auth_json, imageUrl) : Promise.resolve(undefined),
  ]);
  const records = recordsOut(t.records_json);
  const messages = messagesOut(t.messages_json);
  const related = relatedTestersOut(t.testers_json);
  const examineeLogs = examineeLogsOut(t.examinee_logs_json);
  const recordLogs = recordStatusLogsOut(t.record_status_logs_json);
  // Excused markings (a still taken while the connection was down) are listed but neither counted nor scored.
  const scored = aiMarkings.filter((m) => !m.excused);
  const aiSummary = new Map<string, number>();
  for (const m of scored) aiSummary.set(m.mark, (aiSummary.get(m.mark) ?? 0) + 1);
  return {
    user_id: tester.id,
    test_id: t.id,
    tester_id: tester.id,
    login_id: tester.login_id,
    ex_login_id: tester.ex_login_id,
    name: tester.name,
    group_id: t.group_id ?? tester.group_id,
    group: t.group_name,
    group_code: t.group_code,
    test_name: t.test_name,
    region: t.region,
    test_at: iso(t.test_at),
    stop_at: iso(t.stop_at),
    exam_name: t.exam_name,
    status: t.status,
    cheating_level: t.cheating_level,
    test_status: t.test_status,
    exam_process: t.exam_process,
    is_mc_startup: t.is_mc_startup,
    matched_at: iso(t.matched_at),
    authenticated_at: iso(t.authenticated_at),
    login_at: iso(t.login_at),
    logout_at: iso(t.logout_at),
    ai_namematch: t.ai_namematch,
    rejected: t.rejected,
    kicked: t.kicked,
    startup_parameters: publicStartup(t),
    head_shot_uri: await imageUrl(t.head_shot_key),
    id_card_uri: await imageUrl(t.id_card_key),
    head_shot_updated_at: t.head_shot_key ? iso(t.head_shot_at) : null,
    id_card_updated_at: t.id_card_key ? iso(t.id_card_at) : null,
    marking_summaries: summariseMarkings(markings),
    marking_total_score: markings.reduce((s, m) => s + m.score, 0),
    markings,
    ai_marking_summaries: [...aiSummary].map(([mark, count]) => ({ mark, count })),
    ai_marking_total_score: aiMarkings.length ? scored.reduce((s, m) => s + m.score, 0) : t.ai_total_score,
    ai_markings: aiMarkings,
    ...(aiAuth !== undefined ? { ai_auth: aiAuth } : {}),
    records,
    messages,
    testers: related,
    // The recording-time limit counts from the camera's first recording (the spec's recording).
    recording_started_at: records.reduce<string | null>(
      (first, r) => (r.stream === 'camera' && (first === null || r.start_at < first) ? r.start_at : first),
      null,
    ),
    server_time: toWireTime(new Date())!,
    examinee_logs: examineeLogs,
    record_status_logs: recordLogs,
  };
}

/** Limits the related sittings of a detail to what the caller may open: a group, or a checker's matchings. */
export type RelatedScope = { groupId: number | null } | { checkerId: number };

interface RelatedRow {
  id: number;
  login_id: string;
  test_id: number | null;
  exam_name: string | null;
  status: number | null;
  startup_parameters: Record<string, unknown> | string | null;
}

/** The scope's parameter of `relatedTestersSql`: none without a scope. */
const relatedScopeArg = (scope: RelatedScope | null): unknown[] =>
  scope === null ? [] : ['checkerId' in scope ? scope.checkerId : scope.groupId];

/**
 * spec §3 detail `testers` as a json column: the tester accounts of the same person (same ex_login_id, or only
 * this one), each with its newest sitting; with a scope, only accounts in the caller's group (test manager) or
 * that the checker monitored. `id`, `exLoginId`, `scopeArg`: the parameters of the tester's id, its ex_login_id
 * and the scope's id.
 */
function relatedTestersSql(
  scope: RelatedScope | null,
  id: string,
  exLoginId: string,
  scopeArg: string,
): string {
  const scopeSql =
    scope === null
      ? ''
      : 'checkerId' in scope
        ? `AND EXISTS (SELECT 1 FROM matchings m WHERE m.tester_id = u.id AND m.checker_id = ${scopeArg}::bigint)`
        : `AND u.group_id IS NOT DISTINCT FROM ${scopeArg}::bigint`;
  return `(SELECT coalesce(json_agg(x ORDER BY x.id), '[]'::json) FROM (
      SELECT u.id, u.login_id, t.id AS test_id, t.exam_name, t.status, t.startup_parameters
        FROM users u
        LEFT JOIN LATERAL (SELECT id, exam_name, status, startup_parameters FROM tests
                            WHERE user_id = u.id ORDER BY id DESC LIMIT 1) t ON true
       WHERE u.actor = 1 AND (u.id = ${id}::bigint OR (${exLoginId}::text IS NOT NULL AND u.ex_login_id = ${exLoginId}::text))
             ${scopeSql}
       ORDER BY u.id LIMIT 50) x)`;
}

function relatedTestersOut(rows: RelatedRow[]): TesterDetail['testers'] {
  return rows.map((r) => ({
    tester_id: r.id,
    test_id: r.test_id,
    exam_name: r.exam_name ?? '',
    status: r.status ?? 0,
    login_id: r.login_id,
    startup_parameters: { is_proctor: startupInt(startupOf(r), 'is_proctor', 1) },
  }));
}
