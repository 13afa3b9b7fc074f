import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, readFile, readdir, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { once } from 'node:events';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { crc32 } from 'node:zlib';
import { S3Error, s3Errors } from './errors';
import type { CompletePartInput } from './xml';

/** Settings the test hooks may change at run time. */
export interface StoreSettings {
  /** Every part but the last must be at least this big (S3: 5 MiB, media-stack.md §6). */
  minPartSize: number;
  /** Reject a part checksum that does not match the upload's checksum algorithm (media-stack.md §4.3). */
  strictChecksum: boolean;
}

/** The only part checksum algorithm the stand-in verifies (the SDK's default, media-stack.md §4.3). */
export type ChecksumAlgorithm = 'CRC32';

/** A multipart upload in progress. */
export interface UploadMeta {
  uploadId: string;
  bucket: string;
  key: string;
  contentType: string;
  checksumAlgorithm: ChecksumAlgorithm | null;
  initiated: string;
}

/** A stored part. `etag` carries its quotes, as S3 returns it. */
export interface PartMeta {
  partNumber: number;
  size: number;
  etag: string;
  lastModified: string;
  checksumCrc32?: string;
  /** Data file name inside the upload folder. */
  file: string;
}

/** A stored object. */
export interface ObjectMeta {
  bucket: string;
  key: string;
  size: number;
  etag: string;
  contentType: string;
  lastModified: string;
  checksumCrc32?: string;
  /** Number of parts when the object came from a multipart upload. */
  parts?: number;
}

/** What the client claims about a body, checked after it is on disk. */
export interface BodyExpectations {
  contentMd5?: string;
  crc32?: string;
  /** `x-amz-content-sha256` when it is a hex digest (not UNSIGNED-PAYLOAD). */
  sha256Hex?: string;
}

interface Received {
  size: number;
  md5Hex: string;
  sha256Hex: string;
  crc32B64: string;
}

const DEFAULT_CONTENT_TYPE = 'binary/octet-stream';
const MAX_REMEMBERED_COMPLETIONS = 1000;

/** S3's bucket naming rule; also keeps bucket names safe as folder names. */
export function assertBucketName(bucket: string): void {
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket) || bucket.includes('..')) {
    throw new S3Error(400, 'InvalidBucketName', 'The specified bucket is not valid.', {
      fields: { BucketName: bucket },
    });
  }
}

/** Strips the quotes S3 puts around ETags (clients send them either way). */
export function bareEtag(etag: string): string {
  return etag.trim().replace(/^"|"$/g, '');
}

function crc32B64(value: number): string {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(value >>> 0);
  return b.toString('base64');
}

function errno(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}

/**
 * Writes `body` to `file` while hashing it, without holding it in memory. The body is always read to its
 * end, even when the file cannot be written, so the client gets an answer instead of a reset socket.
 */
function receive(body: Readable, file: string): Promise<Received> {
  return new Promise((resolve, reject) => {
    const md5 = createHash('md5');
    const sha = createHash('sha256');
    let crc = 0;
    let size = 0;
    let writeError: unknown = null;
    let bodyDone = false;
    let fileDone = false;
    const out = createWriteStream(file, { flags: 'wx' });
    const settle = () => {
      if (!bodyDone || !fileDone) return;
      if (writeError) reject(writeError as Error);
      else
        resolve({ size, md5Hex: md5.digest('hex'), sha256Hex: sha.digest('hex'), crc32B64: crc32B64(crc) });
    };
    out.on('error', (err) => {
      writeError = err;
      fileDone = true;
      body.resume();
      settle();
    });
    out.on('finish', () => {
      fileDone = true;
      settle();
    });
    out.on('drain', () => body.resume());
    body.on('data', (chunk: Buffer) => {
      size += chunk.length;
      md5.update(chunk);
      sha.update(chunk);
      crc = crc32(chunk, crc);
      if (!writeError && !out.write(chunk)) body.pause();
    });
    body.on('end', () => {
      bodyDone = true;
      if (writeError) settle();
      else out.end();
    });
    body.on('error', (err) => {
      out.destroy();
      reject(err);
    });
    body.on('close', () => {
      if (!bodyDone) {
        out.destroy();
        reject(new Error('request body ended early'));
      }
    });
  });
}

