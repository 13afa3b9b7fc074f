import { ACTOR } from '../../../../contract/common';
import type { TesterConditionsResult } from '../../../../contract/examinees';
import type { Db } from '../../db/db';
import type { AuthContext } from '../app-types';
import { CHEATING_LEVELS } from '../cheating-level';
import { listDisplayedMarks } from '../messages/catalogue';

/**
 * The choices of the examinee search form (testers/conditions.php): groups, test names and venues the caller
 * may search (a test manager: its own group's only), marks, and the fixed lists.
 */
export async function searchConditions(db: Db, auth: AuthContext): Promise<TesterConditionsResult> {
  const scoped = auth.actor === ACTOR.testManager;
  // A test manager without a group sees nothing (group id 0 matches no row).
  const scope = scoped ? [auth.groupId ?? 0] : [];
  const where = scoped ? 'WHERE group_id = $1' : '';
  const groups = await db.query<{ id: number; code: string; name: string }>(
    `SELECT id, code, name FROM exam_groups ${scoped ? 'WHERE id = $1' : ''} ORDER BY name, id`,
    scope,
  );
  const distinct = async (col: 'test_name' | 'region') =>
    (
      await db.query<{ v: string }>(
        `SELECT DISTINCT ${col} AS v FROM tests ${where ? where + ` AND ${col} <> ''` : `WHERE ${col} <> ''`} ORDER BY 1 LIMIT 1000`,
        scope,
      )
    ).rows.map((r) => r.v);
  const marks = await listDisplayedMarks(db);
  const times: string[] = [];
  for (let m = 0; m < 24 * 60; m += 30) {
    times.push(`${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`);
  }
  const yesNo = [
    { value: 1, label: 'あり' },
    { value: 0, label: 'なし' },
  ];
  return {
    groups: groups.rows,
    test_names: await distinct('test_name'),
    regions: await distinct('region'),
    records: yesNo,
    with_marks: yesNo,
    marks,
    // Every level the definition has (README "Cheating level"), so a range can be chosen before any
    // sitting reaches it.
    cheating_level: [...CHEATING_LEVELS],
    ai_analysis_flag: [
      { value: 0, label: '未実施' },
      { value: 1, label: '実施済' },
    ],
    times,
  };
}
