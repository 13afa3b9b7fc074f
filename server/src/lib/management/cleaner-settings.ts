import { CLEANER_GROUP, type CleanerSettingRow } from '../../../../contract/management';
import type { Db } from '../../db/db';
import { sqlWireTime } from '../management-time';

const ROW_SELECT = `SELECT c.id, c.group_id, g.name AS "group", g.code AS group_code, c.duration, ${sqlWireTime('c.updated_at')} AS updated_at
  FROM cleaner_settings c LEFT JOIN exam_groups g ON g.id = c.group_id`;

/**
 * Every retention setting: the system rows first (-1, -2, -3), then the groups by name. The system rows are
 * always there (spec §2); they are re-created with the migration's defaults if removed.
 */
export async function listCleanerSettings(db: Db): Promise<CleanerSettingRow[]> {
  await db.query(
    `INSERT INTO cleaner_settings (group_id, duration) VALUES ($1, 365), ($2, 365), ($3, 1095) ON CONFLICT (group_id) DO NOTHING`,
    [CLEANER_GROUP.systemLog, CLEANER_GROUP.monitorHistory, CLEANER_GROUP.default],
  );
  const { rows } = await db.query<CleanerSettingRow>(
    `${ROW_SELECT} ORDER BY (c.group_id < 0) DESC, CASE WHEN c.group_id < 0 THEN -c.group_id END, g.name, c.id`,
  );
  return rows;
}

/** Whether an exam group with this id exists. */
export async function groupExists(db: Db, groupId: number): Promise<boolean> {
  const { rows } = await db.query('SELECT 1 FROM exam_groups WHERE id = $1', [groupId]);
  return rows.length > 0;
}

/** Adds a group's retention period; null when the group has one already. */
export async function insertCleanerSetting(
  db: Db,
  groupId: number,
  days: number,
): Promise<CleanerSettingRow | null> {
  const ins = await db.query<{ id: number }>(
    `INSERT INTO cleaner_settings (group_id, duration) VALUES ($1, $2) ON CONFLICT (group_id) DO NOTHING RETURNING id`,
    [groupId, days],
  );
  if (ins.rows.length === 0) return null;
  return (await db.query<CleanerSettingRow>(`${ROW_SELECT} WHERE c.id = $1`, [ins.rows[0]!.id])).rows[0]!;
}

/** Changes a retention period; null when there is no such setting. */
export async function updateCleanerSetting(
  db: Db,
  id: number,
  days: number,
): Promise<CleanerSettingRow | null> {
  const upd = await db.query(`UPDATE cleaner_settings SET duration = $2, updated_at = now() WHERE id = $1`, [
    id,
    days,
  ]);
  if (upd.rowCount === 0) return null;
  return (await db.query<CleanerSettingRow>(`${ROW_SELECT} WHERE c.id = $1`, [id])).rows[0]!;
}
