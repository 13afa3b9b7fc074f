/**
 * Sends planned parts to S3 with UploadPart, one at a time and in part-number order (spec §9), under the
 * spec §8 retry rules, and records each ETag in the upload meta before the part counts as done.
 * The server creates and completes the multipart upload; the browser only uploads parts.
 */
import { cloneMeta, type StoredPart, type UploadMeta } from './chunk-store';
import { partBounds, type PartLayout, type PartSpan } from './rechunker';
import {
  DEFAULT_RETRY_POLICY,
  TimedOutError,
  UploadGiveUpError,
  realClock,
  runWithRetry,
  type Clock,
  type GiveUpReason,
  type RetryPolicy,
} from './retry-policy';

/** Temporary S3 credentials (from the recording credentials of spec §3). */
export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** What the S3 client is built from. `endpoint` is set only for the local stand-in. */
export interface S3ClientSettings {
  region: string;
  credentials: S3Credentials;
  endpoint?: string;
}

/** The UploadPart input (the SDK's field names). */
export interface UploadPartInput {
  Bucket: string;
  Key: string;
  UploadId: string;
  PartNumber: number;
  Body: Uint8Array;
}

/** The one S3 call the browser makes. */
export interface S3PartClient {
  uploadPart(input: UploadPartInput, options: { abortSignal: AbortSignal }): Promise<{ ETag?: string }>;
  destroy?(): void;
}

/** Builds an S3 part client; `createSdkS3Factory()` in the app, a fake in tests. */
export type S3Factory = (settings: S3ClientSettings) => Promise<S3PartClient>;

/**
 * The factory on the real `@aws-sdk/client-s3`, loaded with a dynamic import so the SDK is its own chunk.
 * Client settings follow media-stack.md §4.3 and §8.10: path style (the local stand-in), one attempt (the app
 * owns retries; the SDK's 3 would multiply with spec §8's), and checksums only when required (no CRC32
 * headers on parts, which S3 may reject when Create named no algorithm). `requestHandler` is for tests.
 */
export function createSdkS3Factory(extra: { requestHandler?: unknown } = {}): S3Factory {
  return async ({ region, credentials, endpoint }) => {
    const { S3Client, UploadPartCommand } = await import('@aws-sdk/client-s3');
    const client = new S3Client({
      region,
      credentials,
      ...(endpoint ? { endpoint } : {}),
      forcePathStyle: true,
      maxAttempts: 1,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(extra.requestHandler ? { requestHandler: extra.requestHandler as never } : {}),
    });
    return {
      async uploadPart(input, { abortSignal }) {
        const out = await client.send(new UploadPartCommand(input), { abortSignal });
        return out.ETag === undefined ? {} : { ETag: out.ETag };
      },
      destroy: () => client.destroy(),
    };
  };
}

/** Uploader states. `idle`: nothing to send yet; `done`: finished and every part confirmed. */
export type UploadState = 'idle' | 'uploading' | 'waiting-network' | 'done' | 'error';

/** Progress for the UI ("uploading n of m", "waiting for the network"). */
export interface UploadProgress {
  partsDone: number;
  partsTotal: number;
  /** Bytes of planned parts S3 has not confirmed. */
  bytesPending: number;
  state: UploadState;
  /** Set in `error`: why the retries stopped. */
  reason?: GiveUpReason;
}

/** A confirmed part, as CompleteMultipartUpload wants it. */
export interface CompletedPart {
  PartNumber: number;
  ETag: string;
}

/** What the uploader needs. */
export interface UploaderOptions {
  /** Region, and `endpoint` for the local stand-in. */
  region: string;
  endpoint?: string;
  /** The credentials to start with. */
  credentials: S3Credentials;
  /** Fresh credentials, asked for when S3 answers ExpiredToken. */
  getCredentials(): Promise<S3Credentials>;
  /** Defaults to `createSdkS3Factory()`. */
  s3Factory?: S3Factory;
  /** The upload state to start from: a new one, or the stored one after a reload (resume). */
  meta: UploadMeta;
  /** Where part bytes and meta live (the chunk store). */
  store: {
    readPart(recordingKey: string, span: PartSpan): Promise<Uint8Array>;
    putMeta(meta: UploadMeta): Promise<void>;
  };
  onProgress?(progress: UploadProgress): void;
  /** Called after a part's ETag is stored (the session deletes covered chunks here). */
  onPartConfirmed?(meta: UploadMeta, part: StoredPart): Promise<void> | void;
  policy?: RetryPolicy;
  clock?: Clock;
  /** Per-request timeout; a request still running then counts as a spec §8 timeout. Default 60 s. */
  requestTimeoutMs?: number;
}

