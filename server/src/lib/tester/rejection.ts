import { ACTOR } from '../../../../contract/common';
import { MESSAGE_COMMANDS, MESSAGE_TYPE, SEND_TYPE } from '../../../../contract/messages';
import type { Db } from '../../db/db';
import { ApiError } from '../api-error';
import type { AuthContext } from '../app-types';
import { findOpenSitting, insertMessage, logExamineeEvent } from '../sittings/sittings';

/**
 * Rejects the tester's identity (1) or lifts the rejection (0) on its open sitting and account (409 when it
 * has no open sitting); a rejection tells the examinee. Returns the sitting's id.
 */
export async function setRejection(
  db: Db,
  testerId: number,
  rejected: 0 | 1,
  by: Pick<AuthContext, 'actor' | 'userId' | 'loginId'>,
): Promise<number> {
  return db.transaction(async (tx) => {
    const s = await findOpenSitting(tx, testerId);
    if (!s) throw new ApiError(409, 'conflict', 'The tester has no open sitting.');
    await tx.query(`UPDATE tests SET rejected = $2, updated_at = now() WHERE id = $1`, [s.id, rejected]);
    await tx.query(`UPDATE users SET rejected = $2, updated_at = now() WHERE id = $1`, [testerId, rejected]);
    await logExamineeEvent(tx, s.id, rejected ? 'rejected' : 'rejection_lifted', `by ${by.loginId}`);
    if (rejected) {
      await insertMessage(tx, {
        testId: s.id,
        testerId,
        checkerId: by.actor === ACTOR.checker ? by.userId : null,
        sendType: SEND_TYPE.checker,
        messageType: MESSAGE_TYPE.identificationByChecker,
        kind: 'command',
        message: MESSAGE_COMMANDS.rejected,
      });
    }
    return s.id;
  });
}
