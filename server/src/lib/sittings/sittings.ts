import { ACTOR } from '../../../../contract/common';
import type { Db } from '../../db/db';
import { ApiError } from '../api-error';
import type { AuthContext } from '../app-types';
import { toWireTime } from '../management-time';

/** The examinee (users row, actor 1) a tester_id names. */
export interface TesterUser {
  id: number;
  login_id: string;
  ex_login_id: string | null;
  name: string;
  group_id: number | null;
  group_code: string | null;
  kicked: number;
  rejected: number;
}

/** One sitting (tests row) with the columns the tester routes use. */
export interface SittingRow {
  id: number;
  user_id: number;
  group_id: number | null;
  login_id: string;
  status: number;
  kicked: number;
  rejected: number;
  startup_parameters: Record<string, unknown> | string | null;
  login_at: Date | string | null;
  logout_at: Date | string | null;
  head_shot_key: string | null;
  head_shot_at: Date | string | null;
  id_card_key: string | null;
  test_status: number | null;
  exam_process: number | null;
}

const SITTING_COLUMNS = `id, user_id, group_id, login_id, status, kicked, rejected, startup_parameters, login_at, logout_at,
  head_shot_key, head_shot_at, id_card_key, test_status, exam_process`;

/** A timestamp column in the wire format (ISO 8601 with the deployment zone's offset), or null. */
export const iso = (v: Date | string | null | undefined): string | null => toWireTime(v);

/** The tester (actor 1) with this id, or 404. */
export async function loadTester(db: Db, testerId: number): Promise<TesterUser> {
  const { rows } = await db.query<TesterUser>(
    `SELECT u.id, u.login_id, u.ex_login_id, u.name, u.group_id, g.code AS group_code, u.kicked, u.rejected
       FROM users u LEFT JOIN exam_groups g ON g.id = u.group_id
      WHERE u.id = $1 AND u.actor = 1`,
    [testerId],
  );
  const t = rows[0];
  if (!t) throw new ApiError(404, 'tester_not_found', 'No such tester.');
  return t;
}

/** The tester's open sitting (newest tests row with status < 7), or null. */
export async function findOpenSitting(db: Db, testerId: number): Promise<SittingRow | null> {
  const { rows } = await db.query<SittingRow>(
    `SELECT ${SITTING_COLUMNS} FROM tests WHERE user_id = $1 AND status < 7 ORDER BY id DESC LIMIT 1`,
    [testerId],
  );
  return rows[0] ?? null;
}

/** The tester's open sitting with its whole row, locked for the rest of the caller's transaction, or null. */
export async function lockOpenSitting(tx: Db, testerId: number): Promise<SittingRow | null> {
  const { rows } = await tx.query<SittingRow>(
    `SELECT * FROM tests WHERE user_id = $1 AND status < 7 ORDER BY id DESC LIMIT 1 FOR UPDATE`,
    [testerId],
  );
  return rows[0] ?? null;
}

/** The open sitting, or 409 when the tester has none (not logged in, or the exam is finished). */
export async function requireOpenSitting(db: Db, testerId: number): Promise<SittingRow> {
  const s = await findOpenSitting(db, testerId);
  if (!s)
    throw new ApiError(
      409,
      'no_open_sitting',
      'The tester has no open sitting (log in first, or the exam is finished).',
    );
  return s;
}

/** The sitting the tester is in: the open one, else the newest (as logout.php picks it). */
export async function findCurrentSitting(db: Db, testerId: number): Promise<SittingRow | null> {
  const { rows } = await db.query<SittingRow>(
    `SELECT ${SITTING_COLUMNS} FROM tests WHERE user_id = $1 ORDER BY (status < 7) DESC, id DESC LIMIT 1`,
    [testerId],
  );
  return rows[0] ?? null;
}

/** A sitting by id, or null. */
export async function findSitting(db: Db, testId: number): Promise<SittingRow | null> {
  const { rows } = await db.query<SittingRow>(`SELECT ${SITTING_COLUMNS} FROM tests WHERE id = $1`, [testId]);
  return rows[0] ?? null;
}

/** The live matching of a checker and a tester (matchings row not deleted), or null. */
export async function findMatching(
  db: Db,
  checkerId: number,
  testerId: number,
): Promise<{ id: number; test_id: number } | null> {
  const { rows } = await db.query<{ id: number; test_id: number }>(
    `SELECT id, test_id FROM matchings WHERE checker_id = $1 AND tester_id = $2 AND deleted_at IS NULL LIMIT 1`,
    [checkerId, testerId],
  );
  return rows[0] ?? null;
}

