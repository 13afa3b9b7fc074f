import { MESSAGE_TYPE, SEND_TYPE } from '../../../../contract/messages';
import { TESTER_STATUS } from '../../../../contract/tester';
import {
  WIDER_VIEW_COMMANDS,
  WIDER_VIEW_PARAMS,
  type RoomScan,
  type WiderViewState,
} from '../../../../contract/wider-view';
import type { Db } from '../../db/db';
import { ApiError } from '../api-error';
import {
  insertMessage,
  iso,
  logExamineeEvent,
  startupInt,
  startupOf,
  type SittingRow,
} from '../sittings/sittings';
import { RECORDING_FINALIZE_GRACE_SECONDS } from '../sitting-exit';

/**
 * The wider view's server side (README "The wider view"): the screen share as the examinee's page reports it,
 * room scans (before the exam, and asked for by the checker during it), what they log and tell the other side,
 * and what the exam system waits for. Recording the screen and the scans is the recording routes' (stream
 * `screen`, `room_scan`).
 */

type Sitting = Pick<SittingRow, 'id' | 'user_id' | 'status' | 'startup_parameters'>;

/** The sitting's wider-view flags (start-up parameters bound at login). */
export function widerViewFlags(s: Pick<SittingRow, 'startup_parameters'>): {
  screen: boolean;
  roomScan: boolean;
  phone: boolean;
} {
  const p = startupOf(s);
  return {
    screen: startupInt(p, WIDER_VIEW_PARAMS.screen, 0) === 1,
    roomScan: startupInt(p, WIDER_VIEW_PARAMS.roomScan, 0) === 1,
    phone: startupInt(p, WIDER_VIEW_PARAMS.phone, 0) === 1,
  };
}

/** 409 wider_view_off: the part asked for is not switched on for the sitting. */
function off(what: string, flag: string): ApiError {
  return new ApiError(
    409,
    'wider_view_off',
    `${what} is off for this sitting (start-up parameter ${flag} is not 1).`,
  );
}

interface RoomScanRow {
  id: number | string;
  /** 'interrupted' (another page started a scan while this one was under way) is never open nor answered. */
  status: RoomScan['status'] | 'interrupted';
  requested_by: number | string | null;
  requested_at: Date | string | null;
  started_at: Date | string | null;
  completed_at: Date | string | null;
  record_id: number | string | null;
  attempt: string | null;
}

const SCAN_COLUMNS = 'id, status, requested_by, requested_at, started_at, completed_at, record_id, attempt';

function scanOut(r: RoomScanRow): RoomScan {
  return {
    id: Number(r.id),
    status: r.status === 'interrupted' ? 'done' : r.status,
    requested_by_checker: r.requested_by !== null,
    requested_at: iso(r.requested_at),
    started_at: iso(r.started_at),
    completed_at: iso(r.completed_at),
    record_id: r.record_id === null ? null : Number(r.record_id),
  };
}

/** The sitting's open room scan (requested or under way), or null. */
async function openScan(db: Db, testId: number, lock = false): Promise<RoomScanRow | null> {
  const { rows } = await db.query<RoomScanRow>(
    `SELECT ${SCAN_COLUMNS} FROM room_scans WHERE test_id = $1 AND status IN ('requested', 'scanning')
      ORDER BY id DESC LIMIT 1${lock ? ' FOR UPDATE' : ''}`,
    [testId],
  );
  return rows[0] ?? null;
}

/** Where the sitting's wider view stands (GET tester/wider_view.php). */
export async function widerViewState(db: Db, s: Sitting): Promise<WiderViewState> {
  const flags = widerViewFlags(s);
  const { rows } = await db.query<{
    screen_share_state: 'shared' | 'ended' | null;
    screen_share_at: Date | string | null;
    done: number;
  }>(
    `SELECT t.screen_share_state, t.screen_share_at,
            (SELECT count(*)::int FROM room_scans r WHERE r.test_id = t.id AND r.status = 'done') AS done
       FROM tests t WHERE t.id = $1`,
    [s.id],
  );
  const r = rows[0];
  const current = await openScan(db, s.id);
  return {
    screen: {
      required: flags.screen,
      state: r?.screen_share_state ?? null,
      changed_at: iso(r?.screen_share_at),
    },
    room_scan: { required: flags.roomScan, done: r?.done ?? 0, current: current ? scanOut(current) : null },
    phone: { required: flags.phone },
  };
}

