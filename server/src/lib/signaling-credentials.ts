import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { Db } from '../db/db';
import type { KvsRole, TemporaryCredentials } from './credentials';

/**
 * The signaling credentials every server instance shares through the database (table signaling_credentials,
 * migration 0100), so that a kvs_reconnect answered by any instance hands out again what is still good instead
 * of calling STS and KVS. One row per (channel, role, user), written when an instance issues credentials for a
 * matching; a reconnect reuses it only
 * - for the caller's live matching of the same id (an ended matching's credentials are never handed out again),
 * - before its refresh time (the same margin as the polls' cache),
 * - and, on the local stand-ins, when the issuer has not revoked it.
 * The secret access key and session token are stored sealed: AES-256-GCM under CREDENTIALS_CACHE_KEY with a
 * random 96-bit nonce, the row's channel, role, user and access key id as associated data (a sealed value
 * copied to another row does not open). They are never logged.
 */
export interface SharedCredentialRow {
  access_key_id: string;
  sealed: Buffer | Uint8Array;
  expires_at: Date | string;
  refresh_at: Date | string;
  /** The channel was last known to exist after the sweep last deleted a channel of that name. */
  channel_ok: boolean;
}

/** The columns a statement adds to read the shared row (`cred_*`), given `r` with id, channel_name, tester_id. */
export function sharedCredentialColumnsSql(): string {
  return `c.access_key_id AS cred_access_key_id, c.sealed AS cred_sealed, c.expires_at AS cred_expires_at,
          c.refresh_at AS cred_refresh_at,
          (c.channel_checked_at > coalesce((SELECT d.deleted_at FROM kvs_channel_deletions d
                                             WHERE d.channel_name = r.channel_name), '-infinity'::timestamptz))
            AS cred_channel_ok`;
}

/**
 * The join that reads the shared row of `r`'s live matching: `$role` is 'master' or 'viewer', `$user` the
 * holder (placeholders given as SQL text, e.g. `$4`).
 */
export function sharedCredentialJoinSql(role: string, user: string): string {
  return `LEFT JOIN signaling_credentials c
            ON c.channel_name = r.channel_name AND c.role = ${role} AND c.user_id = ${user}
           AND c.matching_id = r.id AND c.refresh_at > now()`;
}

/** The shared row out of a row read with `sharedCredentialColumnsSql`, or null when there was none. */
export function sharedRowOf(row: Record<string, unknown>): SharedCredentialRow | null {
  if (typeof row.cred_access_key_id !== 'string' || !row.cred_sealed) return null;
  return {
    access_key_id: row.cred_access_key_id,
    sealed: row.cred_sealed as Buffer,
    expires_at: row.cred_expires_at as Date,
    refresh_at: row.cred_refresh_at as Date,
    channel_ok: row.cred_channel_ok === true,
  };
}

const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** Seals and opens the secret parts of shared credentials (AES-256-GCM). */
export class CredentialSealer {
  private readonly key: Buffer;

  /** `key`: 32 bytes (CREDENTIALS_CACHE_KEY); none: a random key of this process. */
  constructor(key: Buffer | null) {
    if (key && key.length !== 32) throw new Error('CREDENTIALS_CACHE_KEY must be 32 bytes.');
    this.key = key ?? randomBytes(32);
  }

  /** nonce | tag | ciphertext of the secret access key and session token, bound to `aad`. */
  seal(creds: TemporaryCredentials, aad: string): Buffer {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(aad, 'utf8'));
    const body = Buffer.concat([
      cipher.update(JSON.stringify([creds.secretAccessKey, creds.sessionToken]), 'utf8'),
      cipher.final(),
    ]);
    return Buffer.concat([nonce, cipher.getAuthTag(), body]);
  }

  /** The secret access key and session token, or null when the value does not open under this key and `aad`. */
  open(sealed: Buffer | Uint8Array, aad: string): { secretAccessKey: string; sessionToken: string } | null {
    const b = Buffer.from(sealed);
    if (b.length <= NONCE_BYTES + TAG_BYTES) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.key, b.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(b.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
      const plain = Buffer.concat([decipher.update(b.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]);
      const [secretAccessKey, sessionToken] = JSON.parse(plain.toString('utf8')) as [unknown, unknown];
      if (typeof secretAccessKey !== 'string' || typeof sessionToken !== 'string') return null;
      return { secretAccessKey, sessionToken };
    } catch {
      // Another key (an instance without the shared CREDENTIALS_CACHE_KEY) or a value not made for this row.
      return null;
    }
  }
}

/** The associated data binding a sealed value to its row. */
export function sealAad(k: {
  channelName: string;
  role: KvsRole;
  userId: number;
  accessKeyId: string;
}): string {
  return `${k.channelName}\n${k.role}\n${k.userId}\n${k.accessKeyId}`;
}

/** Writes (or replaces) the shared row of one (channel, role, user). */
export async function saveSharedCredentials(
  db: Db,
  sealer: CredentialSealer,
  k: {
    channelName: string;
    role: KvsRole;
    userId: number;
    matchingId: number;
    creds: TemporaryCredentials;
    refreshAt: number;
    channelCheckedAt: number;
  },
): Promise<void> {
  const sealed = sealer.seal(
    k.creds,
    sealAad({ channelName: k.channelName, role: k.role, userId: k.userId, accessKeyId: k.creds.accessKeyId }),
  );
  await db.query(
    `INSERT INTO signaling_credentials
       (channel_name, role, user_id, matching_id, access_key_id, sealed, expires_at, refresh_at, channel_checked_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, to_timestamp($8::float8 / 1000), to_timestamp($9::float8 / 1000))
     ON CONFLICT (channel_name, role, user_id) DO UPDATE
       SET matching_id = EXCLUDED.matching_id, access_key_id = EXCLUDED.access_key_id, sealed = EXCLUDED.sealed,
           expires_at = EXCLUDED.expires_at, refresh_at = EXCLUDED.refresh_at,
           channel_checked_at = EXCLUDED.channel_checked_at`,
    [
      k.channelName,
      k.role,
      k.userId,
      k.matchingId,
      k.creds.accessKeyId,
      sealed,
      k.creds.expiration,
      k.refreshAt,
      k.channelCheckedAt,
    ],
  );
}

/** Records that the channel was found to exist just now (a reconnect re-checked it after a sweep's deletion). */
export async function markChannelChecked(db: Db, channelName: string): Promise<void> {
  await db.query(`UPDATE signaling_credentials SET channel_checked_at = now() WHERE channel_name = $1`, [
    channelName,
  ]);
}

/** Records channels the sweep deleted (a shared row checked before that no longer vouches for its channel). */
export async function recordChannelDeletions(db: Db, names: string[]): Promise<void> {
  if (names.length === 0) return;
  await db.query(
    `INSERT INTO kvs_channel_deletions (channel_name, deleted_at)
     SELECT n, now() FROM unnest($1::text[]) AS n
     ON CONFLICT (channel_name) DO UPDATE SET deleted_at = EXCLUDED.deleted_at`,
    [names],
  );
}

/** Deletes expired rows, and deletion records older than any row could be (STS's longest lifetime, 12 h). */
export async function pruneSharedCredentials(db: Db): Promise<void> {
  await db.query(`DELETE FROM signaling_credentials WHERE expires_at < now()`);
  await db.query(`DELETE FROM kvs_channel_deletions WHERE deleted_at < now() - interval '13 hours'`);
}
