import type { LoginRow, LoginsQuery, LoginsResult } from '../../../../contract/management';
import type { Db } from '../../db/db';
import { sqlWireTime } from '../management-time';

/**
 * SQL condition for a live session `s` of user `u`: not revoked, not expired, and for managers (actor ≥ 3)
 * not idle longer than `$idleParam` seconds (the auth plugin's rule, perf-reliability §5).
 */
function liveSessionSql(idleParam: string): string {
  return `s.revoked_at IS NULL AND s.expires_at > now()
    AND (u.actor < 3 OR s.last_seen_at > now() - ${idleParam}::int * interval '1 second')`;
}

// spec §3 "Logins list": sort keys 1–9, over the row's own (live) values.
const SORT_COLUMNS: Record<number, string> = {
  1: 'x.login_id',
  2: 'x.group_id',
  3: 'x.actor',
  4: 'x.target',
  5: 'x.is_mc_startup',
  6: 'x.status',
  7: 'x.kicked',
  8: 'x.rejected',
  9: 'x.last_seen',
};

const DEFAULT_PAGE_SIZE = 50;

/**
 * One page of the users with at least one live session (spec §3 "Logins list"), with the last activity over
 * those sessions; managers' sessions idle longer than `idleSeconds` do not count.
 */
export async function listLogins(db: Db, q: LoginsQuery, idleSeconds: number): Promise<LoginsResult> {
  const kind = q.actor_kind ?? 1;
  const page = q.page ?? 1;
  const perPage = q.max_display_count ?? DEFAULT_PAGE_SIZE;
  const dir = (q.sort_order ?? 0) === 1 ? 'ASC' : 'DESC';
  const col = SORT_COLUMNS[q.sort_key ?? 9] ?? 'x.last_seen';
  const kindSql = kind === 1 ? 'AND u.actor = 1' : kind === 2 ? 'AND u.actor <> 1' : '';
  // The users with at least one live session, with the last activity over those sessions.
  const from = `FROM users u
        JOIN LATERAL (SELECT max(s.last_seen_at) AS last_seen FROM sessions s
                       WHERE s.user_id = u.id AND ${liveSessionSql('$1')}) l ON l.last_seen IS NOT NULL
        LEFT JOIN exam_groups g ON g.id = u.group_id
        WHERE true ${kindSql}`;
  const params = [idleSeconds];
  const count = (await db.query<{ n: number }>(`SELECT count(*)::int AS n ${from}`, params)).rows[0]?.n ?? 0;
  // An examinee's state is its current sitting's (the one tester/detail picks: open first, then newest),
  // which the live flow updates; the users columns of the same names are not kept in step.
  const { rows } = await db.query<LoginRow & { last_seen: unknown }>(
    `SELECT x.exam_user_id, x.login_id, x.ex_login_id, x.group_id, x."group", x.group_code, x.actor, x.target,
                x.is_mc_startup, x.status, x.kicked, x.rejected, ${sqlWireTime('x.last_seen')} AS updated_at
           FROM (
             SELECT u.id AS exam_user_id, u.login_id, u.ex_login_id, u.group_id, g.name AS "group",
                    g.code AS group_code, u.actor::int AS actor,
                    coalesce(nullif(cur.startup_parameters->>'target', ''), u.target) AS target,
                    coalesce(cur.is_mc_startup, 0)::int AS is_mc_startup,
                    CASE WHEN u.actor = 1 THEN coalesce(cur.status, 0)::int END AS status,
                    greatest(u.kicked, coalesce(cur.kicked, 0))::int AS kicked,
                    greatest(u.rejected, coalesce(cur.rejected, 0))::int AS rejected,
                    l.last_seen
               ${from.replace(
                 'LEFT JOIN exam_groups g',
                 `LEFT JOIN LATERAL (SELECT t.status, t.is_mc_startup, t.kicked, t.rejected, t.startup_parameters
                                       FROM tests t WHERE u.actor = 1 AND t.user_id = u.id
                                      ORDER BY (t.status < 7) DESC, t.id DESC LIMIT 1) cur ON true
                  LEFT JOIN exam_groups g`,
               )}
           ) x
          ORDER BY ${col} ${dir} NULLS LAST, x.exam_user_id ${dir}
          LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`,
    params,
  );
  for (const r of rows) delete (r as { last_seen?: unknown }).last_seen;
  return {
    count,
    page_count: Math.max(1, Math.ceil(count / perPage)),
    page,
    list: rows,
  };
}

/** How many examinees and how many other users have a live session (the management summary). */
export async function countLoggedIn(
  db: Db,
  idleSeconds: number,
): Promise<{ testers: number; others: number }> {
  const { rows } = await db.query<{ testers: number; others: number }>(
    `SELECT count(*) FILTER (WHERE u.actor = 1)::int AS testers, count(*) FILTER (WHERE u.actor <> 1)::int AS others
           FROM users u
          WHERE EXISTS (SELECT 1 FROM sessions s WHERE s.user_id = u.id AND ${liveSessionSql('$1')})`,
    [idleSeconds],
  );
  return { testers: rows[0]?.testers ?? 0, others: rows[0]?.others ?? 0 };
}

/** Whether a user with this id exists. */
export async function userExists(db: Db, userId: number): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM users WHERE id = $1', [userId]);
  return rows.length > 0;
}

/** Ends every live session of a user (the Logins list's forced logout); how many ended. */
export async function forceLogout(db: Db, userId: number): Promise<number> {
  const { rowCount } = await db.query(
    'UPDATE sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now()',
    [userId],
  );
  return rowCount;
}
