import type { MonitoringTester } from '../../../contract/matching';
import type { MatchingSettings } from './matching-settings';
import { toWireTime } from './management-time';

/** Start-up parameters as stored on a sitting (tests.startup_parameters, snake_case). */
export type StoredStartupParameters = Record<string, unknown>;

/** A matching joined with its sitting and examinee: what a Matching (spec §3) is built from. */
export interface MatchingRow {
  id: number;
  tester_id: number;
  test_id: number;
  checker_id: number | null;
  file_name: string;
  matching_status: number;
  channel_name: string;
  matching_command: number;
  checker_command: number;
  /** The ClientId the matched checker's viewer uses (null while no checker is assigned). */
  viewer_client_id: string | null;
  /** When the current checker was given this matching (null while waiting). */
  assigned_at?: Date | string | null;
  login_id: string;
  ex_login_id: string | null;
  exam_name: string;
  tester_status: number;
  rejected: number;
  kicked: number;
  total_seconds: number;
  connected_seconds: number;
  startup_parameters: unknown;
}

/**
 * SELECT list and FROM of MatchingRow: aliases m (matchings), t (tests), u (the examinee). Kicked and
 * rejected count on either the account or the sitting, as at login.
 */
export const MATCHING_ROW_SQL = `
  SELECT m.id, m.tester_id, m.test_id, m.checker_id, m.matching_status, m.channel_name,
         m.matching_command, m.checker_command, m.viewer_client_id, m.assigned_at,
         coalesce((SELECT regexp_replace(r.object_key, '^.*/', '') FROM records r
                    WHERE r.test_id = m.test_id AND r.stream = 'camera'
                    ORDER BY r.start_at DESC, r.id DESC LIMIT 1), '') AS file_name,
         u.login_id, u.ex_login_id, t.exam_name, t.status AS tester_status,
         greatest(t.rejected, u.rejected)::int AS rejected, greatest(t.kicked, u.kicked)::int AS kicked,
         greatest(0, floor(extract(epoch FROM coalesce(m.deleted_at, now()) - m.created_at)))::int AS total_seconds,
         (m.connected_seconds + CASE WHEN m.matching_status = 2 AND m.connected_at IS NOT NULL
            THEN greatest(0, floor(extract(epoch FROM coalesce(m.deleted_at, now()) - m.connected_at)))::int ELSE 0 END
         )::int AS connected_seconds,
         t.startup_parameters
    FROM matchings m
    JOIN tests t ON t.id = m.test_id
    JOIN users u ON u.id = m.tester_id`;

/** What one examinee poll reads (`POLL_SNAPSHOT_SQL`): its open sitting and, if any, its live matching. */
export interface PollSnapshot {
  user_id: number;
  sitting_id: number;
  startup_parameters: unknown;
  /** Kicked or rejected on the account or the sitting, as at login. */
  kicked: number;
  rejected: number;
  /** Rejected on the sitting itself (the assignment rule looks at the sitting). */
  sitting_rejected: number;
  /** The sitting was logged out after its last login (logout, self kick-out, AI forced logout). */
  logged_out: boolean;
  /** When the sitting's first recording started, or null. */
  recording_started_at: Date | string | null;
  tester_status: number;
  exam_name: string;
  login_id: string;
  ex_login_id: string | null;
  file_name: string;
  /** The live matching, all null when there is none. */
  id: number | null;
  test_id: number | null;
  checker_id: number | null;
  matching_status: number | null;
  matching_command: number | null;
  checker_command: number | null;
  tester_retry: number | null;
  first_connected_at: Date | string | null;
  channel_name: string | null;
  viewer_client_id: string | null;
  total_seconds: number | null;
  connected_seconds: number | null;
  /** Seconds since the examinee's last poll was stored on this matching (null: never). */
  poll_age_seconds: number | null;
  /**
   * A waiting matching, or none yet: some eligible checker has room now (dealing is worth asking for). False
   * too when the batch did not ask ($3 false).
   */
  room: boolean;
}

/**
 * What examinee polls read (the hottest statement of the server: every examinee, every matchingTimeout
 * seconds), for the users in $1 (bigint[]) at once: each one's newest open sitting with its live matching and
 * everything the answer needs, and — only while it has no matching or a waiting one, and only when $3 is true —
 * whether any checker could take it ($2 = the per-checker cap), asked once for the whole batch (`room`, read
 * only when a row needs it: with every checker full that question probes each checker, far too much to ask per
 * examinee). Users without an open sitting have no row.
 */
