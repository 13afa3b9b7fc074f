import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** A generated AWS-style key pair (what the local stand-ins accept as the server's own principal). */
export function newKeyPair(prefix: string): { accessKeyId: string; secretAccessKey: string } {
  return {
    accessKeyId: prefix + randomBytes(6).toString('hex').toUpperCase(),
    secretAccessKey: randomBytes(30).toString('base64'),
  };
}

/** A new key for the local issuer's credentials (`LOCAL_CREDENTIALS_KEY`, `STANDINS_CREDENTIALS_KEY`): 32 random bytes. */
export function newCredentialsKey(): string {
  return randomBytes(32).toString('base64');
}

/** A 32-byte key from its base64 (or 64 hex digits) form; throws naming `name` when it is not one. */
export function parseKey32(name: string, raw: string): Buffer {
  const key = /^[0-9a-f]{64}$/i.test(raw) ? Buffer.from(raw, 'hex') : Buffer.from(raw, 'base64');
  if (key.length !== 32) throw new Error(`${name} must be 32 bytes, base64 (or 64 hex digits).`);
  return key;
}

/**
 * Secrets a process needs that must survive restarts (signing keys): each environment variable in `wanted`
 * that is unset is read from `file` (JSON, mode 0600), or generated once and written there. Returns the
 * values (environment first) and whether the file was used. Several processes must share a secret through
 * configuration instead: a generated one is only good for the one machine that keeps `file`.
 */
export function loadOrCreateSecrets(
  file: string,
  wanted: Record<string, () => string>,
  env: NodeJS.ProcessEnv = process.env,
): { values: Record<string, string>; usedFile: boolean } {
  const missing = Object.keys(wanted).filter((k) => !env[k]);
  const values: Record<string, string> = {};
  for (const k of Object.keys(wanted)) if (env[k]) values[k] = env[k];
  if (!missing.length) return { values, usedFile: false };
  let stored: Record<string, unknown> = {};
  if (existsSync(file)) {
    try {
      stored = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
    } catch (err) {
      throw new Error(`${file} is not valid JSON (${(err as Error).message}); fix or remove it.`, {
        cause: err,
      });
    }
  }
  let changed = false;
  for (const k of missing) {
    const v = stored[k];
    if (typeof v === 'string' && v) values[k] = v;
    else {
      values[k] = wanted[k]!();
      stored[k] = values[k];
      changed = true;
    }
  }
  if (changed) {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    const tmp = `${file}.tmp-${process.pid}`;
    writeFileSync(tmp, JSON.stringify(stored, null, 2) + '\n', { mode: 0o600 });
    renameSync(tmp, file);
  }
  chmodSync(file, 0o600);
  return { values, usedFile: true };
}

/**
 * The embedded default (`npm start` without KVS_ENDPOINT / S3_ENDPOINT): the key pairs the in-process S3 and
 * KVS stand-ins accept from the server (S3_LOCAL_* signs presigned recording and image URLs) come from the
 * environment, else from `<dataDir>/secrets.json`, generated on first start, so URLs handed out before a
 * restart keep working after it. Sets the variables in `env` for the stand-ins to read.
 */
export function ensureEmbeddedSecrets(dataDir: string, env: NodeJS.ProcessEnv = process.env): string | null {
  const wanted: Record<string, () => string> = {};
  let s3: ReturnType<typeof newKeyPair> | undefined;
  let kvs: ReturnType<typeof newKeyPair> | undefined;
  const pair = (which: 's3' | 'kvs') =>
    which === 's3' ? (s3 ??= newKeyPair('AKIALOCALSERVER')) : (kvs ??= newKeyPair('AKIALOCALKVS'));
  if (!env.S3_ENDPOINT) {
    wanted.S3_LOCAL_ACCESS_KEY_ID = () => pair('s3').accessKeyId;
    wanted.S3_LOCAL_SECRET_ACCESS_KEY = () => pair('s3').secretAccessKey;
  }
  if (!env.KVS_ENDPOINT) {
    wanted.KVS_LOCAL_ACCESS_KEY_ID = () => pair('kvs').accessKeyId;
    wanted.KVS_LOCAL_SECRET_ACCESS_KEY = () => pair('kvs').secretAccessKey;
  }
  if (!env.S3_ENDPOINT || !env.KVS_ENDPOINT) {
    // The key the local issuer derives and signs browser credentials with: they outlive a restart.
    wanted.LOCAL_CREDENTIALS_KEY = newCredentialsKey;
    // Where it keeps the revocations, and the KVS stand-in its channels (their ARNs), for the same reason.
    env.LOCAL_STANDINS_STATE_DIR ??= dataDir;
  }
  if (!Object.keys(wanted).length) return null;
  const file = path.join(dataDir, 'secrets.json');
  const { values, usedFile } = loadOrCreateSecrets(file, wanted, env);
  Object.assign(env, values);
  return usedFile ? file : null;
}
