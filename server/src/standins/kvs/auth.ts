import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { SigV4RequestSigner } from 'amazon-kinesis-video-streams-webrtc';
import { KVS_BROWSER_ACTIONS } from '../../lib/aws/session-policy';
import { parseSigV4Authorization, sigV4SignatureMatches } from '../../lib/aws/sigv4-verify';
import type { KvsRole, LocalCredentialIssuer, TemporaryCredentials } from '../../lib/credentials';
import { accessDenied, notAuthorized } from './errors';
import type { KvsServerCredentials } from './settings';

const SKEW_MS = 15 * 60_000;
const AMZ_DATE = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/;
const AUTH_HEADER =
  /^AWS4-HMAC-SHA256\s+Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]{64})$/;
/** Query parameters the signer adds itself; the rest (ChannelARN, ClientId) are the caller's. */
const SIGNING_PARAMS = new Set([
  'X-Amz-Algorithm',
  'X-Amz-Credential',
  'X-Amz-Date',
  'X-Amz-Expires',
  'X-Amz-SignedHeaders',
  'X-Amz-Security-Token',
  'X-Amz-Signature',
]);

/** A browser credential that passed the checks, with the channel and role it is scoped to. */
export interface AuthenticatedCredential {
  kind: 'browser';
  creds: TemporaryCredentials;
  channelName: string;
  role: KvsRole;
}

/** Who signed a control-plane call: the app server's own key pair (every action), or a browser credential. */
export type KvsCaller = { kind: 'server' } | AuthenticatedCredential;

/** The KVS API actions the stand-in serves, as IAM names them (without the `kinesisvideo:` prefix). */
export type KvsAction =
  | 'CreateSignalingChannel'
  | 'DeleteSignalingChannel'
  | 'ListSignalingChannels'
  | 'DescribeSignalingChannel'
  | 'GetSignalingChannelEndpoint'
  | 'DescribeMediaStorageConfiguration'
  | 'GetIceServerConfig'
  | 'ConnectAsMaster'
  | 'ConnectAsViewer';

function parseAmzDate(v: string | undefined): Date {
  const m = v ? AMZ_DATE.exec(v) : null;
  if (!m) throw notAuthorized('Missing or malformed X-Amz-Date.');
  const [, y, mo, d, h, mi, s] = m.map(Number) as [number, number, number, number, number, number, number];
  return new Date(Date.UTC(y, mo - 1, d, h, mi, s));
}

/**
 * The checks shared by HTTP and WebSocket (media-stack.md §2 "recommended checks"): a credential scope
 * `<key>/<yyyymmdd>/<region>/kinesisvideo/aws4_request` for this region, a key issued by the local issuer
 * with the matching session token, not expired, scoped to a KVS channel, and a date within ±15 min.
 */
function authenticate(
  issuer: LocalCredentialIssuer | null,
  region: string,
  credential: string,
  amzDate: string | undefined,
  sessionToken: string | undefined,
  now: number,
): { creds: TemporaryCredentials; channelName: string; role: KvsRole; date: Date; scopeRegion: string } {
  const parts = credential.split('/');
  if (parts.length !== 5 || parts[3] !== 'kinesisvideo' || parts[4] !== 'aws4_request') {
    throw notAuthorized('Malformed credential scope.');
  }
  const [accessKeyId, scopeDate, scopeRegion] = parts as [string, string, string];
  if (scopeRegion !== region)
    throw notAuthorized(`Credential should be scoped to a valid region, not '${scopeRegion}'.`);
  const date = parseAmzDate(amzDate);
  if (amzDate?.slice(0, 8) !== scopeDate)
    throw notAuthorized('Credential scope date does not match X-Amz-Date.');
  if (Math.abs(now - date.getTime()) > SKEW_MS)
    throw notAuthorized('Signature expired: X-Amz-Date is more than 15 minutes off.');
  if (!sessionToken) throw notAuthorized('Temporary credentials need X-Amz-Security-Token.');
  const entry = issuer?.lookup(accessKeyId, sessionToken) ?? null;
  if (!entry) throw notAuthorized('The security token included in the request is invalid or expired.');
  if (entry.scope.kind !== 'kvs') throw notAuthorized('These credentials are not for Kinesis Video Streams.');
  const { channelName, role } = entry.scope;
  return { creds: entry.creds, channelName, role, date, scopeRegion };
}

/**
 * Throws unless the caller may perform `action` on the channel (null: an action on no one channel, such as
 * ListSignalingChannels). The server key may do everything. A browser credential allows exactly what its
 * STS session policy would (`KVS_BROWSER_ACTIONS` of its role): another channel is NotAuthorizedException,
 * another action (a viewer's ConnectAsMaster, any Create/Delete/List) AccessDeniedException.
 */
export function authorize(caller: KvsCaller, action: KvsAction, channelName: string | null): void {
  if (caller.kind === 'server') return;
  if (channelName !== null && caller.channelName !== channelName) {
    throw notAuthorized(`The credentials are not authorized for channel ${channelName}.`);
  }
  if (!KVS_BROWSER_ACTIONS[caller.role].includes(`kinesisvideo:${action}`)) {
    throw accessDenied(action, channelName === null ? '*' : `channel/${channelName}`);
  }
}

