import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

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

/** Where the local issuer keeps what must survive a restart of its process. */
export interface LocalIssuerOptions {
  /**
   * The key the credentials are derived from and signed with (32 bytes or more). Credentials issued under one
   * key stay valid after a restart with the same key, as STS credentials stay valid across anything; default
   * a random key of this process (tests).
   */
  key?: Buffer | undefined;
  /** A file the revocations are appended to and read back from at start, so a revoked credential stays revoked. */
  revocationsFile?: string | undefined;
}

const TOKEN_VERSION = 'L1';

function b64url(b: Buffer): string {
  return b.toString('base64url');
}

/**
 * The local issuer. Its credentials are stateless, as STS's are to the services that check them: the session
 * token carries the access key id, the scope and the expiry, signed (HMAC-SHA256) with the issuer's key, and
 * the secret access key is an HMAC of the session token under the same key. A stand-in given a key id and
 * token it has not seen (issued before a restart) checks the token's signature and derives the secret, so a
 * credential handed out before a restart of the stand-ins works after it, and a forged, altered or expired one
 * does not. Unlike STS credentials they can be revoked: a revoked credential is refused from then on (the
 * revocation is kept in `revocationsFile` when one is given), and the stand-ins are told (`onRevoke`) so that
 * they close what it opened. Credentials issued, or seen in use since the start, are listed by `live()`.
 */
export class LocalCredentialIssuer implements CredentialIssuer {
  private readonly byKeyId = new Map<string, Entry>();
  private readonly revokeListeners: ((accessKeyId: string) => void)[] = [];
  private readonly key: Buffer;
  /** Revoked access key ids with their expiry (ms), also for credentials this process has not seen yet. */
  private readonly revokedIds = new Map<string, number>();
  private readonly revocationsFile: string | undefined;

  constructor(opts: LocalIssuerOptions = {}) {
    if (opts.key && opts.key.length < 32)
      throw new Error('The local credential key must be at least 32 bytes.');
    this.key = opts.key ?? randomBytes(32);
    this.revocationsFile = opts.revocationsFile;
    if (this.revocationsFile) this.loadRevocations(this.revocationsFile);
  }

  async issue(scope: CredentialScope, ttlSeconds: number): Promise<TemporaryCredentials> {
    this.sweep();
    const accessKeyId = 'ASIALOCAL' + randomBytes(8).toString('hex').toUpperCase();
    const expiration = new Date(Math.floor((Date.now() + ttlSeconds * 1000) / 1000) * 1000);
    const payload = b64url(
      Buffer.from(JSON.stringify({ k: accessKeyId, e: expiration.getTime(), s: scope }), 'utf8'),
    );
    const sessionToken = `${TOKEN_VERSION}.${payload}.${this.mac('token', payload)}`;
    const creds: TemporaryCredentials = {
      accessKeyId,
      secretAccessKey: this.secretOf(sessionToken),
      sessionToken,
      expiration,
    };
    this.byKeyId.set(creds.accessKeyId, { creds, scope });
    return creds;
  }

  /** The live entry for an access key id and session token, or null when unknown, mismatched, expired or revoked. */
  lookup(accessKeyId: string, sessionToken?: string | null): Entry | null {
    const e = this.known(accessKeyId, sessionToken);
    if (!e || e.revoked) return null;
    if (sessionToken !== undefined && sessionToken !== null && sessionToken !== e.creds.sessionToken)
      return null;
    if (e.creds.expiration.getTime() <= Date.now()) return null;
    return e;
  }

  /**
   * The entry for an access key id even when expired (to tell ExpiredToken from an unknown key). A credential
   * issued before a restart is found only with its session token.
   */
  peek(accessKeyId: string, sessionToken?: string | null): Entry | null {
    return this.known(accessKeyId, sessionToken);
  }

