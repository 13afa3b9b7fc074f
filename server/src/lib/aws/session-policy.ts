import { createHash } from 'node:crypto';
import type { CredentialScope, KvsRole } from '../credentials';

/**
 * What the browser does with KVS credentials (src/media/master.ts, viewer.ts): DescribeSignalingChannel and
 * GetSignalingChannelEndpoint on the control plane, GetIceServerConfig on the HTTPS data plane, then the
 * signaling WebSocket as its role. Nothing else: no Create/Delete/Update, no media storage, no other role.
 */
export const KVS_BROWSER_ACTIONS: Readonly<Record<KvsRole, readonly string[]>> = Object.freeze({
  master: [
    'kinesisvideo:DescribeSignalingChannel',
    'kinesisvideo:GetSignalingChannelEndpoint',
    'kinesisvideo:GetIceServerConfig',
    'kinesisvideo:ConnectAsMaster',
  ],
  viewer: [
    'kinesisvideo:DescribeSignalingChannel',
    'kinesisvideo:GetSignalingChannelEndpoint',
    'kinesisvideo:GetIceServerConfig',
    'kinesisvideo:ConnectAsViewer',
  ],
});

/**
 * What the browser does with recording credentials (src/media/recording/uploader.ts): UploadPart only, which
 * IAM authorises as s3:PutObject. The server creates, lists, completes and aborts the upload itself.
 */
export const S3_BROWSER_ACTIONS: readonly string[] = Object.freeze(['s3:PutObject']);

/** The IAM actions a scope allows. */
export function allowedActions(scope: CredentialScope): readonly string[] {
  return scope.kind === 'kvs' ? KVS_BROWSER_ACTIONS[scope.role] : S3_BROWSER_ACTIONS;
}

/** Partition and account of the role the browser credentials are assumed from. */
export interface RoleTarget {
  /** `aws`, `aws-cn`, `aws-us-gov` … */
  partition: string;
  /** 12 digits. */
  account: string;
}

const ROLE_ARN = /^arn:(aws[a-z-]*):iam::(\d{12}):role\/[\w+=,.@/-]{1,512}$/;

/** Partition and account of an IAM role ARN, or null when the string is not one. */
export function parseRoleArn(arn: string): RoleTarget | null {
  const m = ROLE_ARN.exec(arn);
  return m ? { partition: m[1]!, account: m[2]! } : null;
}

/**
 * An IAM resource string matching exactly `s`: `*`, `?` and `$` are policy syntax, so each is written as its
 * `${…}` escape (IAM policy variables `${*}`, `${?}`, `${$}`).
 */
export function literalResource(s: string): string {
  return s.replace(/[*?$]/g, (c) => '${' + c + '}');
}

/**
 * The ARN pattern of a scope's one resource. KVS: every incarnation of the named channel (the ARN ends in a
 * creation-time id the server does not know when it issues) in the KVS region and the role's account.
 * S3: the one object.
 */
export function scopeResource(scope: CredentialScope, kvsRegion: string, target: RoleTarget): string {
  if (scope.kind === 'kvs') {
    return `arn:${target.partition}:kinesisvideo:${kvsRegion}:${target.account}:channel/${literalResource(scope.channelName)}/*`;
  }
  return `arn:${target.partition}:s3:::${literalResource(scope.bucket)}/${literalResource(scope.key)}`;
}

/**
 * The inline session policy of an AssumeRole for `scope`: one Allow statement with only the browser's
 * actions on only the one resource. The effective permissions are the intersection with the role's own
 * policies, so the role may be broader (e.g. all channels of the account) and each session is still narrow.
 */
export function sessionPolicy(scope: CredentialScope, kvsRegion: string, target: RoleTarget): string {
  return JSON.stringify({
    Version: '2012-10-17',
    Statement: [
      {
        Effect: 'Allow',
        Action: [...allowedActions(scope)],
        Resource: scopeResource(scope, kvsRegion, target),
      },
    ],
  });
}

/** STS limits: RoleSessionName is 2–64 characters of `[\w+=,.@-]`. */
export const ROLE_SESSION_NAME_MAX = 64;
const SESSION_NAME_CHAR = /[^\w+=,.@-]/g;

