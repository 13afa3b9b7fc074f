import {
  UNWATCHED_END_REASONS,
  UNWATCHED_NOTICE_HOURS,
  type BoolLike,
  type CheckersMonitoringResult,
  type MatchingHistoriesQuery,
  type MatchingHistoriesResult,
  type MonitorActivateBody,
  type MonitorActivateListResult,
  type MonitorActivateResult,
  type MonitoringChecker,
  type MonitoringTester,
} from '../../../contract/matching';
import type { Db } from '../db/db';
import { badRequest, forbidden, notFound } from './api-error';
import type { AuthContext } from './app-types';
import { toId } from './matching-engine';
import { isoOrNull, testerStatusName, toMonitoringTester, type MonitoringTesterRow } from './matching-rows';

/** Default and largest number of rows of a matching history. */
export const HISTORY_LIMIT = { default: 200, max: 500 } as const;

// Rows shown per list of checkers/monitoring: the page is a live overview, not an export.
const MONITORING_ROWS_MAX = 5000;

/** A boolean from JSON or a form field (BoolLike). */
export function toBool(v: BoolLike): boolean {
  return v === true || v === 1 || v === '1' || v === 'true';
}

/** tester/monitor_activate.php: a checker sets only its own activation; managers (4, 5) anyone's. */
export async function setActivation(
  db: Db,
  auth: AuthContext,
  body: MonitorActivateBody,
): Promise<MonitorActivateResult> {
  const monitorId = toId(body.monitor_id, 'monitor_id');
  if (auth.actor === 2 && monitorId !== auth.userId)
    throw forbidden('A checker may change only its own activation.');
  const { rows } = await db.query<{ actor: number }>(`SELECT actor FROM users WHERE id = $1`, [monitorId]);
  if (rows[0]?.actor !== 2) throw notFound('No such monitor.');
  const activation = toBool(body.activation);
  await db.query(
    `INSERT INTO monitor_activations (checker_id, activation, updated_at) VALUES ($1, $2, now())
     ON CONFLICT (checker_id) DO UPDATE SET activation = EXCLUDED.activation, updated_at = now()`,
    [monitorId, activation],
  );
  return { monitor_id: monitorId, activation };
}

/** tester/monitor_activate_list.php: every checker with its activation (default on), load and liveness. */
export async function activationList(db: Db): Promise<MonitorActivateListResult> {
  const { rows } = await db.query<{
    id: number;
    login_id: string;
    name: string;
    activation: boolean;
    matching_count: number;
    last_poll_at: Date | string | null;
    online: boolean;
  }>(
    `SELECT u.id, u.login_id, u.name, coalesce(a.activation, true) AS activation,
            (SELECT count(*) FROM matchings m WHERE m.checker_id = u.id AND m.deleted_at IS NULL)::int AS matching_count,
            p.last_poll_at, coalesce(p.stale_at > now(), false) AS online
       FROM users u
       LEFT JOIN monitor_activations a ON a.checker_id = u.id
       LEFT JOIN checker_presence p ON p.checker_id = u.id
      WHERE u.actor = 2 AND NOT u.disabled
      ORDER BY u.login_id`,
  );
  return {
    monitors: rows.map((r) => ({
      monitor_id: r.id,
      login_id: r.login_id,
      name: r.name,
      activation: r.activation,
      matching_count: r.matching_count,
      last_poll_at: isoOrNull(r.last_poll_at),
      online: r.online,
    })),
  };
}

const TESTER_ENTRY_SQL = `
  u.id, t.id AS test_id, u.login_id, u.ex_login_id, t.is_mc_startup,
  coalesce(nullif(t.startup_parameters->>'target', ''), u.target) AS target, t.exam_name, t.status,
  greatest(t.rejected, u.rejected)::int AS rejected, greatest(t.kicked, u.kicked)::int AS kicked, t.startup_parameters`;

/**
 * checkers/monitoring.php (spec §2 "Checkers monitoring page"): each checker that is online or holds testers,
 * with its testers; the unassigned testers (wait / on hold); and the kicked testers of open sittings.
 */
