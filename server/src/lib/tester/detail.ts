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
  findCurrentSitting,
  findSitting,
  iso,
  startupInt,
  startupOf,
  startupText,
  type SittingRow,
  type TesterUser,
} from '../sittings/sittings';

/** A presigned URL of a stored image key (`ImageStore.url`); null for none. */
export type ImageUrl = ImageStore['url'];

/**
 * Whether the caller may look the examinee up at all, before any of its sittings is named (so that a
 * manager of another group or a checker that never monitored it learns nothing, not even whether it has a
 * sitting): the examinee itself; a checker with a matching (live or ended) with it; a test manager of its
 * group; system managers and supervisors. 403 `tester_not_visible` otherwise.
 */
export async function assertMayLookUp(
  db: Db,
  auth: AuthContext,
  tester: { id: number; group_id: number | null },
): Promise<void> {
  let ok =
    auth.actor === ACTOR.systemManager ||
    auth.actor === ACTOR.supervisor ||
    (auth.actor === ACTOR.tester && auth.userId === tester.id);
  if (auth.actor === ACTOR.checker) {
    const { rows } = await db.query(
      `SELECT 1 FROM matchings WHERE checker_id = $1 AND tester_id = $2 LIMIT 1`,
      [auth.userId, tester.id],
    );
    ok = rows.length > 0;
  }
  if (auth.actor === ACTOR.testManager) ok = auth.groupId !== null && auth.groupId === tester.group_id;
  if (!ok) throw new ApiError(403, 'tester_not_visible', 'You may not see this tester.');
}

/**
 * Read permission on one sitting's detail and recordings (spec §6): the examinee itself; a checker that
 * monitored that sitting (a matching, live or ended, of this checker for it: the history of its examinees);
 * a test manager of the sitting's group; system managers and supervisors. Anyone else, a manager of another
 * group included, gets 403 `tester_not_visible` and nothing of the sitting. Returns the scope of the related
 * sittings the caller may see.
 */
