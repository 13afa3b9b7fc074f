import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { LocalCredentialIssuer } from '../../lib/credentials';
import { authenticate, authorize, type Caller, type ServerCredentials } from './auth';
import { S3Error, s3Errors } from './errors';
import type { FaultQueue } from './faults';
import { classifyObjectRequest } from './operations';
import { resolveRange } from './range';
import { parseRawQuery } from './sigv4';
import { bareEtag, type ObjectMeta, type S3Store } from './store';
import { parseCompleteMultipartUpload, xmlDocument, type XmlNode } from './xml';

/** What the route scope needs from the plugin. */
export interface S3RouteContext {
  store: S3Store;
  faults: FaultQueue;
  issuer: LocalCredentialIssuer | null;
  server: ServerCredentials;
  /** Public base URL of the stand-in, e.g. `http://127.0.0.1:8080/s3` (for `<Location>`). */
  endpoint: () => string;
  /** Compare SigV4 signatures (S3_LOCAL_VERIFY_SIGNATURE, default on). */
  verifySignature: boolean;
}

/** Headers a browser must be able to read (media-stack.md §8 pitfall 11: without ETag, no Complete). */
const EXPOSE_HEADERS = [
  'ETag',
  'x-amz-checksum-crc32',
  'Content-Range',
  'Accept-Ranges',
  'Content-Length',
  'Content-Type',
  'Last-Modified',
  'x-amz-request-id',
  'x-amz-id-2',
  'x-amz-version-id',
].join(', ');
const ALLOW_METHODS = 'GET, HEAD, PUT, POST, DELETE';
const MAX_COMPLETE_BODY = 4 * 1024 * 1024;
const MAX_PARTS_PER_PAGE = 1000;
const CHECKSUM_HEADERS = ['crc32c', 'crc64nvme', 'sha1', 'sha256'];

interface S3Params {
  bucket: string;
  '*': string;
}

/** Reads whatever is left of a request body and throws it away, so an error reply is not a reset socket. */
function drain(raw: IncomingMessage): Promise<void> {
  if (raw.complete || raw.destroyed || raw.readableEnded) return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    const timer = setTimeout(done, 15_000);
    raw.once('end', done);
    raw.once('close', done);
    raw.once('error', done);
    raw.resume();
  });
}