/** A marker from the examinee to the checker (kind command, on the monitoring channel). */
async function fromExaminee(db: Db, s: Sitting, message: string): Promise<void> {
  await insertMessage(db, {
    testId: s.id,
    testerId: s.user_id,
    checkerId: null,
    sendType: SEND_TYPE.tester,
    messageType: MESSAGE_TYPE.monitoring,
    kind: 'command',
    message,
  });
}

/**
 * The examinee's page reports its screen share. Only the entire screen counts as shared (a window or a tab is
 * refused with 400, as the page itself refuses it). A change of state is logged (screen_share_started /
 * screen_share_ended) and told to the checker (SCREEN_SHARED / SCREEN_SHARE_ENDED); a repeated report
 * changes nothing. `ended` from a reloaded page (`reloaded`, which never held the share): the screen recording
 * the reload cut off is marked interrupted (records.interrupted) and, when the earlier page left it open, given
 * to the server to complete (a page that saw its share end completes its recording itself).
 */
export async function reportScreenShare(
  db: Db,
  s: Sitting,
  state: 'shared' | 'ended',
  surface: string | undefined,
  reloaded = false,
): Promise<void> {
  if (!widerViewFlags(s).screen) throw off('Screen sharing', WIDER_VIEW_PARAMS.screen);
  if (state === 'shared' && surface !== 'monitor') {
    throw new ApiError(
      400,
      'validation',
      `Only the entire screen may be shared (displaySurface monitor), not ${surface ?? 'an unnamed surface'}.`,
    );
  }
  await db.transaction(async (tx) => {
    const { rows } = await tx.query<{ screen_share_state: string | null }>(
      `SELECT screen_share_state FROM tests WHERE id = $1 FOR UPDATE`,
      [s.id],
    );
    if (state === 'ended' && reloaded) {
      // Shared until the reload: the newest screen recording ran until then, even if the old page completed it
      // as it unloaded.
      if (rows[0]?.screen_share_state === 'shared') {
        await tx.query(
          `UPDATE records SET interrupted = true, updated_at = now()
            WHERE id = (SELECT max(id) FROM records WHERE test_id = $1 AND stream = 'screen')`,
          [s.id],
        );
      }
      await markInterruptedRecordings(tx, s.id, 'screen');
    }
    if (rows[0]?.screen_share_state === state) return;
    await tx.query(`UPDATE tests SET screen_share_state = $2, screen_share_at = now() WHERE id = $1`, [
      s.id,
      state,
    ]);
    // A page that never shared and reports "ended" after a reload has nothing to announce.
    if (state === 'ended' && rows[0]?.screen_share_state === null) return;
    await logExamineeEvent(tx, s.id, state === 'shared' ? 'screen_share_started' : 'screen_share_ended');
    await fromExaminee(
      tx,
      s,
      state === 'shared' ? WIDER_VIEW_COMMANDS.screenShared : WIDER_VIEW_COMMANDS.screenShareEnded,
    );
  });
}

/** 409 unless the sitting can still take a room scan (its exam not finished). */
function assertScannable(s: Sitting): void {
  if (!widerViewFlags(s).roomScan) throw off('The room scan', WIDER_VIEW_PARAMS.roomScan);
  if (s.status >= TESTER_STATUS.finishExam)
    throw new ApiError(409, 'invalid_transition', 'The exam is finished: no more room scans.');
}

/**
 * A checker asks for a room scan now (tester/room_scan_request.php): the open scan when there is one, else a
 * new one. Logged (room_scan_requested, by whom) and sent to the examinee as ROOM_SCAN_REQUESTED, which its page
 * shows at once.
 */