/** The live matching of a tester with any checker, or null. */
export async function findTesterMatching(
  db: Db,
  testerId: number,
): Promise<{ id: number; test_id: number; checker_id: number | null } | null> {
  const { rows } = await db.query<{ id: number; test_id: number; checker_id: number | null }>(
    `SELECT id, test_id, checker_id FROM matchings WHERE tester_id = $1 AND deleted_at IS NULL ORDER BY id DESC LIMIT 1`,
    [testerId],
  );
  return rows[0] ?? null;
}

/**
 * The tester a request is about. A tester always means itself: `tester_id` absent or its own id, else 403.
 * Other actors must name one (400).
 */
export function targetTesterId(auth: AuthContext, testerId: number | undefined): number {
  if (auth.actor === ACTOR.tester) {
    if (testerId !== undefined && testerId !== auth.userId) {
      throw new ApiError(403, 'forbidden', 'A tester can only act on itself.');
    }
    return auth.userId;
  }
  if (testerId === undefined) throw new ApiError(400, 'validation', 'tester_id is required.');
  return testerId;
}

/**
 * Read permission on a tester's data (spec §6): the tester itself; a checker matched to it; a test manager
 * of its group; system managers and supervisors. 403 otherwise.
 */
export async function assertCanView(db: Db, auth: AuthContext, tester: TesterUser): Promise<void> {
  switch (auth.actor) {
    case ACTOR.tester:
      if (auth.userId === tester.id) return;
      break;
    case ACTOR.checker:
      if (await findMatching(db, auth.userId, tester.id)) return;
      break;
    case ACTOR.testManager:
      if (auth.groupId !== null && auth.groupId === tester.group_id) return;
      break;
    case ACTOR.systemManager:
    case ACTOR.supervisor:
      return;
  }
  throw new ApiError(403, 'tester_not_visible', 'You may not see this tester.');
}

/** The answer to a kicked-out examinee's own actions. */
export const kickedError = () =>
  new ApiError(403, 'kicked', 'The tester was kicked out; a manager must lift it first.');

/** Stores a sitting's head shot (the identity photo the checker and the examinee detail show). */
export async function recordHeadShot(db: Db, testId: number, key: string): Promise<void> {
  await db.query(
    `UPDATE tests SET head_shot_key = $2, head_shot_at = now(), updated_at = now() WHERE id = $1`,
    [testId, key],
  );
}

/** Appends an examinee log event (spec §4) to a sitting. */
export async function logExamineeEvent(db: Db, testId: number, event: string, detail = ''): Promise<void> {
  await db.query(`INSERT INTO examinee_logs (test_id, event, detail) VALUES ($1, $2, $3)`, [
    testId,
    event,
    detail,
  ]);
}

/** A stored message row in wire form. */
export interface MessageOut {
  id: number;
  send_type: number;
  message_type: number;
  kind: string;
  message: string;
  created_at: string;
}

/** Inserts a chat message or command into a sitting and returns it in wire form. */
export async function insertMessage(
  db: Db,
  m: {
    testId: number;
    testerId: number;
    checkerId: number | null;
    sendType: number;
    messageType: number;
    kind: 'message' | 'command';
    message: string;
  },
): Promise<MessageOut> {
  const { rows } = await db.query<Omit<MessageOut, 'created_at'> & { created_at: Date | string }>(
    `INSERT INTO messages (test_id, tester_id, checker_id, send_type, message_type, kind, message)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     RETURNING id, send_type, message_type, kind, message, created_at`,
    [m.testId, m.testerId, m.checkerId, m.sendType, m.messageType, m.kind, m.message],
  );
  const r = rows[0]!;
  return { ...r, created_at: iso(r.created_at)! };
}

/** The start-up parameters of a sitting as an object (jsonb arrives parsed; text is parsed defensively). */
export function startupOf(s: {
  startup_parameters: Record<string, unknown> | string | null;
}): Record<string, unknown> {
  const p = s.startup_parameters;
  if (!p) return {};
  if (typeof p === 'string') {
    try {
      const v = JSON.parse(p) as unknown;
      return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
    } catch {
      return {};
    }
  }
  return p;
}

/** An integer start-up parameter (numbers or numeric strings), or the default. */
export function startupInt(params: Record<string, unknown>, key: string, dflt: number): number {
  const v = params[key];
  if (typeof v === 'number' && Number.isFinite(v)) return Math.trunc(v);
  if (typeof v === 'string' && /^-?[0-9]+$/.test(v.trim())) return Number(v.trim());
  return dflt;
}

/** A text start-up parameter, or ''. */
export function startupText(params: Record<string, unknown>, key: string): string {
  const v = params[key];
  return typeof v === 'string' ? v : typeof v === 'number' ? String(v) : '';
}
