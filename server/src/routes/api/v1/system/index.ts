import { ACTOR, type Actor, Envelope, MANAGER_ACTORS } from '../../../../../../contract/common';
import { AdminPermissionResult } from '../../../../../../contract/logs';
import { checkIpAllowed } from '../../../../lib/access-limits';
import type { App } from '../../../../lib/app-types';
import { registerServerTimeRoute } from '../../../../lib/server-time';

const LIMITED_ACTORS: readonly Actor[] = [ACTOR.checker, ...MANAGER_ACTORS];

/** servertime.php, get_servertime.php and admin_permission.php (spec §7). */
export default async function systemRoutes(app: App): Promise<void> {
  registerServerTimeRoute(app, '/servertime.php');
  registerServerTimeRoute(app, '/get_servertime.php');

  app.get(
    '/admin_permission.php',
    {
      // spec §6 "Admin IP permission is checked through a status call": this route reports the access-limit
      // verdict instead of failing on it, so it skips the auth plugin's own IP check.
      config: { access: LIMITED_ACTORS, skipIpLimit: true },
      schema: { response: { 200: Envelope(AdminPermissionResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const allowed = await checkIpAllowed(app, auth.actor, request.ip);
      const result: AdminPermissionResult = allowed
        ? { status: 200, process: 1, message: '' }
        : { status: 403, process: 0, message: 'Access from this IP address is not allowed.' };
      return reply.ok(result);
    },
  );
}
