import { createWriteStream } from 'node:fs';
import { open, stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListPartsCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { SignatureV4 } from '@smithy/signature-v4';
import type { S3LocalService } from '../standins/s3/service';
import type { App } from './app-types';
import { NodeSha256 } from './aws/sigv4-verify';
import { recordingSettings } from './recording/settings';

/** S3's minimum size of every part but the last, and its maximum part size (media-stack.md §6). */
export const S3_MIN_PART_SIZE = 5 * 1024 * 1024;
export const S3_MAX_PART_SIZE = 5 * 1024 * 1024 * 1024;
/** S3's limit on presigned URL lifetime (SigV4: 7 days). */
export const MAX_PRESIGN_SECONDS = 604_800;
/** Server-side uploads (the duration fix) above this size go up in parts of this size. */
const SERVER_UPLOAD_PART_SIZE = 16 * 1024 * 1024;

/** Bucket and key of one object. */
export interface ObjectRef {
  bucket: string;
  key: string;
}

/** A part the store holds for a multipart upload. `etag` carries S3's quotes. */
export interface StorePart {
  partNumber: number;
  etag: string;
  size: number;
}

/** One page of ListParts. */
export interface StorePartsPage {
  parts: StorePart[];
  /** Pass as `marker` to read the next page; null when this was the last page. */
  nextMarker: number | null;
}

/** What HeadObject tells. */
export interface StoreObjectInfo {
  size: number;
  etag: string;
  contentType: string;
}

/**
 * An S3 error answered by the store (NoSuchUpload, EntityTooSmall, InvalidPart …), as opposed to a network or
 * server fault. `code` is S3's error code and `status` its HTTP status.
 */
export class StoreError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'StoreError';
  }
}

/**
 * The object store as the app server uses it: the recordings bucket on AWS S3, or the local S3
 * stand-in. Every call goes through the real `@aws-sdk/client-s3`, so local and production share one code
 * path; only the client configuration differs (see `createObjectStorage`).
 */
export interface ObjectStorage {
  /** Bucket for new recordings (S3_BUCKET). */
  readonly bucket: string;
  /** Region the browser's S3Client signs with. */
  readonly region: string;
  /** Base URL the browser's S3Client must use (path style), or undefined for AWS's own endpoints. */
  browserEndpoint(): string | undefined;
  /** The smallest part the store accepts for every part but the last (5 MiB on S3; lower on a test stand-in). */
  minPartSize(): number;
  /** CreateMultipartUpload; returns the UploadId. No checksum algorithm: parts carry ETags only (media-stack.md §4.3). */
  createMultipartUpload(ref: ObjectRef, contentType: string): Promise<string>;
  /** One page of ListParts (at most `maxParts`, S3 caps it at 1000) after part number `marker`. */
  listPartsPage(
    ref: ObjectRef,
    uploadId: string,
    marker?: number,
    maxParts?: number,
  ): Promise<StorePartsPage>;
  /** Every part of an upload, ascending, reading all ListParts pages. */
  listParts(ref: ObjectRef, uploadId: string): Promise<StorePart[]>;
  /** CompleteMultipartUpload with these parts (ascending); returns the object's ETag. */
  completeMultipartUpload(ref: ObjectRef, uploadId: string, parts: readonly StorePart[]): Promise<string>;
  /** AbortMultipartUpload (NoSuchUpload is not an error: the upload is gone either way). */
  abortMultipartUpload(ref: ObjectRef, uploadId: string): Promise<void>;
  /** HeadObject, or null when there is no such object. */
  headObject(ref: ObjectRef): Promise<StoreObjectInfo | null>;
  /**
   * A presigned GET URL valid for `ttlSeconds` (≤ 7 days), for `<video src>`; Range requests work with it.
   * `response` fixes the Content-Type and Content-Disposition the answer carries, whatever the object was
   * stored with (signed into the URL as S3's response-content-type / response-content-disposition).
   */
  presignGet(
    ref: ObjectRef,
    ttlSeconds: number,
    response?: { contentType?: string; contentDisposition?: string },
  ): Promise<string>;
  /** DeleteObject (no error when absent). */
  deleteObject(ref: ObjectRef): Promise<void>;
  /** Bytes `start`…`end` (inclusive) of an object. */
  getObjectRange(ref: ObjectRef, start: number, end: number): Promise<Uint8Array>;
  /** PutObject of a small body held in memory (a live still); returns the ETag. */
  putObject(ref: ObjectRef, body: Buffer, contentType: string): Promise<string>;
  /** The whole of a small object (a live still), or null when there is no such object. */
  getObject(ref: ObjectRef): Promise<Buffer | null>;
  /** Streams the whole object into `file`. */
  downloadToFile(ref: ObjectRef, file: string, signal?: AbortSignal): Promise<void>;
  /** Writes `file` as the object (PutObject, or a server-side multipart upload for big files); returns the ETag. */
  uploadFile(ref: ObjectRef, file: string, contentType: string, signal?: AbortSignal): Promise<string>;
  /**
   * Where the object's bytes already are on this machine (the local stand-in keeps them on disk), so
   * post-processing can read them without a download; undefined on S3.
   */
  localPath(ref: ObjectRef): string | undefined;
}

