import { LoginBody, LoginResult, LogoutQuery } from '../../../../../../contract/auth';
import { ALL_ACTORS, Envelope, type Actor } from '../../../../../../contract/common';
import { checkIpAllowed } from '../../../../lib/access-limits';
import { loginIpLimit, reserveLoginAttempt } from '../../../../lib/auth/login-guard';
import { ApiError } from '../../../../lib/api-error';
import type { App } from '../../../../lib/app-types';
import { audit } from '../../../../lib/audit';
import { dummyHash, verifyPassword } from '../../../../lib/passwords';
import {
  endTesterMatching,
  revokeUserSessions,
  scheduleRecordingFinalize,
} from '../../../../lib/sitting-exit';
import { hashToken, newToken } from '../../../../lib/tokens';
import type { Db } from '../../../../db/db';
import { revokeEndedSignaling } from '../../../../lib/matching-channels';

interface UserRow {
  id: number;
  login_id: string;
  password_hash: string;
  actor: Actor;
  name: string;
  group_id: number | null;
  group_code: string | null;
  group_name: string | null;
  kicked: number;
  disabled: boolean;
}

const LOGIN_FAILED = 'The login ID or password is incorrect.';

function lockedError(retryAfterSeconds: number): ApiError {
  const s = Math.max(1, Math.ceil(retryAfterSeconds));
  return new ApiError(429, 'account_locked', `Too many failed logins. Try again in ${s} seconds.`, {
    'Retry-After': String(s),
  });
}

/** The start-up parameters of a short URL, and its key. */
interface BoundParameters {
  urlKey: string;
  params: Record<string, unknown>;
}

/**
 * The start-up parameters a new sitting is bound to: those of the short URL the start-up came through (when it
 * is a tester URL), else those of the configured default tester URL. Never the browser's own query, which the
 * examinee could edit to switch recording or proctoring off. A URL bound to an exam group (param `group`) serves
 * only that group's examinees: the URL the login names is then refused (`wrongGroup`), the default one skipped.
 */
async function testerStartupParameters(
  tx: Db,
  urlKey: string | undefined,
  fallbackKey: string,
  groupCode: string | null,
): Promise<{ bound: BoundParameters | null; wrongGroup: boolean }> {
  for (const key of [urlKey, fallbackKey]) {
    if (!key) continue;
    const { rows } = await tx.query<{ param: Record<string, unknown> | string }>(
      `SELECT param FROM short_urls WHERE url_key = $1 AND actor = 1`,
      [key],
    );
    const row = rows[0];
    if (!row) continue;
    const params =
      typeof row.param === 'string' ? (JSON.parse(row.param) as Record<string, unknown>) : row.param;
    const urlGroup = text(params.group).trim();
    if (urlGroup !== '' && urlGroup !== (groupCode ?? '')) {
      if (key === urlKey) return { bound: null, wrongGroup: true };
      continue;
    }
    return { bound: { urlKey: key, params }, wrongGroup: false };
  }
  return { bound: null, wrongGroup: false };
}

function text(v: unknown): string {
  return typeof v === 'string' ? v.slice(0, 200) : typeof v === 'number' ? String(v) : '';
}

interface OpenSitting {
  id: number;
  kicked: number;
  status: number;
  url_key: string | null;
  bound: boolean;
}

/** What a login did to the tester's sitting. */
interface SittingLogin {
  testId: number;
  kicked: number;
  status: number;
  /** The login came back to a sitting that was already open (a new tab, a crash, a reload, a JT start-up). */
  resumed: boolean;
  /** The login named another tester URL than the one the open sitting is bound to; the binding was kept. */
  rebindRefused: string | null;
  /** The URL is bound to another exam group: no sitting was opened. */
  wrongGroup?: boolean;
}

/**
 * Opens the tester's sitting, or continues the open one (the newest `tests` row not finished, status < 7).
 *
 * A new sitting starts at 1 (login) and is bound to the start-up parameters of `bound`: the exam's name,
 * venue and date come from them (spec §3: exam_name, region, exam_datetime); the sitting's exam_name column
 * holds the examinee's name (the search of spec §2 filters examinees by it).
 *
 * An open sitting is continued as it stands: its state (an examinee at 5 examing stays at 5), its matching,
 * its kick-out and rejection, and the start-up parameters it was first bound to — a login through another
 * short URL never rebinds proctoring, recording, identity checking or AI settings. Only a sitting that was
 * never bound (opened before any tester URL existed) takes the parameters now.
 */
