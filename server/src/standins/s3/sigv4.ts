import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { s3Errors } from './errors';

const ALGORITHM = 'AWS4-HMAC-SHA256';
/** Payload hash used by presigned URLs (S3 never hashes the body of a presigned request). */
export const UNSIGNED_PAYLOAD = 'UNSIGNED-PAYLOAD';
/** SigV4's limit for presigned URLs: one week. */
export const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

/** RFC 3986 encoding as SigV4 wants it (smithy `escapeUri`). */
export function escapeUri(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
}

/** A query string as ordered [name, value] pairs, percent-decoded; null when it cannot be decoded. */
export function parseRawQuery(rawUrl: string): [string, string][] | null {
  const q = rawUrl.indexOf('?');
  if (q < 0) return [];
  const out: [string, string][] = [];
  try {
    for (const piece of rawUrl.slice(q + 1).split('&')) {
      if (!piece) continue;
      const eq = piece.indexOf('=');
      const name = eq < 0 ? piece : piece.slice(0, eq);
      const value = eq < 0 ? '' : piece.slice(eq + 1);
      out.push([decodeURIComponent(name), decodeURIComponent(value)]);
    }
  } catch {
    return null;
  }
  return out;
}

function canonicalQuery(pairs: [string, string][]): string {
  return pairs
    .filter(([k]) => k !== 'X-Amz-Signature')
    .map(([k, v]) => [escapeUri(k), escapeUri(v)] as const)
    .sort((a, b) => (a[0] === b[0] ? (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0) : a[0] < b[0] ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
}

function headerValue(headers: IncomingHttpHeaders, name: string): string {
  const v = headers[name];
  const s = Array.isArray(v) ? v.join(',') : (v ?? '');
  return s
    .replace(/[\r\n]/g, ' ')
    .replace(/[ \t]+/g, ' ')
    .trim();
}

function hmac(key: Buffer | string, data: string): Buffer {
  return createHmac('sha256', key).update(data, 'utf8').digest();
}

function sha256Hex(s: string): string {
  return createHash('sha256').update(s, 'utf8').digest('hex');
}

function signingKey(secret: string, date: string, region: string, service: string): Buffer {
  return hmac(hmac(hmac(hmac('AWS4' + secret, date), region), service), 'aws4_request');
}

/** The parts of a SigV4 request that identify the caller, from the Authorization header or presigned query. */
export interface SigV4Claims {
  mode: 'header' | 'query';
  accessKeyId: string;
  /** `yyyymmdd/region/service/aws4_request` */
  scope: string;
  date: string;
  region: string;
  service: string;
  /** `X-Amz-Date` (ISO basic format). */
  amzDate: string;
  signedHeaders: string[];
  signature: string;
  sessionToken: string | undefined;
  /** Presigned only: seconds of validity after amzDate. */
  expires: number | undefined;
  payloadHash: string;
}

/** The request as the verifier sees it (raw URL, so the path is exactly what the client signed). */
export interface SignedRequestView {
  method: string;
  rawUrl: string;
  headers: IncomingHttpHeaders;
}

function parseCredential(credential: string) {
  const parts = credential.split('/');
  if (parts.length !== 5 || parts[4] !== 'aws4_request') return null;
  const [accessKeyId = '', date = '', region = '', service = ''] = parts;
  return { accessKeyId, date, region, service, scope: parts.slice(1).join('/') };
}

/** Parses a basic-format ISO date (`20250101T000000Z`) to epoch ms; NaN if malformed. */
export function parseAmzDate(s: string): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(s);
  if (!m) return NaN;
  return Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]), Number(m[4]), Number(m[5]), Number(m[6]));
}

/**
 * Reads the SigV4 claims of a request: header auth (the SDK) or query auth (presigned URLs, `<video src>`).
 * Returns null for an anonymous request. Malformed auth is AccessDenied/InvalidArgument, as S3 answers.
 */