/** Settings of the S3 client when the server talks to AWS or an S3-compatible store. */
export interface RemoteStorageSettings {
  region: string;
  /** S3_ENDPOINT: the server's endpoint for a non-AWS store; undefined for AWS. */
  endpoint: string | undefined;
  /** S3_FORCE_PATH_STYLE=1. */
  forcePathStyle: boolean;
  /** S3_PUBLIC_ENDPOINT: the browser's endpoint for a non-AWS store; undefined for AWS. */
  publicEndpoint: string | undefined;
  /**
   * S3_MIN_PART_SIZE: the smallest part the store accepts for every part but the last (default S3's 5 MiB;
   * lower only for a store that accepts smaller ones, e.g. the stand-ins service with S3_LOCAL_MIN_PART_SIZE).
   */
  minPartSize: number;
}

/** S3's canonical URI encoding of a key: every byte but RFC 3986 unreserved ones, `/` kept. */
export function encodeS3Key(key: string): string {
  return key
    .split('/')
    .map((s) =>
      encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
    )
    .join('/');
}

/** Rethrows an S3 service error as a StoreError (its code and status); anything else unchanged. */
function asStoreError(err: unknown): unknown {
  if (err instanceof S3ServiceException) {
    return new StoreError(err.name, err.$metadata.httpStatusCode ?? 0, err.message);
  }
  return err;
}

async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw asStoreError(err);
  }
}

/** The URL of an object for a presigned GET: path style on a custom endpoint, else virtual-hosted AWS. */
function objectUrl(ref: ObjectRef, region: string, endpoint: string | undefined, pathStyle: boolean): URL {
  const key = encodeS3Key(ref.key);
  if (endpoint && pathStyle) {
    const base = endpoint.replace(/\/$/, '');
    return new URL(`${base}/${ref.bucket}/${key}`);
  }
  if (endpoint) {
    const u = new URL(endpoint);
    return new URL(`${u.protocol}//${ref.bucket}.${u.host}/${key}`);
  }
  return new URL(`https://${ref.bucket}.s3.${region}.amazonaws.com/${key}`);
}

function minPartSizeFromEnv(v: string | undefined): number {
  if (v === undefined || v === '') return S3_MIN_PART_SIZE;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > S3_MAX_PART_SIZE)
    throw new Error(`Invalid S3_MIN_PART_SIZE: ${v}`);
  return n;
}

