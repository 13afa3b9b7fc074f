import { createHash, createHmac, timingSafeEqual, type BinaryLike } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';

/** The fields of a header-signed SigV4 request (`Authorization: AWS4-HMAC-SHA256 Credential=…`). */
export interface SigV4Authorization {
  accessKeyId: string;
  /** yyyymmdd of the credential scope. */
  date: string;
  region: string;
  service: string;
  signedHeaders: string[];
  signature: string;
  /** The X-Amz-Date header (ISO 8601 basic). */
  amzDate: string;
}

const AUTH =
  /^AWS4-HMAC-SHA256\s+Credential=([^/\s,]+)\/(\d{8})\/([a-z0-9-]+)\/([a-z0-9-]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;

function header(headers: IncomingHttpHeaders, name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v.join(',') : v;
}

/** The parsed Authorization header, or null when it is absent or not SigV4 as the AWS SDKs send it. */
export function parseSigV4Authorization(headers: IncomingHttpHeaders): SigV4Authorization | null {
  const m = AUTH.exec(header(headers, 'authorization')?.trim() ?? '');
  const amzDate = header(headers, 'x-amz-date');
  if (!m || !amzDate) return null;
  return {
    accessKeyId: m[1]!,
    date: m[2]!,
    region: m[3]!,
    service: m[4]!,
    signedHeaders: m[5]!.split(';'),
    signature: m[6]!,
    amzDate,
  };
}

/** X-Amz-Date (`20250101T000000Z`) as a Date, or null when malformed. */
export function parseAmzDate(s: string): Date | null {
  const m = AMZ_DATE.exec(s);
  if (!m) return null;
  const [y, mo, d, h, mi, sec] = m.slice(1).map(Number) as [number, number, number, number, number, number];
  return new Date(Date.UTC(y, mo - 1, d, h, mi, sec));
}

type SourceData = string | ArrayBuffer | ArrayBufferView;

function toBinary(data: SourceData): BinaryLike {
  if (typeof data === 'string') return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  return new Uint8Array(data);
}

/** node:crypto SHA-256 / HMAC in the shape the smithy signer wants (its `sha256` option). */
export class NodeSha256 {
  private readonly h;
  constructor(secret?: SourceData) {
    this.h = secret === undefined ? createHash('sha256') : createHmac('sha256', toBinary(secret));
  }
  update(data: SourceData): void {
    this.h.update(toBinary(data));
  }
  async digest(): Promise<Uint8Array> {
    return new Uint8Array(this.h.digest());
  }
}

/** Query pairs of a raw URL, percent-decoded (SigV4 clients send `%20` for a space, so `+` stays `+`). */
function rawQuery(rawUrl: string): Record<string, string | string[]> | null {
  const q = rawUrl.indexOf('?');
  const out: Record<string, string | string[]> = {};
  if (q < 0) return out;
  try {
    for (const piece of rawUrl.slice(q + 1).split('&')) {
      if (!piece) continue;
      const eq = piece.indexOf('=');
      const k = decodeURIComponent(eq < 0 ? piece : piece.slice(0, eq));
      const v = eq < 0 ? '' : decodeURIComponent(piece.slice(eq + 1));
      const prev = out[k];
      out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
    }
  } catch {
    return null;
  }
  return out;
}

/**
 * True when a header-signed request carries the signature `secretAccessKey` gives it: the request is signed
 * again with the smithy signer the AWS SDKs use (same canonical path escaping for non-S3 services, the
 * client's own signed-header list, its X-Amz-Date) and the two signatures are compared in constant time.
 * A signed `x-amz-content-sha256` must also be the body's hash. The caller checks the date window, the
 * region and the service it expects.
 */
export async function sigV4SignatureMatches(
  request: { method: string; url: string; headers: IncomingHttpHeaders; body: string | Uint8Array },
  auth: SigV4Authorization,
  secretAccessKey: string,
): Promise<boolean> {
  const signingDate = parseAmzDate(auth.amzDate);
  const query = rawQuery(request.url);
  if (!signingDate || auth.amzDate.slice(0, 8) !== auth.date || !query) return false;
  const headers: Record<string, string> = {};
  for (const name of auth.signedHeaders) {
    const v = header(request.headers, name);
    if (v === undefined) return false;
    headers[name] = v;
  }
  const declared = headers['x-amz-content-sha256'];
  if (declared !== undefined && declared !== 'UNSIGNED-PAYLOAD') {
    const actual = createHash('sha256').update(request.body).digest('hex');
    if (declared !== actual) return false;
  }
  const q = request.url.indexOf('?');
  const signer = new SignatureV4({
    credentials: { accessKeyId: auth.accessKeyId, secretAccessKey },
    region: auth.region,
    service: auth.service,
    sha256: NodeSha256,
    applyChecksum: false,
  });
  const host = headers.host ?? '';
  const signed = await signer.sign(
    {
      method: request.method,
      protocol: 'https:',
      hostname: host.replace(/:\d+$/, ''),
      path: q < 0 ? request.url : request.url.slice(0, q),
      query,
      headers,
      body: request.body,
    },
    { signingDate, signableHeaders: new Set(auth.signedHeaders) },
  );
  const expected = AUTH.exec(String(signed.headers.authorization ?? ''));
  if (!expected || expected[5] !== auth.signedHeaders.join(';')) return false;
  const a = Buffer.from(expected[6]!);
  const b = Buffer.from(auth.signature);
  return a.length === b.length && timingSafeEqual(a, b);
}