/**
 * Checks a call signed with the server key pair: credential scope for this region and kinesisvideo, a
 * date within ±15 min, and (when `verifySignature`) the signature recomputed over the received request.
 */
async function authenticateServer(
  request: { method: string; url: string; headers: IncomingHttpHeaders; body: string },
  server: KvsServerCredentials,
  region: string,
  verifySignature: boolean,
  now: number,
): Promise<KvsCaller> {
  const auth = parseSigV4Authorization(request.headers);
  if (!auth) throw notAuthorized('Missing or malformed SigV4 Authorization header.');
  if (auth.service !== 'kinesisvideo') throw notAuthorized('Credential should be scoped to kinesisvideo.');
  if (auth.region !== region)
    throw notAuthorized(`Credential should be scoped to a valid region, not '${auth.region}'.`);
  const date = parseAmzDate(auth.amzDate);
  if (auth.amzDate.slice(0, 8) !== auth.date)
    throw notAuthorized('Credential scope date does not match X-Amz-Date.');
  if (Math.abs(now - date.getTime()) > SKEW_MS)
    throw notAuthorized('Signature expired: X-Amz-Date is more than 15 minutes off.');
  if (verifySignature && !(await sigV4SignatureMatches(request, auth, server.secretAccessKey))) {
    throw notAuthorized('The request signature we calculated does not match the signature you provided.');
  }
  return { kind: 'server' };
}

/**
 * Checks the header-signed HTTP call of the AWS SDK clients, as AWS does: the key, token, expiry, scope and
 * date, and (when `verifySignature`) the signature recomputed over the received request with the secret of
 * the key that signed it — the server key pair's or the browser credential's. A key id and session token
 * without the secret (e.g. copied from a log) are therefore not enough.
 */
export async function authenticateHttp(opts: {
  issuer: LocalCredentialIssuer | null;
  server: KvsServerCredentials;
  region: string;
  request: { method: string; url: string; headers: IncomingHttpHeaders; body: string };
  verifySignature: boolean;
  now?: number;
}): Promise<KvsCaller> {
  const now = opts.now ?? Date.now();
  const headers = opts.request.headers;
  const header = (name: string): string | undefined => {
    const v = headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const m = AUTH_HEADER.exec(header('authorization')?.trim() ?? '');
  if (!m) throw notAuthorized('Missing or malformed SigV4 Authorization header.');
  const credential = m[1] ?? '';
  if (credential.split('/')[0] === opts.server.accessKeyId) {
    return authenticateServer(opts.request, opts.server, opts.region, opts.verifySignature, now);
  }
  const { creds, channelName, role } = authenticate(
    opts.issuer,
    opts.region,
    credential,
    header('x-amz-date'),
    header('x-amz-security-token'),
    now,
  );
  if (opts.verifySignature) {
    const auth = parseSigV4Authorization(headers);
    if (
      !auth ||
      !auth.signedHeaders.includes('x-amz-security-token') ||
      !(await sigV4SignatureMatches(opts.request, auth, creds.secretAccessKey))
    ) {
      throw notAuthorized('The request signature we calculated does not match the signature you provided.');
    }
  }
  return { kind: 'browser', creds, channelName, role };
}

/**
 * Checks a query-signed WebSocket URL, and (when `verifySignature`) recomputes the signature with the SDK's
 * own `SigV4RequestSigner` over the `wss://` form of the URL: the signature covers host, path and query but
 * not the scheme, so a client signing `wss://` and connecting over `ws://` still matches (§1.3).
 */
export async function authenticateWebSocket(
  issuer: LocalCredentialIssuer | null,
  region: string,
  url: URL,
  host: string,
  verifySignature: boolean,
  now = Date.now(),
): Promise<AuthenticatedCredential> {
  const q = url.searchParams;
  if (q.get('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256') throw notAuthorized('Unsupported X-Amz-Algorithm.');
  const amzDate = q.get('X-Amz-Date') ?? undefined;
  const { creds, channelName, role, date } = authenticate(
    issuer,
    region,
    q.get('X-Amz-Credential') ?? '',
    amzDate,
    q.get('X-Amz-Security-Token') ?? undefined,
    now,
  );
  const expires = Number(q.get('X-Amz-Expires'));
  if (!Number.isInteger(expires) || expires < 1 || expires > 604800)
    throw notAuthorized('Invalid X-Amz-Expires.');
  if (now > date.getTime() + expires * 1000) throw notAuthorized('The signed URL has expired.');

  if (verifySignature) {
    const given = q.get('X-Amz-Signature') ?? '';
    const params: Record<string, string> = {};
    for (const [k, v] of q) if (!SIGNING_PARAMS.has(k)) params[k] = v;
    const signer = new SigV4RequestSigner(region, {
      accessKeyId: creds.accessKeyId,
      secretAccessKey: creds.secretAccessKey,
      sessionToken: creds.sessionToken,
    });
    const expectedUrl = await signer.getSignedURL(`wss://${host}${url.pathname}`, params, date);
    const expected = new URL(expectedUrl).searchParams.get('X-Amz-Signature') ?? '';
    const a = Buffer.from(given);
    const b = Buffer.from(expected);
    if (a.length !== b.length || !timingSafeEqual(a, b)) {
      throw notAuthorized('The request signature we calculated does not match the signature you provided.');
    }
  }
  return { kind: 'browser', creds, channelName, role };
}
