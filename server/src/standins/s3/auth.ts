import { S3_BROWSER_ACTIONS } from '../../lib/aws/session-policy';
import type { CredentialScope, LocalCredentialIssuer, TemporaryCredentials } from '../../lib/credentials';
import { s3Errors } from './errors';
import { parseAmzDate, readClaims, signatureMatches, type SignedRequestView } from './sigv4';

/** The server's own key pair: full access, like the IAM role the app server has in production. */
export interface ServerCredentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** Who signed a request. */
export interface Caller {
  accessKeyId: string;
  /** 'server' for the server key pair, else the scope of the temporary credential. */
  scope: 'server' | CredentialScope;
  presigned: boolean;
}

interface IssuedEntry {
  creds: TemporaryCredentials;
  scope: CredentialScope;
  revoked?: boolean;
}

/**
 * An issued credential by key id, expired or not: S3 answers an expired one with ExpiredToken (400) rather
 * than InvalidAccessKeyId (403), and the app's retry policy depends on telling the two apart.
 */
function findIssued(
  issuer: LocalCredentialIssuer,
  accessKeyId: string,
  sessionToken: string | undefined,
): IssuedEntry | null {
  return issuer.peek(accessKeyId, sessionToken);
}

/**
 * Authenticates a SigV4 request (header or presigned query): who signed it, not yet what they may do
 * (`authorize`).
 */
export function authenticate(opts: {
  request: SignedRequestView;
  query: [string, string][];
  issuer: LocalCredentialIssuer | null;
  server: ServerCredentials;
  /** False skips only the signature comparison (e.g. behind a proxy that rewrites Host); default true. */
  verifySignature?: boolean;
  now?: number;
}): Caller {
  const claims = readClaims(opts.request, opts.query);
  if (!claims) throw s3Errors.accessDenied('Anonymous access is not allowed.');
  if (claims.service !== 's3') throw s3Errors.accessDenied('Credential should be scoped to the s3 service.');
  const now = opts.now ?? Date.now();
  const signedAt = parseAmzDate(claims.amzDate);
  if (Number.isNaN(signedAt)) throw s3Errors.accessDenied('X-Amz-Date must be in the ISO8601 basic format.');
  if (claims.mode === 'query' && signedAt + (claims.expires ?? 0) * 1000 < now) {
    throw s3Errors.accessDenied('Request has expired');
  }

  let secret: string;
  let scope: Caller['scope'];
  if (claims.accessKeyId === opts.server.accessKeyId) {
    secret = opts.server.secretAccessKey;
    scope = 'server';
  } else {
    const entry = opts.issuer ? findIssued(opts.issuer, claims.accessKeyId, claims.sessionToken) : null;
    if (!entry) throw s3Errors.invalidAccessKeyId();
    if (claims.sessionToken !== entry.creds.sessionToken) throw s3Errors.invalidToken();
    if (entry.creds.expiration.getTime() <= now) throw s3Errors.expiredToken();
    // Revoked by the server (the recording was completed): it may never write again.
    if (entry.revoked)
      throw s3Errors.accessDenied('The credentials were revoked: the recording is complete.');
    secret = entry.creds.secretAccessKey;
    scope = entry.scope;
  }
  if (opts.verifySignature !== false && !signatureMatches(opts.request, opts.query, claims, secret)) {
    throw s3Errors.signatureDoesNotMatch();
  }
  return { accessKeyId: claims.accessKeyId, scope, presigned: claims.mode === 'query' };
}

/**
 * Throws AccessDenied unless the caller may perform every one of `actions` on `bucket`/`key`. The server key
 * may do everything. A browser credential may do what its STS session policy allows on AWS
 * (`aws/session-policy.ts`): the actions of `S3_BROWSER_ACTIONS` on its one object key and nothing else. With
 * `s3:PutObject` that is PutObject, CreateMultipartUpload, UploadPart and CompleteMultipartUpload (see
 * `operations.ts`). A request that names no operation (no actions) is denied too.
 */
export function authorize(
  caller: Caller,
  target: { bucket: string; key: string; actions: readonly string[] },
): void {
  const scope = caller.scope;
  if (scope === 'server') return;
  const onItsObject = scope.kind === 's3' && scope.bucket === target.bucket && scope.key === target.key;
  const denied = target.actions.find((a) => !onItsObject || !S3_BROWSER_ACTIONS.includes(a));
  if (denied === undefined && target.actions.length > 0) return;
  if (denied === undefined) throw s3Errors.accessDenied();
  // The wording of S3's AccessDenied for an IAM denial, with the access key id for the principal's ARN.
  throw s3Errors.accessDenied(
    `User: ${caller.accessKeyId} is not authorized to perform: ${denied} on resource: ` +
      `"arn:aws:s3:::${target.bucket}/${target.key}" because no session policy allows the ${denied} action`,
  );
}
