import { MATCHING_STATUS } from '../../../../contract/matching';
import type { McTokenRedeemResult } from '../../../../contract/tester';
import type { Db } from '../../db/db';
import { ApiError } from '../api-error';
import { logExamineeEvent, startupOf, startupText } from '../sittings/sittings';
import { hashToken, newToken } from '../tokens';

/** How long a get_mc_token token may wait before it is used. */
export const MC_TOKEN_TTL_SECONDS = 5 * 60;

/** Issues a one-time token bound to a sitting; only its hash is stored. Returns the token text. */
export async function issueMcToken(
  db: Db,
  o: { testId: number; userId: number; mode: 1 | 2 },
): Promise<string> {
  const token = newToken();
  await db.query(
    `INSERT INTO mc_tokens (token_hash, test_id, user_id, mode, expires_at)
     VALUES ($1, $2, $3, $4, now() + $5::int * interval '1 second')`,
    [hashToken(token), o.testId, o.userId, o.mode, MC_TOKEN_TTL_SECONDS],
  );
  return token;
}

/** One link at a time: the sitting's tokens not yet used stop working (a new one is about to be issued). */
export async function expireUnusedMcTokens(db: Db, testId: number): Promise<void> {
  await db.query(`UPDATE mc_tokens SET expires_at = now() WHERE test_id = $1 AND used_at IS NULL`, [testId]);
}

/** Withdraws the sitting's live unused token (issued for an exam URL that turned out unusable). */
export async function withdrawUnusedMcTokens(db: Db, testId: number): Promise<void> {
  await db.query(`DELETE FROM mc_tokens WHERE test_id = $1 AND used_at IS NULL AND expires_at > now()`, [
    testId,
  ]);
}

/** What a spent token was bound to. */
export interface McTokenGrant {
  testId: number;
  userId: number;
  mode: 1 | 2;
}

/**
 * Spends a token (for the exam page that receives it): returns its grant once, then null forever; null for
 * an unknown or expired token, or when the sitting is finished.
 */
export async function consumeMcToken(db: Db, token: string): Promise<McTokenGrant | null> {
  if (!/^[A-Za-z0-9_-]{20,200}$/.test(token)) return null;
  const { rows } = await db.query<{ test_id: number; user_id: number; mode: 1 | 2 }>(
    `UPDATE mc_tokens m SET used_at = now()
      WHERE m.token_hash = $1 AND m.used_at IS NULL AND m.expires_at > now()
        AND EXISTS (SELECT 1 FROM tests t WHERE t.id = m.test_id AND t.status < 7)
      RETURNING m.test_id, m.user_id, m.mode`,
    [hashToken(token)],
  );
  const r = rows[0];
  return r ? { testId: r.test_id, userId: r.user_id, mode: r.mode } : null;
}

/**
 * The exam system's side of a token (redeem_mc_token.php, and the demo exam's own back end): spends it and says
 * who the examinee is, which exam, in which language (start-up lang, 'ja' by default), and whether a checker
 * watches now. Null for a used, expired, unknown or finished-sitting token. The redemption is logged.
 */
export async function redeemMcToken(db: Db, token: string): Promise<McTokenRedeemResult | null> {
  const grant = await consumeMcToken(db, token);
  if (!grant) return null;
  const { rows } = await db.query<{
    login_id: string;
    name: string;
    test_name: string;
    status: number;
    startup_parameters: Record<string, unknown> | string | null;
    checker_id: number | null;
    matching_status: number | null;
  }>(
    `SELECT u.login_id, u.name, t.test_name, t.status, t.startup_parameters, m.checker_id, m.matching_status
       FROM tests t JOIN users u ON u.id = t.user_id
       LEFT JOIN matchings m ON m.test_id = t.id AND m.deleted_at IS NULL
      WHERE t.id = $1`,
    [grant.testId],
  );
  const r = rows[0]!;
  await logExamineeEvent(db, grant.testId, 'exam_system_login', `mode ${grant.mode}`);
  return {
    mode: grant.mode,
    test_id: grant.testId,
    login_id: r.login_id,
    exam_user_name: r.name,
    test_name: r.test_name,
    tester_status: r.status,
    lang: startupText(startupOf(r), 'lang') === 'en' ? 'en' : 'ja',
    proctoring: {
      matched: r.checker_id !== null,
      connected: r.matching_status === MATCHING_STATUS.connected,
    },
  };
}

/** The answer for a token that cannot be redeemed (410 mc_token_invalid). */
export function mcTokenInvalid(): ApiError {
  return new ApiError(
    410,
    'mc_token_invalid',
    'This exam-system link was already used, has expired, or belongs to a finished sitting.',
  );
}