export const POLL_SNAPSHOT_SQL = `
  WITH room AS MATERIALIZED (
    SELECT EXISTS (
      SELECT 1 FROM checker_presence p
        JOIN users cu ON cu.id = p.checker_id AND cu.actor = 2 AND NOT cu.disabled
        LEFT JOIN monitor_activations a ON a.checker_id = p.checker_id
       WHERE p.stale_at > now() AND coalesce(a.activation, true)
         AND (SELECT count(*) FROM matchings x WHERE x.checker_id = p.checker_id AND x.deleted_at IS NULL) < $2) AS has_room)
  SELECT q.user_id, s.*,
         CASE WHEN NOT $3::boolean THEN false
              WHEN s.sitting_id IS NOT NULL AND s.checker_id IS NULL AND coalesce(s.matching_status, 1) = 1
              THEN (SELECT has_room FROM room) ELSE false END AS room
    FROM unnest($1::bigint[]) AS q(user_id)
  CROSS JOIN LATERAL (
  SELECT t.id AS sitting_id, t.startup_parameters,
         greatest(t.kicked, u.kicked)::int AS kicked, greatest(t.rejected, u.rejected)::int AS rejected,
         t.rejected AS sitting_rejected,
         (t.logout_at IS NOT NULL AND (t.login_at IS NULL OR t.logout_at >= t.login_at)) AS logged_out,
         r.recording_started_at, coalesce(r.file_name, '') AS file_name,
         t.status AS tester_status, t.exam_name, u.login_id, u.ex_login_id,
         m.id, m.test_id, m.checker_id, m.matching_status, m.matching_command, m.checker_command, m.tester_retry,
         m.first_connected_at, m.channel_name, m.viewer_client_id,
         greatest(0, floor(extract(epoch FROM now() - m.created_at)))::int AS total_seconds,
         (m.connected_seconds + CASE WHEN m.matching_status = 2 AND m.connected_at IS NOT NULL
            THEN greatest(0, floor(extract(epoch FROM now() - m.connected_at)))::int ELSE 0 END)::int AS connected_seconds,
         extract(epoch FROM now() - m.last_tester_poll_at)::float8 AS poll_age_seconds
    FROM tests t
    JOIN users u ON u.id = t.user_id
    LEFT JOIN matchings m ON m.tester_id = t.user_id AND m.deleted_at IS NULL
    LEFT JOIN LATERAL (
      SELECT min(rr.start_at) AS recording_started_at,
             (SELECT regexp_replace(l.object_key, '^.*/', '') FROM records l
               WHERE l.test_id = t.id AND l.stream = 'camera' ORDER BY l.start_at DESC, l.id DESC LIMIT 1) AS file_name
        FROM records rr WHERE rr.test_id = t.id AND rr.stream = 'camera') r ON true
   WHERE t.user_id = q.user_id AND t.status < 7
   ORDER BY t.id DESC LIMIT 1) s`;

/**
 * SQL condition (aliases m, t, u) for a matching that may be given to a checker: active, waiting, no checker,
 * its tester still polling, sitting open, not kicked or rejected, and proctoring on (is_proctor absent counts
 * as on). Kept in step with `isAssignable`.
 */
export const ASSIGNABLE_SQL = `
  m.deleted_at IS NULL AND m.checker_id IS NULL AND m.matching_status = 1
  AND m.tester_stale_at > now()
  AND t.status < 7 AND t.kicked = 0 AND u.kicked = 0 AND t.rejected = 0 AND u.rejected = 0
  AND coalesce(t.startup_parameters->>'is_proctor', '1') NOT IN ('0', 'false')`;

/**
 * SQL SET item adding the running connected period to connected_seconds when `when` holds (by default: the
 * matching is connected). Use it with `connected_at = NULL`.
 */
export function closeConnectedSql(when = 'matching_status = 2'): string {
  return `connected_seconds = connected_seconds + CASE WHEN (${when}) AND connected_at IS NOT NULL
    THEN greatest(0, floor(extract(epoch FROM now() - connected_at)))::int ELSE 0 END`;
}

/** The stored start-up parameters as an object: jsonb arrives parsed; JSON text is parsed defensively. */
export function startupObject(sp: unknown): StoredStartupParameters {
  let v = sp;
  if (typeof v === 'string') {
    try {
      v = JSON.parse(v) as unknown;
    } catch {
      return {};
    }
  }
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as StoredStartupParameters) : {};
}

/** An integer start-up parameter: numbers and numeric strings count; anything else gives the default. */
export function paramInt(sp: unknown, key: string, fallback: number): number {
  const v = startupObject(sp)[key];
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'string' && /^\s*-?\d+\s*$/.test(v)) return Number.parseInt(v, 10);
  if (v === 'true') return 1;
  if (v === 'false') return 0;
  return fallback;
}

