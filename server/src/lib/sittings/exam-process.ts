import {
  EXAM_PROCESS,
  TEST_STATUS,
  type TestStatusBody,
  type TestStatusResult,
} from '../../../../contract/tester';
import type { Db } from '../../db/db';
import { ApiError } from '../api-error';

/**
 * spec §3: exam process code → test state. start → START, restart → RESUME, stop → END,
 * suspend → INTERRUPTION, relogin → RESUME (the examinee came back to a running exam).
 */
const PROCESS_TO_TEST_STATUS: Readonly<Record<number, number>> = {
  [EXAM_PROCESS.start]: TEST_STATUS.start,
  [EXAM_PROCESS.restart]: TEST_STATUS.resume,
  [EXAM_PROCESS.stop]: TEST_STATUS.end,
  [EXAM_PROCESS.suspend]: TEST_STATUS.interruption,
  [EXAM_PROCESS.relogin]: TEST_STATUS.resume,
};

/**
 * Records the exam process of the tester's own open sitting (409 when none). `source` tells the two calls
 * apart in the examinee log: 'test' (the proctoring page's own process) or 'exam' (the external exam
 * system's status).
 *
 * One statement, no transaction: the update of the newest open sitting and its examinee log line are written
 * together or not at all (a data-modifying WITH), and the row lock the update takes serialises it with a
 * concurrent status change as the former SELECT … FOR UPDATE did (a sitting closed meanwhile fails the re-checked
 * `status < 7` and the call is a 409).
 */
export async function recordExamProcess(
  db: Db,
  testerId: number,
  b: TestStatusBody,
  source: 'test' | 'exam',
): Promise<TestStatusResult> {
  const testStatus = PROCESS_TO_TEST_STATUS[b.process]!;
  // group_id / group are accepted but not applied: a tester must not move its sitting to another group
  // (that would change which test manager can see it). test_name and region fill in only what the start-up
  // parameters left empty: an exam's name and venue fixed by its short URL are not the examinee's to change.
  const { rows } = await db.query<{ id: number }>(
    `WITH s AS (
       UPDATE tests SET exam_process = $2::smallint, test_status = $3::smallint,
              term_set_code = coalesce(nullif($4, ''), term_set_code),
              eai = coalesce(nullif($5, ''), eai),
              test_name = CASE WHEN test_name = '' THEN $6 ELSE test_name END,
              region = CASE WHEN region = '' THEN $7 ELSE region END,
              test_at = CASE WHEN $2::smallint = 0 THEN coalesce(test_at, now()) ELSE test_at END,
              updated_at = now()
        WHERE id = (SELECT id FROM tests WHERE user_id = $1 AND status < 7 ORDER BY id DESC LIMIT 1)
          AND status < 7
        RETURNING id),
     logged AS (INSERT INTO examinee_logs (test_id, event, detail) SELECT id, $8::text, $9::text FROM s)
     SELECT id FROM s`,
    [
      testerId,
      b.process,
      testStatus,
      b.term_set_code ?? '',
      b.eai ?? '',
      b.test_name ?? '',
      b.region ?? '',
      `${source}_status`,
      `process=${b.process} test_status=${testStatus}`,
    ],
  );
  const s = rows[0];
  if (!s)
    throw new ApiError(409, 'invalid_transition', 'The exam is finished or the tester is not logged in.');
  return { test_id: s.id, test_status: testStatus, exam_process: b.process };
}
