import { ADMIN_ACTORS, Envelope } from '../../../../../../contract/common';
import {
  ForceLogoutBody,
  ForceLogoutResult,
  LoginsQuery,
  LoginsResult,
} from '../../../../../../contract/management';
import { ApiError } from '../../../../lib/api-error';
import type { App } from '../../../../lib/app-types';
import { audit } from '../../../../lib/audit';
import { toId, installFieldErrorHandler } from '../../../../lib/management-errors';
import { forceLogout, listLogins, userExists } from '../../../../lib/management/sessions';

/** logins.php and logins/force_logout.php (spec §3 "Logins list", §7). */
export default async function loginsRoutes(app: App): Promise<void> {
  installFieldErrorHandler(app);

  app.get(
    '/logins.php',
    {
      config: { access: ADMIN_ACTORS },
      schema: { querystring: LoginsQuery, response: { 200: Envelope(LoginsResult) } },
    },
    async (request, reply) =>
      reply.ok(await listLogins(app.db, request.query, app.config.managerIdleSeconds)),
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
      if (!(await userExists(app.db, userId))) throw new ApiError(404, 'user_not_found', 'No such user.');
      const rowCount = await forceLogout(app.db, userId);
      app.authCache.forgetUser(userId);
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
