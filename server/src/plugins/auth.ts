import fp from 'fastify-plugin';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Actor } from '../../../contract/common';
import { ApiError } from '../lib/api-error';
import { hashToken } from '../lib/tokens';
import type { AuthContext } from '../lib/app-types';
import { checkIpAllowed } from '../lib/access-limits';
import { AuthCache, SessionToucher } from '../lib/auth-cache';

interface SessionRow {
  session_id: number;
  user_id: number;
  actor: Actor;
  login_id: string;
  name: string;
  group_id: number | null;
  disabled: boolean;
  /** Both measured by the database's clock, so this process's clock never has to agree with it. */
  expires_in_ms: number;
  last_seen_ago_ms: number;
  /** A phone session's sitting (the examinee's phone as a second camera), else null. */
  phone_test_id: number | null;
}

/**
 * How stale a session's last_seen_at may get before a request writes it again: managers' idle timeout
 * counts in minutes, and the examinees' polls (every few seconds each) would otherwise write on every call.
 */
const SESSION_TOUCH_SECONDS = 15;

function bearer(request: FastifyRequest): string | null {
  const h = request.headers.authorization;
  if (!h) return null;
  const m = /^Bearer\s+([A-Za-z0-9_-]{20,200})$/.exec(h.trim());
  return m?.[1] ?? null;
}

/** Resolves the bearer token to a live session; null when absent, unknown, revoked, expired or idle too long. */
export async function resolveAuth(
  app: FastifyInstance,
  request: FastifyRequest,
): Promise<AuthContext | null> {
  const token = bearer(request);
  if (!token) return null;
  const hash = hashToken(token);
  const key = hash.toString('base64');
  let cached = app.authCache.session(key);
  if (!cached) {
    const { rows } = await app.db.query<SessionRow>(
      `SELECT s.id AS session_id, s.user_id, u.actor, u.login_id, u.name, u.group_id, u.disabled,
              extract(epoch FROM s.expires_at - now()) * 1000 AS expires_in_ms,
              extract(epoch FROM now() - s.last_seen_at) * 1000 AS last_seen_ago_ms, s.phone_test_id
         FROM sessions s JOIN users u ON u.id = s.user_id
        WHERE s.token_hash = $1 AND s.revoked_at IS NULL AND s.expires_at > now()`,
      [hash],
      { genericPlan: true },
    );
    const row = rows[0];
    if (!row || row.disabled) return null;
    const ctx: AuthContext = {
      userId: row.user_id,
      sessionId: row.session_id,
      actor: row.actor,
      loginId: row.login_id,
      name: row.name,
      groupId: row.group_id,
      phoneTestId: row.phone_test_id === null ? null : Number(row.phone_test_id),
    };
    cached = app.authCache.keepSession(key, ctx, Number(row.expires_in_ms), Number(row.last_seen_ago_ms));
  }
  const t = performance.now();
  // Managers' sessions also end after an idle period (perf-reliability §5: 30 min).
  if (cached.ctx.actor >= 3 && t - cached.lastSeenAt > app.config.managerIdleSeconds * 1000) return null;
  if (t - cached.lastSeenAt > SESSION_TOUCH_SECONDS * 1000) {
    app.sessionToucher.touch(cached.ctx.sessionId);
    cached.lastSeenAt = t;
  }
  return cached.ctx;
}

/**
 * The 401 for a request without a live session. A token whose session was ended on purpose says why, so the
 * page can tell the person in words: superseded by a login in another window, or ended by the server.
 */
async function unauthorized(app: FastifyInstance, request: FastifyRequest): Promise<ApiError> {
  const token = bearer(request);
  if (token) {
    const { rows } = await app.db.query<{ revoke_reason: string | null }>(
      `SELECT revoke_reason FROM sessions WHERE token_hash = $1 AND revoked_at IS NOT NULL`,
      [hashToken(token)],
    );
    const reason = rows[0]?.revoke_reason;
    if (reason === 'phone_replaced')
      return new ApiError(
        401,
        'phone_replaced',
        'Another phone was paired with this exam in place of this one.',
      );
    if (reason === 'superseded')
      return new ApiError(
        401,
        'session_superseded',
        'This session ended because the examinee logged in again in another window or browser.',
      );
    if (reason && reason !== 'logout')
      return new ApiError(401, 'session_ended', `The session was ended (${reason.replace(/_/g, ' ')}).`);
  }
  return new ApiError(401, 'unauthorized', 'Login required, or the session has expired.');
}

/**
 * Every /api route declares `config.access`: 'public' or the actors allowed ('phone' for the paired phone of a
 * sitting). A route without it fails at start-up, so no endpoint can be added without deciding who may call it.
 * A phone session is refused everywhere its access does not name 'phone', and is nobody on a public route.
 */
export const authPlugin = fp(async (app: FastifyInstance) => {
  app.decorateRequest('auth', null);
  const cache = new AuthCache(app.config.sessionCacheSeconds * 1000);
  const toucher = new SessionToucher(app.db, 1000, (err) => app.log.warn({ err }, 'session touch failed'));
  app.decorate('authCache', cache);
  app.decorate('sessionToucher', toucher);
  await cache.start(app.db);
  app.addHook('onClose', async () => {
    await cache.stop();
    await toucher.flush();
  });

  app.addHook('onRoute', (route) => {
    if (!route.url.startsWith('/api/')) return;
    if (route.method === 'HEAD' || route.method === 'OPTIONS') return;
    if (!route.config || route.config.access === undefined) {
      throw new Error(`Route ${String(route.method)} ${route.url} does not declare config.access`);
    }
  });

  // onRequest, before the body is read or validated: a call without a valid token is a 401 whatever its body,
  // and a caller without the right role or address learns nothing about what the route would accept.
  app.addHook('onRequest', async (request) => {
    const access = request.routeOptions.config?.access;
    if (access === undefined) return;
    request.auth = await resolveAuth(app, request);
    const phone = request.auth?.phoneTestId != null;
    if (access === 'public') {
      if (phone) request.auth = null;
      return;
    }
    if (!request.auth) throw await unauthorized(app, request);
    if (!access.includes(phone ? 'phone' : request.auth.actor)) {
      throw new ApiError(403, 'forbidden', 'This endpoint is not available to your role.');
    }
    if (request.auth.actor !== 1 && !request.routeOptions.config?.skipIpLimit) {
      const ok = await checkIpAllowed(app, request.auth.actor, request.ip);
      if (!ok) throw new ApiError(403, 'ip_not_allowed', 'Access from this IP address is not allowed.');
    }
  });
});