  /** Whether the credential was revoked (before its expiry). */
  isRevoked(accessKeyId: string): boolean {
    return this.byKeyId.get(accessKeyId)?.revoked === true || this.revokedIds.has(accessKeyId);
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
    this.revokedIds.set(accessKeyId, e.creds.expiration.getTime());
    if (this.revocationsFile) {
      try {
        appendFileSync(this.revocationsFile, `${accessKeyId} ${e.creds.expiration.getTime()}\n`, {
          mode: 0o600,
        });
      } catch {
        // Kept in memory all the same; only a restart before it expires would forget it.
      }
    }
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

  /** Test hook: make a credential expire now (for this process: its token still names its own expiry). */
  expire(accessKeyId: string): void {
    const e = this.byKeyId.get(accessKeyId);
    if (e) e.creds.expiration = new Date(Date.now() - 1000);
  }

  /** The entry of a key id: issued or seen by this process, else verified from its session token and remembered. */
  private known(accessKeyId: string, sessionToken: string | null | undefined): Entry | null {
    const e = this.byKeyId.get(accessKeyId);
    if (e || !sessionToken) return e ?? null;
    const decoded = this.verify(accessKeyId, sessionToken);
    if (!decoded) return null;
    const entry: Entry = {
      creds: {
        accessKeyId,
        secretAccessKey: this.secretOf(sessionToken),
        sessionToken,
        expiration: new Date(decoded.expiresAt),
      },
      scope: decoded.scope,
      ...(this.revokedIds.has(accessKeyId) ? { revoked: true } : {}),
    };
    // Remembered, so that revokeEndedSignaling sees it in live() and the next check is a map lookup.
    if (decoded.expiresAt > Date.now() - 3600_000) this.byKeyId.set(accessKeyId, entry);
    return entry;
  }

  /** The scope and expiry of a session token this issuer's key signed for `accessKeyId`, or null. */
  private verify(
    accessKeyId: string,
    sessionToken: string,
  ): { scope: CredentialScope; expiresAt: number } | null {
    const parts = sessionToken.split('.');
    if (parts.length !== 3 || parts[0] !== TOKEN_VERSION) return null;
    const [, payload, mac] = parts as [string, string, string];
    const want = Buffer.from(this.mac('token', payload));
    const got = Buffer.from(mac);
    if (want.length !== got.length || !timingSafeEqual(want, got)) return null;
    let claims: { k?: unknown; e?: unknown; s?: unknown };
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as typeof claims;
    } catch {
      return null;
    }
    if (claims.k !== accessKeyId || typeof claims.e !== 'number' || !claims.s || typeof claims.s !== 'object')
      return null;
    return { scope: claims.s as CredentialScope, expiresAt: claims.e };
  }

  private mac(purpose: string, data: string): string {
    return b64url(createHmac('sha256', this.key).update(`${purpose}\0${data}`).digest());
  }

  /** The secret access key of a session token: 40 base64 characters, like AWS's. */
  private secretOf(sessionToken: string): string {
    return createHmac('sha256', this.key)
      .update(`secret\0${sessionToken}`)
      .digest()
      .subarray(0, 30)
      .toString('base64');
  }

  private loadRevocations(file: string): void {
    if (!existsSync(file)) return;
    const now = Date.now();
    for (const line of readFileSync(file, 'utf8').split('\n')) {
      const [id, exp] = line.trim().split(' ');
      const expiresAt = Number(exp);
      if (id && Number.isFinite(expiresAt) && expiresAt > now) this.revokedIds.set(id, expiresAt);
    }
    // Rewritten without the expired ones, so the file does not grow for ever.
    const tmp = `${file}.tmp-${process.pid}`;
    writeFileSync(tmp, [...this.revokedIds].map(([id, e]) => `${id} ${e}\n`).join(''), { mode: 0o600 });
    renameSync(tmp, file);
  }

  private sweep(): void {
    const now = Date.now();
    for (const [k, e] of this.byKeyId)
      if (e.creds.expiration.getTime() < now - 3600_000) this.byKeyId.delete(k);
    for (const [k, exp] of this.revokedIds) if (exp < now) this.revokedIds.delete(k);
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    credentialIssuer: CredentialIssuer;
    /** Present when at least one local stand-in is on (KVS_ENDPOINT or S3_ENDPOINT unset). */
    localCredentials: LocalCredentialIssuer | null;
  }
}
