import { Type } from 'typebox';
import { ACTOR, Envelope, MANAGER_ACTORS } from '../../../../../../contract/common';
import {
  MOVIE_STATUS,
  OnetimeUriQuery,
  OnetimeUriResult,
  RECORDING_MIME_PATTERN,
  RecordingCredentials,
  RecordingEndResult,
  RecordingPostBody,
  RecordingQuery,
  RecoveryBody,
  RecoveryResult,
  type ClientPart,
  type RecordingCredentials as RecordingCredentialsT,
  type RecordingEndResult as RecordingEndResultT,
} from '../../../../../../contract/recording';
import { STREAM_FLAG, type StreamKind } from '../../../../../../contract/constants/wider-view';
import { ApiError } from '../../../../lib/api-error';
import type { App, AuthContext } from '../../../../lib/app-types';
import { DbKeyedLock } from '../../../../lib/db-lock';
import {
  S3_MAX_PART_SIZE,
  StoreError,
  createObjectStorage,
  type ObjectStorage,
  type StorePart,
} from '../../../../lib/object-storage';
import { RecordingConverter, conversionSettings } from '../../../../lib/recording/conversion';
import { recordingSettings } from '../../../../lib/recording/settings';
import {
  assertUnchanged,
  enforceQuotaOnComplete,
  playbackHeaders,
  sealRecording,
  uploadScope,
} from '../../../../lib/recording/integrity';
import {
  closeWithoutRecording,
  completedParts,
  endResult,
  findOpenRecord,
  findRecord,
  findSegment,
  insertRecord,
  isCompleted,
  logRecordStatus,
  markCompleted,
  nextSegment,
  recordingKey,
  recordsDueForFinalize,
  reserveRecordId,
  type RecordRow,
} from '../../../../lib/recording/store';
import { assertCanViewSitting } from '../../../../lib/tester/detail';
import {
  assertPhoneSittingOpen,
  assertRecordCaller,
  phoneRecordingOff,
  recordableStream,
} from '../../../../lib/phone/phone-recordings';
import { loadTester, requireOpenSitting, startupInt, startupOf } from '../../../../lib/sittings/sittings';

const validation = (message: string) => new ApiError(400, 'validation', message);
const conflict = (message: string) => new ApiError(409, 'conflict', message);
/** The store failed in a way that is not the client's fault (network, 5xx): retry later. */
const unavailable = (what: string) =>
  new ApiError(503, 'internal', `The recording storage is unavailable (${what}); retry later.`, {
    'Retry-After': '1',
  });

/** Recordings completed per finalize tick; the rest wait for the next tick. */
const FINALIZE_BATCH = 20;

const bareEtag = (e: string) => e.trim().replace(/^"|"$/g, '');

/** Whether a store error is S3 answering "no such upload" (aborted, expired, or already completed). */
const isNoSuchUpload = (err: unknown) => err instanceof StoreError && err.code === 'NoSuchUpload';
/** Whether a store error is S3 refusing the request (4xx), as opposed to a network or server fault. */
const isRefusal = (err: unknown) => err instanceof StoreError && err.status >= 400 && err.status < 500;

/**
 * Why the store's parts cannot make this recording, or [] when they can: parts numbered 1…N
 * without gaps, every part but the last at least `minPartSize`, and, when the browser sent its list, the same
 * part numbers and ETags.
 */
function partProblems(stored: StorePart[], browser: ClientPart[] | undefined, minPartSize: number): string[] {
  const problems: string[] = [];
  let expected = 1;
  stored.forEach((p, i) => {
    if (p.partNumber > expected) {
      const gap =
        p.partNumber - 1 === expected ? `part ${expected} is` : `parts ${expected}…${p.partNumber - 1} are`;
      problems.push(`${gap} missing in storage`);
    }
    expected = p.partNumber + 1;
    if (i < stored.length - 1 && p.size < minPartSize) {
      problems.push(
        `part ${p.partNumber} has ${p.size} bytes; every part but the last needs at least ${minPartSize}`,
      );
    }
  });
  if (browser) {
    const mine = new Map(stored.map((p) => [p.partNumber, p]));
    const seen = new Set<number>();
    for (const b of browser) {
      if (seen.has(b.PartNumber)) problems.push(`part ${b.PartNumber} is listed twice by the browser`);
      seen.add(b.PartNumber);
      const s = mine.get(b.PartNumber);
      if (!s) problems.push(`part ${b.PartNumber} is not in storage (upload it again)`);
      else if (bareEtag(s.etag) !== bareEtag(b.ETag)) {
        problems.push(
          `part ${b.PartNumber} differs (browser ETag ${bareEtag(b.ETag)}, storage ${bareEtag(s.etag)})`,
        );
      }
    }
    for (const s of stored) {
      if (!seen.has(s.partNumber))
        problems.push(`part ${s.partNumber} is in storage but not in the browser's list`);
    }
  }
  return problems;
}

