import { ACTOR } from '../../../../contract/common';
import type { Db } from '../../db/db';
import type { AuthContext } from '../app-types';
import { endTesterMatchingOnExit, revokeUserSessions, scheduleRecordingFinalize } from '../sitting-exit';

/**
 * Ends the caller's session (logout.php). An examinee leaves its sitting: the logout is logged on it, the
 * checker sees it at once, its other windows end too, and a recording the page could not finish is completed
 * from what the store holds. A checker stops counting as present at once.
 */
export async function logOut(
  db: Db,
  auth: Pick<AuthContext, 'sessionId' | 'userId' | 'actor'>,
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(
      `UPDATE sessions SET revoked_at = now(), revoke_reason = 'logout' WHERE id = $1 AND revoked_at IS NULL`,
      [auth.sessionId],
    );
    if (auth.actor === ACTOR.tester) {
      // spec §4: examinee log event 'logout' on the sitting the tester is in (the newest one).
      const t = await tx.query<{ id: number; status: number }>(
        `UPDATE tests SET logout_at = now(), updated_at = now()
          WHERE id = (SELECT id FROM tests WHERE user_id = $1 ORDER BY (status < 7) DESC, id DESC LIMIT 1)
          RETURNING id, status`,
        [auth.userId],
      );
      if (t.rows[0])
        await tx.query(`INSERT INTO examinee_logs (test_id, event) VALUES ($1, 'logout')`, [t.rows[0].id]);
      // The examinee has left: the checker sees it at once (not after the tester-timeout sweep), and no
      // other window of the same examinee can bring the sitting back into the queue. A logout sent as the page
      // went, right behind that page's DISCONNECT, is still what the checker is told.
      await endTesterMatchingOnExit(tx, auth.userId, 'logout');
      await revokeUserSessions(tx, auth.userId, 'logout');
      // A recording the page could not finish before logging out is completed from what the store holds.
      if (t.rows[0]) await scheduleRecordingFinalize(tx, t.rows[0].id);
      await tx.query(`UPDATE users SET updated_at = now() WHERE id = $1`, [auth.userId]);
    } else {
      await tx.query(`UPDATE users SET status = 0, updated_at = now() WHERE id = $1`, [auth.userId]);
      // A checker who logs out is silent from now on: its examinees go back to waiting at the next sweep
      // instead of after 3 × matchingTimeout (spec §2: the logout warns that connections will be cut).
      if (auth.actor === ACTOR.checker) {
        await tx.query(`UPDATE checker_presence SET stale_at = now() WHERE checker_id = $1`, [auth.userId]);
      }
    }
  });
}
