import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { IMAGE_MAX_BYTES } from '../../../contract/tester';
import { ApiError } from './api-error';

/** Image formats the server keeps, recognised by their leading bytes (never by the client's claim). */
export type ImageType = 'image/jpeg' | 'image/png' | 'image/webp';

const EXT: Record<ImageType, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' };
const TYPE_BY_EXT: Record<string, ImageType> = { jpg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };

/** What an image is stored for; the first segment of its key. */
export type ImageKind = 'head_shot' | 'id_card' | 'marking' | 'ai_face' | 'ai_id_card';

/** How long a signed image URL stays valid. */
export const IMAGE_URL_TTL_SECONDS = 10 * 60;

const KEY_RE =
  /^(head_shot|id_card|marking|ai_face|ai_id_card)\/[0-9]{1,18}\/[A-Za-z0-9_-]{16,64}\.(jpg|png|webp)$/;

// Per process: URLs die with the process. Several server instances would need a shared secret from config.
const SECRET = randomBytes(32);

/** The image type of `buf` from its magic bytes, or null when it is not a JPEG, PNG or WebP. */
export function sniffImageType(buf: Buffer): ImageType | null {
  if (buf.length >= 3 && buf[0] === 0xff && buf[1] === 0xd8 && buf[2] === 0xff) return 'image/jpeg';
  if (
    buf.length >= 8 &&
    buf.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))
  ) {
    return 'image/png';
  }
  if (
    buf.length >= 12 &&
    buf.toString('latin1', 0, 4) === 'RIFF' &&
    buf.toString('latin1', 8, 12) === 'WEBP'
  ) {
    return 'image/webp';
  }
  return null;
}

/**
 * Checks an uploaded image: at most IMAGE_MAX_BYTES (else 413) and a real JPEG/PNG/WebP (else 415).
 * The client's declared content type is not trusted.
 */
export function validateImage(buf: Buffer): ImageType {
  if (buf.length === 0) throw new ApiError(400, 'validation', 'The image is empty.');
  if (buf.length > IMAGE_MAX_BYTES) {
    throw new ApiError(413, 'payload_too_large', `The image exceeds ${IMAGE_MAX_BYTES} bytes.`);
  }
  const type = sniffImageType(buf);
  if (!type) throw new ApiError(415, 'unsupported_media_type', 'The image must be a JPEG, PNG or WebP file.');
  return type;
}

function imagesDir(dataDir: string): string {
  return path.join(dataDir, 'images');
}

/** Stores a validated image under `${dataDir}/images/<kind>/<testId>/<random>.<ext>` and returns its key. */
export async function saveImage(
  dataDir: string,
  kind: ImageKind,
  testId: number,
  buf: Buffer,
): Promise<string> {
  const type = validateImage(buf);
  const key = `${kind}/${testId}/${randomBytes(18).toString('base64url')}.${EXT[type]}`;
  const file = path.join(imagesDir(dataDir), key);
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, buf, { mode: 0o600 });
  return key;
}

/** Reads a stored image; null when the key is malformed or the file is gone. */
export async function readImage(
  dataDir: string,
  key: string,
): Promise<{ body: Buffer; type: ImageType } | null> {
  if (!KEY_RE.test(key)) return null;
  const ext = key.slice(key.lastIndexOf('.') + 1);
  const type = TYPE_BY_EXT[ext];
  if (!type) return null;
  try {
    return { body: await readFile(path.join(imagesDir(dataDir), key)), type };
  } catch {
    return null;
  }
}

function sign(key: string, exp: number): string {
  return createHmac('sha256', SECRET).update(`${key}\n${exp}`, 'utf8').digest('base64url');
}

/** A short-lived URL of tester/image.php for a stored image key; null for a null key. */
export function signedImageUrl(
  key: string | null | undefined,
  ttlSeconds = IMAGE_URL_TTL_SECONDS,
): string | null {
  if (!key) return null;
  const exp = Math.floor(Date.now() / 1000) + ttlSeconds;
  const q = new URLSearchParams({ key, exp: String(exp), sig: sign(key, exp) });
  return `/api/v1/tester/image.php?${q.toString()}`;
}

/** True when `sig` signs `key` and `exp` and the URL has not expired. */
export function verifyImageSignature(key: string, exp: number, sig: string): boolean {
  if (!KEY_RE.test(key)) return false;
  if (exp < Math.floor(Date.now() / 1000)) return false;
  const expected = Buffer.from(sign(key, exp));
  const given = Buffer.from(sig);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