/**
 * A RoleSessionName that says what the session is for (it appears in CloudTrail as part of the assumed-role
 * ARN): `kvs-master-<channel>`, `kvs-viewer-<channel>` or `s3-put-<key>`. Characters STS refuses become `-`;
 * a name past 64 characters keeps its start and ends in 8 hex digits of a hash of the whole, so two long
 * keys still get different names.
 */
export function roleSessionName(scope: CredentialScope): string {
  const raw =
    scope.kind === 'kvs' ? `kvs-${scope.role}-${scope.channelName}` : `s3-put-${scope.bucket}/${scope.key}`;
  const clean = raw.replace(SESSION_NAME_CHAR, '-');
  if (clean.length <= ROLE_SESSION_NAME_MAX) return clean;
  const hash = createHash('sha256').update(raw).digest('hex').slice(0, 8);
  return `${clean.slice(0, ROLE_SESSION_NAME_MAX - 9)}-${hash}`;
}

/** STS's bounds for AssumeRole DurationSeconds (the upper one also needs the role's MaxSessionDuration). */
export const STS_MIN_DURATION_SECONDS = 900;
export const STS_MAX_DURATION_SECONDS = 43_200;

/** A requested lifetime clamped to what AssumeRole accepts (whole seconds). */
export function clampDuration(ttlSeconds: number): number {
  const n = Number.isFinite(ttlSeconds) ? Math.round(ttlSeconds) : STS_MIN_DURATION_SECONDS;
  return Math.min(STS_MAX_DURATION_SECONDS, Math.max(STS_MIN_DURATION_SECONDS, n));
}

/** Undoes `literalResource`: `${*}`, `${?}` and `${$}` back to the characters they stand for. */
function unescapeResource(s: string): string {
  return s.replace(/\$\{([*?$])\}/g, '$1');
}

/**
 * The credential scope a session policy of `sessionPolicy` grants, read back from its one statement — what an
 * STS stand-in issues credentials for: a channel's master or viewer end (from ConnectAsMaster /
 * ConnectAsViewer with the browser's other KVS actions), or one S3 object (s3:PutObject). Null for any other
 * policy (more statements, other actions, a wildcard resource), so nothing broader is ever issued.
 */
export function scopeFromSessionPolicy(policy: string): CredentialScope | null {
  let doc: unknown;
  try {
    doc = JSON.parse(policy);
  } catch {
    return null;
  }
  const statements = (doc as { Statement?: unknown } | null)?.Statement;
  const list = Array.isArray(statements) ? statements : statements ? [statements] : [];
  if (list.length !== 1) return null;
  const st = list[0] as { Effect?: unknown; Action?: unknown; Resource?: unknown };
  if (st.Effect !== 'Allow' || typeof st.Resource !== 'string') return null;
  const actions = (Array.isArray(st.Action) ? st.Action : [st.Action]).filter(
    (a): a is string => typeof a === 'string',
  );
  const same = (want: readonly string[]) =>
    actions.length === want.length && want.every((a) => actions.includes(a));
  const kvs = /^arn:[^:]+:kinesisvideo:[^:]+:\d{12}:channel\/(.+)\/\*$/.exec(st.Resource);
  if (kvs) {
    const channelName = unescapeResource(kvs[1]!);
    if (!/^[a-zA-Z0-9_.-]{1,256}$/.test(channelName)) return null;
    if (same(KVS_BROWSER_ACTIONS.master)) return { kind: 'kvs', channelName, role: 'master' };
    if (same(KVS_BROWSER_ACTIONS.viewer)) return { kind: 'kvs', channelName, role: 'viewer' };
    return null;
  }
  const s3 = /^arn:[^:]+:s3:::([^/*?]+)\/(.+)$/.exec(st.Resource);
  if (s3 && same(S3_BROWSER_ACTIONS)) {
    const key = unescapeResource(s3[2]!);
    if (/[*?]/.test(s3[2]!.replace(/\$\{[*?$]\}/g, ''))) return null; // an unescaped wildcard: not one object
    return { kind: 's3', bucket: s3[1]!, key };
  }
  return null;
}