export function readClaims(req: SignedRequestView, query: [string, string][]): SigV4Claims | null {
  const auth = headerValue(req.headers, 'authorization');
  const q = new Map(query);
  if (auth) {
    if (!auth.startsWith(ALGORITHM + ' '))
      throw s3Errors.invalidArgument('Unsupported Authorization Type', 'Authorization', auth);
    const fields = new Map<string, string>();
    for (const piece of auth.slice(ALGORITHM.length + 1).split(',')) {
      const eq = piece.indexOf('=');
      if (eq > 0) fields.set(piece.slice(0, eq).trim(), piece.slice(eq + 1).trim());
    }
    const cred = parseCredential(fields.get('Credential') ?? '');
    const signedHeaders = fields.get('SignedHeaders');
    const signature = fields.get('Signature');
    const amzDate = headerValue(req.headers, 'x-amz-date');
    if (!cred || !signedHeaders || !signature || !amzDate) {
      throw s3Errors.accessDenied('Authorization header is malformed or missing x-amz-date.');
    }
    const payloadHash = headerValue(req.headers, 'x-amz-content-sha256');
    if (!payloadHash)
      throw s3Errors.invalidRequest('Missing required header for this request: x-amz-content-sha256');
    return {
      mode: 'header',
      ...cred,
      amzDate,
      signedHeaders: signedHeaders.split(';'),
      signature,
      sessionToken: headerValue(req.headers, 'x-amz-security-token') || undefined,
      expires: undefined,
      payloadHash,
    };
  }
  if (q.has('X-Amz-Algorithm') || q.has('X-Amz-Credential')) {
    if (q.get('X-Amz-Algorithm') !== ALGORITHM) {
      throw s3Errors.invalidArgument(
        'Only AWS4-HMAC-SHA256 is supported',
        'X-Amz-Algorithm',
        q.get('X-Amz-Algorithm'),
      );
    }
    const cred = parseCredential(q.get('X-Amz-Credential') ?? '');
    const amzDate = q.get('X-Amz-Date') ?? '';
    const expires = Number(q.get('X-Amz-Expires') ?? 'NaN');
    const signedHeaders = q.get('X-Amz-SignedHeaders');
    const signature = q.get('X-Amz-Signature');
    if (!cred || !amzDate || !signedHeaders || !signature || !Number.isInteger(expires)) {
      throw s3Errors.accessDenied('Query-string authentication requires the X-Amz-* parameters.');
    }
    if (expires < 1 || expires > MAX_PRESIGN_SECONDS) {
      throw s3Errors.accessDenied('X-Amz-Expires must be between 1 and 604800 seconds.');
    }
    return {
      mode: 'query',
      ...cred,
      amzDate,
      signedHeaders: signedHeaders.split(';'),
      signature,
      sessionToken: q.get('X-Amz-Security-Token') || undefined,
      expires,
      payloadHash: q.get('X-Amz-Content-Sha256') ?? UNSIGNED_PAYLOAD,
    };
  }
  return null;
}

function stringToSign(req: SignedRequestView, query: [string, string][], c: SigV4Claims): string {
  const q = req.rawUrl.indexOf('?');
  const path = q < 0 ? req.rawUrl : req.rawUrl.slice(0, q);
  const names = [...c.signedHeaders].sort();
  const canonical = [
    req.method,
    path, // S3 signs the path as sent (no second encoding, no normalisation)
    canonicalQuery(query),
    names.map((n) => `${n}:${headerValue(req.headers, n)}\n`).join(''),
    names.join(';'),
    c.payloadHash,
  ].join('\n');
  return [ALGORITHM, c.amzDate, c.scope, sha256Hex(canonical)].join('\n');
}

/** True when the request's signature is the one `secretAccessKey` produces. */
export function signatureMatches(
  req: SignedRequestView,
  query: [string, string][],
  claims: SigV4Claims,
  secretAccessKey: string,
): boolean {
  const key = signingKey(secretAccessKey, claims.date, claims.region, claims.service);
  const expected = Buffer.from(hmac(key, stringToSign(req, query, claims)).toString('hex'));
  const given = Buffer.from(claims.signature);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

/** Credentials used to presign a URL. */
export interface PresignCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/**
 * Presigns a GET URL the way `@aws-sdk/s3-request-presigner` does (host is the only signed header, payload
 * UNSIGNED-PAYLOAD). `path` is the already-encoded request path, e.g. `/s3/rec/exam%201/cam.webm`.
 */
export function presignUrl(opts: {
  origin: string;
  path: string;
  method?: string;
  region: string;
  credentials: PresignCredentials;
  expiresIn: number;
  now?: Date;
}): string {
  const now = opts.now ?? new Date();
  const amzDate = now
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
  const date = amzDate.slice(0, 8);
  const scope = `${date}/${opts.region}/s3/aws4_request`;
  const host = new URL(opts.origin).host;
  const query: [string, string][] = [
    ['X-Amz-Algorithm', ALGORITHM],
    ['X-Amz-Content-Sha256', UNSIGNED_PAYLOAD],
    ['X-Amz-Credential', `${opts.credentials.accessKeyId}/${scope}`],
    ['X-Amz-Date', amzDate],
    ['X-Amz-Expires', String(opts.expiresIn)],
    ['X-Amz-SignedHeaders', 'host'],
    ['x-id', 'GetObject'],
  ];
  if (opts.credentials.sessionToken) query.push(['X-Amz-Security-Token', opts.credentials.sessionToken]);
  const qs = canonicalQuery(query);
  const view: SignedRequestView = {
    method: opts.method ?? 'GET',
    rawUrl: `${opts.path}?${qs}`,
    headers: { host },
  };
  const claims: SigV4Claims = {
    mode: 'query',
    accessKeyId: opts.credentials.accessKeyId,
    scope,
    date,
    region: opts.region,
    service: 's3',
    amzDate,
    signedHeaders: ['host'],
    signature: '',
    sessionToken: opts.credentials.sessionToken,
    expires: opts.expiresIn,
    payloadHash: UNSIGNED_PAYLOAD,
  };
  const key = signingKey(opts.credentials.secretAccessKey, date, opts.region, 's3');
  const signature = hmac(key, stringToSign(view, query, claims)).toString('hex');
  return `${opts.origin}${opts.path}?${qs}&X-Amz-Signature=${signature}`;
}