export async function requestRoomScan(
  db: Db,
  s: Sitting,
  checker: { userId: number; loginId: string },
): Promise<RoomScan> {
  assertScannable(s);
  return db.transaction(async (tx) => {
    await tx.query(`SELECT id FROM tests WHERE id = $1 FOR UPDATE`, [s.id]);
    const open = await openScan(tx, s.id, true);
    if (open) return scanOut(open);
    const { rows } = await tx.query<RoomScanRow>(
      `INSERT INTO room_scans (test_id, status, requested_by, requested_at) VALUES ($1, 'requested', $2, now())
       RETURNING ${SCAN_COLUMNS}`,
      [s.id, checker.userId],
    );
    await logExamineeEvent(tx, s.id, 'room_scan_requested', `by ${checker.loginId}`);
    await insertMessage(tx, {
      testId: s.id,
      testerId: s.user_id,
      checkerId: checker.userId,
      sendType: SEND_TYPE.checker,
      messageType: MESSAGE_TYPE.monitoring,
      kind: 'command',
      message: WIDER_VIEW_COMMANDS.roomScanRequested,
    });
    return scanOut(rows[0]!);
  });
}

/**
 * The examinee starts a room scan: the one asked for, else a new one (the scan before the exam, or one the
 * examinee repeats). `attempt` is the page's token for this press of "start the scan" (the same on its retries):
 * starting the scan under way with the same token (or none, an older page) is a no-op. A scan under way that
 * another attempt starts again was cut off (the page was reloaded or reopened during it): it is closed as
 * `interrupted` and logged so (room_scan_interrupted), its recording is marked interrupted (which the examinee
 * detail labels) and, when left open, given to the server to complete after the usual grace, and a new scan
 * starts, carrying the checker's request. Every start is logged and told to the checker.
 */
export async function startRoomScan(db: Db, s: Sitting, attempt?: string): Promise<RoomScan> {
  assertScannable(s);
  return db.transaction(async (tx) => {
    await tx.query(`SELECT id FROM tests WHERE id = $1 FOR UPDATE`, [s.id]);
    let open = await openScan(tx, s.id, true);
    let carried: Pick<RoomScanRow, 'requested_by' | 'requested_at'> = {
      requested_by: null,
      requested_at: null,
    };
    if (open?.status === 'scanning') {
      if (attempt === undefined || open.attempt === attempt) return scanOut(open);
      await interruptScan(tx, s.id, open);
      carried = open;
      open = null;
    }
    let row: RoomScanRow;
    if (open) {
      row = (
        await tx.query<RoomScanRow>(
          `UPDATE room_scans SET status = 'scanning', started_at = now(), attempt = $2 WHERE id = $1
           RETURNING ${SCAN_COLUMNS}`,
          [open.id, attempt ?? null],
        )
      ).rows[0]!;
    } else {
      row = (
        await tx.query<RoomScanRow>(
          `INSERT INTO room_scans (test_id, status, started_at, attempt, requested_by, requested_at)
           VALUES ($1, 'scanning', now(), $2, $3, $4)
           RETURNING ${SCAN_COLUMNS}`,
          [s.id, attempt ?? null, carried.requested_by, carried.requested_at],
        )
      ).rows[0]!;
    }
    await logExamineeEvent(tx, s.id, 'room_scan_started');
    await fromExaminee(tx, s, WIDER_VIEW_COMMANDS.roomScanStarted);
    return scanOut(row);
  });
}

/**
 * Closes a scan under way that a new page started again: `interrupted`, logged with the reason, its recording
 * marked interrupted, and completed by the server after the grace when the old page left it open.
 */
