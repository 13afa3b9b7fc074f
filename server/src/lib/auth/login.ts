import { TESTER_STATUS } from '../../../../contract/tester';
import { ACTOR, type Actor } from '../../../../contract/common';
import type { Db } from '../../db/db';
import { ApiError } from '../api-error';
import { testerUrlParameters } from '../management/short-url-store';
import { revokeUserSessions } from '../sitting-exit';
import { hashToken, newToken } from '../tokens';

/** The account a login names, with its group. */
export interface LoginUser {
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

/** The account with this login id, or undefined. */
export async function findLoginUser(db: Db, loginId: string): Promise<LoginUser | undefined> {
  const { rows } = await db.query<LoginUser>(
    `SELECT u.id, u.login_id, u.password_hash, u.actor, u.name, u.group_id, g.code AS group_code, g.name AS group_name, u.kicked, u.disabled
       FROM users u LEFT JOIN exam_groups g ON g.id = u.group_id
      WHERE u.login_id = $1`,
    [loginId],
  );
  return rows[0];
}

/** The start-up parameters of a short URL, and its key. */
interface BoundParameters {
  urlKey: string;
  params: Record<string, unknown>;
}

function text(v: unknown): string {
  return typeof v === 'string' ? v.slice(0, 200) : typeof v === 'number' ? String(v) : '';
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
    const params = await testerUrlParameters(tx, key);
    if (!params) continue;
    const urlGroup = text(params.group).trim();
    if (urlGroup !== '' && urlGroup !== (groupCode ?? '')) {
      if (key === urlKey) return { bound: null, wrongGroup: true };
      continue;
    }
    return { bound: { urlKey: key, params }, wrongGroup: false };
  }
  return { bound: null, wrongGroup: false };
}

interface OpenSitting {
  id: number;
  kicked: number;
  status: number;
  url_key: string | null;
  bound: boolean;
}

/** What a login did to the tester's sitting. */
export interface SittingLogin {
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
  user: LoginUser,
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
    return {
      testId: 0,
      kicked: 0,
      status: TESTER_STATUS.none,
      resumed: false,
      rebindRefused: null,
      wrongGroup: true,
    };
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

/** A session a login opened: its bearer token, and for a tester the sitting and whether it is kicked out. */
export interface LoginSession {
  token: string;
  /** A tester: 1 when its account or sitting is kicked out, else 0; null for other actors. */
  kicked: number | null;
  sitting: SittingLogin | null;
}

/**
 * Opens a session for a user whose password was verified: clears its failed logins, stores the session (its
 * token's hash only), and for a tester opens or continues its sitting (one live session per sitting: the
 * older window is told it was superseded). 403 `startup_group_mismatch` when the tester URL the login came
 * through is for another exam group.
 */
export async function openLoginSession(
  db: Db,
  user: LoginUser,
  o: {
    loginId: string;
    ip: string;
    ttlSeconds: number;
    urlKey: string | undefined;
    defaultTesterUrlKey: string;
  },
): Promise<LoginSession> {
  const token = newToken();
  return db.transaction(async (tx) => {
    // Serialises concurrent logins of one account (one open sitting per tester).
    await tx.query(`SELECT id FROM users WHERE id = $1 FOR UPDATE`, [user.id]);
    await tx.query(`DELETE FROM login_failures WHERE login_id = $1`, [o.loginId]);
    const session = await tx.query<{ id: number }>(
      `INSERT INTO sessions (user_id, token_hash, ip, expires_at)
       VALUES ($1, $2, $3, now() + $4::int * interval '1 second') RETURNING id`,
      [user.id, hashToken(token), o.ip, o.ttlSeconds],
    );
    let kicked: number | null = null;
    let sitting: SittingLogin | null = null;
    if (user.actor === ACTOR.tester) {
      const { bound, wrongGroup } = await testerStartupParameters(
        tx,
        o.urlKey,
        o.defaultTesterUrlKey,
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
    return { token, kicked, sitting };
  });
}
