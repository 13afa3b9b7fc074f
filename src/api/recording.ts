import type {
  ClientPart,
  RecordingCredentials as WireCredentials,
  RecordingEndResult as WireEndResult,
  RecoveryResult as WireRecovery,
} from '@contract/recording';
import type { StreamKind } from '@contract/constants/wider-view';
import { camelize, type Camelize } from '../lib/case';
import { call } from './client';

/** spec §3 "Recording credentials" (camelCase): S3 keys, bucket/key/uploadId, record id, part size. */
export type RecordingCredentials = Camelize<WireCredentials>;
/** The answer to ending a recording (size, part count, movie status). */
export type RecordingEndResult = Camelize<WireEndResult>;
/** The server's view of a recording after a reload (parts storage holds, fresh credentials). */
export type RecoveryResult = Camelize<WireRecovery>;
/** One confirmed part, as the browser saw it (UploadPart's ETag). */
export type { ClientPart };

/**
 * POST tester/recording.php method PUT: starts a recording (spec §4 "Recording": start) and answers its
 * credentials (spec §3). `mimeType` is the type the recorder will use; `segment` (1-based, counted per stream)
 * is passed when a restarted recorder follows an earlier recording (n + 1), so a repeated start returns the
 * same record. `stream` is what it records (the camera unless said otherwise; README "The wider view").
 */
export async function startRecording(
  mimeType: string,
  segment?: number,
  stream: StreamKind = 'camera',
): Promise<RecordingCredentials> {
  const data: Record<string, unknown> = { method: 'PUT', mime_type: mimeType };
  if (stream !== 'camera') data.stream = stream;
  if (segment !== undefined) data.segment = segment;
  return camelize(await call<WireCredentials>('tester/recording', { data }));
}

/**
 * GET tester/recording.php: fresh credentials for one of the tester's open recordings (asked for when S3
 * answers ExpiredToken); without `recordId`, for the newest one of `stream` not yet ended.
 */
export async function getRecordingCredentials(
  recordId?: number,
  stream: StreamKind = 'camera',
): Promise<RecordingCredentials> {
  const params: Record<string, unknown> = recordId === undefined ? {} : { record_id: recordId };
  if (recordId === undefined && stream !== 'camera') params.stream = stream;
  return camelize(await call<WireCredentials>('tester/recording', { method: 'GET', params }));
}

/**
 * POST tester/recording.php method DELETE: ends a recording (spec §4 "stop and finalise"). The server
 * completes the multipart upload from its own list of parts; `parts` (the browser's) are only cross-checked.
 * Repeating it answers the same result.
 */
export async function endRecording(recordId: number, parts?: ClientPart[]): Promise<RecordingEndResult> {
  const data: Record<string, unknown> = { method: 'DELETE', record_id: recordId };
  if (parts && parts.length > 0) data.parts = parts;
  return camelize(await call<WireEndResult>('tester/recording', { data }));
}

/**
 * POST recovery.php: the server's view of a recording after a reload or crash: the parts storage holds,
 * whether it is completed, and fresh credentials while it is open.
 */
export async function recoverRecording(recordId: number): Promise<RecoveryResult> {
  return camelize(await call<WireRecovery>('recovery', { data: { record_id: recordId } }));
}