/** Reads the remote settings from the environment (S3_REGION, S3_ENDPOINT, S3_FORCE_PATH_STYLE, S3_PUBLIC_ENDPOINT, S3_MIN_PART_SIZE). */
export function remoteStorageSettings(env: NodeJS.ProcessEnv = process.env): RemoteStorageSettings {
  return {
    region: env.S3_REGION || env.AWS_REGION || 'ap-northeast-1',
    endpoint: env.S3_ENDPOINT || undefined,
    forcePathStyle: env.S3_FORCE_PATH_STYLE === '1' || env.S3_FORCE_PATH_STYLE === 'true',
    publicEndpoint: env.S3_PUBLIC_ENDPOINT || undefined,
    minPartSize: minPartSizeFromEnv(env.S3_MIN_PART_SIZE),
  };
}

/**
 * Builds the object store. With the local stand-in (`app.s3local`, on when S3_ENDPOINT is unset) the server's
 * S3Client uses the stand-in's `clientConfig()` (full-access key pair, path style, `<publicOrigin>/s3`); the
 * client is rebuilt if that endpoint changes (tests learn their port after listen). Otherwise the client uses
 * the default AWS credential chain (IAM role, AWS_* variables) with `remote`.
 *
 * Presigned GETs are made with `@smithy/signature-v4` and the server's credentials in both cases (the same
 * signing `@aws-sdk/s3-request-presigner` does), so the stand-in checks exactly what AWS would.
 */
