import type { FastifyRequest } from 'fastify';
import { ApiError } from '../api-error';
import type { App } from '../app-types';

/**
 * Login protection kept in the database, so it holds under parallel requests and across several server
 * instances on one PostgreSQL (perf-reliability §5): a per-account lockout and a per-IP limit.
 */

/** What a login attempt may do, decided before its password is checked. */
export interface LoginAttempt {
  /** False: the account is locked; do not check the password. */
  admitted: boolean;
  /** Seconds until the lock ends (when not admitted, or when this attempt locked it). */
  lockSeconds: number;
  /** This attempt was the last one allowed: if its password is wrong, the account is locked now. */
  locksOnFailure: boolean;
}

/**
 * Reserves one attempt for the account before its password is checked, atomically (a row lock): every
 * attempt counts as a failure until a success clears the count, so N parallel guesses are N counted
 * attempts, and once `maxFailures` are counted in the window the account is locked for `lockSeconds` and
 * every later attempt is refused unchecked, whatever its password. The lock is set by the reservation
 * itself, never cleared by a later failure; only a successful login (which deletes the row) or its expiry
 * ends it.
 */
export async function reserveLoginAttempt(app: App, loginId: string): Promise<LoginAttempt> {
  const { maxFailures, windowSeconds, lockSeconds } = app.config.login;
  return app.db.transaction(async (tx) => {
    await tx.query(
      `INSERT INTO login_failures (login_id, failures, window_start) VALUES ($1, 0, now())
       ON CONFLICT (login_id) DO NOTHING`,
      [loginId],
    );
    const { rows } = await tx.query<{ failures: number; stale: boolean; locked_secs: number | null }>(
      `SELECT failures, window_start <= now() - $2::int * interval '1 second' AS stale,
              CASE WHEN locked_until > now() THEN ceil(extract(epoch FROM locked_until - now()))::int END AS locked_secs
         FROM login_failures WHERE login_id = $1 FOR UPDATE`,
      [loginId, windowSeconds],
    );
    const row = rows[0]!;
    if (row.locked_secs !== null)
      return { admitted: false, lockSeconds: row.locked_secs, locksOnFailure: false };
    const failures = (row.stale ? 0 : row.failures) + 1;
    if (failures >= maxFailures) {
      // The count restarts with the lock, so the next lock needs maxFailures new attempts.
      await tx.query(
        `UPDATE login_failures SET failures = 0, window_start = now(),
                locked_until = now() + $2::int * interval '1 second'
          WHERE login_id = $1`,
        [loginId, lockSeconds],
      );
      return { admitted: true, lockSeconds, locksOnFailure: true };
    }
    await tx.query(
      `UPDATE login_failures SET failures = $2,
              window_start = CASE WHEN $3::boolean THEN now() ELSE window_start END, locked_until = NULL
        WHERE login_id = $1`,
      [loginId, failures, row.stale],
    );
    return { admitted: true, lockSeconds: 0, locksOnFailure: false };
  });
}

/**
 * The per-IP login limit (LOGIN_PER_IP_PER_MINUTE attempts per 60 s from the first one), counted in one
 * statement in the database. An onRequest hook: it runs before the body is read, so a refused address costs
 * nothing more.
 */
export function loginIpLimit(app: App): (request: FastifyRequest) => Promise<void> {
  return async (request) => {
    const max = app.config.login.perIpPerMinute;
    const { rows } = await app.db.query<{ attempts: number; retry: number }>(
      `INSERT INTO login_ip_attempts AS a (ip, window_start, attempts) VALUES ($1, now(), 1)
       ON CONFLICT (ip) DO UPDATE SET
         attempts = CASE WHEN a.window_start <= now() - interval '60 seconds' THEN 1 ELSE a.attempts + 1 END,
         window_start = CASE WHEN a.window_start <= now() - interval '60 seconds' THEN now() ELSE a.window_start END
       RETURNING attempts, greatest(1, ceil(extract(epoch FROM a.window_start + interval '60 seconds' - now())))::int AS retry`,
      [request.ip],
    );
    const r = rows[0]!;
    if (r.attempts === 1) {
      // A new window: forget addresses quiet for an hour (the table stays the size of recent traffic).
      await app.db.query(`DELETE FROM login_ip_attempts WHERE window_start < now() - interval '1 hour'`);
    }
    if (r.attempts > max) {
      throw new ApiError(
        429,
        'too_many_requests',
        `Too many login attempts from this address. Try again in ${r.retry} seconds.`,
        { 'Retry-After': String(r.retry) },
      );
    }
  };
}
