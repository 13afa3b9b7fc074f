import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { LocalCredentialIssuer, type CredentialScope } from '../../src/lib/credentials';
import { CredentialSealer, sealAad } from '../../src/lib/signaling-credentials';
import { KvsChannels } from '../../src/standins/kvs/channels';
import { loadKvsSettings } from '../../src/standins/kvs/settings';

/**
 * The local issuer's credentials outlive its process as STS's do (a token signed with the issuer's key, the
 * secret derived from it), and nothing but that key makes one; the KVS stand-in's channels outlive it too.
 */

const SCOPE: CredentialScope = { kind: 'kvs', channelName: 'exam-1-aaaaaaaaaaaa', role: 'master', holder: 7 };

function flip(s: string, at: number): string {
  const c = s[at] === 'A' ? 'B' : 'A';
  return s.slice(0, at) + c + s.slice(at + 1);
}

describe('local credentials across a restart', () => {
  it('honours a credential issued before a restart with the same key: same scope, same secret', async () => {
    const key = randomBytes(32);
    const creds = await new LocalCredentialIssuer({ key }).issue(SCOPE, 900);
    const after = new LocalCredentialIssuer({ key });
    const e = after.lookup(creds.accessKeyId, creds.sessionToken);
    expect(e?.scope).toEqual(SCOPE);
    expect(e?.creds.secretAccessKey).toBe(creds.secretAccessKey);
    expect(e?.creds.expiration.getTime()).toBe(creds.expiration.getTime());
    // Seen in use, it is live again (the server can revoke it when its matching ends).
    expect(after.live().map((l) => l.accessKeyId)).toContain(creds.accessKeyId);
    // Without its session token the key id alone is not enough.
    expect(new LocalCredentialIssuer({ key }).lookup(creds.accessKeyId)).toBeNull();
  });

  it('refuses a tampered, foreign, mismatched or expired credential', async () => {
    const key = randomBytes(32);
    const issuer = new LocalCredentialIssuer({ key });
    const creds = await issuer.issue(SCOPE, 900);
    const fresh = () => new LocalCredentialIssuer({ key });
    const [version, payload, mac] = creds.sessionToken.split('.') as [string, string, string];
    // The scope changed (viewer → master of another channel) under the old signature.
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { s: CredentialScope };
    claims.s = { ...SCOPE, channelName: 'exam-2-bbbbbbbbbbbb' };
    const forgedPayload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    expect(fresh().lookup(creds.accessKeyId, `${version}.${forgedPayload}.${mac}`)).toBeNull();
    // The signature altered.
    expect(fresh().lookup(creds.accessKeyId, `${version}.${payload}.${flip(mac, 3)}`)).toBeNull();
    // Another key id with this token.
    expect(fresh().lookup('ASIALOCAL0000000000000000', creds.sessionToken)).toBeNull();
    // Signed with another key (another deployment's stand-ins, or one made up).
    const other = await new LocalCredentialIssuer().issue(SCOPE, 900);
    expect(fresh().lookup(other.accessKeyId, other.sessionToken)).toBeNull();
    // Garbage.
    expect(fresh().lookup(creds.accessKeyId, 'x')).toBeNull();
    // Expired: refused by lookup, still told apart from unknown by peek (S3's ExpiredToken).
    const short = await issuer.issue(SCOPE, -1);
    expect(fresh().lookup(short.accessKeyId, short.sessionToken)).toBeNull();
    expect(fresh().peek(short.accessKeyId, short.sessionToken)?.scope).toEqual(SCOPE);
  });

  it('keeps a revocation across a restart when given a revocations file', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'local-creds-'));
    try {
      const key = randomBytes(32);
      const revocationsFile = path.join(dir, 'revoked-credentials');
      const issuer = new LocalCredentialIssuer({ key, revocationsFile });
      const revoked = await issuer.issue(SCOPE, 900);
      const kept = await issuer.issue(SCOPE, 900);
      expect(issuer.revoke(revoked.accessKeyId)).toBe(true);
      const after = new LocalCredentialIssuer({ key, revocationsFile });
      expect(after.isRevoked(revoked.accessKeyId)).toBe(true);
      expect(after.lookup(revoked.accessKeyId, revoked.sessionToken)).toBeNull();
      expect(after.lookup(kept.accessKeyId, kept.sessionToken)).not.toBeNull();
      expect(await readFile(revocationsFile, 'utf8')).toContain(revoked.accessKeyId);
      // The file holds key ids and expiries only.
      expect(await readFile(revocationsFile, 'utf8')).not.toContain(revoked.secretAccessKey);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('KVS stand-in channels across a restart', () => {
  it('keeps created channels and forgets deleted ones', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'kvs-channels-'));
    try {
      const settings = () =>
        loadKvsSettings({ KVS_LOCAL_CHANNELS_FILE: path.join(dir, 'kvs-channels.jsonl') });
      const before = new KvsChannels(settings());
      const kept = before.createChannel('exam-1-aaaaaaaaaaaa', 60, [
        { Key: 'product', Value: 'proctor-exam' },
      ]);
      before.ensureChannel('exam-2-bbbbbbbbbbbb');
      before.deleteChannel('exam-2-bbbbbbbbbbbb');
      before.close();
      const after = new KvsChannels(settings());
      expect(after.find({ arn: kept.channelArn })).toMatchObject({
        channelName: 'exam-1-aaaaaaaaaaaa',
        version: kept.version,
        messageTtlSeconds: 60,
        tags: [{ Key: 'product', Value: 'proctor-exam' }],
      });
      expect(after.find({ name: 'exam-2-bbbbbbbbbbbb' })).toBeNull();
      after.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('shared credentials sealed at rest', () => {
  it('opens only under the same key and for the same row', async () => {
    const key = randomBytes(32);
    const creds = await new LocalCredentialIssuer().issue(SCOPE, 900);
    const row = {
      channelName: SCOPE.channelName,
      role: 'master' as const,
      userId: 7,
      accessKeyId: creds.accessKeyId,
    };
    const sealed = new CredentialSealer(key).seal(creds, sealAad(row));
    expect(sealed.includes(Buffer.from(creds.secretAccessKey))).toBe(false);
    expect(new CredentialSealer(key).open(sealed, sealAad(row))).toEqual({
      secretAccessKey: creds.secretAccessKey,
      sessionToken: creds.sessionToken,
    });
    expect(new CredentialSealer(randomBytes(32)).open(sealed, sealAad(row))).toBeNull();
    expect(new CredentialSealer(key).open(sealed, sealAad({ ...row, userId: 8 }))).toBeNull();
    const altered = Buffer.from(sealed);
    altered[altered.length - 1]! ^= 1;
    expect(new CredentialSealer(key).open(altered, sealAad(row))).toBeNull();
  });
});