function checkExpectations(got: Received, expect: BodyExpectations): void {
  if (expect.sha256Hex !== undefined && expect.sha256Hex.toLowerCase() !== got.sha256Hex)
    throw s3Errors.sha256Mismatch();
  if (expect.contentMd5 !== undefined) {
    const given = Buffer.from(expect.contentMd5, 'base64');
    if (given.length !== 16) throw s3Errors.invalidDigest();
    if (given.toString('hex') !== got.md5Hex) throw s3Errors.badDigest();
  }
  if (expect.crc32 !== undefined && expect.crc32 !== got.crc32B64) {
    throw s3Errors.badDigest('The CRC32 you specified did not match the calculated checksum.');
  }
}

/** The usage-table entry of a key: its bucket and directory (`<bucket>/<key up to the last slash>`). */
function usageDir(bucket: string, key: string): string {
  return `${bucket}/${key.slice(0, key.lastIndexOf('/') + 1)}`;
}

/**
 * The stand-in's storage: everything on disk under `root` (`<dataDir>/s3`), so uploads and objects survive a
 * server restart. Layout: `uploads/<uploadId>/{upload.json, part-NNNNN.json, NNNNN-<md5>.bin}` and
 * `objects/<bucket>/<sha256(key)>/{meta.json, data}`.
 */
export class S3Store {
  private readonly uploads = new Map<string, UploadMeta>();
  private readonly completing = new Set<string>();
  private readonly completed = new Map<string, ObjectMeta & { uploadId: string }>();
  /**
   * Bytes held (object data and uploaded parts) per bucket and key directory (`<bucket>/<key up to its last
   * slash>`), for the per-sitting quota of browser credentials. Built from disk by `loadUsage` at start-up,
   * then kept up to date by every write and delete.
   */
  private usageByDir: Map<string, number> | null = null;

  constructor(
    readonly root: string,
    readonly settings: StoreSettings,
  ) {}

  /** Reads what is on disk into the usage table (once, before the first request). */
  async loadUsage(): Promise<void> {
    const table = new Map<string, number>();
    const add = (bucket: string, key: string, n: number) => {
      const d = usageDir(bucket, key);
      table.set(d, (table.get(d) ?? 0) + n);
    };
    for (const u of await this.dumpUploads()) for (const p of u.parts) add(u.bucket, u.key, p.size);
    for (const o of await this.dumpObjects()) add(o.bucket, o.key, o.size);
    this.usageByDir = table;
  }

  /**
   * Bytes held directly in a bucket's key directory `prefix` (ending in '/'; objects plus parts of uploads in
   * progress), not in its sub-directories: a sitting's camera recordings live in `recordings/<test>/`, its other
   * streams in sub-directories with quotas of their own.
   */
  usage(bucket: string, prefix: string): number {
    return this.usageByDir?.get(`${bucket}/${prefix}`) ?? 0;
  }

  private adjust(bucket: string, key: string, delta: number): void {
    if (!this.usageByDir || delta === 0) return;
    const d = usageDir(bucket, key);
    const n = (this.usageByDir.get(d) ?? 0) + delta;
    if (n > 0) this.usageByDir.set(d, n);
    else this.usageByDir.delete(d);
  }

  private uploadDir(uploadId: string): string {
    return path.join(this.root, 'uploads', uploadId);
  }

  private objectDir(bucket: string, key: string): string {
    return path.join(this.root, 'objects', bucket, createHash('sha256').update(key).digest('hex'));
  }

  /** Where an object's bytes live on disk (may not exist). */
  objectPath(bucket: string, key: string): string {
    assertBucketName(bucket);
    return path.join(this.objectDir(bucket, key), 'data');
  }

  private async writeJson(file: string, value: unknown): Promise<void> {
    const tmp = `${file}.tmp-${randomBytes(6).toString('hex')}`;
    await writeFile(tmp, JSON.stringify(value));
    await rename(tmp, file);
  }

  /** CreateMultipartUpload. */
  async createUpload(
    bucket: string,
    key: string,
    contentType: string | undefined,
    checksumAlgorithm: ChecksumAlgorithm | null,
  ): Promise<UploadMeta> {
    assertBucketName(bucket);
    const upload: UploadMeta = {
      uploadId: randomBytes(36).toString('base64url'),
      bucket,
      key,
      contentType: contentType || DEFAULT_CONTENT_TYPE,
      checksumAlgorithm,
      initiated: new Date().toISOString(),
    };
    const dir = this.uploadDir(upload.uploadId);
    await mkdir(dir, { recursive: true });
    await this.writeJson(path.join(dir, 'upload.json'), upload);
    this.uploads.set(upload.uploadId, upload);
    return upload;
  }

