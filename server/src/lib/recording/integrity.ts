import type { Db } from '../../db/db';
import { ApiError } from '../api-error';
import type { App } from '../app-types';
import { audit } from '../audit';
import type { CredentialScope } from '../credentials';
import type { ObjectStorage, StorePart } from '../object-storage';
import type { StreamKind } from '../../../../contract/constants/wider-view';
import type { RecordingSettings } from './settings';
import { statusOf, streamPrefix, type RecordRow } from './store';
import { startupInt, startupOf } from '../sittings/sittings';

/**
 * What keeps a sitting's recordings the examinee's own bytes and bounded (what a recording's credentials may
 * do beyond its upload): a byte quota per sitting and stream, credentials that stop writing once the recording
 * is complete, and playback served with the type the server set and only while the object is the one completed.
 */

/**
 * The byte quota of one stream of a sitting. The camera, the screen and the phone each record the whole
 * sitting: its maximum recording time (start-up `max_rectime` seconds, else `quotaDefaultSeconds`) plus
 * `quotaExtraSeconds` (recording runs from before the exam clock starts). Room scans are short:
 * `roomScanQuotaSeconds` for all of a sitting's scans together. Either at the highest bitrate the recorder can
 * be set to (the quality levels apply per stream), times `quotaMargin`.
 */
export function sittingQuotaBytes(
  sitting: { startup_parameters: Record<string, unknown> | string | null },
  s: RecordingSettings,
  stream: StreamKind = 'camera',
): number {
  let seconds = s.roomScanQuotaSeconds;
  if (stream !== 'room_scan') {
    const max = startupInt(startupOf(sitting), 'max_rectime', 0);
    seconds = (max > 0 ? max : s.quotaDefaultSeconds) + s.quotaExtraSeconds;
  }
  return Math.ceil(((seconds * s.quotaBitsPerSecond) / 8) * s.quotaMargin);
}

/** The byte quota of a stream of the sitting `testId` (its stored start-up parameters). */
async function quotaOf(db: Db, testId: number, stream: StreamKind, s: RecordingSettings): Promise<number> {
  const { rows } = await db.query<{ startup_parameters: Record<string, unknown> | string | null }>(
    `SELECT startup_parameters FROM tests WHERE id = $1`,
    [testId],
  );
  return sittingQuotaBytes(rows[0] ?? { startup_parameters: null }, s, stream);
}

/** Bytes of the completed recordings of a sitting's stream, other than `exceptRecordId`. */
async function completedBytes(
  db: Db,
  testId: number,
  stream: StreamKind,
  exceptRecordId: number,
): Promise<number> {
  const { rows } = await db.query<{ n: string | number | null }>(
    `SELECT coalesce(sum(size_bytes), 0) AS n FROM records
      WHERE test_id = $1 AND stream = $2 AND stop_at IS NOT NULL AND id <> $3`,
    [testId, stream, exceptRecordId],
  );
  return Number(rows[0]?.n ?? 0);
}

/**
 * The scope of a recording's browser credentials: its one object key, and its stream's quota over the stream's
 * key directory (the stand-in refuses a part that would pass it; STS has no condition for sizes, so on AWS the
 * server enforces it when completing).
 */
export async function uploadScope(
  db: Db,
  rec: Pick<RecordRow, 'bucket' | 'object_key' | 'test_id' | 'stream'>,
  s: RecordingSettings,
): Promise<CredentialScope> {
  return {
    kind: 's3',
    bucket: rec.bucket,
    key: rec.object_key,
    quota: {
      prefix: streamPrefix(rec.test_id, rec.stream),
      maxBytes: await quotaOf(db, rec.test_id, rec.stream, s),
    },
  };
}

/**
 * Refuses to complete a recording that would take its sitting's stream past its quota: the upload is aborted
 * (its parts would otherwise stay in storage) and the answer is 413.
 */
export async function enforceQuotaOnComplete(
  app: App,
  store: ObjectStorage,
  rec: RecordRow,
  parts: readonly StorePart[],
  s: RecordingSettings,
): Promise<void> {
  const quota = await quotaOf(app.db, rec.test_id, rec.stream, s);
  const used =
    (await completedBytes(app.db, rec.test_id, rec.stream, rec.id)) + parts.reduce((n, p) => n + p.size, 0);
  if (used <= quota) return;
  if (rec.upload_id)
    await store
      .abortMultipartUpload({ bucket: rec.bucket, key: rec.object_key }, rec.upload_id)
      .catch((err: unknown) =>
        app.log.error({ err }, 'AbortMultipartUpload of an over-quota recording failed'),
      );
  await audit(app.db, {
    type: 'recording.quota_exceeded',
    userId: rec.tester_id,
    target: `record:${rec.id}`,
    details: `${rec.stream}: ${used} bytes, quota ${quota}`,
    level: 'warn',
  });
  throw new ApiError(
    413,
    'payload_too_large',
    `The sitting's ${rec.stream} recordings would hold ${used} bytes, more than their quota of ${quota}; the upload was discarded.`,
  );
}

/**
 * A completed recording is write-once: the credentials handed out for its key are revoked (local stand-in),
 * so the examinee cannot replace what managers will watch. STS credentials cannot be revoked; on AWS
 * `assertUnchanged` refuses playback of an object that is no longer the one completed.
 */
export function sealRecording(app: App, rec: Pick<RecordRow, 'bucket' | 'object_key'>): void {
  app.localCredentials?.revokeWhere(
    (scope) => scope.kind === 's3' && scope.bucket === rec.bucket && scope.key === rec.object_key,
  );
}

/**
 * Refuses playback when the stored object is not the one the server completed (or converted): its ETag
 * differs from the recorded one. Logged as an error with the record, for the administrators.
 */
export async function assertUnchanged(app: App, store: ObjectStorage, rec: RecordRow): Promise<void> {
  if (!rec.object_etag) return;
  const head = await store.headObject({ bucket: rec.bucket, key: rec.object_key });
  const bare = (e: string) => e.trim().replace(/^"|"$/g, '');
  if (head && bare(head.etag) === bare(rec.object_etag)) return;
  if (statusOf(rec) === '01')
    throw new ApiError(409, 'conflict', 'The recording is being converted; try again in a moment.');
  await audit(app.db, {
    type: 'recording.modified',
    userId: rec.tester_id,
    target: `record:${rec.id}`,
    details: head ? `stored ETag ${head.etag}, completed ${rec.object_etag}` : 'object missing',
    level: 'warn',
  });
  app.log.error({ record: rec.id }, 'a completed recording was modified in storage; playback refused');
  throw new ApiError(
    409,
    'conflict',
    'The stored recording is not the one that was completed; it is not served. The administrators were notified.',
  );
}

/**
 * Presign options for playback: the recorded media type, as an attachment (a browser never renders it as a
 * page of the app's origin; a <video> element plays it all the same).
 */
export function playbackHeaders(rec: Pick<RecordRow, 'id' | 'mime_type' | 'object_key'>): {
  contentType: string;
  contentDisposition: string;
} {
  const ext = rec.object_key.split('.').pop() ?? 'webm';
  return {
    contentType: rec.mime_type,
    contentDisposition: `attachment; filename="recording-${rec.id}.${ext}"`,
  };
}
