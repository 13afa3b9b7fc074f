import { randomBytes } from 'node:crypto';
import { ANALYSIS_TYPES } from '../../../contract/management';
import { CAPTURE_MAX_BYTES, CAPTURE_TYPE, SENSITIVITIES, type Sensitivity } from '../../../contract/capture';
import type { Db } from '../db/db';
import { ApiError } from './api-error';
import { sniffImageType, type ImageType } from './images';
import { matchingTimeoutOf } from './matching-rows';
import { loadMatchingSettings, type MatchingSettings } from './matching-settings';
import type { ObjectStorage } from './object-storage';
import { startupInt, startupText } from './sittings/sittings';

/**
 * A sitting's capture settings, from its start-up parameters: `capture_interval` (s, 0 = off), `capture_type`
 * (0 no AI check, 1 AI realtime, 2 AI post analysis), `is_capture_show`, `ai_sensitivity`, the analysis types
 * its flags may use (`selected_analysis_types`, all when empty) and its matching poll interval.
 */
export interface CaptureSettings {
  interval: number;
  type: 0 | 1 | 2;
  show: boolean;
  sensitivity: Sensitivity;
  types: (typeof ANALYSIS_TYPES)[number][];
  matchingTimeout: number;
}

let defaults: MatchingSettings | null = null;

export function captureSettingsOf(
  p: Record<string, unknown>,
  matching: MatchingSettings = (defaults ??= loadMatchingSettings()),
): CaptureSettings {
  const type = startupInt(p, 'capture_type', 0);
  const sens = startupText(p, 'ai_sensitivity');
  const listed = startupText(p, 'selected_analysis_types')
    .split(',')
    .map((s) => s.trim());
  const types = ANALYSIS_TYPES.filter((t) => listed.includes(t));
  return {
    interval: Math.max(0, Math.min(3600, startupInt(p, 'capture_interval', 0))),
    type: type === 1 || type === 2 ? type : 0,
    show: startupInt(p, 'is_capture_show', 0) === 1,
    sensitivity: (SENSITIVITIES as readonly string[]).includes(sens) ? (sens as Sensitivity) : 'standard',
    types: types.length ? types : [...ANALYSIS_TYPES],
    matchingTimeout: matchingTimeoutOf(p, matching),
  };
}

/**
 * The examinee's connection counts as down after this many matching polls went missing: a poll that comes
 * after a longer silence records a gap, and a still that arrives this much after it was taken waited in the
 * page's queue through one.
 */
export const CONNECTION_GAP_POLLS = 3;

/** Age beyond which a still counts as taken while the connection was down (ms). */
export function lateLimitMs(matchingTimeoutSeconds: number): number {
  return CONNECTION_GAP_POLLS * matchingTimeoutSeconds * 1000;
}

/** How many stills a sitting may send within one capture interval (the page's queue of 3, plus the new one). */
export const CAPTURES_PER_INTERVAL = 4;

/** One stored still (a captures row). */
export interface CaptureRow {
  id: number;
  test_id: number;
  tester_id: number;
  bucket: string;
  object_key: string;
  content_type: ImageType;
  capture_type: number;
  captured_at: Date | string;
  age_ms: number;
  status: string;
}

const CAPTURE_COLUMNS = `id, test_id, tester_id, bucket, object_key, content_type, capture_type, captured_at, age_ms, status`;

/** Checks a still: a JPEG, PNG or WebP by its bytes, at most CAPTURE_MAX_BYTES. */
export function validateCapture(buf: Buffer): ImageType {
  if (buf.length === 0) throw new ApiError(400, 'validation', 'The image is empty.');
  if (buf.length > CAPTURE_MAX_BYTES)
    throw new ApiError(413, 'payload_too_large', `A still must not exceed ${CAPTURE_MAX_BYTES} bytes.`);
  const type = sniffImageType(buf);
  if (!type) throw new ApiError(415, 'unsupported_media_type', 'The image must be a JPEG, PNG or WebP file.');
  return type;
}

/** Marks a sitting's live data as changed (the checkers' feed compares these numbers). */
export async function bumpLiveSeq(db: Db, testId: number): Promise<void> {
  await db.query(`UPDATE tests SET live_seq = nextval('live_feed_seq') WHERE id = $1`, [testId]);
}

const EXT: Record<ImageType, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' };

/**
 * Stores one still of an open sitting: the image in object storage (`captures/<test>/<yyyy-mm-dd>/…`), the row
 * with the time it was taken (now − `ageMs`) and its status by the sitting's capture type. A still sent again
 * with the same client key is the stored one (`created` false). More than CAPTURES_PER_INTERVAL stills within
 * one interval are refused (429): a page sends one per interval, plus what its queue held.
 */
