import type { Db } from '../../db/db';

/** A fixed notification: a canned message a checker sends with one click (spec §7 fixed_notifications). */
export interface FixedNotification {
  id: number;
  message: string;
  order_id: number;
}

/** A mark: a kind of marking a checker records, with its alert text and score (spec §7 marks). */
export interface Mark {
  id: number;
  message: string;
  order_id: number;
  label: string;
  display: number;
  score: number;
}

/** Every fixed notification, in display order. */
export async function listFixedNotifications(db: Db): Promise<FixedNotification[]> {
  const { rows } = await db.query<FixedNotification>(
    `SELECT id, message, order_id FROM fixed_notifications ORDER BY order_id, id`,
  );
  return rows;
}

/** Every mark, in display order. */
export async function listMarks(db: Db): Promise<Mark[]> {
  const { rows } = await db.query<Mark>(
    `SELECT id, message, order_id, label, display, score FROM marks ORDER BY order_id, id`,
  );
  return rows;
}

/** The marks shown as search conditions (display 1), in display order. */
export async function listDisplayedMarks(db: Db): Promise<Pick<Mark, 'id' | 'message' | 'label'>[]> {
  const { rows } = await db.query<Pick<Mark, 'id' | 'message' | 'label'>>(
    'SELECT id, message, label FROM marks WHERE display = 1 ORDER BY order_id, id',
  );
  return rows;
}

/** One mark by id, or null. */
export async function findMark(db: Db, id: number): Promise<Pick<Mark, 'id' | 'message' | 'score'> | null> {
  const { rows } = await db.query<Pick<Mark, 'id' | 'message' | 'score'>>(
    `SELECT id, message, score FROM marks WHERE id = $1`,
    [id],
  );
  return rows[0] ?? null;
}