/** The part uploader of one recording. */
export interface Uploader {
  /** Starts (or resumes) sending: every planned part without an ETag is sent, in order. */
  start(): void;
  /** Plans a part: stores it in the meta first, then queues it. */
  enqueue(part: PartLayout): Promise<void>;
  /** Updates the recording fields of the meta and stores it. */
  updateMeta(patch: Partial<Pick<UploadMeta, 'mimeType' | 'lastSegment' | 'finished'>>): Promise<void>;
  /** Resolves with every confirmed part once nothing is queued; rejects with `UploadGiveUpError`. */
  drain(): Promise<CompletedPart[]>;
  /** After a give-up (e.g. `network-exhausted`): starts again with fresh retry counts. */
  retry(): void;
  progress(): UploadProgress;
  /** A copy of the current meta. */
  meta(): UploadMeta;
  /** Stops: aborts the request in flight and rejects `drain()`. Stored data stays. */
  dispose(): void;
}

/**
 * Per-request timeout default: 60 s. That lets a 5 MiB part through an uplink down to about 0.7 Mbit/s;
 * slower links time out every attempt and give up after 10 retries (`timeouts-exhausted`), data kept.
 */
export const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** Thrown by `drain()` after `dispose()`. */
export class UploaderDisposedError extends Error {
  override readonly name = 'UploaderDisposedError';
  constructor() {
    super('uploader disposed');
  }
}

