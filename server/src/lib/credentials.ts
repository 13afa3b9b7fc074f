import { randomBytes } from 'node:crypto';

/** Temporary AWS-style credentials handed to a browser for KVS signaling or an S3 upload. */
export interface TemporaryCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
}

/** Which end of a signaling channel a credential is for: the tester publishes (MASTER), checkers view. */
export type KvsRole = 'master' | 'viewer';

/**
 * What a credential may be used for: one end of a signaling channel (by name), or one S3 object key. The
 * actions each allows are listed once in `aws/session-policy.ts`; the STS session policy and the local
 * stand-ins both follow that list.
 */
export type CredentialScope =
  | {
      kind: 'kvs';
      channelName: string;
      role: KvsRole;
      /** The user the credential is handed to (revocation finds a removed checker's credentials by it). */
      holder?: number;
    }
  | {
      kind: 's3';
      bucket: string;
      key: string;
      /**
       * Bytes every object and upload directly in the key directory `prefix` may hold together (a sitting's
       * quota for one recorded stream); the local stand-in refuses writes past it. STS has no condition key for sizes: on AWS the server checks
       * it when completing.
       */
      quota?: { prefix: string; maxBytes: number };
    };

/**
 * Issues temporary credentials. Production uses STS (`aws/sts-issuer.ts`: AssumeRole with a session policy
 * scoped to the one channel or object key); the local issuer below serves the stand-ins. Both honour the
 * same interface. Failures are ApiErrors (503) whose message names no AWS detail.
 */
export interface CredentialIssuer {
  issue(scope: CredentialScope, ttlSeconds: number): Promise<TemporaryCredentials>;
}

/**
 * Sends each scope to the issuer of its service, for a server whose KVS and S3 are configured differently
 * (e.g. KVS on AWS while recordings stay on the local S3 stand-in).
 */
export class ServiceCredentialIssuer implements CredentialIssuer {
  constructor(private readonly by: { kvs: CredentialIssuer; s3: CredentialIssuer }) {}

  issue(scope: CredentialScope, ttlSeconds: number): Promise<TemporaryCredentials> {
    return this.by[scope.kind].issue(scope, ttlSeconds);
  }
}

interface Entry {
  creds: TemporaryCredentials;
  scope: CredentialScope;
  /** Set when the credential was revoked before its expiry: it is refused from then on. */
  revoked?: boolean;
}

/**
 * The local issuer: credentials live in memory with their scope (channel and role, or object key); the
 * stand-ins look them up to check requests, and allow only what the scope allows. Unlike STS credentials they
 * can be revoked: a revoked credential is refused from then on, and the stand-ins are told (`onRevoke`) so
 * that they close what it opened.
 */
export class LocalCredentialIssuer implements CredentialIssuer {
  private readonly byKeyId = new Map<string, Entry>();
  private readonly revokeListeners: ((accessKeyId: string) => void)[] = [];

  async issue(scope: CredentialScope, ttlSeconds: number): Promise<TemporaryCredentials> {
    this.sweep();
    const creds: TemporaryCredentials = {
      accessKeyId: 'ASIALOCAL' + randomBytes(8).toString('hex').toUpperCase(),
      secretAccessKey: randomBytes(30).toString('base64'),
      sessionToken: randomBytes(48).toString('base64'),
      expiration: new Date(Date.now() + ttlSeconds * 1000),
    };
    this.byKeyId.set(creds.accessKeyId, { creds, scope });
    return creds;
  }

  /** The live entry for an access key id and session token, or null when unknown, mismatched, expired or revoked. */
  lookup(accessKeyId: string, sessionToken?: string | null): Entry | null {
    const e = this.byKeyId.get(accessKeyId);
    if (!e || e.revoked) return null;
    if (sessionToken !== undefined && sessionToken !== null && sessionToken !== e.creds.sessionToken)
      return null;
    if (e.creds.expiration.getTime() <= Date.now()) return null;
    return e;
  }

  /** The entry for an access key id even when expired (to tell ExpiredToken from an unknown key). */
  peek(accessKeyId: string): Entry | null {
    return this.byKeyId.get(accessKeyId) ?? null;
  }

  /** Credentials neither expired nor revoked, with their access key ids. */
  live(): { accessKeyId: string; scope: CredentialScope }[] {
    const now = Date.now();
    const out: { accessKeyId: string; scope: CredentialScope }[] = [];
    for (const [accessKeyId, e] of this.byKeyId)
      if (!e.revoked && e.creds.expiration.getTime() > now) out.push({ accessKeyId, scope: e.scope });
    return out;
  }

  /** Revokes a credential now; true when it was live. The revoke listeners run once for it. */
  revoke(accessKeyId: string): boolean {
    const e = this.byKeyId.get(accessKeyId);
    if (!e || e.revoked || e.creds.expiration.getTime() <= Date.now()) return false;
    e.revoked = true;
    for (const fn of this.revokeListeners) fn(accessKeyId);
    return true;
  }

  /** Revokes every live credential whose scope matches; returns how many. */
  revokeWhere(match: (scope: CredentialScope) => boolean): number {
    let n = 0;
    for (const { accessKeyId, scope } of this.live()) if (match(scope) && this.revoke(accessKeyId)) n++;
    return n;
  }

  /** Runs `fn` with the access key id of every credential revoked from now on (a stand-in closes its sockets). */
  onRevoke(fn: (accessKeyId: string) => void): void {
    this.revokeListeners.push(fn);
  }

  /** Test hook: make a credential expire now. */
  expire(accessKeyId: string): void {
    const e = this.byKeyId.get(accessKeyId);
    if (e) e.creds.expiration = new Date(Date.now() - 1000);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [k, e] of this.byKeyId)
      if (e.creds.expiration.getTime() < now - 3600_000) this.byKeyId.delete(k);
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    credentialIssuer: CredentialIssuer;
    /** Present when at least one local stand-in is on (KVS_ENDPOINT or S3_ENDPOINT unset). */
    localCredentials: LocalCredentialIssuer | null;
  }
}