async function openTesterSitting(
  tx: Db,
  user: UserRow,
  bound: BoundParameters | null,
  wrongGroup: boolean,
): Promise<SittingLogin> {
  const open = await tx.query<OpenSitting>(
    `SELECT id, kicked, status, url_key,
            (startup_parameters IS NOT NULL AND startup_parameters <> '{}'::jsonb) AS bound
       FROM tests WHERE user_id = $1 AND status < 7 ORDER BY id DESC LIMIT 1 FOR UPDATE`,
    [user.id],
  );
  let sitting = open.rows[0];
  const resumed = sitting !== undefined;
  // A tester URL bound to another exam group starts no sitting (an open one simply goes on, as bound).
  if (!resumed && wrongGroup) {
    return { testId: 0, kicked: 0, status: 0, resumed: false, rebindRefused: null, wrongGroup: true };
  }
  if (!sitting) {
    const created = await tx.query<OpenSitting>(
      `INSERT INTO tests (user_id, group_id, login_id, exam_name, status, test_at)
       VALUES ($1, $2, $3, $4, 1, now()) RETURNING id, kicked, status, url_key, false AS bound`,
      [user.id, user.group_id, user.login_id, user.name],
    );
    sitting = created.rows[0]!;
  }
  let rebindRefused: string | null = null;
  if (bound && !sitting.bound) {
    const p = bound.params;
    const examAt = Date.parse(text(p.exam_datetime));
    await tx.query(
      `UPDATE tests SET startup_parameters = $2::jsonb, url_key = $3, test_name = $4, region = $5,
              test_at = coalesce($6::timestamptz, test_at), is_mc_startup = $7
        WHERE id = $1`,
      [
        sitting.id,
        JSON.stringify(p),
        bound.urlKey,
        text(p.exam_name),
        text(p.region),
        Number.isNaN(examAt) ? null : new Date(examAt).toISOString(),
        Number(p.is_mc_startup) === 0 ? 0 : 1,
      ],
    );
  } else if (bound && sitting.url_key !== bound.urlKey) {
    rebindRefused = bound.urlKey;
  }
  await tx.query(`UPDATE tests SET login_at = now(), updated_at = now() WHERE id = $1`, [sitting.id]);
  await tx.query(`INSERT INTO examinee_logs (test_id, event, detail) VALUES ($1, $2, $3)`, [
    sitting.id,
    resumed ? 'relogin' : 'login',
    resumed ? `state ${sitting.status}` : '',
  ]);
  return { testId: sitting.id, kicked: sitting.kicked, status: sitting.status, resumed, rebindRefused };
}