  /** The upload for this bucket, key and id, or NoSuchUpload. */
  async getUpload(bucket: string, key: string, uploadId: string): Promise<UploadMeta> {
    if (!/^[A-Za-z0-9_-]{16,128}$/.test(uploadId)) throw s3Errors.noSuchUpload(uploadId);
    let upload = this.uploads.get(uploadId);
    if (!upload) {
      try {
        upload = JSON.parse(
          await readFile(path.join(this.uploadDir(uploadId), 'upload.json'), 'utf8'),
        ) as UploadMeta;
        this.uploads.set(uploadId, upload);
      } catch {
        throw s3Errors.noSuchUpload(uploadId);
      }
    }
    if (upload.bucket !== bucket || upload.key !== key) throw s3Errors.noSuchUpload(uploadId);
    return upload;
  }

  /** UploadPart: streams the body to disk, verifies what the client claimed, then publishes the part. */
  async writePart(
    upload: UploadMeta,
    partNumber: number,
    body: Readable,
    expect: BodyExpectations,
  ): Promise<PartMeta> {
    const dir = this.uploadDir(upload.uploadId);
    const tmp = path.join(dir, `${partNumber}.tmp-${randomBytes(6).toString('hex')}`);
    let got: Received;
    try {
      got = await receive(body, tmp);
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      if (errno(err) === 'ENOENT') throw s3Errors.noSuchUpload(upload.uploadId);
      throw err;
    }
    try {
      checkExpectations(got, expect);
      const file = `${String(partNumber).padStart(5, '0')}-${got.md5Hex}.bin`;
      const metaFile = path.join(dir, `part-${String(partNumber).padStart(5, '0')}.json`);
      const previous = await readFile(metaFile, 'utf8')
        .then((s) => JSON.parse(s) as PartMeta)
        .catch(() => null);
      await rename(tmp, path.join(dir, file));
      const part: PartMeta = {
        partNumber,
        size: got.size,
        etag: `"${got.md5Hex}"`,
        lastModified: new Date().toISOString(),
        file,
      };
      if (expect.crc32 !== undefined) part.checksumCrc32 = got.crc32B64;
      await this.writeJson(metaFile, part);
      this.adjust(upload.bucket, upload.key, got.size - (previous?.size ?? 0));
      // A retried part replaces the earlier bytes (S3 keeps the last upload of a part number).
      if (previous && previous.file !== file)
        await unlink(path.join(dir, previous.file)).catch(() => undefined);
      return part;
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      if (errno(err) === 'ENOENT') throw s3Errors.noSuchUpload(upload.uploadId);
      throw err;
    }
  }

  /** Bytes of one stored part of an upload, 0 when that part number has none yet. */
  async storedPartSize(upload: UploadMeta, partNumber: number): Promise<number> {
    const file = path.join(
      this.uploadDir(upload.uploadId),
      `part-${String(partNumber).padStart(5, '0')}.json`,
    );
    return readFile(file, 'utf8')
      .then((s) => (JSON.parse(s) as PartMeta).size)
      .catch(() => 0);
  }

  /** All stored parts of an upload, ascending. */
  async listParts(upload: UploadMeta): Promise<PartMeta[]> {
    const dir = this.uploadDir(upload.uploadId);
    let names: string[];
    try {
      names = await readdir(dir);
    } catch {
      throw s3Errors.noSuchUpload(upload.uploadId);
    }
    const parts: PartMeta[] = [];
    for (const name of names.filter((n) => /^part-\d{5}\.json$/.test(n))) {
      const part = await readFile(path.join(dir, name), 'utf8')
        .then((s) => JSON.parse(s) as PartMeta)
        .catch(() => null);
      if (part) parts.push(part);
    }
    return parts.sort((a, b) => a.partNumber - b.partNumber);
  }

