import type { App } from '../lib/app-types';
import { registerServerTimeRoute } from '../lib/server-time';

/**
 * GET /api/servertime: the one call of spec §7 outside /api/v1 and without .php. Registered at the root
 * (no prefix) by app.ts, after the /api/v1 routes.
 */
export default async function servertimeRootRoutes(app: App): Promise<void> {
  registerServerTimeRoute(app, '/api/servertime');
}