export async function assertCanViewSitting(
  db: Db,
  auth: AuthContext,
  tester: { id: number; group_id: number | null },
  testId: number,
): Promise<RelatedScope | null> {
  const refuse = () => new ApiError(403, 'tester_not_visible', 'You may not see this tester.');
  switch (auth.actor) {
    case ACTOR.tester:
      if (auth.userId === tester.id) return null;
      throw refuse();
    case ACTOR.checker: {
      const { rows } = await db.query(
        `SELECT 1 FROM matchings WHERE checker_id = $1 AND tester_id = $2 AND test_id = $3 LIMIT 1`,
        [auth.userId, tester.id, testId],
      );
      if (rows.length > 0) return { checkerId: auth.userId };
      throw refuse();
    }
    case ACTOR.testManager: {
      const { rows } = await db.query<{ group_id: number | null }>(
        `SELECT coalesce(group_id, $2::bigint) AS group_id FROM tests WHERE id = $1`,
        [testId, tester.group_id],
      );
      const groupId = rows[0]?.group_id ?? null;
      if (auth.groupId !== null && groupId !== null && Number(groupId) === auth.groupId)
        return { groupId: auth.groupId };
      throw refuse();
    }
    default:
      return null;
  }
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
  const { rows } = await db.query<MarkingRow>(
    `SELECT k.id, k.marking_at, k.image_key, k.mark_id, m.message, m.label, m.score, k.record_id,
            CASE WHEN r.id IS NULL THEN NULL
                 ELSE greatest(0, floor(extract(epoch FROM k.marking_at - r.start_at)))::int END AS play_time
       FROM markings k LEFT JOIN marks m ON m.id = k.mark_id LEFT JOIN records r ON r.id = k.record_id
      WHERE k.test_id = $1 ORDER BY k.marking_at, k.id`,
    [testId],
  );
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
  const { rows } = await db.query<RecordRow>(
    `SELECT id, stream, start_at, stop_at, encoded_at, ai_analysis_batch_reflected_at, ai_analysis_reflected_at,
            ai_analysis_batch_flag, ai_analysis_flag, movie_status, detail, size_bytes, duration_ms,
            interrupted,
            coalesce(play_time_from, CASE WHEN duration_ms IS NOT NULL THEN 0 END)::int AS play_time_from,
            coalesce(play_time_to, ceil(duration_ms / 1000.0))::int AS play_time_to
       FROM records WHERE test_id = $1 ORDER BY start_at, id`,
    [testId],
  );
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

async function loadAiMarkings(
  db: Db,
  testId: number,
  imageUrl: ImageUrl,
  presign: CapturePresigner | null,
): Promise<AiMarking[]> {
  const { rows } = await db.query<{
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
  }>(
    `SELECT m.id, m.marking_at, m.image_key, m.analysis_type, m.score, m.record_id, m.start_ms, m.end_ms,
            m.source, m.flag, m.confidence, m.excused, m.excuse_reason, c.bucket, c.object_key
       FROM ai_markings m LEFT JOIN captures c ON c.id = m.capture_id
      WHERE m.test_id = $1 ORDER BY m.marking_at, m.id`,
    [testId],
  );
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
export async function loadExamineeLogs(db: Db, testId: number): Promise<ExamineeLogEntry[]> {
  const { rows } = await db.query<{ event: string; detail: string; created_at: Date | string }>(
    `SELECT event, detail, created_at FROM examinee_logs WHERE test_id = $1 ORDER BY created_at, id LIMIT 1000`,
    [testId],
  );
  return rows.map((r) => ({ event: r.event, detail: r.detail, created_at: iso(r.created_at)! }));
}

/** The status history of a sitting's recordings (record status codes 00–08), oldest first. */
export async function loadRecordStatusLogs(db: Db, testId: number): Promise<RecordStatusLogEntry[]> {
  const { rows } = await db.query<{
    record_id: number;
    movie_status: string;
    detail: string;
    created_at: Date | string;
  }>(
    `SELECT l.record_id, l.movie_status, l.detail, l.created_at
       FROM record_status_logs l JOIN records r ON r.id = l.record_id
      WHERE r.test_id = $1 ORDER BY l.created_at, l.id LIMIT 1000`,
    [testId],
  );
  return rows.map((r) => ({
    record_id: Number(r.record_id),
    movie_status: r.movie_status.trim(),
    detail: r.detail,
    created_at: iso(r.created_at)!,
  }));
}

/**
 * The AI identity check of a sitting with every attempt and its scores, so a manager can see why each was
 * decided; null when it had none.
 */
export async function loadAiAuth(db: Db, testId: number, imageUrl: ImageUrl): Promise<AiAuthSummary | null> {
  const state = await db.query<{
    status: number;
    face_retry: number;
    id_card_retry: number;
    ai_all_retry: number;
  }>(`SELECT status, face_retry, id_card_retry, ai_all_retry FROM ai_auth WHERE test_id = $1`, [testId]);
  const st = state.rows[0];
  if (!st) return null;
  const { rows } = await db.query<{
    id: number;
    kind: string;
    outcome: string;
    reason: string;
    scores: Record<string, unknown> | string;
    image_key: string | null;
    created_at: Date | string;
  }>(
    `SELECT id, kind, outcome, reason, scores, image_key, created_at FROM ai_auth_attempts
      WHERE test_id = $1 ORDER BY id LIMIT 200`,
    [testId],
  );
  return {
    status: st.status,
    face_retry: st.face_retry,
    id_card_retry: st.id_card_retry,
    ai_all_retry: st.ai_all_retry,
    attempts: await Promise.all(
      rows.map(async (r) => {
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

/** Messages of a sitting, newest first (at most `limit`), optionally only those with id > sinceId. */
export async function loadMessages(
  db: Db,
  testId: number,
  sinceId = 0,
  limit = 500,
): Promise<WebrtcMessage[]> {
  const { rows } = await db.query<Omit<WebrtcMessage, 'created_at'> & { created_at: Date | string }>(
    `SELECT id, send_type, message_type, kind, message, created_at
       FROM messages WHERE test_id = $1 AND id > $2 ORDER BY id DESC LIMIT $3`,
    [testId, sinceId, limit],
  );
  return rows.map((r) => ({ ...r, created_at: iso(r.created_at)! }));
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

/** The sitting a detail request is about (spec §3 latest modes); 404 when the tester has none. */
export async function pickSitting(
  db: Db,
  testerId: number,
  testId: number | undefined,
  latest: number,
): Promise<number> {
  if (latest === LATEST_MODE.latest || latest === LATEST_MODE.examiningLatest) {
    // Mode 2 "examining latest": the newest sitting that reached the exam (status 5–7), else the newest one.
    const { rows } = await db.query<{ id: number }>(
      `SELECT id FROM tests WHERE user_id = $1
        ORDER BY ($2::boolean AND status >= 5) DESC, id DESC LIMIT 1`,
      [testerId, latest === LATEST_MODE.examiningLatest],
    );
    if (!rows[0]) throw new ApiError(404, 'sitting_not_found', 'The tester has no sitting yet.');
    return rows[0].id;
  }
  if (testId !== undefined) {
    const s = await findSitting(db, testId);
    if (!s || s.user_id !== testerId)
      throw new ApiError(404, 'sitting_not_found', 'No such sitting of this tester.');
    return s.id;
  }
  const s = await findCurrentSitting(db, testerId);
  if (!s) throw new ApiError(404, 'sitting_not_found', 'The tester has no sitting yet.');
  return s.id;
}

/** The Tester detail entity (spec §3) of one sitting. */
export async function buildTesterDetail(
  db: Db,
  tester: TesterUser,
  testId: number,
  opts: {
    /** Presigned URLs of the sitting's stored images (the app's image store). */
    imageUrl: ImageUrl;
    withAiAuth?: boolean;
    /** Which related sittings the caller may see (a checker: those it monitored); null: all. */
    relatedScope?: RelatedScope | null;
    /** Presigns the stills of AI markings from live captures (without it their url is null). */
    presignCapture?: CapturePresigner;
  },
): Promise<TesterDetail> {
  const imageUrl = opts.imageUrl;
  const { rows } = await db.query<DetailTestRow>(
    `SELECT t.*, g.code AS group_code, g.name AS group_name
       FROM tests t
       LEFT JOIN exam_groups g ON g.id = coalesce(t.group_id, (SELECT u.group_id FROM users u WHERE u.id = t.user_id))
      WHERE t.id = $1`,
    [testId],
  );
  const t = rows[0]!;
  const [markings, records, aiMarkings, messages, related, aiAuth, examineeLogs, recordLogs] =
    await Promise.all([
      loadMarkings(db, testId, imageUrl),
      loadRecords(db, testId),
      loadAiMarkings(db, testId, imageUrl, opts.presignCapture ?? null),
      loadMessages(db, testId),
      loadRelatedTesters(db, tester, opts.relatedScope ?? null),
      opts.withAiAuth ? loadAiAuth(db, testId, imageUrl) : Promise.resolve(undefined),
      loadExamineeLogs(db, testId),
      loadRecordStatusLogs(db, testId),
    ]);
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

/**
 * spec §3 detail `testers`: the tester accounts of the same person (same ex_login_id, or only this one),
 * each with its newest sitting; with a scope, only accounts in the caller's group (test manager) or that the
 * checker monitored.
 */
async function loadRelatedTesters(
  db: Db,
  tester: TesterUser,
  scope: RelatedScope | null,
): Promise<TesterDetail['testers']> {
  const scopeSql =
    scope === null
      ? ''
      : 'checkerId' in scope
        ? 'AND EXISTS (SELECT 1 FROM matchings m WHERE m.tester_id = u.id AND m.checker_id = $3::bigint)'
        : 'AND u.group_id IS NOT DISTINCT FROM $3::bigint';
  const scopeArg = scope === null ? [] : ['checkerId' in scope ? scope.checkerId : scope.groupId];
  const { rows } = await db.query<{
    id: number;
    login_id: string;
    test_id: number | null;
    exam_name: string | null;
    status: number | null;
    startup_parameters: Record<string, unknown> | string | null;
  }>(
    `SELECT u.id, u.login_id, t.id AS test_id, t.exam_name, t.status, t.startup_parameters
       FROM users u
       LEFT JOIN LATERAL (SELECT id, exam_name, status, startup_parameters FROM tests
                           WHERE user_id = u.id ORDER BY id DESC LIMIT 1) t ON true
      WHERE u.actor = 1 AND (u.id = $1 OR ($2::text IS NOT NULL AND u.ex_login_id = $2)) ${scopeSql}
      ORDER BY u.id LIMIT 50`,
    [tester.id, tester.ex_login_id, ...scopeArg],
  );
  return rows.map((r) => ({
    tester_id: r.id,
    test_id: r.test_id,
    exam_name: r.exam_name ?? '',
    status: r.status ?? 0,
    login_id: r.login_id,
    startup_parameters: { is_proctor: startupInt(startupOf(r), 'is_proctor', 1) },
  }));
}