export async function monitoring(db: Db): Promise<CheckersMonitoringResult> {
  const active = await db.query<MonitoringTesterRow>(
    `SELECT ${TESTER_ENTRY_SQL}, m.id AS monitor_id, m.checker_id, m.matching_status, (m.tester_stale_at > now()) AS tester_alive
       FROM matchings m JOIN tests t ON t.id = m.test_id JOIN users u ON u.id = m.tester_id
      WHERE m.deleted_at IS NULL
      ORDER BY m.created_at, m.id
      LIMIT ${MONITORING_ROWS_MAX}`,
  );
  const checkers = await db.query<{
    id: number;
    login_id: string;
    ex_login_id: string | null;
    target: string;
    name: string;
  }>(
    `SELECT u.id, u.login_id, u.ex_login_id, u.target, u.name
       FROM users u LEFT JOIN checker_presence p ON p.checker_id = u.id
      WHERE u.actor = 2 AND NOT u.disabled
        AND (p.stale_at > now() OR EXISTS (SELECT 1 FROM matchings m WHERE m.checker_id = u.id AND m.deleted_at IS NULL))
      ORDER BY u.login_id`,
  );
  const kicked = await db.query<MonitoringTesterRow>(
    `SELECT ${TESTER_ENTRY_SQL}, m.id AS monitor_id, m.checker_id, m.matching_status, (m.tester_stale_at > now()) AS tester_alive
       FROM users u
       JOIN LATERAL (SELECT * FROM tests x WHERE x.user_id = u.id AND x.status < 7 ORDER BY x.id DESC LIMIT 1) t ON true
       LEFT JOIN matchings m ON m.tester_id = u.id AND m.deleted_at IS NULL
      WHERE u.actor = 1 AND (t.kicked > 0 OR u.kicked > 0)
      ORDER BY u.login_id
      LIMIT ${MONITORING_ROWS_MAX}`,
  );

  // Open sittings whose window went away and that nobody watches now (not even waiting for a checker): listed
  // with the unassigned, so an examinee who left proctoring mid-exam stays in sight.
  const unwatched = await db.query<MonitoringTesterRow>(
    `SELECT ${TESTER_ENTRY_SQL}, NULL::bigint AS monitor_id, NULL::bigint AS checker_id, 0 AS matching_status,
            false AS tester_alive, l.deleted_at AS unwatched_since
       FROM tests t JOIN users u ON u.id = t.user_id
       JOIN LATERAL (SELECT m.deleted_at, m.delete_reason FROM matchings m WHERE m.test_id = t.id
                      ORDER BY m.id DESC LIMIT 1) l ON true
      WHERE t.status BETWEEN 2 AND 6 AND t.kicked = 0 AND u.kicked = 0
        AND NOT (t.logout_at IS NOT NULL AND (t.login_at IS NULL OR t.logout_at >= t.login_at))
        AND l.deleted_at > now() - $2::int * interval '1 hour' AND l.delete_reason = ANY($1::text[])
        AND NOT EXISTS (SELECT 1 FROM matchings w WHERE w.tester_id = t.user_id AND w.deleted_at IS NULL)
      ORDER BY l.deleted_at
      LIMIT ${MONITORING_ROWS_MAX}`,
    [[...UNWATCHED_END_REASONS], UNWATCHED_NOTICE_HOURS],
  );

  const byChecker = new Map<number, MonitoringTester[]>();
  const notMatchings: MonitoringTester[] = [];
  for (const r of active.rows) {
    const entry = toMonitoringTester(r);
    if (r.checker_id !== null) {
      const list = byChecker.get(r.checker_id) ?? [];
      list.push(entry);
      byChecker.set(r.checker_id, list);
    } else if (r.kicked === 0) {
      notMatchings.push(entry);
    }
  }
  const matchings = checkers.rows.map((c) => {
    const checker: MonitoringChecker = {
      id: c.id,
      login_id: c.login_id,
      ex_login_id: c.ex_login_id,
      target: c.target,
      admin_name: c.name,
    };
    return { checker, testers: byChecker.get(c.id) ?? [] };
  });
  notMatchings.push(...unwatched.rows.map(toMonitoringTester));
  return { matchings, not_matchings: notMatchings, kicked_users: kicked.rows.map(toMonitoringTester) };
}

/**
 * checkers/matching_histories.php: the testers a checker was matched with, one row per sitting, newest first.
 * A checker sees its own; managers (4, 5) a named checker's, or everyone's without checker_id.
 */
export async function histories(
  db: Db,
  auth: AuthContext,
  q: MatchingHistoriesQuery,
): Promise<MatchingHistoriesResult> {
  let checkerId: number | null = q.checker_id === undefined ? null : toId(q.checker_id, 'checker_id');
  if (auth.actor === 2) {
    if (checkerId !== null && checkerId !== auth.userId)
      throw forbidden('A checker may read only its own history.');
    checkerId = auth.userId;
  }
  const limit = q.limit === undefined ? HISTORY_LIMIT.default : Number(q.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > HISTORY_LIMIT.max)
    throw badRequest(`limit must be 1–${HISTORY_LIMIT.max}.`);
  const { rows } = await db.query<{
    tester_id: number;
    test_id: number;
    login_id: string;
    ex_login_id: string | null;
    exam_name: string;
    status: number;
    updated_at: Date | string;
    matched_at: Date | string | null;
  }>(
    `SELECT h.tester_id, h.test_id, u.login_id, u.ex_login_id, t.exam_name, t.status,
            greatest(h.updated_at, t.updated_at) AS updated_at, h.matched_at
       FROM (SELECT m.tester_id, m.test_id, max(m.updated_at) AS updated_at, min(m.first_connected_at) AS matched_at
               FROM matchings m
              WHERE m.checker_id IS NOT NULL AND ($1::bigint IS NULL OR m.checker_id = $1::bigint)
              GROUP BY m.tester_id, m.test_id) h
       JOIN tests t ON t.id = h.test_id
       JOIN users u ON u.id = h.tester_id
      ORDER BY greatest(h.updated_at, t.updated_at) DESC, h.test_id DESC
      LIMIT $2`,
    [checkerId, limit],
  );
  return {
    users: rows.map((r) => ({
      exam_user_id: r.tester_id,
      test_id: r.test_id,
      login_id: r.login_id,
      ex_login_id: r.ex_login_id,
      exam_name: r.exam_name,
      status: r.status,
      status_string: testerStatusName(r.status),
      updated_at: isoOrNull(r.updated_at)!,
      matched_at: isoOrNull(r.matched_at),
    })),
  };
}
