import { MESSAGE_COMMANDS, MESSAGE_TYPE, SEND_TYPE } from '../../../../contract/messages';
import type { Db } from '../../db/db';
import { insertMessage } from '../sittings/sittings';
import { markingTotalScore } from './detail';

/** A marking a checker records on the sitting it is matched to (tester/markings.php). */
export interface NewMarking {
  testId: number;
  testerId: number;
  checkerId: number;
  mark: { id: number; message: string };
  /** The stored still, if one was sent. */
  imageKey: string | null;
  contentType: string | null;
  /** How long ago the moment was (ms): the marking is dated back by it. */
  timeLagMs: number;
  /** Alert the examinee with the mark's message. */
  notify: boolean;
}

/**
 * Stores a marking against the sitting's open camera recording (if any; a marking's record is the camera's),
 * re-adds the sitting's total score, and when asked alerts the examinee. Returns the marking's id and the new total.
 */
export async function saveMarking(db: Db, m: NewMarking): Promise<{ id: number; total: number }> {
  return db.transaction(async (tx) => {
    const rec = await tx.query<{ id: number }>(
      `SELECT id FROM records WHERE test_id = $1 AND stream = 'camera' AND stop_at IS NULL
        ORDER BY start_at DESC, id DESC LIMIT 1`,
      [m.testId],
    );
    const ins = await tx.query<{ id: number }>(
      `INSERT INTO markings (test_id, tester_id, checker_id, mark_id, image_key, content_type, time_lag, notification, record_id, marking_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() - $7::int * interval '1 millisecond')
       RETURNING id`,
      [
        m.testId,
        m.testerId,
        m.checkerId,
        m.mark.id,
        m.imageKey,
        m.contentType,
        m.timeLagMs,
        m.notify ? 1 : 0,
        rec.rows[0]?.id ?? null,
      ],
    );
    const total = await markingTotalScore(tx, m.testId);
    await tx.query(`UPDATE tests SET with_mark = true, total_score = $2, updated_at = now() WHERE id = $1`, [
      m.testId,
      total,
    ]);
    if (m.notify) {
      await insertMessage(tx, {
        testId: m.testId,
        testerId: m.testerId,
        checkerId: m.checkerId,
        sendType: SEND_TYPE.checker,
        messageType: MESSAGE_TYPE.monitoring,
        kind: 'command',
        message: `${MESSAGE_COMMANDS.markingAlert}:${m.mark.message}`,
      });
    }
    return { id: ins.rows[0]!.id, total };
  });
}
