import { ACTOR } from '../../../../contract/common';
import type { Db } from '../../db/db';
import { ApiError } from '../api-error';
import type { AuthContext } from '../app-types';

/** The pass value of one test the caller may see; 404 when missing or in another group. */
export async function loadPass(db: Db, auth: AuthContext, testId: number): Promise<{ pass: number | null }> {
  const { rows } = await db.query<{ pass: number | null; group_id: number | null }>(
    'SELECT pass::int AS pass, group_id FROM tests WHERE id = $1',
    [testId],
  );
  const row = rows[0];
  // spec §6: a test manager works on their own group only; another group's test is reported as missing.
  if (
    !row ||
    (auth.actor === ACTOR.testManager && (auth.groupId === null || row.group_id !== auth.groupId))
  ) {
    throw new ApiError(404, 'test_not_found', 'No such test.');
  }
  return { pass: row.pass };
}

/** Sets a test's pass value (spec §4 "Test pass": 1 passed, 0 not). */
export async function setPass(db: Db, testId: number, pass: 0 | 1): Promise<void> {
  await db.query('UPDATE tests SET pass = $2, updated_at = now() WHERE id = $1', [testId, pass]);
}