/**
 * Recording of spec §7: tester/recording.php (start with method PUT, fresh credentials with GET,
 * end with method DELETE), recovery.php, and get_onetime_uri.php. The browser uploads the parts straight to
 * S3 with credentials scoped to its one object key; the server creates and completes the multipart upload
 * itself, from its own ListParts, and fixes the WebM duration off the request path.
 */
export default async function recordingRoutes(app: App): Promise<void> {
  const settings = recordingSettings();
  // One recording's start or end at a time across every instance on this database: a start repeated after a lost
  // answer gets the same upload back, and two ends cannot complete one upload twice.
  const mutex = new DbKeyedLock(app.db);
  // The S3 stand-in is mounted after the routes (app.ts load order), so the store is built on first use.
  let storage: ObjectStorage | null = null;
  const store = (): ObjectStorage =>
    (storage ??= createObjectStorage({
      bucket: settings.bucket,
      local: () => (app.hasDecorator('s3local') ? app.s3local : null),
    }));
  const converter = new RecordingConverter({
    db: app.db,
    storage: store,
    log: app.log,
    settings: conversionSettings(),
  });
  app.addHook('onReady', async () => {
    await converter
      .start()
      .catch((err: unknown) => app.log.error({ err }, 'recording conversion queue did not start'));
  });
  app.addHook('onClose', async () => {
    await converter.close();
  });

  /** Part size the browser must use: the configured size, but never below what the store accepts. */
  const partSize = () => Math.min(S3_MAX_PART_SIZE, Math.max(settings.partSize, store().minPartSize()));

  /**
   * A recording the caller may use, or 404/403: the examinee's own recordings of its streams, a paired phone's
   * its sitting's phone recordings (lib/phone/phone-recordings.ts).
   */
  async function ownRecord(auth: AuthContext, id: number): Promise<RecordRow> {
    const rec = await findRecord(app.db, id);
    if (!rec) throw new ApiError(404, 'not_found', 'No such recording.');
    assertRecordCaller(auth, rec);
    return rec;
  }

  /** Fresh browser credentials for an open recording (spec §3 "Recording credentials"). */
  async function credentialsFor(rec: RecordRow): Promise<RecordingCredentialsT> {
    if (!rec.upload_id) throw conflict('The recording has no multipart upload.');
    let creds;
    try {
      creds = await app.credentialIssuer.issue(
        await uploadScope(app.db, rec, settings),
        settings.credentialsTtlSeconds,
      );
    } catch (err) {
      app.log.error({ err }, 'recording credentials could not be issued');
      throw unavailable('credentials');
    }
    const s = store();
    const out: RecordingCredentialsT = {
      record_id: rec.id,
      stream: rec.stream,
      segment: rec.segment,
      mime_type: rec.mime_type,
      accessKeyId: creds.accessKeyId,
      secretAccessKey: creds.secretAccessKey,
      sessionToken: creds.sessionToken,
      expiration: creds.expiration.toISOString(),
      bucket: rec.bucket,
      key: rec.object_key,
      uploadId: rec.upload_id,
      interval: settings.intervalSeconds,
      region: s.region,
      part_size: partSize(),
    };
    const endpoint = s.browserEndpoint();
    if (endpoint) out.endpoint = endpoint;
    return out;
  }

  async function startRecording(
    auth: AuthContext,
    stream: StreamKind,
    mimeType: string | undefined,
    segment: number | undefined,
  ) {
    if (!mimeType) throw validation('mime_type is required with method PUT.');
    if (!RECORDING_MIME_PATTERN.test(mimeType)) {
      throw validation(
        "mime_type must be a WebM, Matroska or MP4 type (the recorder's mimeType, e.g. video/webm;codecs=vp9,opus).",
      );
    }
    const sitting = await requireOpenSitting(app.db, auth.userId);
    await assertPhoneSittingOpen(app.db, auth, sitting.id);
    if (sitting.kicked)
      throw new ApiError(403, 'kicked', 'The tester was kicked out; a manager must lift it first.');
    const flag = STREAM_FLAG[stream];
    if (startupInt(startupOf(sitting), flag, 0) !== 1) {
      throw conflict(`Recording is off for this sitting's ${stream} (start-up parameter ${flag} is not 1).`);
    }
    if (phoneRecordingOff(stream, startupInt(startupOf(sitting), 'is_record', 0)))
      throw conflict('Recording is off for this sitting (start-up parameter is_record is not 1).');
    return mutex.run(`test:${sitting.id}`, async () => {
      if (segment !== undefined) {
        const existing = await findSegment(app.db, sitting.id, stream, segment);
        // A repeated start (lost response) gets the same record back instead of a second upload.
        if (existing && !isCompleted(existing)) return credentialsFor(existing);
        if (existing)
          throw conflict(`Segment ${segment} is already completed; start segment ${segment + 1}.`);
      }
      const seg = segment ?? (await nextSegment(app.db, sitting.id, stream));
      const id = await reserveRecordId(app.db);
      const key = recordingKey(sitting.id, id, seg, mimeType, stream);
      let uploadId: string;
      try {
        uploadId = await store().createMultipartUpload({ bucket: settings.bucket, key }, mimeType);
      } catch (err) {
        app.log.error({ err, key }, 'CreateMultipartUpload failed');
        throw unavailable('CreateMultipartUpload');
      }
      const rec = await insertRecord(app.db, {
        id,
        testId: sitting.id,
        testerId: auth.userId,
        stream,
        bucket: settings.bucket,
        key,
        uploadId,
        mimeType,
        segment: seg,
      });
      return credentialsFor(rec);
    });
  }

  /** Finishes a record whose object exists although the row was not updated (a crash between the two). */
  async function adoptCompletedObject(rec: RecordRow, parts: StorePart[]): Promise<boolean> {
    const head = await store().headObject({ bucket: rec.bucket, key: rec.object_key });
    if (!head) return false;
    const done = await markCompleted(app.db, {
      id: rec.id,
      testId: rec.test_id,
      size: head.size,
      etag: head.etag,
      parts,
    });
    if (done) converter.enqueue(rec.id);
    return true;
  }

  async function endRecording(auth: AuthContext, recordId: number, browserParts: ClientPart[] | undefined) {
    const owned = await ownRecord(auth, recordId);
    const ended = await mutex.run(`record:${recordId}`, async (): Promise<RecordingEndResultT> => {
      const rec = (await findRecord(app.db, recordId))!;
      // Idempotent: a repeated end answers what the first one did.
      if (isCompleted(rec)) return endResult(rec);
      if (!rec.upload_id) throw conflict('The recording has no multipart upload.');
      const ref = { bucket: rec.bucket, key: rec.object_key };
      const s = store();
      let parts: StorePart[];
      try {
        parts = await s.listParts(ref, rec.upload_id);
      } catch (err) {
        if (isNoSuchUpload(err)) {
          if (await adoptCompletedObject(rec, [])) return endResult((await findRecord(app.db, recordId))!);
          throw conflict('The upload no longer exists (aborted or expired); start a new segment.');
        }
        app.log.error({ err }, 'ListParts failed');
        throw unavailable('ListParts');
      }
      if (parts.length === 0) {
        throw conflict(
          'No part of this recording has been uploaded yet; upload at least one part, then end it.',
        );
      }
      const problems = partProblems(parts, browserParts, s.minPartSize());
      if (problems.length > 0) {
        const more = problems.length > 8 ? ` (and ${problems.length - 8} more)` : '';
        throw conflict(`The recording cannot be completed: ${problems.slice(0, 8).join('; ')}${more}.`);
      }
      await enforceQuotaOnComplete(app, s, rec, parts, settings);
      let etag: string;
      try {
        etag = await s.completeMultipartUpload(ref, rec.upload_id, parts);
      } catch (err) {
        if (isNoSuchUpload(err) && (await adoptCompletedObject(rec, parts))) {
          return endResult((await findRecord(app.db, recordId))!);
        }
        if (isRefusal(err)) {
          const e = err as StoreError;
          throw conflict(`The storage refused to complete the recording: ${e.code}: ${e.message}`);
        }
        app.log.error({ err }, 'CompleteMultipartUpload failed');
        throw unavailable('CompleteMultipartUpload');
      }
      const size = parts.reduce((n, p) => n + p.size, 0);
      if (await markCompleted(app.db, { id: rec.id, testId: rec.test_id, size, etag, parts })) {
        // Off the request path (the duration fix reads the whole file): the answer says '01'; the queue moves it
        // to '02' or '08'.
        converter.enqueue(rec.id);
      }
      return endResult((await findRecord(app.db, recordId))!);
    });
    if (ended.completed) sealRecording(app, owned);
    return ended;
  }

  /**
   * Completes a recording whose page did not (kick-out, logout, exam end, recording time exceeded, a closed
   * window): from the parts the store holds, the run numbered 1, 2, 3 … without a gap (a gap would put a hole
   * in the middle of the video; the parts after it are named in the record's detail). Nothing stored: the upload
   * is aborted and the record closed with that said. Idempotent and safe on several instances (the same
   * per-record lock as the page's own end).
   */
  async function finalizeOnServer(recordId: number): Promise<void> {
    await mutex.run(`record:${recordId}`, async () => {
      const rec = await findRecord(app.db, recordId);
      if (!rec || isCompleted(rec)) return;
      const closeWithout = (detail: string) => closeWithoutRecording(app.db, rec.id, detail);
      if (!rec.upload_id) return closeWithout('The recording had no upload; nothing was stored.');
      const ref = { bucket: rec.bucket, key: rec.object_key };
      const s = store();
      let parts: StorePart[];
      try {
        parts = await s.listParts(ref, rec.upload_id);
      } catch (err) {
        if (isNoSuchUpload(err)) {
          if (await adoptCompletedObject(rec, [])) return;
          return closeWithout('The upload no longer exists in the storage; nothing could be kept.');
        }
        throw err;
      }
      let run = 0;
      while (parts[run]?.partNumber === run + 1) run++;
      const kept = parts.slice(0, run);
      if (kept.length === 0) {
        await s.abortMultipartUpload(ref, rec.upload_id).catch(() => undefined);
        return closeWithout(
          rec.finalize_reason === 'interrupted'
            ? 'No recorded data reached the storage before the page that recorded it went away.'
            : 'No recorded data reached the storage before the sitting ended.',
        );
      }
      let etag: string;
      try {
        etag = await s.completeMultipartUpload(ref, rec.upload_id, kept);
      } catch (err) {
        if (isNoSuchUpload(err) && (await adoptCompletedObject(rec, kept))) return;
        throw err;
      }
      const size = kept.reduce((n, p) => n + p.size, 0);
      const done = { id: rec.id, testId: rec.test_id, size, etag, parts: kept, byServer: true };
      if (await markCompleted(app.db, done)) {
        const dropped = parts.slice(run).map((p) => p.partNumber);
        const why =
          rec.finalize_reason === 'interrupted'
            ? 'after the page that recorded it went away (interrupted)'
            : 'after the sitting ended';
        await logRecordStatus(
          app.db,
          rec.id,
          MOVIE_STATUS.converting,
          `completed by the server ${why} (${kept.length} parts${
            dropped.length ? `; parts after a gap left out: ${dropped.join(', ')}` : ''
          })`,
        );
        converter.enqueue(rec.id);
      }
    });
  }

  /** Completes every recording whose finalize time has come (see finalizeOnServer). */
  async function finalizeDue(): Promise<void> {
    for (const id of await recordsDueForFinalize(app.db, FINALIZE_BATCH)) {
      await finalizeOnServer(id).catch((err: unknown) =>
        app.log.error({ err, recordId: id }, 'completing a recording after the sitting ended failed'),
      );
    }
  }

  let finalizeTimer: ReturnType<typeof setInterval> | null = null;
  let finalizing: Promise<void> | null = null;
  app.addHook('onReady', async () => {
    finalizeTimer = setInterval(() => {
      finalizing ??= finalizeDue()
        .catch((err: unknown) => app.log.error({ err }, 'recording finalize sweep failed'))
        .finally(() => {
          finalizing = null;
        });
    }, settings.finalizeTickMs);
    finalizeTimer.unref();
  });
  app.addHook('onClose', async () => {
    if (finalizeTimer) clearInterval(finalizeTimer);
    await finalizing;
  });

  app.post(
    '/tester/recording.php',
    {
      // The paired phone records its own camera (stream 'phone') with its own session.
      config: { access: [ACTOR.tester, 'phone'] },
      schema: {
        body: RecordingPostBody,
        response: { 200: Envelope(Type.Union([RecordingCredentials, RecordingEndResult])) },
      },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const b = request.body;
      reply.header('Cache-Control', 'no-store');
      if (b.method === 'PUT')
        return reply.ok(await startRecording(auth, recordableStream(auth, b.stream), b.mime_type, b.segment));
      if (b.record_id === undefined) throw validation('record_id is required with method DELETE.');
      return reply.ok(await endRecording(auth, Number(b.record_id), b.parts));
    },
  );

  app.get(
    '/tester/recording.php',
    {
      config: { access: [ACTOR.tester, 'phone'] },
      schema: { querystring: RecordingQuery, response: { 200: Envelope(RecordingCredentials) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const id = request.query.record_id;
      let rec: RecordRow | null;
      if (id !== undefined) rec = await ownRecord(auth, Number(id));
      else {
        rec = await findOpenRecord(app.db, auth.userId, recordableStream(auth, request.query.stream));
        if (!rec)
          throw new ApiError(404, 'not_found', 'No recording is in progress; start one with method PUT.');
        assertRecordCaller(auth, rec);
      }
      if (isCompleted(rec))
        throw conflict('The recording is already completed; start a new segment to record more.');
      reply.header('Cache-Control', 'no-store');
      return reply.ok(await credentialsFor(rec));
    },
  );

  app.post(
    '/recovery.php',
    {
      config: { access: [ACTOR.tester] },
      schema: { body: RecoveryBody, response: { 200: Envelope(RecoveryResult) } },
    },
    async (request, reply) => {
      const rec = await ownRecord(request.auth!, Number(request.body.record_id));
      reply.header('Cache-Control', 'no-store');
      const base = {
        record_id: rec.id,
        stream: rec.stream,
        segment: rec.segment,
        upload_id: rec.upload_id,
        key: rec.object_key,
        bucket: rec.bucket,
        movie_status: rec.movie_status.trim(),
        part_size: partSize(),
      };
      if (isCompleted(rec)) {
        const parts = await completedParts(app.db, rec.id);
        const next = (parts.at(-1)?.PartNumber ?? 0) + 1;
        return reply.ok({ ...base, parts, next_part_number: next, completed: true, credentials: null });
      }
      if (!rec.upload_id) throw conflict('The recording has no multipart upload.');
      let stored: StorePart[];
      try {
        stored = await store().listParts({ bucket: rec.bucket, key: rec.object_key }, rec.upload_id);
      } catch (err) {
        if (isNoSuchUpload(err)) {
          throw conflict(
            `The upload no longer exists; start a new segment (PUT with segment ${rec.segment + 1}).`,
          );
        }
        app.log.error({ err }, 'ListParts failed');
        throw unavailable('ListParts');
      }
      const parts = stored.map((p) => ({ PartNumber: p.partNumber, ETag: p.etag, Size: p.size }));
      // The next part continues after the first gap, so a lost part is uploaded again rather than skipped.
      let next = 1;
      while (parts[next - 1]?.PartNumber === next) next++;
      return reply.ok({
        ...base,
        parts,
        next_part_number: next,
        completed: false,
        credentials: await credentialsFor(rec),
      });
    },
  );

  app.get(
    '/get_onetime_uri.php',
    {
      // spec §6: recordings are watched from the examinee detail by managers and by the checker that
      // monitored the sitting; not by the tester itself.
      config: { access: [ACTOR.checker, ...MANAGER_ACTORS] },
      schema: { querystring: OnetimeUriQuery, response: { 200: Envelope(OnetimeUriResult) } },
    },
    async (request, reply) => {
      const rec = await findRecord(app.db, Number(request.query.record_id));
      if (!rec) throw new ApiError(404, 'recording_not_found', 'No such recording.');
      await assertCanViewSitting(app.db, request.auth!, await loadTester(app.db, rec.tester_id), rec.test_id);
      if (!isCompleted(rec))
        throw new ApiError(409, 'recording_not_finished', 'The recording is not finished yet.');
      await assertUnchanged(app, store(), rec);
      let url: string;
      try {
        const ref = { bucket: rec.bucket, key: rec.object_key };
        url = await store().presignGet(ref, settings.urlTtlSeconds, playbackHeaders(rec));
      } catch (err) {
        app.log.error({ err }, 'presign failed');
        throw unavailable('presign');
      }
      reply.header('Cache-Control', 'no-store');
      return reply.ok({
        id: rec.id,
        stream: rec.stream,
        url,
        expires_in: settings.urlTtlSeconds,
        mime_type: rec.mime_type,
        movie_status: rec.movie_status.trim(),
        duration_ms: rec.duration_ms === null ? null : Number(rec.duration_ms),
      });
    },
  );
}
