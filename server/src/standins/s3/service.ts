import type { ServerCredentials } from './auth';
import { MAX_PRESIGN_SECONDS, presignUrl } from './sigv4';
import type { ObjectMeta, PartMeta, S3Store, StoreSettings } from './store';

/** A stored part as the service reports it. */
export type StoredPart = Omit<PartMeta, 'file'>;

/** A completed object as the service reports it. */
export type StoredObject = ObjectMeta;

/**
 * Settings for an `S3Client` the app server can use against the stand-in (the same code path as production
 * against AWS; only this config differs). Structurally an `S3ClientConfig`.
 */
export interface LocalS3ClientConfig {
  region: string;
  endpoint: string;
  forcePathStyle: true;
  credentials: { accessKeyId: string; secretAccessKey: string };
  maxAttempts: number;
  requestChecksumCalculation: 'WHEN_REQUIRED';
  responseChecksumValidation: 'WHEN_REQUIRED';
}

/**
 * `app.s3local`: the local S3 stand-in seen from the app server. Present only when the stand-in
 * is on (no `S3_ENDPOINT`); null when the server talks to AWS.
 *
 * Two ways to use it: call these functions directly, or build an `S3Client` from `clientConfig()` and use the
 * real SDK (preferred: the code is then identical to production's).
 */
export interface S3LocalService {
  /** Base URL of the stand-in, e.g. `http://127.0.0.1:8080/s3` (read at call time from `publicOrigin`). */
  endpoint(): string;
  /** Region the server should sign with (the stand-in accepts any region in the credential scope). */
  readonly region: string;
  /** The server's own full-access key pair (the role credentials it has in production). */
  readonly serverCredentials: ServerCredentials;
  /** Config for `new S3Client(...)` on the server side. */
  clientConfig(): LocalS3ClientConfig;
  /** Live settings (minimum part size, strict checksum rule); the /__s3 test hooks change them. */
  readonly settings: StoreSettings;
  /** CreateMultipartUpload; returns the UploadId. `checksumAlgorithm` 'CRC32' opts into part checksums. */
  createMultipartUpload(
    bucket: string,
    key: string,
    contentType: string,
    checksumAlgorithm?: 'CRC32',
  ): Promise<string>;
  /** Every stored part, ascending (no paging; throws S3Error NoSuchUpload). */
  listParts(bucket: string, key: string, uploadId: string): Promise<StoredPart[]>;
  /** Completes with the parts the store holds, in part-number order (same rules as CompleteMultipartUpload). */
  completeFromStoredParts(bucket: string, key: string, uploadId: string): Promise<StoredObject>;
  /** AbortMultipartUpload (throws S3Error NoSuchUpload). */
  abort(bucket: string, key: string, uploadId: string): Promise<void>;
  /** The object's metadata, or null. */
  headObject(bucket: string, key: string): Promise<StoredObject | null>;
  /** Path of the object's bytes on disk (for server-side post-processing, media-stack.md §8 pitfall 13). */
  objectPath(bucket: string, key: string): string;
  /** A presigned GET URL (for `<video src>`), signed with the server credentials; ttl ≤ 7 days. */
  presignGet(bucket: string, key: string, ttlSeconds: number): string;
}

/** Builds the service over the stand-in's store. */
export function createS3LocalService(opts: {
  store: S3Store;
  serverCredentials: ServerCredentials;
  region: string;
  endpoint: () => string;
}): S3LocalService {
  const { store } = opts;
  const strip = (p: PartMeta): StoredPart => {
    const { file: _file, ...rest } = p;
    return rest;
  };
  return {
    endpoint: opts.endpoint,
    region: opts.region,
    serverCredentials: opts.serverCredentials,
    settings: store.settings,
    clientConfig: () => ({
      region: opts.region,
      endpoint: opts.endpoint(),
      forcePathStyle: true,
      credentials: { ...opts.serverCredentials },
      maxAttempts: 1,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    }),
    async createMultipartUpload(bucket, key, contentType, checksumAlgorithm) {
      return (await store.createUpload(bucket, key, contentType, checksumAlgorithm ?? null)).uploadId;
    },
    async listParts(bucket, key, uploadId) {
      return (await store.listParts(await store.getUpload(bucket, key, uploadId))).map(strip);
    },
    async completeFromStoredParts(bucket, key, uploadId) {
      const upload = await store.getUpload(bucket, key, uploadId);
      const parts = await store.listParts(upload);
      return store.complete(
        bucket,
        key,
        uploadId,
        parts.map((p) => ({ partNumber: p.partNumber, etag: p.etag, checksumCrc32: p.checksumCrc32 })),
      );
    },
    abort: (bucket, key, uploadId) => store.abort(bucket, key, uploadId),
    headObject: (bucket, key) => store.headObject(bucket, key),
    objectPath: (bucket, key) => store.objectPath(bucket, key),
    presignGet(bucket, key, ttlSeconds) {
      if (!(ttlSeconds >= 1 && ttlSeconds <= MAX_PRESIGN_SECONDS))
        throw new RangeError('ttlSeconds must be 1…604800');
      const base = new URL(opts.endpoint());
      const encodedKey = key
        .split('/')
        .map((s) => encodeURIComponent(s))
        .join('/');
      return presignUrl({
        origin: base.origin,
        path: `${base.pathname.replace(/\/$/, '')}/${bucket}/${encodedKey}`,
        region: opts.region,
        credentials: opts.serverCredentials,
        expiresIn: Math.floor(ttlSeconds),
      });
    },
  };
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The local S3 stand-in's service; null when S3 is AWS (S3_ENDPOINT set). */
    s3local: S3LocalService | null;
  }
}