  /**
   * CompleteMultipartUpload (media-stack.md §7.2 "Complete rules"): ascending parts, each stored with a
   * matching ETag, every part but the last at least `minPartSize`; then concatenate. A repeated Complete of
   * an upload this process already completed answers the same result, as S3 does for a lost response.
   */
  async complete(
    bucket: string,
    key: string,
    uploadId: string,
    requested: CompletePartInput[],
  ): Promise<ObjectMeta> {
    const done = this.completed.get(uploadId);
    if (done && done.bucket === bucket && done.key === key) return done;
    const upload = await this.getUpload(bucket, key, uploadId);
    if (this.completing.has(uploadId)) {
      throw new S3Error(
        409,
        'OperationAborted',
        'A conflicting conditional operation is currently in progress against this resource.',
      );
    }
    this.completing.add(uploadId);
    try {
      if (requested.length === 0) throw s3Errors.invalidRequest('You must specify at least one part');
      for (let i = 1; i < requested.length; i++) {
        if ((requested[i]?.partNumber ?? 0) <= (requested[i - 1]?.partNumber ?? 0))
          throw s3Errors.invalidPartOrder();
      }
      const stored = new Map((await this.listParts(upload)).map((p) => [p.partNumber, p]));
      const chosen: PartMeta[] = [];
      for (const r of requested) {
        const p = stored.get(r.partNumber);
        if (!p || bareEtag(p.etag) !== bareEtag(r.etag)) throw s3Errors.invalidPart();
        if (upload.checksumAlgorithm === 'CRC32' && r.checksumCrc32 !== p.checksumCrc32) {
          throw s3Errors.invalidPart(
            `The checksum of part ${r.partNumber} is missing or does not match the uploaded part.`,
          );
        }
        chosen.push(p);
      }
      chosen.forEach((p, i) => {
        if (i < chosen.length - 1 && p.size < this.settings.minPartSize) {
          throw s3Errors.entityTooSmall(p.partNumber, p.size, this.settings.minPartSize);
        }
      });
      const dir = this.objectDir(bucket, key);
      await mkdir(dir, { recursive: true });
      const tmp = path.join(dir, `data.tmp-${randomBytes(6).toString('hex')}`);
      const out = createWriteStream(tmp, { flags: 'wx' });
      let outError: Error | null = null;
      out.on('error', (err) => {
        outError = err;
      });
      try {
        // A plain copy loop: `pipeline(..., { end: false })` per part leaves listeners on `out` (720+ parts per exam).
        for (const p of chosen) {
          for await (const chunk of createReadStream(path.join(this.uploadDir(uploadId), p.file))) {
            if (outError) throw outError;
            if (!out.write(chunk)) await once(out, 'drain');
          }
        }
        await new Promise<void>((resolve, reject) => {
          if (outError) return reject(outError);
          out.once('error', reject);
          out.end(resolve);
        });
      } catch (err) {
        out.destroy();
        await unlink(tmp).catch(() => undefined);
        throw err;
      }
      const md5s = Buffer.concat(chosen.map((p) => Buffer.from(bareEtag(p.etag), 'hex')));
      const meta: ObjectMeta = {
        bucket,
        key,
        size: chosen.reduce((n, p) => n + p.size, 0),
        etag: `"${createHash('md5').update(md5s).digest('hex')}-${chosen.length}"`,
        contentType: upload.contentType,
        lastModified: new Date().toISOString(),
        parts: chosen.length,
      };
      if (upload.checksumAlgorithm === 'CRC32') {
        const crcs = Buffer.concat(chosen.map((p) => Buffer.from(p.checksumCrc32 ?? '', 'base64')));
        meta.checksumCrc32 = `${crc32B64(crc32(crcs))}-${chosen.length}`;
      }
      const replaced = await this.headObject(bucket, key);
      await rename(tmp, path.join(dir, 'data'));
      await this.writeJson(path.join(dir, 'meta.json'), meta);
      this.adjust(bucket, key, meta.size - (replaced?.size ?? 0));
      await this.dropUpload(uploadId);
      this.completed.set(uploadId, { ...meta, uploadId });
      if (this.completed.size > MAX_REMEMBERED_COMPLETIONS) {
        const oldest = this.completed.keys().next().value;
        if (oldest !== undefined) this.completed.delete(oldest);
      }
      return meta;
    } finally {
      this.completing.delete(uploadId);
    }
  }

