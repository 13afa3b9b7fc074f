import type { Db } from '../../db/db';
import type { MovieStatus, RecordingEndResult, StoredPart } from '../../../../contract/recording';
import type { StreamKind } from '../../../../contract/constants/wider-view';
import { iso } from '../sittings/sittings';

/** A records row with the columns the recording routes use. */
export interface RecordRow {
  id: number;
  test_id: number;
  tester_id: number;
  /** What it records (contract/wider-view.ts STREAM_KINDS). */
  stream: StreamKind;
  bucket: string;
  object_key: string;
  upload_id: string | null;
  mime_type: string;
  segment: number;
  start_at: Date | string;
  stop_at: Date | string | null;
  encoded_at: Date | string | null;
  size_bytes: number | string | null;
  duration_ms: number | string | null;
  movie_status: string;
  detail: string;
  object_etag: string | null;
  part_count: number | null;
  /** Why the server is to complete it ('ended', 'abandoned', 'phone_replaced', 'interrupted'), or null. */
  finalize_reason: string | null;
}

const COLUMNS = `id, test_id, tester_id, stream, bucket, object_key, upload_id, mime_type, segment, start_at, stop_at,
  encoded_at, size_bytes, duration_ms, movie_status, detail, object_etag, part_count, finalize_reason`;

/** The `detail` column is text for people; keep it bounded. */
export const DETAIL_MAX = 1000;

/** `movie_status` without char(2) padding. */
export function statusOf(r: Pick<RecordRow, 'movie_status'>): string {
  return r.movie_status.trim();
}

/** Whether the multipart upload of a record has been completed (spec §4: after "stop and finalise"). */
export function isCompleted(r: Pick<RecordRow, 'stop_at'>): boolean {
  return r.stop_at !== null;
}

/** A record by id, or null. */
export async function findRecord(db: Db, id: number): Promise<RecordRow | null> {
  const { rows } = await db.query<RecordRow>(`SELECT ${COLUMNS} FROM records WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

/** The tester's newest recording of `stream` not yet ended, or null. */
export async function findOpenRecord(
  db: Db,
  testerId: number,
  stream: StreamKind,
): Promise<RecordRow | null> {
  const { rows } = await db.query<RecordRow>(
    `SELECT ${COLUMNS} FROM records WHERE tester_id = $1 AND stream = $2 AND stop_at IS NULL
      ORDER BY id DESC LIMIT 1`,
    [testerId, stream],
  );
  return rows[0] ?? null;
}

/** The record of a segment of a sitting's stream, or null. */
export async function findSegment(
  db: Db,
  testId: number,
  stream: StreamKind,
  segment: number,
): Promise<RecordRow | null> {
  const { rows } = await db.query<RecordRow>(
    `SELECT ${COLUMNS} FROM records WHERE test_id = $1 AND stream = $2 AND segment = $3 ORDER BY id DESC LIMIT 1`,
    [testId, stream, segment],
  );
  return rows[0] ?? null;
}

/** The segment after the highest one of a sitting's stream (1 for its first recording). */
export async function nextSegment(db: Db, testId: number, stream: StreamKind): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT (coalesce(max(segment), 0) + 1)::int AS n FROM records WHERE test_id = $1 AND stream = $2`,
    [testId, stream],
  );
  return rows[0]?.n ?? 1;
}

/** A fresh records id (taken before the row exists, because the object key contains it). */
export async function reserveRecordId(db: Db): Promise<number> {
  const { rows } = await db.query<{ id: number | string }>(
    `SELECT nextval(pg_get_serial_sequence('records', 'id')) AS id`,
  );
  return Number(rows[0]!.id);
}

/**
 * The key directory of a sitting's recordings of one stream: `recordings/<test_id>/` for the camera (where every
 * recording lived before there were streams), `recordings/<test_id>/<stream>/` for the others. Each directory
 * is its stream's quota on the storage (integrity.ts).
 */
export function streamPrefix(testId: number, stream: StreamKind): string {
  return stream === 'camera' ? `recordings/${testId}/` : `recordings/${testId}/${stream}/`;
}

/** Object key of a recording: `<streamPrefix><record_id>-<segment>.<ext>`. */
export function recordingKey(
  testId: number,
  recordId: number,
  segment: number,
  mimeType: string,
  stream: StreamKind = 'camera',
): string {
  const base = mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  const ext = base.endsWith('/mp4') ? 'mp4' : base.endsWith('/x-matroska') ? 'mkv' : 'webm';
  return `${streamPrefix(testId, stream)}${recordId}-${segment}.${ext}`;
}

