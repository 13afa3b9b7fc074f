import type { Db } from '../db/db';
import { hashToken, newToken } from './tokens';

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