async function readText(raw: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of raw as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw s3Errors.invalidRequest('The request body is too large.');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

function httpDate(iso: string): string {
  return new Date(iso).toUTCString();
}

function encodeKey(key: string): string {
  return key.split('/').map(encodeURIComponent).join('/');
}

function sendXml(reply: FastifyReply, root: string, body: XmlNode, status = 200): FastifyReply {
  return reply.code(status).type('application/xml').send(xmlDocument(root, body));
}

/** Whether the body claims a streaming (aws-chunked) encoding, which the stand-in rejects on purpose (§4.3). */
function isAwsChunked(request: FastifyRequest): boolean {
  const enc = header(request, 'content-encoding') ?? '';
  const sha = header(request, 'x-amz-content-sha256') ?? '';
  return /(^|,)\s*aws-chunked\s*(,|$)/i.test(enc) || sha.startsWith('STREAMING-');
}

function hexPayloadHash(request: FastifyRequest): string | undefined {
  const sha = header(request, 'x-amz-content-sha256');
  return sha && /^[0-9a-f]{64}$/i.test(sha) ? sha : undefined;
}

/**
 * The S3 REST routes (path style, under /s3). Registered as an encapsulated plugin so its body parser,
 * error handler and CORS hooks apply to /s3 only and never to /api.
 */
export async function s3Routes(app: FastifyInstance, ctx: S3RouteContext): Promise<void> {
  const { store, faults } = ctx;
  const stalled = new Set<Socket>();
  // A stalled socket would hold app.close() until its stall ends.
  app.addHook('preClose', async () => {
    for (const socket of stalled) socket.destroy();
  });

  // The body is streamed to disk by the handlers, so no parser may buffer it (Fastify's 1 MiB bodyLimit
  // would refuse 5 MiB parts, media-stack.md §7.2). This also runs when Content-Type is absent.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', (_request, _payload, done) => done(null));

  app.addHook('onRequest', async (request, reply) => {
    const id = randomBytes(8).toString('hex').toUpperCase();
    reply.header('x-amz-request-id', id).header('x-amz-id-2', randomBytes(24).toString('base64'));
    const origin = header(request, 'origin');
    if (origin) {
      reply
        .header('Access-Control-Allow-Origin', origin)
        .header('Vary', 'Origin')
        .header('Access-Control-Expose-Headers', EXPOSE_HEADERS);
    }
  });

  app.setErrorHandler(async (err: FastifyError | S3Error, request, reply) => {
    let e: S3Error;
    if (err instanceof S3Error) e = err;
    else if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
      e = new S3Error(err.statusCode, 'InvalidRequest', err.message);
    } else {
      request.log.error({ err }, 's3 stand-in: unexpected error');
      e = s3Errors.internal();
    }
    await drain(request.raw);
    for (const [k, v] of Object.entries(e.extra.headers ?? {})) reply.header(k, v);
    reply.code(e.status);
    if (request.method === 'HEAD') return reply.send();
    const requestId = String(reply.getHeader('x-amz-request-id') ?? '');
    const doc: XmlNode = { Code: e.code, Message: e.message, ...e.extra.fields, RequestId: requestId };
    return reply.type('application/xml').send(xmlDocument('Error', doc, false));
  });

  // CORS preflight: reflect what the browser asks for (the SDK's x-amz-* headers vary by operation).
  app.options('/s3/*', async (request, reply) => {
    const origin = header(request, 'origin') ?? '*';
    reply
      .header('Access-Control-Allow-Origin', origin)
      .header('Vary', 'Origin, Access-Control-Request-Headers, Access-Control-Request-Method')
      .header('Access-Control-Allow-Methods', ALLOW_METHODS)
      .header('Access-Control-Allow-Headers', header(request, 'access-control-request-headers') ?? '*')
      .header('Access-Control-Expose-Headers', EXPOSE_HEADERS)
      .header('Access-Control-Max-Age', '3000');
    return reply.code(200).send();
  });

  // Bucket-level operations (ListObjects, CreateBucket, …) are not part of the contract.
  app.route({
    method: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'],
    url: '/s3/*',
    handler: async () => {
      throw s3Errors.notImplemented('The S3 stand-in implements object and multipart operations only.');
    },
  });

  app.route<{ Params: S3Params }>({
    method: ['GET', 'HEAD', 'PUT', 'POST', 'DELETE'],
    url: '/s3/:bucket/*',
    handler: async (request, reply) => {
      const bucket = request.params.bucket;
      const key = request.params['*'];
      if (!key)
        throw s3Errors.notImplemented('The S3 stand-in implements object and multipart operations only.');
      const pairs = parseRawQuery(request.raw.url ?? request.url);
      if (!pairs) throw s3Errors.invalidArgument('The query string is not valid.');
      const query = new Map<string, string>();
      for (const [k, v] of pairs) if (!query.has(k)) query.set(k, v);

      const method = request.method;
      const op = classifyObjectRequest(method, query, request.headers);
      if (op.operation === 'UploadPart' && (await applyFault(request, reply, key))) return reply;

      const caller = authenticate({
        request: { method, rawUrl: request.raw.url ?? request.url, headers: request.headers },
        query: pairs,
        issuer: ctx.issuer,
        server: ctx.server,
        verifySignature: ctx.verifySignature,
      });
      if (caller.presigned && method !== 'GET' && method !== 'HEAD') {
        // Browsers only ever get presigned GETs (playback); uploads use SigV4 headers from the SDK.
        throw s3Errors.accessDenied('Presigned URLs are accepted for GET and HEAD only.');
      }
      authorize(caller, { bucket, key, actions: op.actions });
      if (op.operation === 'UploadPart' || op.operation === 'PutObject')
        await checkQuota(request, caller, bucket, key, query);

      if (!op.operation) {
        throw new S3Error(
          405,
          'MethodNotAllowed',
          'The specified method is not allowed against this resource.',
        );
      }
      if (!op.implemented) throw s3Errors.notImplemented();
      switch (op.operation) {
        case 'CreateMultipartUpload':
          return createUpload(request, reply, bucket, key);
        case 'CompleteMultipartUpload':
          return completeUpload(request, reply, bucket, key, query);
        case 'UploadPart':
          return uploadPart(request, reply, bucket, key, query);
        case 'ListParts':
          return listParts(reply, bucket, key, query);
        case 'AbortMultipartUpload':
          await store.abort(bucket, key, query.get('uploadId') ?? '');
          return reply.code(204).send();
        case 'GetObject':
        case 'HeadObject':
          return getObject(request, reply, bucket, key, query);
        case 'PutObject':
          return putObject(request, reply, bucket, key);
        case 'DeleteObject':
          await store.deleteObject(bucket, key);
          return reply.code(204).send();
        default:
          throw s3Errors.notImplemented();
      }
    },
  });

  /**
   * A browser credential with a quota (a sitting's recordings) may not make its key directory hold more than
   * the quota: the part's (or object's) Content-Length is counted against what is stored there already,
   * less what it replaces. The server key is not limited.
   */
  async function checkQuota(
    request: FastifyRequest,
    caller: Caller,
    bucket: string,
    key: string,
    query: Map<string, string>,
  ): Promise<void> {
    const scope = caller.scope;
    if (scope === 'server' || scope.kind !== 's3' || !scope.quota) return;
    const raw = header(request, 'content-length');
    if (raw === undefined || !/^\d{1,15}$/.test(raw)) throw s3Errors.missingContentLength();
    const size = Number(raw);
    const replaced = query.has('partNumber')
      ? await store.storedPartSize(
          await store.getUpload(bucket, key, query.get('uploadId') ?? ''),
          Number(query.get('partNumber')),
        )
      : ((await store.headObject(bucket, key))?.size ?? 0);
    const after = store.usage(bucket, scope.quota.prefix) - replaced + size;
    if (after > scope.quota.maxBytes) throw s3Errors.entityTooLarge(after, scope.quota.maxBytes);
  }

  /** Applies a queued fault to this UploadPart; true when the request has been dealt with. */
  async function applyFault(request: FastifyRequest, reply: FastifyReply, key: string): Promise<boolean> {
    const fault = faults.take(key);
    if (!fault) return false;
    request.log.info({ fault }, 's3 stand-in: injecting fault');
    if (fault.kind === 'destroy') {
      reply.hijack();
      request.raw.socket.destroy();
      return true;
    }
    if (fault.kind === 'stall') {
      reply.hijack();
      const socket = request.raw.socket;
      stalled.add(socket);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, fault.ms ?? 30_000);
        socket.once('close', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      stalled.delete(socket);
      socket.destroy();
      return true;
    }
    if (fault.kind === 'expired-token') throw s3Errors.expiredToken();
    throw fault.status === 503 ? s3Errors.slowDown() : s3Errors.internal();
  }

  async function createUpload(request: FastifyRequest, reply: FastifyReply, bucket: string, key: string) {
    const algorithm = header(request, 'x-amz-checksum-algorithm')?.toUpperCase();
    if (algorithm !== undefined && algorithm !== 'CRC32') {
      throw s3Errors.notImplemented(
        `The S3 stand-in supports only the CRC32 checksum algorithm, not ${algorithm}.`,
      );
    }
    await drain(request.raw);
    const upload = await store.createUpload(bucket, key, header(request, 'content-type'), algorithm ?? null);
    if (upload.checksumAlgorithm) reply.header('x-amz-checksum-algorithm', upload.checksumAlgorithm);
    return sendXml(reply, 'InitiateMultipartUploadResult', {
      Bucket: bucket,
      Key: key,
      UploadId: upload.uploadId,
    });
  }

  async function uploadPart(
    request: FastifyRequest,
    reply: FastifyReply,
    bucket: string,
    key: string,
    query: Map<string, string>,
  ) {
    if (isAwsChunked(request)) {
      throw s3Errors.notImplemented(
        'aws-chunked / STREAMING-* bodies are not supported by the stand-in: send parts as Uint8Array (media-stack.md §4.3).',
      );
    }
    const raw = query.get('partNumber') ?? '';
    const partNumber = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
    if (!(partNumber >= 1 && partNumber <= 10_000)) {
      throw s3Errors.invalidArgument(
        'Part number must be an integer between 1 and 10000, inclusive',
        'partNumber',
        raw,
      );
    }
    const upload = await store.getUpload(bucket, key, query.get('uploadId') ?? '');
    const other = CHECKSUM_HEADERS.find((alg) => header(request, `x-amz-checksum-${alg}`) !== undefined);
    if (other)
      throw s3Errors.notImplemented(`The S3 stand-in verifies only CRC32 part checksums, not ${other}.`);
    const crc = header(request, 'x-amz-checksum-crc32');
    if (store.settings.strictChecksum) {
      // The split-upload trap of media-stack.md §4.3: the part's checksum type must match the upload's.
      const expected = upload.checksumAlgorithm === 'CRC32' ? 'crc32' : 'null';
      const actual = crc !== undefined ? 'crc32' : 'null';
      if (expected !== actual) {
        throw s3Errors.invalidRequest(
          `Checksum Type mismatch occurred, expected checksum Type: ${expected}, actual checksum Type: ${actual}`,
        );
      }
    }
    const part = await store.writePart(upload, partNumber, request.raw, {
      contentMd5: header(request, 'content-md5'),
      crc32: crc,
      sha256Hex: hexPayloadHash(request),
    });
    reply.header('ETag', part.etag);
    if (part.checksumCrc32) reply.header('x-amz-checksum-crc32', part.checksumCrc32);
    return reply.code(200).send();
  }

  async function listParts(reply: FastifyReply, bucket: string, key: string, query: Map<string, string>) {
    const upload = await store.getUpload(bucket, key, query.get('uploadId') ?? '');
    const maxRaw = query.get('max-parts');
    const markerRaw = query.get('part-number-marker');
    const max = maxRaw === undefined ? MAX_PARTS_PER_PAGE : Number(maxRaw);
    const marker = markerRaw === undefined || markerRaw === '' ? 0 : Number(markerRaw);
    if (!Number.isInteger(max) || max < 0)
      throw s3Errors.invalidArgument(
        'Provided max-parts not an integer or within integer range',
        'max-parts',
        maxRaw,
      );
    if (!Number.isInteger(marker) || marker < 0) {
      throw s3Errors.invalidArgument(
        'Provided part-number-marker not an integer or within integer range',
        'part-number-marker',
        markerRaw,
      );
    }
    const all = (await store.listParts(upload)).filter((p) => p.partNumber > marker);
    const page = all.slice(0, Math.min(max, MAX_PARTS_PER_PAGE));
    const truncated = all.length > page.length;
    return sendXml(reply, 'ListPartsResult', {
      Bucket: bucket,
      Key: key,
      UploadId: upload.uploadId,
      PartNumberMarker: marker,
      NextPartNumberMarker: page.at(-1)?.partNumber ?? marker,
      MaxParts: Math.min(max, MAX_PARTS_PER_PAGE),
      IsTruncated: truncated,
      Part: page.map((p) => ({
        PartNumber: p.partNumber,
        LastModified: p.lastModified,
        ETag: p.etag,
        Size: p.size,
        ChecksumCRC32: p.checksumCrc32,
      })),
      StorageClass: 'STANDARD',
      ChecksumAlgorithm: upload.checksumAlgorithm ?? undefined,
    });
  }

  async function completeUpload(
    request: FastifyRequest,
    reply: FastifyReply,
    bucket: string,
    key: string,
    query: Map<string, string>,
  ) {
    const uploadId = query.get('uploadId') ?? '';
    const text = await readText(request.raw, MAX_COMPLETE_BODY);
    const sha = hexPayloadHash(request);
    if (sha && sha.toLowerCase() !== createHash('sha256').update(text).digest('hex')) {
      throw s3Errors.sha256Mismatch();
    }
    const meta = await store.complete(bucket, key, uploadId, parseCompleteMultipartUpload(text));
    return sendXml(reply, 'CompleteMultipartUploadResult', {
      Location: `${ctx.endpoint()}/${bucket}/${encodeKey(key)}`,
      Bucket: bucket,
      Key: key,
      ETag: meta.etag,
      ChecksumCRC32: meta.checksumCrc32,
    });
  }

  async function putObject(request: FastifyRequest, reply: FastifyReply, bucket: string, key: string) {
    if (isAwsChunked(request)) {
      throw s3Errors.notImplemented(
        'aws-chunked / STREAMING-* bodies are not supported by the stand-in (media-stack.md §4.3).',
      );
    }
    const other = CHECKSUM_HEADERS.find((alg) => header(request, `x-amz-checksum-${alg}`) !== undefined);
    if (other) throw s3Errors.notImplemented(`The S3 stand-in verifies only CRC32 checksums, not ${other}.`);
    const meta = await store.putObject(bucket, key, header(request, 'content-type'), request.raw, {
      contentMd5: header(request, 'content-md5'),
      crc32: header(request, 'x-amz-checksum-crc32'),
      sha256Hex: hexPayloadHash(request),
    });
    reply.header('ETag', meta.etag);
    if (meta.checksumCrc32) reply.header('x-amz-checksum-crc32', meta.checksumCrc32);
    return reply.code(200).send();
  }

  function etagMatches(list: string, meta: ObjectMeta): boolean {
    return list
      .split(',')
      .some((t) => t.trim() === '*' || bareEtag(t.replace(/^W\//, '')) === bareEtag(meta.etag));
  }

  async function getObject(
    request: FastifyRequest,
    reply: FastifyReply,
    bucket: string,
    key: string,
    query: Map<string, string>,
  ) {
    const meta = await store.headObject(bucket, key);
    if (!meta) throw s3Errors.noSuchKey(key);
    const ifMatch = header(request, 'if-match');
    if (ifMatch !== undefined && !etagMatches(ifMatch, meta)) {
      throw new S3Error(
        412,
        'PreconditionFailed',
        'At least one of the pre-conditions you specified did not hold',
        {
          fields: { Condition: 'If-Match' },
        },
      );
    }
    reply
      .header('Accept-Ranges', 'bytes')
      .header('ETag', meta.etag)
      .header('Last-Modified', httpDate(meta.lastModified))
      .header('Content-Type', query.get('response-content-type') ?? meta.contentType);
    if (meta.parts) reply.header('x-amz-mp-parts-count', String(meta.parts));
    for (const [q, h] of [
      ['response-content-disposition', 'Content-Disposition'],
      ['response-cache-control', 'Cache-Control'],
    ] as const) {
      const v = query.get(q);
      if (v !== undefined) reply.header(h, v);
    }
    const ifNoneMatch = header(request, 'if-none-match');
    if (ifNoneMatch !== undefined && etagMatches(ifNoneMatch, meta)) return reply.code(304).send();

    // If-Range: serve the whole object when the validator no longer matches (RFC 9110 §13.1.5).
    const ifRange = header(request, 'if-range');
    const rangeValid =
      ifRange === undefined ||
      (ifRange.startsWith('"') || ifRange.startsWith('W/')
        ? bareEtag(ifRange) === bareEtag(meta.etag)
        : Date.parse(ifRange) >= Math.floor(Date.parse(meta.lastModified) / 1000) * 1000);
    const range = rangeValid ? resolveRange(header(request, 'range'), meta.size) : null;
    const start = range?.start ?? 0;
    const end = range?.end ?? meta.size - 1;
    const length = Math.max(0, end - start + 1);
    reply.header('Content-Length', String(length));
    if (range) reply.code(206).header('Content-Range', `bytes ${start}-${end}/${meta.size}`);
    else reply.code(200);
    if (request.method === 'HEAD' || length === 0) return reply.send();
    const file = store.objectPath(bucket, key);
    const stream = createReadStream(file, { start, end });
    await new Promise<void>((resolve, reject) => {
      stream.once('open', () => resolve());
      stream.once('error', (err) =>
        reject((err as NodeJS.ErrnoException).code === 'ENOENT' ? s3Errors.noSuchKey(key) : err),
      );
    });
    return reply.send(stream);
  }
}