async function interruptScan(tx: Db, testId: number, scan: RoomScanRow): Promise<void> {
  await tx.query(`UPDATE room_scans SET status = 'interrupted', completed_at = now() WHERE id = $1`, [
    scan.id,
  ]);
  await logExamineeEvent(tx, testId, 'room_scan_interrupted', 'restarted');
  // Its recording began after it started and belongs to no completed scan; the old page may have completed it
  // as it unloaded (then only the label changes).
  await tx.query(
    `UPDATE records SET interrupted = true, updated_at = now()
      WHERE test_id = $1 AND stream = 'room_scan' AND start_at >= $2
        AND id NOT IN (SELECT record_id FROM room_scans WHERE test_id = $1 AND record_id IS NOT NULL)`,
    [testId, scan.started_at],
  );
  await markInterruptedRecordings(tx, testId, 'room_scan');
}

/**
 * The open recordings of a stream whose page went away (a reload or a closed page during a room scan or a screen
 * share; a page holds at most one of each): marked interrupted, and completed by the server after the usual
 * grace unless a page completes them first.
 */
async function markInterruptedRecordings(
  tx: Db,
  testId: number,
  stream: 'room_scan' | 'screen',
): Promise<void> {
  await tx.query(
    `UPDATE records SET finalize_at = least(coalesce(finalize_at, 'infinity'), now() + $3::int * interval '1 second'),
            finalize_reason = 'interrupted', interrupted = true, updated_at = now()
      WHERE test_id = $1 AND stream = $2 AND stop_at IS NULL`,
    [testId, stream, RECORDING_FINALIZE_GRACE_SECONDS],
  );
}

/**
 * The examinee completes the scan under way, with its recording when one was made (a room_scan recording of
 * this sitting, else 400). Completing it again answers the same. Logged (room_scan_completed, with the record)
 * and told to the checker.
 */
export async function completeRoomScan(
  db: Db,
  s: Sitting,
  scanId: number,
  recordId: number | null,
): Promise<RoomScan> {
  if (!widerViewFlags(s).roomScan) throw off('The room scan', WIDER_VIEW_PARAMS.roomScan);
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<RoomScanRow>(
      `SELECT ${SCAN_COLUMNS} FROM room_scans WHERE id = $1 AND test_id = $2 FOR UPDATE`,
      [scanId, s.id],
    );
    const scan = rows[0];
    if (!scan) throw new ApiError(404, 'not_found', 'No such room scan in this sitting.');
    if (scan.status === 'done') return scanOut(scan);
    if (scan.status === 'interrupted')
      throw new ApiError(409, 'invalid_transition', 'This room scan was interrupted and started again.');
    if (scan.status !== 'scanning')
      throw new ApiError(409, 'invalid_transition', 'This room scan has not been started.');
    if (recordId !== null) {
      const rec = await tx.query(
        `SELECT 1 FROM records WHERE id = $1 AND test_id = $2 AND stream = 'room_scan'`,
        [recordId, s.id],
      );
      if (rec.rows.length === 0)
        throw new ApiError(400, 'validation', 'record_id is not a room scan recording of this sitting.');
    }
    const done = await tx.query<RoomScanRow>(
      `UPDATE room_scans SET status = 'done', completed_at = now(), record_id = $2 WHERE id = $1
       RETURNING ${SCAN_COLUMNS}`,
      [scanId, recordId],
    );
    await logExamineeEvent(tx, s.id, 'room_scan_completed', recordId === null ? '' : `record ${recordId}`);
    await fromExaminee(tx, s, WIDER_VIEW_COMMANDS.roomScanDone);
    return scanOut(done.rows[0]!);
  });
}

/**
 * What the exam system waits for (get_mc_token): the entire screen shared (is_screen_record) and a room scan
 * completed (is_room_scan). 409 screen_share_required / room_scan_required otherwise, so a page cannot open the
 * exam past either step.
 */
export async function assertReadyForExam(db: Db, s: Sitting): Promise<void> {
  const flags = widerViewFlags(s);
  if (!flags.screen && !flags.roomScan) return;
  const state = await widerViewState(db, s);
  if (flags.screen && state.screen.state !== 'shared') {
    throw new ApiError(
      409,
      'screen_share_required',
      'Share the entire screen first: this exam records the screen.',
    );
  }
  if (flags.roomScan && state.room_scan.done === 0) {
    throw new ApiError(409, 'room_scan_required', 'Complete the room scan first.');
  }
}
