import type { FastifyRequest } from 'fastify';
import type { Db } from '../db/db';
import { ApiError } from './api-error';
import type { App } from './app-types';

/**
 * Counts one event for `key` in its current fixed window of `windowSeconds` (started by the key's first
 * event), in one statement in the database (`rate_counters`, migration 0061), so the count is shared by
 * every server instance. Returns the events counted in the window so far (this one included) and the
 * seconds until the window ends. The per-IP login limit keeps its own table (auth/login-guard.ts).
 */
export async function countEvent(
  db: Db,
  scope: string,
  key: string,
  windowSeconds: number,
): Promise<{ events: number; retryAfter: number }> {
  const { rows } = await db.query<{ events: number; retry: number }>(
    `INSERT INTO rate_counters AS c (scope, key, window_start, events) VALUES ($1, $2, now(), 1)
     ON CONFLICT (scope, key) DO UPDATE SET
       events = CASE WHEN c.window_start <= now() - make_interval(secs => $3) THEN 1 ELSE c.events + 1 END,
       window_start = CASE WHEN c.window_start <= now() - make_interval(secs => $3) THEN now() ELSE c.window_start END
     RETURNING events,
       greatest(1, ceil(extract(epoch FROM c.window_start + make_interval(secs => $3) - now())))::int AS retry`,
    [scope, key, windowSeconds],
  );
  const r = rows[0]!;
  if (r.events === 1) {
    // A new window: forget keys quiet for an hour (the table stays the size of recent traffic).
    await db.query(
      `DELETE FROM rate_counters WHERE scope = $1 AND window_start < now() - make_interval(secs => greatest($2, 3600))`,
      [scope, windowSeconds],
    );
  }
  return { events: r.events, retryAfter: r.retry };
}

/** A limit of `max` events per `windowSeconds` for one key of a scope. */
export interface DbLimit {
  scope: string;
  max: number;
  windowSeconds: number;
  /** The 429 message. */
  message: string;
}

/** Counts one event and throws 429 `too_many_requests` (with Retry-After) past the limit. */
export async function enforceLimit(db: Db, limit: DbLimit, key: string): Promise<void> {
  const { events, retryAfter } = await countEvent(db, limit.scope, key, limit.windowSeconds);
  if (events > limit.max) {
    throw new ApiError(429, 'too_many_requests', limit.message, { 'Retry-After': String(retryAfter) });
  }
}

/**
 * An onRequest hook limiting a route per client address (request.ip: the proxy's client address with
 * TRUST_PROXY), counted in the database; it runs before the body is read, so a refused address costs
 * nothing more.
 */
export function perIpLimit(app: App, limit: DbLimit): (request: FastifyRequest) => Promise<void> {
  return (request) => enforceLimit(app.db, limit, request.ip);
}
