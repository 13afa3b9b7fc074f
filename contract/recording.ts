import { Type, type Static, type TSchema } from 'typebox';
import { IdInteger } from './common';
import { STREAM_KINDS, type StreamKind } from './constants/wider-view';
export * from './constants/recording';
export { STREAM_KINDS, type StreamKind } from './constants/wider-view';

const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()]);
const RecordId = Type.Union([IdInteger, Type.String({ pattern: '^[1-9][0-9]{0,17}$' })]);
/** One of STREAM_KINDS. */
export const Stream = Type.Union([
  Type.Literal(STREAM_KINDS[0]),
  Type.Literal(STREAM_KINDS[1]),
  Type.Literal(STREAM_KINDS[2]),
  Type.Literal(STREAM_KINDS[3]),
]);

// ---------------------------------------------------------------- tester/recording (POST)

/** One part as the browser saw it (UploadPart's ETag; quotes optional). */
export const ClientPart = Type.Object({
  PartNumber: Type.Integer({ minimum: 1, maximum: 10_000 }),
  ETag: Type.String({ minLength: 1, maxLength: 200 }),
});
export type ClientPart = Static<typeof ClientPart>;

/**
 * POST tester/recording.php. `method: 'PUT'` starts a recording of `stream` (default `camera`; needs
 * `mime_type`; `segment` optional, 1-based and counted per stream, the stream's next free one when absent;
 * repeating a PUT for an open segment returns that record again). A stream is recorded only when its start-up
 * flag is 1 (STREAM_FLAG: is_record for the camera, is_screen_record, is_room_scan, is_phone_camera), else 409.
 * `method: 'DELETE'` ends one (needs `record_id`; `parts` optional, only cross-checked against the server's
 * ListParts).
 */
export const RecordingPostBody = Type.Object({
  method: Type.Union([Type.Literal('PUT'), Type.Literal('DELETE')]),
  stream: Type.Optional(Stream),
  mime_type: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  segment: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000 })),
  record_id: Type.Optional(RecordId),
  parts: Type.Optional(Type.Array(ClientPart, { maxItems: 10_000 })),
});
export type RecordingPostBody = Static<typeof RecordingPostBody>;

/** The start form of RecordingPostBody, for the SPA. */
export interface RecordingStartBody {
  method: 'PUT';
  stream?: StreamKind;
  mime_type: string;
  segment?: number;
}

/** The end form of RecordingPostBody, for the SPA. */
export interface RecordingEndBody {
  method: 'DELETE';
  record_id: number;
  parts?: ClientPart[];
}

/**
 * spec §3 "Recording credentials", plus what the browser's S3Client needs. The credentials are scoped to the
 * one object key. `endpoint` is present only for a non-AWS store (the local stand-in's `<origin>/s3`); with
 * it the client must use `forcePathStyle: true`. `interval` is the recorder timeslice in seconds (spec §9);
 * `part_size` is the size every part but the last must reach (S3 refuses smaller ones at completion).
 */
export const RecordingCredentials = Type.Object({
  record_id: Type.Integer(),
  stream: Stream,
  segment: Type.Integer(),
  mime_type: Type.String(),
  accessKeyId: Type.String(),
  secretAccessKey: Type.String(),
  sessionToken: Type.String(),
  /** ISO time the credentials stop working; ask GET tester/recording.php for fresh ones before. */
  expiration: Type.String(),
  bucket: Type.String(),
  key: Type.String(),
  uploadId: Type.String(),
  interval: Type.Integer(),
  region: Type.String(),
  endpoint: Type.Optional(Type.String()),
  part_size: Type.Integer(),
});
export type RecordingCredentials = Static<typeof RecordingCredentials>;

/** The answer to POST tester/recording.php method DELETE (the same on a repeated DELETE). */
export const RecordingEndResult = Type.Object({
  record_id: Type.Integer(),
  stream: Stream,
  completed: Type.Boolean(),
  bucket: Type.String(),
  key: Type.String(),
  start_at: Type.String(),
  stop_at: Nullable(Type.String()),
  /** Bytes of the object (after the duration fix, its new size). */
  size: Type.Integer(),
  part_count: Type.Integer(),
  /** '01' right after completion while the duration fix runs; then '02' (or '08' with `detail`). */
  movie_status: Type.String(),
  detail: Type.String(),
  duration_ms: Nullable(Type.Integer()),
});
export type RecordingEndResult = Static<typeof RecordingEndResult>;

/**
 * GET tester/recording.php: fresh credentials for one of the tester's own open recordings; without
 * `record_id`, for the newest one of `stream` (default camera) not yet ended.
 */
export const RecordingQuery = Type.Object({
  record_id: Type.Optional(RecordId),
  stream: Type.Optional(Stream),
});
export type RecordingQuery = Static<typeof RecordingQuery>;

// ---------------------------------------------------------------- recovery

export const RecoveryBody = Type.Object({ record_id: RecordId });
export type RecoveryBody = Static<typeof RecoveryBody>;

/** A part the store holds. */
export const StoredPart = Type.Object({
  PartNumber: Type.Integer(),
  ETag: Type.String(),
  Size: Type.Integer(),
});
export type StoredPart = Static<typeof StoredPart>;

/**
 * POST recovery.php: the server's view of a recording, to resume after a reload. The client re-sends only the
 * parts missing from `parts` (from `next_part_number`). `credentials` is null once `completed`.
 */
export const RecoveryResult = Type.Object({
  record_id: Type.Integer(),
  stream: Stream,
  segment: Type.Integer(),
  upload_id: Nullable(Type.String()),
  key: Type.String(),
  bucket: Type.String(),
  parts: Type.Array(StoredPart),
  next_part_number: Type.Integer(),
  completed: Type.Boolean(),
  movie_status: Type.String(),
  part_size: Type.Integer(),
  credentials: Nullable(RecordingCredentials),
});
export type RecoveryResult = Static<typeof RecoveryResult>;

// ---------------------------------------------------------------- get_onetime_uri

export const OnetimeUriQuery = Type.Object({ record_id: RecordId });
export type OnetimeUriQuery = Static<typeof OnetimeUriQuery>;

/**
 * spec §3 "Record URI": a short-lived presigned GET of the recording, usable as `<video src>` (Range works).
 * Ask again when playback fails after `expires_in` seconds.
 */
export const OnetimeUriResult = Type.Object({
  id: Type.Integer(),
  stream: Stream,
  url: Type.String(),
  expires_in: Type.Integer(),
  mime_type: Type.String(),
  movie_status: Type.String(),
  duration_ms: Nullable(Type.Integer()),
});
export type OnetimeUriResult = Static<typeof OnetimeUriResult>;