/** Whether the sitting is proctored: is_proctor 0 turns matching off; absent means on. */
export function isProctored(sp: unknown): boolean {
  return paramInt(sp, 'is_proctor', 1) !== 0;
}

/** The poll interval the server tells this tester: its start-up matching_timeout within bounds, else the default. */
export function matchingTimeoutOf(sp: unknown, s: MatchingSettings): number {
  const t = paramInt(sp, 'matching_timeout', s.defaultTimeoutSeconds);
  if (t < s.minTimeoutSeconds) return s.defaultTimeoutSeconds;
  return Math.min(t, s.maxTimeoutSeconds);
}

/** A retry limit from the start-up parameters (tester_retry / checker_retry); negative values give the default. */
export function retryLimitOf(sp: unknown, key: 'tester_retry' | 'checker_retry', fallback: number): number {
  const n = paramInt(sp, key, fallback);
  return n < 0 ? fallback : n;
}

// Start-up keys that may carry secrets (spec §3 lists password and accessToken among the parameters).
const SECRET_KEYS = new Set(['password', 'access_token', 'accesstoken', 'token', 'session_token', 'secret']);

/** The start-up parameters without secrets, for other people's eyes (a checker sees its testers'). */
export function publicStartupParameters(sp: unknown): StoredStartupParameters {
  const out: StoredStartupParameters = {};
  for (const [k, v] of Object.entries(startupObject(sp))) if (!SECRET_KEYS.has(k.toLowerCase())) out[k] = v;
  return out;
}

/** Monitor memo text (spec §5): surrounding quotes stripped; a quoted empty string becomes empty. */
export function monitorMemo(v: unknown): string {
  if (v === undefined || v === null) return '';
  let s = typeof v === 'string' ? v : typeof v === 'number' || typeof v === 'boolean' ? String(v) : '';
  s = s.trim();
  if (s.length >= 2 && ((s.startsWith('"') && s.endsWith('"')) || (s.startsWith("'") && s.endsWith("'"))))
    s = s.slice(1, -1);
  return s;
}

/** A time column in the wire format (ISO 8601 with the deployment zone's offset), or null. */
export function isoOrNull(v: Date | string | null | undefined): string | null {
  return toWireTime(v);
}

/** Tester state names of spec §4, by number. */
export const TESTER_STATUS_NAMES = [
  'NONE',
  'LOGIN',
  'MATCHED',
  'IDENTIFICATED',
  'BEFORE_EXAM',
  'EXAMING',
  'INTERRUPTION_EXAM',
  'FINISH_EXAM',
] as const;

/** The name of a tester state, or 'UNKNOWN'. */
export function testerStatusName(status: number): string {
  return TESTER_STATUS_NAMES[status] ?? 'UNKNOWN';
}

/** A row of the checkers/monitoring queries (aliases in MONITORING_TESTER_SQL). */
export interface MonitoringTesterRow {
  id: number;
  test_id: number;
  monitor_id: number | null;
  checker_id: number | null;
  login_id: string;
  ex_login_id: string | null;
  is_mc_startup: number;
  target: string;
  exam_name: string;
  status: number;
  rejected: number;
  kicked: number;
  matching_status: number | null;
  tester_alive: boolean | null;
  startup_parameters: unknown;
  /** Set for an open sitting nobody watches since its window went away. */
  unwatched_since?: Date | string | null;
}

/** A tester entry of checkers/monitoring (spec §3). */
export function toMonitoringTester(r: MonitoringTesterRow): MonitoringTester {
  const sp = startupObject(r.startup_parameters);
  const examUrl = sp.exam_url;
  const assignable = r.tester_alive === true && isProctored(sp) && r.rejected === 0 && r.kicked === 0;
  return {
    id: r.id,
    test_id: r.test_id,
    monitor_id: r.monitor_id,
    login_id: r.login_id,
    ex_login_id: r.ex_login_id,
    is_mc_startup: r.is_mc_startup,
    target: r.target,
    exam_name: r.exam_name,
    status: r.status,
    rejected: r.rejected,
    kicked: r.kicked,
    exam_url: typeof examUrl === 'string' ? examUrl : '',
    startup_parameters: {
      is_auth: paramInt(sp, 'is_auth', 0),
      is_proctor: paramInt(sp, 'is_proctor', 1),
      is_record: paramInt(sp, 'is_record', 0),
      is_summary: paramInt(sp, 'is_summary', 0),
      memo: monitorMemo(sp.memo),
    },
    matching_status: r.matching_status ?? 0,
    on_hold: r.checker_id === null && !assignable ? 1 : 0,
    ...(r.unwatched_since ? { unwatched_since: toWireTime(r.unwatched_since)! } : {}),
  };
}