/** login.php and logout.php (spec §7). */
export default async function authRoutes(app: App): Promise<void> {
  app.post(
    '/login.php',
    {
      config: { access: 'public' },
      // perf-reliability §5: a per-IP limit in front of the per-account lockout (in the database).
      onRequest: loginIpLimit(app),
      schema: { body: LoginBody, response: { 200: Envelope(LoginResult) } },
    },
    async (request, reply) => {
      // spec §5: the login id is trimmed of whitespace.
      const loginId = request.body.login_id.trim();
      if (!loginId) throw new ApiError(400, 'validation', 'login_id is required.');
      const ip = request.ip;

      const attempt = await reserveLoginAttempt(app, loginId);
      if (!attempt.admitted) {
        await audit(app.db, { type: 'auth.login_locked', loginId, ip, level: 'warn' });
        throw lockedError(attempt.lockSeconds);
      }

      const { rows } = await app.db.query<UserRow>(
        `SELECT u.id, u.login_id, u.password_hash, u.actor, u.name, u.group_id, g.code AS group_code, g.name AS group_name, u.kicked, u.disabled
           FROM users u LEFT JOIN exam_groups g ON g.id = u.group_id
          WHERE u.login_id = $1`,
        [loginId],
      );
      const user = rows[0];
      // An unknown id still costs one Argon2id verification, so timing does not reveal which ids exist.
      const passwordOk = await verifyPassword(
        user?.password_hash ?? (await dummyHash()),
        request.body.password,
      );
      if (!user || !passwordOk || user.disabled) {
        if (attempt.locksOnFailure) {
          await audit(app.db, {
            type: 'auth.lockout',
            userId: user?.id,
            actor: user?.actor,
            loginId,
            ip,
            level: 'warn',
          });
          throw lockedError(attempt.lockSeconds);
        }
        await audit(app.db, {
          type: 'auth.login_failed',
          userId: user?.id,
          actor: user?.actor,
          loginId,
          ip,
          level: 'warn',
        });
        throw new ApiError(401, 'login_failed', LOGIN_FAILED);
      }

      // spec §3 "Access limit": actors 2–5 may be limited to listed IPs, at login as on every call.
      if (user.actor !== 1 && !(await checkIpAllowed(app, user.actor, ip))) {
        await audit(app.db, {
          type: 'auth.ip_denied',
          userId: user.id,
          actor: user.actor,
          loginId,
          ip,
          level: 'warn',
        });
        throw new ApiError(403, 'ip_not_allowed', 'Access from this IP address is not allowed.');
      }

      const token = newToken();
      const result = await app.db.transaction(async (tx) => {
        // Serialises concurrent logins of one account (one open sitting per tester).
        await tx.query(`SELECT id FROM users WHERE id = $1 FOR UPDATE`, [user.id]);
        await tx.query(`DELETE FROM login_failures WHERE login_id = $1`, [loginId]);
        const session = await tx.query<{ id: number }>(
          `INSERT INTO sessions (user_id, token_hash, ip, expires_at)
           VALUES ($1, $2, $3, now() + $4::int * interval '1 second') RETURNING id`,
          [user.id, hashToken(token), ip, app.config.tokenTtlSeconds],
        );
        let kicked: number | null = null;
        let sitting: SittingLogin | null = null;
        if (user.actor === 1) {
          const { bound, wrongGroup } = await testerStartupParameters(
            tx,
            request.body.url_key,
            app.config.defaultTesterUrlKey,
            user.group_code,
          );
          sitting = await openTesterSitting(tx, user, bound, wrongGroup);
          if (sitting.wrongGroup) {
            throw new ApiError(
              403,
              'startup_group_mismatch',
              'This start-up URL is for another exam group; use the one your exam group gave you.',
            );
          }
          kicked = Math.max(user.kicked, sitting.kicked) > 0 ? 1 : 0;
          // One live session per sitting: the older window is told it was superseded at its next call.
          await revokeUserSessions(tx, user.id, 'superseded', session.rows[0]!.id);
          await tx.query(`UPDATE users SET status = $2, updated_at = now() WHERE id = $1`, [
            user.id,
            sitting.status,
          ]);
        } else {
          await tx.query(`UPDATE users SET status = 1, updated_at = now() WHERE id = $1`, [user.id]);
        }
        const r: LoginResult = {
          access_token: token,
          exam_user_name: user.name,
          login_id: user.login_id,
          actor: user.actor,
          kicked,
          group_id: user.group_id,
          group: user.group_name,
          group_code: user.group_code,
        };
        return { r, sitting };
      });
      if (result.sitting?.rebindRefused) {
        await audit(app.db, {
          type: 'tester.startup_rebind_refused',
          userId: user.id,
          actor: user.actor,
          loginId,
          ip,
          level: 'warn',
          target: `test:${result.sitting.testId}`,
          details: `url_key ${result.sitting.rebindRefused}`,
        });
      }
      await audit(app.db, {
        type: 'auth.login',
        userId: user.id,
        actor: user.actor,
        loginId,
        ip,
        ...(result.sitting?.resumed ? { details: `resumed test:${result.sitting.testId}` } : {}),
      });
      return reply.ok(result.r);
    },
  );

  app.post(
    '/logout.php',
    {
      // Ending one's own session is always allowed, even from an address the access limits now refuse.
      config: { access: ALL_ACTORS, skipIpLimit: true },
      schema: { querystring: LogoutQuery },
    },
    async (request, reply) => {
      const auth = request.auth!;
      await app.db.transaction(async (tx) => {
        await tx.query(
          `UPDATE sessions SET revoked_at = now(), revoke_reason = 'logout' WHERE id = $1 AND revoked_at IS NULL`,
          [auth.sessionId],
        );
        if (auth.actor === 1) {
          // spec §4: examinee log event 'logout' on the sitting the tester is in (the newest one).
          const t = await tx.query<{ id: number; status: number }>(
            `UPDATE tests SET logout_at = now(), updated_at = now()
              WHERE id = (SELECT id FROM tests WHERE user_id = $1 ORDER BY (status < 7) DESC, id DESC LIMIT 1)
              RETURNING id, status`,
            [auth.userId],
          );
          if (t.rows[0])
            await tx.query(`INSERT INTO examinee_logs (test_id, event) VALUES ($1, 'logout')`, [
              t.rows[0].id,
            ]);
          // The examinee has left: the checker sees it at once (not after the tester-timeout sweep), and no
          // other window of the same examinee can bring the sitting back into the queue.
          await endTesterMatching(tx, auth.userId, 'logout');
          await revokeUserSessions(tx, auth.userId, 'logout');
          // A recording the page could not finish before logging out is completed from what the store holds.
          if (t.rows[0]) await scheduleRecordingFinalize(tx, t.rows[0].id);
          await tx.query(`UPDATE users SET updated_at = now() WHERE id = $1`, [auth.userId]);
        } else {
          await tx.query(`UPDATE users SET status = 0, updated_at = now() WHERE id = $1`, [auth.userId]);
          // A checker who logs out is silent from now on: its examinees go back to waiting at the next sweep
          // instead of after 3 × matchingTimeout (spec §2: the logout warns that connections will be cut).
          if (auth.actor === 2) {
            await tx.query(`UPDATE checker_presence SET stale_at = now() WHERE checker_id = $1`, [
              auth.userId,
            ]);
          }
        }
      });
      await revokeEndedSignaling(app);
      await audit(app.db, {
        type: 'auth.logout',
        userId: auth.userId,
        actor: auth.actor,
        loginId: auth.loginId,
        ip: request.ip,
      });
      return reply.ok(null);
    },
  );
}