/** Creates the uploader. Nothing is sent before `start()`. */
export function createUploader(options: UploaderOptions): Uploader {
  const policy = options.policy ?? DEFAULT_RETRY_POLICY;
  const clock = options.clock ?? realClock;
  const timeoutMs = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const factory = options.s3Factory ?? createSdkS3Factory();
  const meta: UploadMeta = cloneMeta(options.meta);
  meta.parts.sort((a, b) => a.PartNumber - b.PartNumber);
  const disposal = new AbortController();

  let credentials = options.credentials;
  let client: Promise<S3PartClient> | null = null;
  let started = false;
  let running = false;
  let sending = false;
  let waitingNetwork = false;
  let failure: unknown = null;
  let waiters: Array<{ resolve(parts: CompletedPart[]): void; reject(err: unknown): void }> = [];
  let metaWrites: Promise<void> = Promise.resolve();

  const unconfirmed = () => meta.parts.filter((p) => p.ETag === null);
  const completed = (): CompletedPart[] =>
    meta.parts.flatMap((p) => (p.ETag === null ? [] : [{ PartNumber: p.PartNumber, ETag: p.ETag }]));

  function progress(): UploadProgress {
    const pending = unconfirmed();
    let state: UploadState;
    if (failure) state = 'error';
    else if (waitingNetwork) state = 'waiting-network';
    else if (sending) state = 'uploading';
    else if (pending.length === 0 && meta.finished) state = 'done';
    else state = 'idle';
    const p: UploadProgress = {
      partsDone: meta.parts.length - pending.length,
      partsTotal: meta.parts.length,
      bytesPending: pending.reduce((n, part) => n + part.size, 0),
      state,
    };
    if (failure instanceof UploadGiveUpError) p.reason = failure.reason;
    else if (failure) p.reason = 'rejected';
    return p;
  }

  const report = () => options.onProgress?.(progress());

  function persist(): Promise<void> {
    const snapshot = cloneMeta(meta);
    const write = metaWrites.then(() => options.store.putMeta(snapshot));
    metaWrites = write.catch(() => undefined);
    return write;
  }

  function getClient(): Promise<S3PartClient> {
    if (!client) {
      const settings: S3ClientSettings = { region: options.region, credentials };
      if (options.endpoint) settings.endpoint = options.endpoint;
      const made = factory(settings);
      made.catch(() => {
        if (client === made) client = null;
      });
      client = made;
    }
    return client;
  }

  async function refreshCredentials(): Promise<void> {
    credentials = await options.getCredentials();
    const old = client;
    client = null;
    old?.then((c) => c.destroy?.()).catch(() => undefined);
  }

  async function attempt(input: UploadPartInput): Promise<{ ETag?: string }> {
    const s3 = await getClient();
    const request = new AbortController();
    const onDispose = () => request.abort(disposal.signal.reason);
    disposal.signal.addEventListener('abort', onDispose, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      request.abort(new TimedOutError(timeoutMs));
    }, timeoutMs);
    // Not every client honours the signal promptly; the race makes the timeout binding anyway.
    const aborted = new Promise<never>((_, reject) => {
      request.signal.addEventListener('abort', () => reject(request.signal.reason as Error), { once: true });
    });
    try {
      return await Promise.race([s3.uploadPart(input, { abortSignal: request.signal }), aborted]);
    } catch (err) {
      if (timedOut) throw err instanceof TimedOutError ? err : new TimedOutError(timeoutMs, { cause: err });
      throw err;
    } finally {
      clearTimeout(timer);
      disposal.signal.removeEventListener('abort', onDispose);
    }
  }

  async function send(part: StoredPart): Promise<void> {
    let body: Uint8Array;
    try {
      body = await options.store.readPart(meta.recordingKey, part);
    } catch (err) {
      // A damaged or missing local chunk cannot get better by retrying.
      throw new UploadGiveUpError('rejected', 'other', { cause: err });
    }
    const input: UploadPartInput = {
      Bucket: meta.bucket,
      Key: meta.key,
      UploadId: meta.uploadId,
      PartNumber: part.PartNumber,
      Body: body,
    };
    const out = await runWithRetry(() => attempt(input), policy, clock, {
      signal: disposal.signal,
      refreshCredentials,
      onRetry: (decision) => {
        const was = waitingNetwork;
        waitingNetwork = decision.errorClass === 'network';
        if (was !== waitingNetwork) report();
      },
    });
    if (!out.ETag) {
      // Without `Access-Control-Expose-Headers: ETag` the browser cannot see it (media-stack.md §8.11).
      throw new UploadGiveUpError('rejected', 'other', {
        cause: new Error('UploadPart returned no ETag (is ETag exposed by CORS?)'),
      });
    }
    waitingNetwork = false;
    part.ETag = out.ETag;
    await persist();
    report();
    await options.onPartConfirmed?.(cloneMeta(meta), { ...part });
  }

  function settle(): void {
    if (running || disposal.signal.aborted) return;
    if (failure) {
      const err = failure;
      const ws = waiters;
      waiters = [];
      ws.forEach((w) => w.reject(err));
    } else if (unconfirmed().length === 0) {
      const ws = waiters;
      waiters = [];
      const parts = completed();
      ws.forEach((w) => w.resolve(parts));
    }
  }

  async function pump(): Promise<void> {
    if (!started || running || failure || disposal.signal.aborted) return;
    running = true;
    try {
      for (let next = unconfirmed()[0]; next; next = unconfirmed()[0]) {
        if (disposal.signal.aborted) return;
        sending = true;
        report();
        await send(next);
      }
    } catch (err) {
      if (!disposal.signal.aborted) failure = err;
    } finally {
      running = false;
      sending = false;
      waitingNetwork = false;
    }
    if (disposal.signal.aborted) return;
    report();
    settle();
  }

  return {
    start() {
      started = true;
      void pump();
    },
    async enqueue(layout) {
      if (meta.finished) throw new Error('uploader: the recording is finished');
      const existing = meta.parts.find((p) => p.PartNumber === layout.partNumber);
      if (existing) throw new Error(`uploader: part ${layout.partNumber} is already planned`);
      meta.parts.push({
        PartNumber: layout.partNumber,
        size: layout.size,
        ...partBounds(layout),
        ETag: null,
      });
      meta.parts.sort((a, b) => a.PartNumber - b.PartNumber);
      await persist();
      report();
      void pump();
    },
    async updateMeta(patch) {
      Object.assign(meta, patch);
      await persist();
      report();
      settle();
    },
    drain() {
      if (disposal.signal.aborted) return Promise.reject(new UploaderDisposedError());
      const p = new Promise<CompletedPart[]>((resolve, reject) => waiters.push({ resolve, reject }));
      settle();
      void pump();
      return p;
    },
    retry() {
      if (disposal.signal.aborted) return;
      failure = null;
      report();
      void pump();
    },
    progress,
    meta: () => cloneMeta(meta),
    dispose() {
      if (disposal.signal.aborted) return;
      disposal.abort(new UploaderDisposedError());
      const ws = waiters;
      waiters = [];
      ws.forEach((w) => w.reject(new UploaderDisposedError()));
      client?.then((c) => c.destroy?.()).catch(() => undefined);
      client = null;
    },
  };
}
