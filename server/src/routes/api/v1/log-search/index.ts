import { ADMIN_ACTORS, Envelope } from '../../../../../../contract/common';
import { LogSearchQuery, LogSearchResult } from '../../../../../../contract/logs';
import type { App } from '../../../../lib/app-types';
import { searchLogs } from '../../../../lib/logs/log-search';
import { installFieldErrorHandler } from '../../../../lib/management-errors';

/**
 * logs/search.php (/logview): the client logs (log_receive), device logs (device_logging), the
 * audit trail and the server's own rows in one search, newest first, for system managers and supervisors.
 */
export default async function logSearchRoutes(app: App): Promise<void> {
  installFieldErrorHandler(app);

  app.get(
    '/logs/search.php',
    {
      config: { access: ADMIN_ACTORS },
      schema: { querystring: LogSearchQuery, response: { 200: Envelope(LogSearchResult) } },
    },
    async (request, reply) => reply.ok(await searchLogs(app.db, request.query)),
  );
}