/** Inserts a started recording (status '00') with its status log row. */
export async function insertRecord(
  db: Db,
  r: {
    id: number;
    testId: number;
    testerId: number;
    stream: StreamKind;
    bucket: string;
    key: string;
    uploadId: string;
    mimeType: string;
    segment: number;
  },
): Promise<RecordRow> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<RecordRow>(
      `INSERT INTO records (id, test_id, tester_id, stream, bucket, object_key, upload_id, mime_type, segment,
                            movie_status)
       OVERRIDING SYSTEM VALUE VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, '00')
       RETURNING ${COLUMNS}`,
      [r.id, r.testId, r.testerId, r.stream, r.bucket, r.key, r.uploadId, r.mimeType, r.segment],
    );
    await tx.query(
      `INSERT INTO record_status_logs (record_id, movie_status, detail) VALUES ($1, '00', 'recording started')`,
      [r.id],
    );
    return rows[0]!;
  });
}

/**
 * Marks a record's upload completed: stop_at, size, ETag, the parts used, status '01' (the duration fix is
 * queued), and the sitting's `record` flag. Returns false when another request completed it first.
 */
export async function markCompleted(
  db: Db,
  r: {
    id: number;
    testId: number;
    size: number;
    etag: string;
    parts: { partNumber: number; etag: string; size: number }[];
    /** The server completes it (finalize): its finalize_reason stays (an interrupted one is labelled so). */
    byServer?: boolean;
  },
): Promise<boolean> {
  return db.transaction(async (tx) => {
    const upd = await tx.query(
      `UPDATE records SET stop_at = now(), size_bytes = $2, object_etag = $3, part_count = $4,
              movie_status = '01', detail = '', updated_at = now(),
              finalize_reason = CASE WHEN $5::boolean THEN finalize_reason END
        WHERE id = $1 AND stop_at IS NULL`,
      [r.id, r.size, r.etag, r.parts.length, r.byServer === true],
    );
    if (upd.rowCount === 0) return false;
    for (let i = 0; i < r.parts.length; i += 500) {
      const chunk = r.parts.slice(i, i + 500);
      const values = chunk.map((_, j) => `($1, $${j * 3 + 2}, $${j * 3 + 3}, $${j * 3 + 4})`).join(', ');
      await tx.query(
        `INSERT INTO record_parts (record_id, part_number, etag, size_bytes) VALUES ${values}
         ON CONFLICT (record_id, part_number) DO UPDATE SET etag = excluded.etag, size_bytes = excluded.size_bytes`,
        [r.id, ...chunk.flatMap((p) => [p.partNumber, p.etag, p.size])],
      );
    }
    await tx.query(
      `INSERT INTO record_status_logs (record_id, movie_status, detail) VALUES ($1, '01', 'upload completed; fixing duration')`,
      [r.id],
    );
    // spec §3 search "record": the sitting has a recording.
    await tx.query(`UPDATE tests SET record = true, updated_at = now() WHERE id = $1`, [r.testId]);
    return true;
  });
}

/**
 * Moves a record from `from` to `to` with a status log row; extra columns are set with it. Returns false
 * (and changes nothing) when the record is no longer in `from`.
 */
export async function changeStatus(
  db: Db,
  id: number,
  from: MovieStatus,
  to: MovieStatus,
  detail: string,
  extra: { durationMs?: number | null; size?: number; etag?: string; encoded?: boolean } = {},
): Promise<boolean> {
  const d = detail.slice(0, DETAIL_MAX);
  return db.transaction(async (tx) => {
    const upd = await tx.query(
      `UPDATE records SET movie_status = $3, detail = $4, updated_at = now(),
              duration_ms = CASE WHEN $5::boolean THEN $6::bigint ELSE duration_ms END,
              size_bytes = coalesce($7::bigint, size_bytes),
              object_etag = coalesce($8::text, object_etag),
              encoded_at = CASE WHEN $9::boolean THEN now() ELSE encoded_at END
        WHERE id = $1 AND movie_status = $2`,
      [
        id,
        from,
        to,
        d,
        extra.durationMs !== undefined,
        extra.durationMs ?? null,
        extra.size ?? null,
        extra.etag ?? null,
        extra.encoded === true,
      ],
    );
    if (upd.rowCount === 0) return false;
    await tx.query(`INSERT INTO record_status_logs (record_id, movie_status, detail) VALUES ($1, $2, $3)`, [
      id,
      to,
      d,
    ]);
    return true;
  });
}

