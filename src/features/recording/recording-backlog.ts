/**
 * Recordings left on this device by an earlier page (a reload, a crash, a logout mid-upload): each is sent
 * to the end and completed, re-sending only what storage lacks (recovery.php), then its local copy goes.
 * The recorder of the old page is gone, so no new bytes join it: a new recorder starts the next segment
 * (a new record) instead, and every object keeps one WebM header.
 */
import { endRecording, getRecordingCredentials, recoverRecording } from '../../api/recording';
import type { StreamKind } from '@contract/constants/wider-view';
import type { RecoveryResult } from '../../api/recording';
import type { ChunkStore, UploadMeta } from '../../media/recording/chunk-store';
import { createRechunker, resumeFeed } from '../../media/recording/rechunker';
import { DEFAULT_REGION } from '../../media/recording/recording-session';
import {
  createUploader,
  type S3Credentials,
  type S3Factory,
  type UploadProgress,
} from '../../media/recording/uploader';

/**
 * The server's record id, segment and stream in an object key: `recordings/<test>/<record>-<segment>.<ext>` for
 * the camera, `recordings/<test>/<stream>/<record>-<segment>.<ext>` for the wider view's other streams.
 */
export function recordOfKey(key: string): { recordId: number; segment: number; stream: StreamKind } | null {
  const m = /\/(?:(screen|room_scan|phone)\/)?(\d+)-(\d+)\.[a-z0-9]+$/i.exec(key);
  if (!m) return null;
  return {
    recordId: Number(m[2]),
    segment: Number(m[3]),
    stream: (m[1] as StreamKind | undefined) ?? 'camera',
  };
}

/** Marks planned parts storage already holds (same number and size) as confirmed: they are not re-sent. */
export function mergeServerParts(meta: UploadMeta, server: RecoveryResult['parts']): UploadMeta {
  const held = new Map(server.map((p) => [p.PartNumber, p]));
  return {
    ...meta,
    parts: meta.parts.map((p) => {
      if (p.ETag !== null) return p;
      const s = held.get(p.PartNumber);
      return s && s.Size === p.size ? { ...p, ETag: s.ETag } : p;
    }),
  };
}

/** What `drainStoredRecording` needs. */
export interface DrainOptions {
  store: ChunkStore;
  meta: UploadMeta;
  /** recovery.php's answer for the meta's record. */
  recovery: RecoveryResult;
  onProgress?(progress: UploadProgress): void;
  /** Tests: a fake S3. */
  s3Factory?: S3Factory;
  /** Aborts the drain (logout); the data stays. */
  signal?: AbortSignal;
}

/**
 * Sends a stored recording to the end, completes it (DELETE) and clears its local copy. Resolves
 * 'completed', 'empty' (nothing was ever recorded: only the local meta goes) or rejects (data kept).
 */
export async function drainStoredRecording(opts: DrainOptions): Promise<'completed' | 'empty'> {
  const { store, recovery } = opts;
  const key = opts.meta.recordingKey;
  if (recovery.completed) {
    await store.clear(key);
    return 'completed';
  }
  const creds = recovery.credentials;
  if (!creds) throw new Error('recording-backlog: no credentials for an open recording');
  const meta = mergeServerParts(opts.meta, recovery.parts);
  await store.putMeta(meta);
  const chunks = await store.list(key);
  const toS3 = (c: {
    accessKeyId: string;
    secretAccessKey: string;
    sessionToken: string;
  }): S3Credentials => ({
    accessKeyId: c.accessKeyId,
    secretAccessKey: c.secretAccessKey,
    sessionToken: c.sessionToken,
  });
  const uploader = createUploader({
    region: creds.region || DEFAULT_REGION,
    ...(creds.endpoint ? { endpoint: creds.endpoint } : {}),
    credentials: toS3(creds),
    getCredentials: async () => toS3(await getRecordingCredentials(recovery.recordId)),
    ...(opts.s3Factory ? { s3Factory: opts.s3Factory } : {}),
    meta,
    store,
    ...(opts.onProgress ? { onProgress: opts.onProgress } : {}),
  });
  const onAbort = () => uploader.dispose();
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    if (!meta.finished) {
      const { nextPartNumber, feed } = resumeFeed(meta.parts, chunks);
      const rechunker = createRechunker({ partSize: meta.partSize, nextPartNumber });
      for (const { chunk, startOffset } of feed) {
        for (const part of rechunker.push(chunk, startOffset)) await uploader.enqueue(part);
      }
      const last = rechunker.flush();
      if (last) await uploader.enqueue(last);
      await uploader.updateMeta({ finished: true });
    }
    uploader.start();
    const parts = await uploader.drain();
    if (parts.length === 0) {
      await store.clear(key);
      return 'empty';
    }
    await endRecording(recovery.recordId, parts);
    await store.clear(key);
    return 'completed';
  } finally {
    opts.signal?.removeEventListener('abort', onAbort);
    uploader.dispose();
  }
}

/** recovery.php for the record of a stored meta; null when the key is not one of ours. */
export async function recoverStored(meta: UploadMeta): Promise<RecoveryResult | null> {
  const rec = recordOfKey(meta.key);
  if (!rec) return null;
  return recoverRecording(rec.recordId);
}