export async function storeCapture(
  db: Db,
  storage: ObjectStorage,
  c: {
    testId: number;
    testerId: number;
    settings: CaptureSettings;
    clientKey: string;
    ageMs: number;
    image: Buffer;
  },
): Promise<{ row: CaptureRow; created: boolean }> {
  const existing = await db.query<CaptureRow>(
    `SELECT ${CAPTURE_COLUMNS} FROM captures WHERE test_id = $1 AND client_key = $2`,
    [c.testId, c.clientKey],
  );
  if (existing.rows[0]) return { row: existing.rows[0], created: false };
  const type = validateCapture(c.image);
  const recent = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM captures
      WHERE test_id = $1 AND received_at > now() - make_interval(secs => $2)`,
    [c.testId, c.settings.interval],
  );
  if ((recent.rows[0]?.n ?? 0) >= CAPTURES_PER_INTERVAL) {
    throw new ApiError(
      429,
      'too_many_requests',
      `At most ${CAPTURES_PER_INTERVAL} stills per capture interval (${c.settings.interval} s).`,
      { 'Retry-After': String(Math.max(1, c.settings.interval)) },
    );
  }
  const day = new Date().toISOString().slice(0, 10);
  const ref = {
    bucket: storage.bucket,
    key: `captures/${c.testId}/${day}/${randomBytes(18).toString('base64url')}.${EXT[type]}`,
  };
  await storage.putObject(ref, c.image, type);
  const status =
    c.settings.type === CAPTURE_TYPE.realtime
      ? 'pending'
      : c.settings.type === CAPTURE_TYPE.post
        ? 'queued'
        : 'stored';
  const ins = await db.transaction(async (tx) => {
    const r = await tx.query<CaptureRow>(
      `INSERT INTO captures (test_id, tester_id, client_key, bucket, object_key, content_type, size_bytes,
                             capture_type, captured_at, age_ms, status)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, now() - make_interval(secs => $9::double precision / 1000), $9, $10)
       ON CONFLICT (test_id, client_key) DO NOTHING
       RETURNING ${CAPTURE_COLUMNS}`,
      [
        c.testId,
        c.testerId,
        c.clientKey,
        ref.bucket,
        ref.key,
        type,
        c.image.length,
        c.settings.type,
        c.ageMs,
        status,
      ],
    );
    if (r.rows[0]) await bumpLiveSeq(tx, c.testId);
    return r.rows[0];
  });
  if (ins) return { row: ins, created: true };
  // The same still arrived twice at once: the other request stored it; this object is not needed.
  await storage.deleteObject(ref).catch(() => undefined);
  const again = await db.query<CaptureRow>(
    `SELECT ${CAPTURE_COLUMNS} FROM captures WHERE test_id = $1 AND client_key = $2`,
    [c.testId, c.clientKey],
  );
  return { row: again.rows[0]!, created: false };
}

/** A captures row by id, or null. */
export async function findCapture(db: Db, id: number): Promise<CaptureRow | null> {
  const { rows } = await db.query<CaptureRow>(`SELECT ${CAPTURE_COLUMNS} FROM captures WHERE id = $1`, [id]);
  return rows[0] ?? null;
}

/**
 * SQL: the CTEs `excused` and `bumped` that follow a CTE `gaps` (test_id, started_at, ended_at) of connection gaps
 * just recorded: the capture markings that started inside a gap become excused (kept, not scored), and the live
 * feed of each sitting whose markings changed moves on (`bumped` returns those sittings' ids).
 */
export const EXCUSE_GAP_MARKINGS_CTES = `
  excused AS (
    UPDATE ai_markings a SET excused = true, excuse_reason = 'connection_gap', updated_at = now()
      FROM gaps g
     WHERE a.test_id = g.test_id AND a.source = 'capture' AND NOT a.excused
       AND a.marking_at BETWEEN g.started_at AND g.ended_at
    RETURNING a.test_id),
  bumped AS (
    UPDATE tests t SET live_seq = nextval('live_feed_seq')
     WHERE t.id IN (SELECT test_id FROM excused)
    RETURNING t.id)`;

/**
 * Records the silence before this poll of the examinee, when it was longer than CONNECTION_GAP_POLLS polls:
 * the gap runs from when the first missed poll was due until now. Capture markings that started inside it
 * become excused (kept, not scored). Call inside the poll's transaction, before its own poll time is written.
 * Returns true when markings changed (the checkers' feed must be told).
 */
export async function recordConnectionGap(
  tx: Db,
  testId: number,
  matchingTimeoutSeconds: number,
): Promise<boolean> {
  const { rows } = await tx.query(
    `WITH last AS (SELECT max(last_tester_poll_at) AS at FROM matchings WHERE test_id = $1),
     gaps AS (
       INSERT INTO connection_gaps (test_id, started_at, ended_at)
       SELECT $1, at + make_interval(secs => $2), now() FROM last
        WHERE at IS NOT NULL AND at < now() - make_interval(secs => $2 * $3)
       RETURNING test_id, started_at, ended_at),
     ${EXCUSE_GAP_MARKINGS_CTES}
     SELECT id FROM bumped`,
    [testId, matchingTimeoutSeconds, CONNECTION_GAP_POLLS],
  );
  return rows.length > 0;
}

/**
 * Why a still taken at `capturedAt` is excused, or null: it reached the server more than the late limit after
 * it was taken ('late': it waited in the page's queue while the connection was down), or it was taken inside
 * a recorded connection gap ('connection_gap').
 */
export async function excuseOf(
  db: Db,
  testId: number,
  capturedAt: Date,
  ageMs: number,
  matchingTimeoutSeconds: number,
): Promise<'late' | 'connection_gap' | null> {
  if (ageMs > lateLimitMs(matchingTimeoutSeconds)) return 'late';
  const { rows } = await db.query(
    `SELECT 1 FROM connection_gaps WHERE test_id = $1 AND started_at <= $2 AND ended_at >= $2 LIMIT 1`,
    [testId, capturedAt],
  );
  return rows.length ? 'connection_gap' : null;
}
