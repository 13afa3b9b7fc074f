import { ENDED_MATCHING_NOTICE_SECONDS, type MatchingEndReason } from '../../../contract/matching';
import type { Db } from '../db/db';
import { closeConnectedSql } from './matching-rows';

/**
 * The ways a live sitting's parts end, in one place, so every exit (logout, kick-out, finish, re-login, the
 * recording-time limit, the AI identity policy) leaves the matching, the sessions and the recording in the
 * same state whichever route caused it.
 */

/** Why sessions end (sessions.revoke_reason); a request with such a token is told why. */
export type SessionEndReason =
  | 'logout'
  | 'superseded'
  | 'self_kick_out'
  | 'ai_forced_logout'
  | 'recording_time_exceeded'
  | 'phone_replaced';

/**
 * Seconds a recording that the page may still be finishing (kick-out, exam end, logout) is left to it before
 * the server completes it from the parts it holds.
 */
export const RECORDING_FINALIZE_GRACE_SECONDS = 30;

/**
 * Closes the examinee's live matching at once with a reason the checker's console shows (soft delete; the
 * connected time is closed). Returns the closed matching's id, or null when there was none.
 */
export async function endTesterMatching(
  db: Db,
  testerId: number,
  reason: MatchingEndReason,
): Promise<number | null> {
  const { rows } = await db.query<{ id: number }>(
    `UPDATE matchings SET deleted_at = now(), delete_reason = $2, ${closeConnectedSql()}, connected_at = NULL,
            updated_at = now()
      WHERE tester_id = $1 AND deleted_at IS NULL
      RETURNING id`,
    [testerId, reason],
  );
  return rows[0]?.id ?? null;
}

/**
 * The examinee's own exit (logout, a self kick-out) closes the live matching with `reason`, as
 * {@link endTesterMatching}. When there is none because the page's own DISCONNECT closed it moments before (a
 * page left while its exit ran: both requests leave as the page goes, the DISCONNECT first), the matching that
 * DISCONNECT closed takes the exit's reason instead of `window_closed`, while its checker is still being told of
 * it (ENDED_MATCHING_NOTICE_SECONDS): the checker is to see what the examinee did, not "closed, maybe
 * reloading". Only the examinee's newest matching, and only one the window's DISCONNECT closed.
 */
export async function endTesterMatchingOnExit(
  db: Db,
  testerId: number,
  reason: MatchingEndReason,
): Promise<number | null> {
  const ended = await endTesterMatching(db, testerId, reason);
  if (ended !== null) return ended;
  const { rows } = await db.query<{ id: number }>(
    `UPDATE matchings SET delete_reason = $2, updated_at = now()
      WHERE id = (SELECT id FROM matchings WHERE tester_id = $1 ORDER BY id DESC LIMIT 1)
        AND delete_reason = 'window_closed' AND deleted_at > now() - $3::int * interval '1 second'
      RETURNING id`,
    [testerId, reason, ENDED_MATCHING_NOTICE_SECONDS],
  );
  return rows[0]?.id ?? null;
}

/**
 * Ends every live session of a user (optionally all but one), with the reason. Returns how many ended. The
 * sitting's paired phone keeps its session: after a login elsewhere the sitting goes on with its second camera,
 * and when the sitting ended the phone learns it from its next poll and still sends the rest of its recording
 * (its session can do nothing else). Disabling the account or a manager's forced logout ends it too.
 */
export async function revokeUserSessions(
  db: Db,
  userId: number,
  reason: SessionEndReason,
  exceptSessionId?: number,
): Promise<number> {
  const r = await db.query(
    `UPDATE sessions SET revoked_at = now(), revoke_reason = $2
      WHERE user_id = $1 AND revoked_at IS NULL AND ($3::bigint IS NULL OR id <> $3::bigint)
        AND phone_test_id IS NULL`,
    [userId, reason, exceptSessionId ?? null],
  );
  return r.rowCount;
}

/**
 * Gives the sitting's unfinished recordings to the server to complete after `graceSeconds` (the page normally
 * sends what it still holds and completes them first; then nothing is left to do). A recording already marked
 * interrupted (its page went away during a room scan or a screen share) keeps that reason.
 */
export async function scheduleRecordingFinalize(
  db: Db,
  testId: number,
  graceSeconds = RECORDING_FINALIZE_GRACE_SECONDS,
): Promise<number> {
  const r = await db.query(
    `UPDATE records SET finalize_at = least(coalesce(finalize_at, 'infinity'), now() + $2::int * interval '1 second'),
            finalize_reason = CASE WHEN finalize_reason = 'interrupted' THEN finalize_reason ELSE 'ended' END,
            updated_at = now()
      WHERE test_id = $1 AND stop_at IS NULL`,
    [testId, graceSeconds],
  );
  return r.rowCount;
}

/**
 * Minutes after the examinee's window went away (closed, no answer, connection lost) before the server completes
 * the sitting's open recordings with what it holds, unless the examinee comes back first.
 */
export const RECORDING_ABANDONED_MINUTES = 15;

/** The examinee's window went away: complete its recordings later unless it comes back (see below). */
export async function scheduleAbandonedFinalize(db: Db, testIds: readonly number[]): Promise<void> {
  if (testIds.length === 0) return;
  await db.query(
    `UPDATE records SET finalize_at = now() + $2::int * interval '1 minute', finalize_reason = 'abandoned',
            updated_at = now()
      WHERE test_id = ANY($1::bigint[]) AND stop_at IS NULL AND finalize_at IS NULL`,
    [testIds, RECORDING_ABANDONED_MINUTES],
  );
}

/** The examinee is back (a new matching): an abandoned recording is not completed behind its back. */
export async function cancelAbandonedFinalize(db: Db, testId: number): Promise<void> {
  await db.query(
    `UPDATE records SET finalize_at = NULL, finalize_reason = NULL
      WHERE test_id = $1 AND stop_at IS NULL AND finalize_reason = 'abandoned'`,
    [testId],
  );
}
