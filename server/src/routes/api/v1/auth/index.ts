import { LoginBody, LoginResult, LogoutQuery } from '../../../../../../contract/auth';
import { ACTOR, ALL_ACTORS, Envelope } from '../../../../../../contract/common';
import { checkIpAllowed } from '../../../../lib/access-limits';
import { ApiError } from '../../../../lib/api-error';
import type { App } from '../../../../lib/app-types';
import { audit } from '../../../../lib/audit';
import { findLoginUser, openLoginSession } from '../../../../lib/auth/login';
import { loginIpLimit, reserveLoginAttempt } from '../../../../lib/auth/login-guard';
import { logOut } from '../../../../lib/auth/logout';
import { revokeEndedSignaling } from '../../../../lib/matching-channels';
import { dummyHash, verifyPassword } from '../../../../lib/passwords';

const LOGIN_FAILED = 'The login ID or password is incorrect.';

function lockedError(retryAfterSeconds: number): ApiError {
  const s = Math.max(1, Math.ceil(retryAfterSeconds));
  return new ApiError(429, 'account_locked', `Too many failed logins. Try again in ${s} seconds.`, {
    'Retry-After': String(s),
  });
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

      const user = await findLoginUser(app.db, loginId);
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
      if (user.actor !== ACTOR.tester && !(await checkIpAllowed(app, user.actor, ip))) {
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

      const session = await openLoginSession(app.db, user, {
        loginId,
        ip,
        ttlSeconds: app.config.tokenTtlSeconds,
        urlKey: request.body.url_key,
        defaultTesterUrlKey: app.config.defaultTesterUrlKey,
      });
      app.authCache.forgetUser(user.id); // the login may have ended the user's older sessions (superseded)
      const result: LoginResult = {
        access_token: session.token,
        exam_user_name: user.name,
        login_id: user.login_id,
        actor: user.actor,
        kicked: session.kicked,
        group_id: user.group_id,
        group: user.group_name,
        group_code: user.group_code,
      };
      if (session.sitting?.rebindRefused) {
        await audit(app.db, {
          type: 'tester.startup_rebind_refused',
          userId: user.id,
          actor: user.actor,
          loginId,
          ip,
          level: 'warn',
          target: `test:${session.sitting.testId}`,
          details: `url_key ${session.sitting.rebindRefused}`,
        });
      }
      await audit(app.db, {
        type: 'auth.login',
        userId: user.id,
        actor: user.actor,
        loginId,
        ip,
        ...(session.sitting?.resumed ? { details: `resumed test:${session.sitting.testId}` } : {}),
      });
      return reply.ok(result);
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
      await logOut(app.db, auth);
      app.authCache.forgetUser(auth.userId);
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
