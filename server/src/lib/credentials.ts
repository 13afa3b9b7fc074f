import { randomBytes } from 'node:crypto';

/** Temporary AWS-style credentials handed to a browser for KVS signaling or an S3 upload. */
export interface TemporaryCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  expiration: Date;
}

/** What a credential may be used for: a signaling channel (by name) or one S3 object key. */
export type CredentialScope =
  { kind: 'kvs'; channelName: string } | { kind: 's3'; bucket: string; key: string };

/**
 * Issues temporary credentials. Production uses STS (AssumeRole with a session policy scoped to the one
 * channel or object key); the local issuer below serves the stand-ins. Both honour the same interface.
 */
export interface CredentialIssuer {
  issue(scope: CredentialScope, ttlSeconds: number): Promise<TemporaryCredentials>;
}

interface Entry {
  creds: TemporaryCredentials;
  scope: CredentialScope;
}

/** The local issuer: credentials live in memory; the stand-ins look them up to check requests. */
export class LocalCredentialIssuer implements CredentialIssuer {
  private readonly byKeyId = new Map<string, Entry>();

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

  /** The live entry for an access key id and session token, or null when unknown, mismatched or expired. */
  lookup(accessKeyId: string, sessionToken?: string | null): Entry | null {
    const e = this.byKeyId.get(accessKeyId);
    if (!e) return null;
    if (sessionToken !== undefined && sessionToken !== null && sessionToken !== e.creds.sessionToken)
      return null;
    if (e.creds.expiration.getTime() <= Date.now()) return null;
    return e;
  }

  /** The entry for an access key id even when expired (to tell ExpiredToken from an unknown key). */
  peek(accessKeyId: string): Entry | null {
    return this.byKeyId.get(accessKeyId) ?? null;
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
    /** Present when the local stand-ins are on (no AWS endpoints configured). */
    localCredentials: LocalCredentialIssuer | null;
  }
}