/**
 * Claims one record waiting for its duration fix ('01', no live lease) for `owner` until the lease runs out:
 * SELECT … FOR UPDATE SKIP LOCKED, so server instances claiming at the same moment take different records.
 * Returns its id, or null when nothing is claimable.
 */
export async function claimConversion(db: Db, owner: string, leaseMs: number): Promise<number | null> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: number | string }>(
      `SELECT id FROM records
        WHERE movie_status = '01' AND (convert_lease_until IS NULL OR convert_lease_until < now())
        ORDER BY id LIMIT 1
        FOR UPDATE SKIP LOCKED`,
    );
    const row = rows[0];
    if (!row) return null;
    const id = Number(row.id);
    await tx.query(
      `UPDATE records SET convert_owner = $2, convert_lease_until = now() + $3::bigint * interval '1 millisecond'
        WHERE id = $1`,
      [id, owner, Math.round(leaseMs)],
    );
    return id;
  });
}

/** Extends `owner`'s lease on a record still in '01'; false when the claim was lost (lease taken over). */
export async function renewConversionClaim(
  db: Db,
  id: number,
  owner: string,
  leaseMs: number,
): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE records SET convert_lease_until = now() + $3::bigint * interval '1 millisecond'
      WHERE id = $1 AND convert_owner = $2 AND movie_status = '01'`,
    [id, owner, Math.round(leaseMs)],
  );
  return rowCount > 0;
}

/** Gives up `owner`'s claim (done, failed or shutting down): a record still in '01' is claimable at once. */
export async function releaseConversionClaim(db: Db, id: number, owner: string): Promise<void> {
  await db.query(
    `UPDATE records SET convert_owner = NULL, convert_lease_until = NULL WHERE id = $1 AND convert_owner = $2`,
    [id, owner],
  );
}

/**
 * Closes a record the server could not complete (no upload, no stored part, the upload gone): stopped with
 * nothing kept, status '08', and the reason in its detail and status log.
 */
export async function closeWithoutRecording(db: Db, id: number, detail: string): Promise<void> {
  await db.query(
    `UPDATE records SET stop_at = now(), size_bytes = 0, part_count = 0, movie_status = '08', detail = $2,
            finalize_at = NULL, updated_at = now()
      WHERE id = $1 AND stop_at IS NULL`,
    [id, detail],
  );
  await db.query(`INSERT INTO record_status_logs (record_id, movie_status, detail) VALUES ($1, '08', $2)`, [
    id,
    detail,
  ]);
}

/** Adds a line to a record's status log (the examinee detail shows it). */
export async function logRecordStatus(
  db: Db,
  id: number,
  status: MovieStatus,
  detail: string,
): Promise<void> {
  await db.query(`INSERT INTO record_status_logs (record_id, movie_status, detail) VALUES ($1, $2, $3)`, [
    id,
    status,
    detail,
  ]);
}

/** Up to `limit` open records whose server-side completion is due (see sitting-exit.ts), earliest first. */
export async function recordsDueForFinalize(db: Db, limit: number): Promise<number[]> {
  const { rows } = await db.query<{ id: number | string }>(
    `SELECT id FROM records WHERE stop_at IS NULL AND finalize_at <= now() ORDER BY finalize_at LIMIT $1`,
    [limit],
  );
  return rows.map((r) => Number(r.id));
}

/** The parts a completed record was assembled from (the snapshot taken at completion). */
export async function completedParts(db: Db, recordId: number): Promise<StoredPart[]> {
  const { rows } = await db.query<{ part_number: number; etag: string; size_bytes: number | string }>(
    `SELECT part_number, etag, size_bytes FROM record_parts WHERE record_id = $1 ORDER BY part_number`,
    [recordId],
  );
  return rows.map((r) => ({ PartNumber: r.part_number, ETag: r.etag, Size: Number(r.size_bytes) }));
}

const num = (v: number | string | null): number | null => (v === null ? null : Number(v));

/** The wire answer of an ended recording. */
export function endResult(r: RecordRow): RecordingEndResult {
  return {
    record_id: r.id,
    stream: r.stream,
    completed: isCompleted(r),
    bucket: r.bucket,
    key: r.object_key,
    start_at: iso(r.start_at)!,
    stop_at: iso(r.stop_at),
    size: num(r.size_bytes) ?? 0,
    part_count: r.part_count ?? 0,
    movie_status: statusOf(r),
    detail: r.detail,
    duration_ms: num(r.duration_ms),
  };
}
