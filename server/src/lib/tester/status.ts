import { MESSAGE_COMMANDS, MESSAGE_TYPE, SEND_TYPE } from '../../../../contract/messages';
import { TESTER_STATUS, type TesterStatusResult } from '../../../../contract/tester';
import type { Db } from '../../db/db';
import { ApiError } from '../api-error';
import { endTesterMatching, scheduleRecordingFinalize } from '../sitting-exit';
import {
  findTesterMatching,
  insertMessage,
  kickedError,
  lockOpenSitting,
  logExamineeEvent,
  startupInt,
  startupOf,
} from '../sittings/sittings';
import { checkTransition, eventForStatus, type StatusChanger } from '../sittings/state';

/**
 * Moves the tester's open sitting to state `to` (tester/status.php) if the transition rules
 * (sittings/state.ts) let `by` make it, and writes what comes with the new state: the users row, the
 * examinee log, and for 7 the end of the matching and the recording's completion, for 3 by staff the
 * ACCEPTED marker. The same state again changes nothing (`changed` false).
 */
export async function changeTesterStatus(
  db: Db,
  c: { testerId: number; to: number; by: StatusChanger; userId: number; loginId: string },
): Promise<TesterStatusResult> {
  const { testerId, to, by } = c;
  return db.transaction(async (tx) => {
    const s = await lockOpenSitting(tx, testerId);
    if (!s)
      throw new ApiError(
        409,
        'invalid_transition',
        'The tester has no open sitting (finished or not logged in).',
      );
    if (s.kicked && by !== 'admin') throw kickedError();
    const params = startupOf(s);
    const check = checkTransition(s.status, to, by, {
      isAuth: startupInt(params, 'is_auth', 1) !== 0,
      matched: (await findTesterMatching(tx, testerId)) !== null,
      rejected: s.rejected === 1,
    });
    if (!check.ok)
      throw new ApiError(
        check.forbidden ? 403 : 409,
        check.forbidden ? 'forbidden' : 'invalid_transition',
        check.reason,
      );
    if (check.noop)
      return {
        tester_id: testerId,
        test_id: s.id,
        status: to,
        previous_status: s.status,
        changed: false,
      };

    await tx.query(
      `UPDATE tests SET status = $2::smallint, updated_at = now(),
              matched_at = CASE WHEN $2::smallint = 2 THEN coalesce(matched_at, now()) ELSE matched_at END,
              authenticated_at = CASE WHEN $2::smallint = 3 THEN now() ELSE authenticated_at END,
              stop_at = CASE WHEN $2::smallint = 7 THEN now() ELSE stop_at END
        WHERE id = $1`,
      [s.id, to],
    );
    await tx.query(`UPDATE users SET status = $2, updated_at = now() WHERE id = $1`, [testerId, to]);
    if (to === TESTER_STATUS.finishExam) {
      // The exam is over: the checker sees "finished" at once, and a recording the page does not complete
      // itself is completed by the server from what it holds.
      await endTesterMatching(tx, testerId, 'finished');
      await scheduleRecordingFinalize(tx, s.id);
    }
    const event = eventForStatus(s.status, to);
    if (event) await logExamineeEvent(tx, s.id, event, `by ${by} ${c.loginId}`);
    if (to === TESTER_STATUS.identificated && by !== 'tester') {
      // spec §4: the examinee waits for ACCEPTED, then for status IDENTIFICATED; the server sends the marker
      // whoever accepted (the matched checker, or a system manager / supervisor).
      await insertMessage(tx, {
        testId: s.id,
        testerId,
        checkerId: c.userId,
        sendType: SEND_TYPE.checker,
        messageType: MESSAGE_TYPE.identificationByChecker,
        kind: 'command',
        message: MESSAGE_COMMANDS.accepted,
      });
    }
    return { tester_id: testerId, test_id: s.id, status: to, previous_status: s.status, changed: true };
  });
}
