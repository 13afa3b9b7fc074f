import { randomBytes } from 'node:crypto';
import { readdir, readFile, rm, rmdir } from 'node:fs/promises';
import path from 'node:path';
import { IMAGE_MAX_BYTES } from '../../../contract/tester';
import { ApiError } from './api-error';
import type { App } from './app-types';
import { appObjectStorage, type ObjectRef, type ObjectStorage } from './object-storage';

/** Image formats the server keeps, recognised by their leading bytes (never by the client's claim). */
export type ImageType = 'image/jpeg' | 'image/png' | 'image/webp';

const EXT: Record<ImageType, string> = { 'image/jpeg': 'jpg', 'image/png': 'png', 'image/webp': 'webp' };
const TYPE_BY_EXT: Record<string, ImageType> = { jpg: 'image/jpeg', png: 'image/png', webp: 'image/webp' };

/** What an image is stored for; the first segment of its key. */
export type ImageKind = 'head_shot' | 'id_card' | 'marking' | 'ai_face' | 'ai_id_card';

/** How long a presigned image URL stays valid. */
export const IMAGE_URL_TTL_SECONDS = 10 * 60;

/**
 * Images live in the object store next to the recordings, under this prefix: `images/<kind>/<test id>/
 * <random>.<ext>`. The database keeps the key without the prefix (as it did when images were files).
 */
export const IMAGE_OBJECT_PREFIX = 'images/';

const KEY_RE =
  /^(head_shot|id_card|marking|ai_face|ai_id_card)\/[0-9]{1,18}\/[A-Za-z0-9_-]{16,64}\.(jpg|png|webp)$/;

/** True when `key` is an image key the server could have made. */
export function isImageKey(key: string): boolean {
  return KEY_RE.test(key);
}

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

/**
 * Identity and marking images in object storage (the recordings bucket, S3 or the stand-in), so every
 * server instance reads what another stored and a restart breaks no URL. Browsers get presigned GET URLs
 * that fix the answer's Content-Type to the type the server recognised.
 */
export interface ImageStore {
  /** Validates and stores an image; returns its key (`<kind>/<test id>/<random>.<ext>`). */
  save(kind: ImageKind, testId: number, buf: Buffer): Promise<string>;
  /** A stored image; null when the key is malformed or the object is gone. */
  read(key: string): Promise<{ body: Buffer; type: ImageType } | null>;
  /** A presigned URL of a stored image (IMAGE_URL_TTL_SECONDS); null for a missing or malformed key. */
  url(key: string | null | undefined): Promise<string | null>;
  /** Deletes a stored image (no error when absent). */
  delete(key: string): Promise<void>;
  /** Where an image key lives in the store. */
  ref(key: string): ObjectRef;
}

/** The image store over an object store. */
export function createImageStore(storage: () => ObjectStorage): ImageStore {
  const ref = (key: string): ObjectRef => ({ bucket: storage().bucket, key: IMAGE_OBJECT_PREFIX + key });
  const typeOf = (key: string): ImageType | null =>
    isImageKey(key) ? (TYPE_BY_EXT[key.slice(key.lastIndexOf('.') + 1)] ?? null) : null;
  return {
    ref,
    async save(kind, testId, buf) {
      const type = validateImage(buf);
      const key = `${kind}/${testId}/${randomBytes(18).toString('base64url')}.${EXT[type]}`;
      await storage().putObject(ref(key), buf, type);
      return key;
    },
    async read(key) {
      const type = typeOf(key);
      if (!type) return null;
      const body = await storage().getObject(ref(key));
      return body ? { body, type } : null;
    },
    async url(key) {
      if (!key) return null;
      const type = typeOf(key);
      if (!type) return null;
      return storage().presignGet(ref(key), IMAGE_URL_TTL_SECONDS, {
        contentType: type,
        contentDisposition: 'inline',
      });
    },
    async delete(key) {
      if (!isImageKey(key)) return;
      await storage().deleteObject(ref(key));
    },
  };
}

const appImages = new WeakMap<object, ImageStore>();

/** The app's image store, on the app's object store (`appObjectStorage`). */
export function appImageStore(app: App): ImageStore {
  let s = appImages.get(app);
  if (!s) {
    s = createImageStore(() => appObjectStorage(app));
    appImages.set(app, s);
  }
  return s;
}

/**
 * Moves images an earlier version kept as files under `<dataDir>/images` into the image store (start-up,
 * once per machine): each file whose key the server could have made is stored, then its file removed.
 * Idempotent; a file that cannot be moved stays and is named in the log. Returns how many moved.
 */
export async function moveLocalImages(
  dataDir: string,
  images: ImageStore,
  storage: ObjectStorage,
  log: { warn(obj: object, msg: string): void },
): Promise<number> {
  const root = path.join(dataDir, 'images');
  const files: string[] = [];
  const walk = async (dir: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory() && depth < 2) await walk(p, depth + 1);
      else if (e.isFile()) files.push(p);
    }
  };
  await walk(root, 0);
  let moved = 0;
  for (const file of files) {
    const key = path.relative(root, file).split(path.sep).join('/');
    const body = isImageKey(key) ? await readFile(file).catch(() => null) : null;
    const type = body ? sniffImageType(body) : null;
    if (!body || !type) continue;
    try {
      await storage.putObject(images.ref(key), body, type);
      await rm(file);
      moved++;
    } catch (err) {
      log.warn({ err, file }, 'a stored image could not be moved to object storage; it stays on disk');
    }
  }
  // Empty folders left behind go too (rmdir refuses non-empty ones).
  for (const dir of [...new Set(files.map((f) => path.dirname(f)))].sort().reverse()) {
    await rmdir(dir).catch(() => undefined);
    await rmdir(path.dirname(dir)).catch(() => undefined);
  }
  await rmdir(root).catch(() => undefined);
  return moved;
}
