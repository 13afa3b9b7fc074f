import { ADMIN_ACTORS, Envelope } from '../../../../../../contract/common';
import {
  ForceLogoutBody,
  ForceLogoutResult,
  LoginsQuery,
  LoginsResult,
  type LoginRow,
} from '../../../../../../contract/management';
import { ApiError } from '../../../../lib/api-error';
import type { App } from '../../../../lib/app-types';
import { audit } from '../../../../lib/audit';
import { toId, installFieldErrorHandler } from '../../../../lib/management-errors';
import { liveSessionSql } from '../../../../lib/management/sessions';
import { sqlWireTime } from '../../../../lib/management-time';

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

/** logins.php and logins/force_logout.php (spec §3 "Logins list", §7). */
export default async function loginsRoutes(app: App): Promise<void> {
  installFieldErrorHandler(app);

  app.get(
    '/logins.php',
    {
      config: { access: ADMIN_ACTORS },
      schema: { querystring: LoginsQuery, response: { 200: Envelope(LoginsResult) } },
    },
    async (request, reply) => {
      const q = request.query;
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
      const params = [app.config.managerIdleSeconds];
      const count =
        (await app.db.query<{ n: number }>(`SELECT count(*)::int AS n ${from}`, params)).rows[0]?.n ?? 0;
      // An examinee's state is its current sitting's (the one tester/detail picks: open first, then newest),
      // which the live flow updates; the users columns of the same names are not kept in step.
      const { rows } = await app.db.query<LoginRow & { last_seen: unknown }>(
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
      const result: LoginsResult = {
        count,
        page_count: Math.max(1, Math.ceil(count / perPage)),
        page,
        list: rows,
      };
      return reply.ok(result);
    },
  );

  app.post(
    '/logins/force_logout.php',
    {
      config: { access: ADMIN_ACTORS },
      schema: { body: ForceLogoutBody, response: { 200: Envelope(ForceLogoutResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const userId = toId(request.body.user_id, 'user_id');
      if (userId === auth.userId) {
        // Ending one's own sessions from this list would look like a crash; logout.php is the way.
        throw new ApiError(
          409,
          'cannot_force_logout_self',
          '自分自身を強制ログアウトすることはできません。ログアウトボタンを使用してください。',
        );
      }
      const exists = await app.db.query('SELECT 1 FROM users WHERE id = $1', [userId]);
      if (exists.rows.length === 0) throw new ApiError(404, 'user_not_found', 'No such user.');
      const { rowCount } = await app.db.query(
        'UPDATE sessions SET revoked_at = now() WHERE user_id = $1 AND revoked_at IS NULL AND expires_at > now()',
        [userId],
      );
      await audit(app.db, {
        type: 'session.force_logout',
        actor: auth.actor,
        userId: auth.userId,
        loginId: auth.loginId,
        ip: request.ip,
        target: `user:${userId}`,
        details: JSON.stringify({ revoked: rowCount }),
      });
      return reply.ok({ user_id: userId, revoked: rowCount } satisfies ForceLogoutResult);
    },
  );
}
