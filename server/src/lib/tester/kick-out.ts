import { ACTOR } from '../../../../contract/common';
import { MESSAGE_COMMANDS, MESSAGE_TYPE, SEND_TYPE } from '../../../../contract/messages';
import type { KickOutBody, KickOutResult } from '../../../../contract/tester';
import type { Db } from '../../db/db';
import type { AuthContext } from '../app-types';
import {
  endTesterMatching,
  endTesterMatchingOnExit,
  revokeUserSessions,
  scheduleAbandonedFinalize,
  scheduleRecordingFinalize,
} from '../sitting-exit';
import { findCurrentSitting, findOpenSitting, insertMessage, logExamineeEvent } from '../sittings/sittings';

/**
 * Applies a tester/kick_out.php method to the tester's sitting (the caller has checked who may send which):
 * PUT kicks out, PUT_MYSELF / PUT_MYSELF_AI are the examinee's own exits, DELETE lifts a kick-out, DISCONNECT
 * says the examinee's window is going away.
 */
export async function kickOut(
  db: Db,
  testerId: number,
  method: KickOutBody['method'],
  by: Pick<AuthContext, 'actor' | 'userId' | 'loginId'>,
): Promise<KickOutResult> {
  return db.transaction(async (tx): Promise<KickOutResult> => {
    const s = await findOpenSitting(tx, testerId);
    const testId = s?.id ?? null;
    let kicked = 0;
    switch (method) {
      case 'PUT': {
        // spec §4 kick-out: flag the sitting and the account, end the matching, tell the examinee. The
        // examinee's session stays, so its page can still send the recording it holds; the server completes
        // the recording with what it has after a grace period in any case.
        await tx.query(`UPDATE users SET kicked = 1, updated_at = now() WHERE id = $1`, [testerId]);
        if (s) {
          await tx.query(`UPDATE tests SET kicked = 1, updated_at = now() WHERE id = $1`, [s.id]);
          await insertMessage(tx, {
            testId: s.id,
            testerId,
            checkerId: by.actor === ACTOR.checker ? by.userId : null,
            sendType: SEND_TYPE.checker,
            messageType: MESSAGE_TYPE.monitoring,
            kind: 'command',
            message: MESSAGE_COMMANDS.kickOut,
          });
          await logExamineeEvent(tx, s.id, 'kicked', `by ${by.loginId}`);
          await scheduleRecordingFinalize(tx, s.id);
        }
        await endTesterMatching(tx, testerId, 'kicked');
        kicked = 1;
        break;
      }
      case 'PUT_MYSELF':
      case 'PUT_MYSELF_AI': {
        // spec §4 window exit modes: a self kick-out replaces the logout call, so it ends the examinee's
        // sessions. The AI variant (the AI identity policy is a forced logout) also flags the sitting kicked,
        // so a person reviews it before the examinee may continue.
        const ai = method === 'PUT_MYSELF_AI';
        if (s) {
          await tx.query(
            `UPDATE tests SET logout_at = now(), kicked = CASE WHEN $2 THEN 1 ELSE kicked END, updated_at = now() WHERE id = $1`,
            [s.id, ai],
          );
          await logExamineeEvent(tx, s.id, 'logout', ai ? 'self_kick_out_ai' : 'self_kick_out');
          await scheduleRecordingFinalize(tx, s.id);
          kicked = ai ? 1 : s.kicked;
        }
        if (ai) await tx.query(`UPDATE users SET kicked = 1, updated_at = now() WHERE id = $1`, [testerId]);
        await endTesterMatchingOnExit(tx, testerId, ai ? 'ai_forced_logout' : 'logout');
        await revokeUserSessions(tx, testerId, ai ? 'ai_forced_logout' : 'self_kick_out');
        break;
      }
      case 'DELETE': {
        await tx.query(`UPDATE users SET kicked = 0, updated_at = now() WHERE id = $1`, [testerId]);
        const cur = s ?? (await findCurrentSitting(tx, testerId));
        if (cur) {
          await tx.query(`UPDATE tests SET kicked = 0, updated_at = now() WHERE id = $1`, [cur.id]);
          await logExamineeEvent(tx, cur.id, 'kick_lifted', `by ${by.loginId}`);
        }
        return { tester_id: testerId, test_id: cur?.id ?? null, method, kicked: 0 };
      }
      case 'DISCONNECT': {
        // spec §4 disconnect: the examinee's window is closing (or reloading). The checker sees it at once;
        // a page that comes back (reload, new login) is queued again and goes back to the same checker if
        // it has room.
        if (s) {
          await logExamineeEvent(tx, s.id, 'disconnect');
          kicked = s.kicked;
          await scheduleAbandonedFinalize(tx, [s.id]);
        }
        await endTesterMatching(tx, testerId, 'window_closed');
        break;
      }
    }
    return { tester_id: testerId, test_id: testId, method, kicked };
  });
}