export function createObjectStorage(opts: {
  bucket: string;
  local: () => S3LocalService | null;
  remote?: RemoteStorageSettings;
}): ObjectStorage {
  const remote = opts.remote ?? remoteStorageSettings();
  let cached: { endpoint: string | undefined; client: S3Client } | null = null;

  function settings(): {
    config: S3ClientConfig;
    endpoint: string | undefined;
    pathStyle: boolean;
    region: string;
  } {
    const local = opts.local();
    if (local) {
      const config = local.clientConfig();
      return { config, endpoint: config.endpoint, pathStyle: true, region: config.region };
    }
    const config: S3ClientConfig = {
      region: remote.region,
      forcePathStyle: remote.forcePathStyle,
      // The browser sends parts without checksums (media-stack.md §4.3), so the server's calls match that.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    };
    if (remote.endpoint) config.endpoint = remote.endpoint;
    return { config, endpoint: remote.endpoint, pathStyle: remote.forcePathStyle, region: remote.region };
  }

  function client(): S3Client {
    const s = settings();
    if (cached && cached.endpoint === s.endpoint) return cached.client;
    cached?.client.destroy();
    cached = { endpoint: s.endpoint, client: new S3Client(s.config) };
    return cached.client;
  }

  async function listPartsPage(
    ref: ObjectRef,
    uploadId: string,
    marker = 0,
    maxParts = 1000,
  ): Promise<StorePartsPage> {
    const out = await call(() =>
      client().send(
        new ListPartsCommand({
          Bucket: ref.bucket,
          Key: ref.key,
          UploadId: uploadId,
          MaxParts: maxParts,
          PartNumberMarker: marker > 0 ? String(marker) : undefined,
        }),
      ),
    );
    const parts = (out.Parts ?? []).map((p) => ({
      partNumber: p.PartNumber ?? 0,
      etag: p.ETag ?? '',
      size: p.Size ?? 0,
    }));
    const next = out.NextPartNumberMarker
      ? Number(out.NextPartNumberMarker)
      : (parts.at(-1)?.partNumber ?? null);
    return { parts, nextMarker: out.IsTruncated && next !== null && next > marker ? next : null };
  }

  const storage: ObjectStorage = {
    bucket: opts.bucket,
    get region() {
      return settings().region;
    },
    browserEndpoint() {
      const local = opts.local();
      return local ? local.endpoint() : remote.publicEndpoint;
    },
    minPartSize() {
      return opts.local()?.settings.minPartSize ?? remote.minPartSize;
    },
    async createMultipartUpload(ref, contentType) {
      const out = await call(() =>
        client().send(
          new CreateMultipartUploadCommand({ Bucket: ref.bucket, Key: ref.key, ContentType: contentType }),
        ),
      );
      if (!out.UploadId) throw new StoreError('NoUploadId', 0, 'CreateMultipartUpload returned no UploadId.');
      return out.UploadId;
    },
    listPartsPage,
    async listParts(ref, uploadId) {
      const all: StorePart[] = [];
      let marker = 0;
      // Bounded: S3 allows 10,000 parts, at most 1,000 per page.
      for (let page = 0; page < 20; page++) {
        const p = await listPartsPage(ref, uploadId, marker);
        all.push(...p.parts);
        if (p.nextMarker === null) break;
        marker = p.nextMarker;
      }
      return all.sort((a, b) => a.partNumber - b.partNumber);
    },
    async completeMultipartUpload(ref, uploadId, parts) {
      const out = await call(() =>
        client().send(
          new CompleteMultipartUploadCommand({
            Bucket: ref.bucket,
            Key: ref.key,
            UploadId: uploadId,
            MultipartUpload: { Parts: parts.map((p) => ({ PartNumber: p.partNumber, ETag: p.etag })) },
          }),
        ),
      );
      return out.ETag ?? '';
    },
    async abortMultipartUpload(ref, uploadId) {
      try {
        await call(() =>
          client().send(
            new AbortMultipartUploadCommand({ Bucket: ref.bucket, Key: ref.key, UploadId: uploadId }),
          ),
        );
      } catch (err) {
        if (err instanceof StoreError && err.code === 'NoSuchUpload') return;
        throw err;
      }
    },
    async headObject(ref) {
      try {
        const out = await call(() =>
          client().send(new HeadObjectCommand({ Bucket: ref.bucket, Key: ref.key })),
        );
        return { size: out.ContentLength ?? 0, etag: out.ETag ?? '', contentType: out.ContentType ?? '' };
      } catch (err) {
        if (
          err instanceof StoreError &&
          (err.status === 404 || err.code === 'NotFound' || err.code === 'NoSuchKey')
        ) {
          return null;
        }
        throw err;
      }
    },
    async presignGet(ref, ttlSeconds, response) {
      if (!(ttlSeconds >= 1 && ttlSeconds <= MAX_PRESIGN_SECONDS))
        throw new RangeError('ttlSeconds must be 1…604800');
      const s = settings();
      const c = client();
      const url = objectUrl(ref, s.region, s.endpoint, s.pathStyle);
      const signer = new SignatureV4({
        credentials: () => c.config.credentials(),
        region: s.region,
        service: 's3',
        sha256: NodeSha256,
        uriEscapePath: false,
      });
      const signed = await signer.presign(
        {
          method: 'GET',
          protocol: url.protocol,
          hostname: url.hostname,
          port: url.port ? Number(url.port) : undefined,
          path: url.pathname,
          query: {
            'x-id': 'GetObject',
            ...(response?.contentType ? { 'response-content-type': response.contentType } : {}),
            ...(response?.contentDisposition
              ? { 'response-content-disposition': response.contentDisposition }
              : {}),
          },
          // Presigned S3 GETs sign no payload (what @aws-sdk/s3-request-presigner sends).
          headers: { host: url.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
        },
        { expiresIn: Math.floor(ttlSeconds) },
      );
      const qs = Object.entries(signed.query ?? {})
        .flatMap(([k, v]) => (Array.isArray(v) ? v.map((x) => [k, x] as const) : [[k, v] as const]))
        .filter((kv): kv is readonly [string, string] => typeof kv[1] === 'string')
        .map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`)
        .join('&');
      return `${url.origin}${signed.path}?${qs}`;
    },
    async deleteObject(ref) {
      await call(() => client().send(new DeleteObjectCommand({ Bucket: ref.bucket, Key: ref.key })));
    },
    async getObjectRange(ref, start, end) {
      const out = await call(() =>
        client().send(
          new GetObjectCommand({ Bucket: ref.bucket, Key: ref.key, Range: `bytes=${start}-${end}` }),
        ),
      );
      if (!out.Body) return new Uint8Array();
      return out.Body.transformToByteArray();
    },
    async putObject(ref, body, contentType) {
      const out = await call(() =>
        client().send(
          new PutObjectCommand({ Bucket: ref.bucket, Key: ref.key, Body: body, ContentType: contentType }),
        ),
      );
      return out.ETag ?? '';
    },
    async getObject(ref) {
      try {
        const out = await call(() =>
          client().send(new GetObjectCommand({ Bucket: ref.bucket, Key: ref.key })),
        );
        if (!out.Body) return Buffer.alloc(0);
        return Buffer.from(await out.Body.transformToByteArray());
      } catch (err) {
        if (err instanceof StoreError && (err.status === 404 || err.code === 'NoSuchKey')) return null;
        throw err;
      }
    },
    async downloadToFile(ref, file, signal) {
      const out = await call(() =>
        client().send(new GetObjectCommand({ Bucket: ref.bucket, Key: ref.key }), { abortSignal: signal }),
      );
      if (!out.Body) throw new StoreError('EmptyBody', 0, 'GetObject returned no body.');
      await pipeline(out.Body as Readable, createWriteStream(file), { signal });
    },
    async uploadFile(ref, file, contentType, signal) {
      const size = (await stat(file)).size;
      const fh = await open(file, 'r');
      try {
        const read = async (pos: number, len: number) => {
          const buf = Buffer.alloc(len);
          const { bytesRead } = await fh.read(buf, 0, len, pos);
          return buf.subarray(0, bytesRead);
        };
        // Bodies are Buffers, never streams: the SDK would switch a stream to aws-chunked (media-stack.md §4.3).
        if (size <= SERVER_UPLOAD_PART_SIZE) {
          const body = await read(0, size);
          const out = await call(() =>
            client().send(
              new PutObjectCommand({
                Bucket: ref.bucket,
                Key: ref.key,
                Body: body,
                ContentType: contentType,
              }),
              { abortSignal: signal },
            ),
          );
          return out.ETag ?? '';
        }
        const uploadId = await storage.createMultipartUpload(ref, contentType);
        try {
          const parts: StorePart[] = [];
          for (let pos = 0, n = 1; pos < size; pos += SERVER_UPLOAD_PART_SIZE, n++) {
            signal?.throwIfAborted();
            const body = await read(pos, Math.min(SERVER_UPLOAD_PART_SIZE, size - pos));
            const out = await call(() =>
              client().send(
                new UploadPartCommand({
                  Bucket: ref.bucket,
                  Key: ref.key,
                  UploadId: uploadId,
                  PartNumber: n,
                  Body: body,
                }),
                { abortSignal: signal },
              ),
            );
            parts.push({ partNumber: n, etag: out.ETag ?? '', size: body.length });
          }
          return await storage.completeMultipartUpload(ref, uploadId, parts);
        } catch (err) {
          await storage.abortMultipartUpload(ref, uploadId).catch(() => undefined);
          throw err;
        }
      } finally {
        await fh.close();
      }
    },
    localPath(ref) {
      return opts.local()?.objectPath(ref.bucket, ref.key);
    },
  };
  return storage;
}

const appStores = new WeakMap<object, ObjectStorage>();

/**
 * The app's object store: the recordings bucket (S3_BUCKET) on S3 or on the local stand-in, shared by
 * everything an instance keeps (recordings, identity and marking images). Built on first use: the S3
 * stand-in is mounted after the routes.
 */
export function appObjectStorage(app: App): ObjectStorage {
  let s = appStores.get(app);
  if (!s) {
    s = createObjectStorage({
      bucket: recordingSettings().bucket,
      local: () => (app.hasDecorator('s3local') ? app.s3local : null),
    });
    appStores.set(app, s);
  }
  return s;
}