  private async dropUpload(uploadId: string): Promise<void> {
    const upload = this.uploads.get(uploadId);
    if (upload) {
      const parts = await this.listParts(upload).catch(() => [] as PartMeta[]);
      this.adjust(upload.bucket, upload.key, -parts.reduce((n, p) => n + p.size, 0));
    }
    this.uploads.delete(uploadId);
    await rm(this.uploadDir(uploadId), { recursive: true, force: true });
  }

  /** AbortMultipartUpload: forget the upload and delete its parts. */
  async abort(bucket: string, key: string, uploadId: string): Promise<void> {
    await this.getUpload(bucket, key, uploadId);
    await this.dropUpload(uploadId);
  }

  /** PutObject. */
  async putObject(
    bucket: string,
    key: string,
    contentType: string | undefined,
    body: Readable,
    expect: BodyExpectations,
  ): Promise<ObjectMeta> {
    assertBucketName(bucket);
    const dir = this.objectDir(bucket, key);
    await mkdir(dir, { recursive: true });
    const tmp = path.join(dir, `data.tmp-${randomBytes(6).toString('hex')}`);
    try {
      const got = await receive(body, tmp);
      checkExpectations(got, expect);
      const meta: ObjectMeta = {
        bucket,
        key,
        size: got.size,
        etag: `"${got.md5Hex}"`,
        contentType: contentType || DEFAULT_CONTENT_TYPE,
        lastModified: new Date().toISOString(),
      };
      if (expect.crc32 !== undefined) meta.checksumCrc32 = got.crc32B64;
      const replaced = await this.headObject(bucket, key);
      await rename(tmp, path.join(dir, 'data'));
      await this.writeJson(path.join(dir, 'meta.json'), meta);
      this.adjust(bucket, key, meta.size - (replaced?.size ?? 0));
      return meta;
    } catch (err) {
      await unlink(tmp).catch(() => undefined);
      throw err;
    }
  }

  /** The object's metadata, or null when there is no such object. */
  async headObject(bucket: string, key: string): Promise<ObjectMeta | null> {
    assertBucketName(bucket);
    try {
      const meta = JSON.parse(
        await readFile(path.join(this.objectDir(bucket, key), 'meta.json'), 'utf8'),
      ) as ObjectMeta;
      return meta.key === key && meta.bucket === bucket ? meta : null;
    } catch {
      return null;
    }
  }

  /** DeleteObject (no error when absent, as on S3). */
  async deleteObject(bucket: string, key: string): Promise<void> {
    assertBucketName(bucket);
    const gone = await this.headObject(bucket, key);
    await rm(this.objectDir(bucket, key), { recursive: true, force: true });
    this.adjust(bucket, key, -(gone?.size ?? 0));
  }

  /** Every upload in progress, with its parts (for the test-hook state dump). */
  async dumpUploads(): Promise<(UploadMeta & { parts: Omit<PartMeta, 'file'>[] })[]> {
    const ids = await readdir(path.join(this.root, 'uploads')).catch(() => [] as string[]);
    const out: (UploadMeta & { parts: Omit<PartMeta, 'file'>[] })[] = [];
    for (const id of ids.sort()) {
      const upload = await readFile(path.join(this.uploadDir(id), 'upload.json'), 'utf8')
        .then((s) => JSON.parse(s) as UploadMeta)
        .catch(() => null);
      if (!upload) continue;
      const parts = await this.listParts(upload).catch(() => [] as PartMeta[]);
      out.push({ ...upload, parts: parts.map(({ file: _file, ...p }) => p) });
    }
    return out;
  }

  /** Every stored object (for the test-hook state dump). */
  async dumpObjects(): Promise<ObjectMeta[]> {
    const out: ObjectMeta[] = [];
    const buckets = await readdir(path.join(this.root, 'objects')).catch(() => [] as string[]);
    for (const bucket of buckets.sort()) {
      for (const h of await readdir(path.join(this.root, 'objects', bucket)).catch(() => [] as string[])) {
        const meta = await readFile(path.join(this.root, 'objects', bucket, h, 'meta.json'), 'utf8')
          .then((s) => JSON.parse(s) as ObjectMeta)
          .catch(() => null);
        if (meta) out.push(meta);
      }
    }
    return out.sort((a, b) => (a.bucket + '/' + a.key).localeCompare(b.bucket + '/' + b.key));
  }
}
