/**
 * The local buffer of a recording: every recorder chunk is written here, encrypted, before any network IO,
 * and deleted only once S3 has confirmed every part that covers it (perf-reliability.md §3, UP-1). A small
 * meta record per recording keeps the multipart upload state so a reload resumes.
 *
 * Chunks are encrypted with AES-GCM under one non-extractable WebCrypto key. The key is generated once and
 * stored as a `CryptoKey` object in IndexedDB; structured clone keeps it non-extractable, so its bytes
 * never reach script or disk in the clear (ASVS 5.0 V14.3.3, perf-reliability.md §3 "Encrypt the buffer").
 */
import { compareChunkRefs, piecesOf, type ChunkRef, type PartSpan } from './rechunker';

/** A chunk's identity and plaintext facts (no payload): what `list` returns. */
export interface ChunkInfo extends ChunkRef {
  recordingKey: string;
  /** Plaintext length in bytes. */
  size: number;
  /** SHA-256 of the plaintext, lower-case hex. */
  sha256: string;
}

/** A chunk as stored: the facts plus the AES-GCM IV and ciphertext (with tag). */
export interface StoredChunk extends ChunkInfo {
  iv: Uint8Array;
  ciphertext: ArrayBuffer;
}

/** One planned part of the multipart upload; `ETag` is null until S3 confirms it. */
export interface StoredPart extends PartSpan {
  ETag: string | null;
}

/** The resumable upload state of one recording. */
export interface UploadMeta {
  recordingKey: string;
  bucket: string;
  key: string;
  uploadId: string;
  partSize: number;
  /** The recorder's real MIME type (media-stack.md §8.14). */
  mimeType: string | null;
  /** The highest recorder segment used so far; a restarted recorder takes the next one. */
  lastSegment: number;
  /** True once `stop()` cut the last part: no more parts will be planned. */
  finished: boolean;
  /** Planned parts in part-number order. */
  parts: StoredPart[];
}

/**
 * A deep copy of an upload state (plain JSON data). Not `structuredClone`: that needs Chrome 98 / Safari 15.4,
 * and spec §5 admits older browsers.
 */
export function cloneMeta(meta: UploadMeta): UploadMeta {
  return JSON.parse(JSON.stringify(meta)) as UploadMeta;
}

/**
 * The storage under the chunk store: IndexedDB in the browser, `createMemoryBackend()` in tests
 * (jsdom has no IndexedDB). All list results are sorted by (segment, seq).
 */
export interface ChunkBackend {
  putChunk(chunk: StoredChunk): Promise<void>;
  listChunks(recordingKey: string, range?: { from: ChunkRef; to: ChunkRef }): Promise<ChunkInfo[]>;
  getChunk(recordingKey: string, ref: ChunkRef): Promise<StoredChunk | undefined>;
  /** Deletes chunks up to `upTo` (all when null); returns how many went. */
  deleteChunks(recordingKey: string, upTo: ChunkRef | null, inclusive: boolean): Promise<number>;
  getMeta(recordingKey: string): Promise<UploadMeta | undefined>;
  putMeta(meta: UploadMeta): Promise<void>;
  deleteMeta(recordingKey: string): Promise<void>;
  listMeta(): Promise<UploadMeta[]>;
  getKey(): Promise<CryptoKey | undefined>;
  /** Stores `key` unless one is already stored; returns the stored one (another tab may have won). */
  addKey(key: CryptoKey): Promise<CryptoKey>;
  close(): void;
}

/** The part of WebCrypto the store uses (injectable: jsdom tests pass Node's). */
export type CryptoLike = Pick<Crypto, 'subtle' | 'getRandomValues'>;

/** Browser storage figures (`navigator.storage.estimate()`), when the browser gives them. */
export interface StorageFigures {
  usage: number | null;
  quota: number | null;
  /** quota − usage. */
  available: number | null;
}

/** The encrypted chunk buffer and upload meta of all recordings on this device. */
export interface ChunkStore {
  /** Encrypts and stores a chunk; resolves once it is durable. Call before any network IO. */
  put(chunk: { recordingKey: string; segment: number; seq: number; data: Uint8Array }): Promise<ChunkInfo>;
  /** Chunk facts of a recording, sorted by (segment, seq). */
  list(recordingKey: string): Promise<ChunkInfo[]>;
  /** Decrypts one chunk and checks its SHA-256. Throws when missing or damaged. */
  readPlain(recordingKey: string, ref: ChunkRef): Promise<Uint8Array>;
  /** Assembles a part's bytes from its chunks. */
  readPart(recordingKey: string, span: PartSpan): Promise<Uint8Array>;
  /** Deletes chunks up to `upTo` (inclusive by default); returns how many went. */
  deleteUpTo(recordingKey: string, upTo: ChunkRef, inclusive?: boolean): Promise<number>;
  /** Deletes a recording's chunks and meta. */
  clear(recordingKey: string): Promise<void>;
  /** Browser storage usage and quota. */
  estimate(): Promise<StorageFigures>;
  /** Asks the browser not to evict this origin's storage (best effort; false when refused). */
  persist(): Promise<boolean>;
  getMeta(recordingKey: string): Promise<UploadMeta | undefined>;
  putMeta(meta: UploadMeta): Promise<void>;
  /** Upload metas of all recordings (e.g. unfinished ones from an earlier session). */
  listMeta(): Promise<UploadMeta[]>;
  close(): void;
}

const KEY_ALGORITHM = { name: 'AES-GCM', length: 256 } as const;

function toHex(buf: ArrayBuffer): string {
  return Array.from(new Uint8Array(buf), (b) => b.toString(16).padStart(2, '0')).join('');
}

function additionalData(recordingKey: string, ref: ChunkRef): Uint8Array<ArrayBuffer> {
  // Binds each ciphertext to its place, so records swapped in storage fail to decrypt.
  return new TextEncoder().encode(`${recordingKey}\u0000${ref.segment}\u0000${ref.seq}`);
}

/** Creates the chunk store over a backend. `crypto` defaults to the global WebCrypto. */
export function createChunkStore(
  backend: ChunkBackend,
  options: { crypto?: CryptoLike; storage?: StorageManager | undefined } = {},
): ChunkStore {
  const cryptoImpl: CryptoLike = options.crypto ?? globalThis.crypto;
  const storage = 'storage' in options ? options.storage : globalThis.navigator?.storage;
  const { subtle } = cryptoImpl;
  let keyPromise: Promise<CryptoKey> | null = null;

  function key(): Promise<CryptoKey> {
    keyPromise ??= (async () => {
      const stored = await backend.getKey();
      if (stored) return stored;
      const fresh = await subtle.generateKey(KEY_ALGORITHM, false, ['encrypt', 'decrypt']);
      return backend.addKey(fresh);
    })();
    keyPromise.catch(() => {
      keyPromise = null;
    });
    return keyPromise;
  }

  async function readPlain(recordingKey: string, ref: ChunkRef): Promise<Uint8Array> {
    const stored = await backend.getChunk(recordingKey, ref);
    if (!stored) throw new Error(`chunk-store: chunk ${ref.segment}/${ref.seq} is missing`);
    const plain = new Uint8Array(
      await subtle.decrypt(
        { name: 'AES-GCM', iv: new Uint8Array(stored.iv), additionalData: additionalData(recordingKey, ref) },
        await key(),
        new Uint8Array(stored.ciphertext),
      ),
    );
    const digest = toHex(await subtle.digest('SHA-256', plain));
    if (plain.byteLength !== stored.size || digest !== stored.sha256) {
      throw new Error(`chunk-store: chunk ${ref.segment}/${ref.seq} is damaged`);
    }
    return plain;
  }

  return {
    async put({ recordingKey, segment, seq, data }) {
      const ref = { segment, seq };
      const plain = new Uint8Array(data);
      const iv = cryptoImpl.getRandomValues(new Uint8Array(12));
      const [digest, ciphertext] = await Promise.all([
        subtle.digest('SHA-256', plain),
        key().then((k) =>
          subtle.encrypt(
            { name: 'AES-GCM', iv, additionalData: additionalData(recordingKey, ref) },
            k,
            plain,
          ),
        ),
      ]);
      const info: ChunkInfo = { recordingKey, segment, seq, size: plain.byteLength, sha256: toHex(digest) };
      await backend.putChunk({ ...info, iv, ciphertext });
      return info;
    },
    list: (recordingKey) => backend.listChunks(recordingKey),
    readPlain,
    async readPart(recordingKey, span) {
      const chunks = await backend.listChunks(recordingKey, { from: span.firstChunk, to: span.lastChunk });
      const pieces = piecesOf(span, chunks);
      const out = new Uint8Array(span.size);
      let at = 0;
      for (const piece of pieces) {
        const plain = await readPlain(recordingKey, piece.chunk);
        out.set(plain.subarray(piece.offset, piece.offset + piece.length), at);
        at += piece.length;
      }
      return out;
    },
    deleteUpTo: (recordingKey, upTo, inclusive = true) => backend.deleteChunks(recordingKey, upTo, inclusive),
    async clear(recordingKey) {
      await backend.deleteChunks(recordingKey, null, true);
      await backend.deleteMeta(recordingKey);
    },
    async estimate() {
      try {
        const e = storage ? await storage.estimate() : {};
        const usage = e.usage ?? null;
        const quota = e.quota ?? null;
        return { usage, quota, available: usage !== null && quota !== null ? quota - usage : null };
      } catch {
        return { usage: null, quota: null, available: null };
      }
    },
    async persist() {
      try {
        return storage?.persist ? await storage.persist() : false;
      } catch {
        return false;
      }
    },
    getMeta: (recordingKey) => backend.getMeta(recordingKey),
    putMeta: (meta) => backend.putMeta(meta),
    listMeta: () => backend.listMeta(),
    close: () => backend.close(),
  };
}

function refKey(recordingKey: string, ref: ChunkRef): string {
  return JSON.stringify([recordingKey, ref.segment, ref.seq]);
}

function infoOf(c: StoredChunk): ChunkInfo {
  return { recordingKey: c.recordingKey, segment: c.segment, seq: c.seq, size: c.size, sha256: c.sha256 };
}

/**
 * An in-memory backend with the IndexedDB backend's semantics (tests, and browsers without IndexedDB, where
 * it at least keeps the pipeline working; it does not survive a reload). Values are copied like structured
 * clone would, except the `CryptoKey`, which is kept as is.
 */
export function createMemoryBackend(): ChunkBackend {
  const chunks = new Map<string, StoredChunk>();
  const metas = new Map<string, UploadMeta>();
  let cryptoKey: CryptoKey | undefined;
  const inRecording = (recordingKey: string) =>
    [...chunks.values()].filter((c) => c.recordingKey === recordingKey).sort(compareChunkRefs);
  return {
    async putChunk(c) {
      chunks.set(refKey(c.recordingKey, c), { ...c, iv: c.iv.slice(), ciphertext: c.ciphertext.slice(0) });
    },
    async listChunks(recordingKey, range) {
      return inRecording(recordingKey)
        .filter((c) => !range || (compareChunkRefs(c, range.from) >= 0 && compareChunkRefs(c, range.to) <= 0))
        .map(infoOf);
    },
    async getChunk(recordingKey, ref) {
      const c = chunks.get(refKey(recordingKey, ref));
      return c && { ...c, iv: c.iv.slice(), ciphertext: c.ciphertext.slice(0) };
    },
    async deleteChunks(recordingKey, upTo, inclusive) {
      let n = 0;
      for (const c of inRecording(recordingKey)) {
        const cmp = upTo ? compareChunkRefs(c, upTo) : -1;
        if (cmp < 0 || (cmp === 0 && inclusive)) {
          chunks.delete(refKey(recordingKey, c));
          n += 1;
        }
      }
      return n;
    },
    async getMeta(recordingKey) {
      const m = metas.get(recordingKey);
      return m && cloneMeta(m);
    },
    async putMeta(meta) {
      metas.set(meta.recordingKey, cloneMeta(meta));
    },
    async deleteMeta(recordingKey) {
      metas.delete(recordingKey);
    },
    async listMeta() {
      return [...metas.values()].map((m) => cloneMeta(m));
    },
    async getKey() {
      return cryptoKey;
    },
    async addKey(k) {
      cryptoKey ??= k;
      return cryptoKey;
    },
    close() {},
  };
}

const DB_VERSION = 1;
const CHUNKS = 'chunks';
const CHUNK_DATA = 'chunk-data';
const UPLOADS = 'uploads';
const KEYS = 'keys';
const CHUNK_KEY_ID = 'chunk-key';
const CHUNK_KEY_PATH = ['recordingKey', 'segment', 'seq'];

function request<T>(req: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    req.onsuccess = () => resolve(req.result);
    req.onerror = () => reject(req.error ?? new Error('IndexedDB request failed'));
  });
}

function done(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve();
    tx.onerror = () => reject(tx.error ?? new Error('IndexedDB transaction failed'));
    tx.onabort = () => reject(tx.error ?? new Error('IndexedDB transaction aborted'));
  });
}

/**
 * The IndexedDB backend (database `name`, default `proctor-recording`). Chunk facts and payloads sit in two
 * object stores under the same key, so `list` never loads ciphertext (a long offline stretch can buffer GBs).
 */
export async function openIndexedDbBackend(
  name = 'proctor-recording',
  factory: IDBFactory = globalThis.indexedDB,
): Promise<ChunkBackend> {
  const open = factory.open(name, DB_VERSION);
  open.onupgradeneeded = () => {
    const db = open.result;
    if (!db.objectStoreNames.contains(CHUNKS)) db.createObjectStore(CHUNKS, { keyPath: CHUNK_KEY_PATH });
    if (!db.objectStoreNames.contains(CHUNK_DATA))
      db.createObjectStore(CHUNK_DATA, { keyPath: CHUNK_KEY_PATH });
    if (!db.objectStoreNames.contains(UPLOADS)) db.createObjectStore(UPLOADS, { keyPath: 'recordingKey' });
    if (!db.objectStoreNames.contains(KEYS)) db.createObjectStore(KEYS, { keyPath: 'id' });
  };
  const db = await request(open);
  // Another tab upgrading the schema: let it, and fail our next call rather than block it.
  db.onversionchange = () => db.close();

  const all = (recordingKey: string) => IDBKeyRange.bound([recordingKey], [recordingKey, []]);
  const key = (recordingKey: string, ref: ChunkRef) => [recordingKey, ref.segment, ref.seq];

  return {
    async putChunk(c) {
      const tx = db.transaction([CHUNKS, CHUNK_DATA], 'readwrite');
      tx.objectStore(CHUNKS).put(infoOf(c));
      tx.objectStore(CHUNK_DATA).put({
        recordingKey: c.recordingKey,
        segment: c.segment,
        seq: c.seq,
        iv: c.iv,
        ciphertext: c.ciphertext,
      });
      await done(tx);
    },
    async listChunks(recordingKey, range) {
      const keyRange = range
        ? IDBKeyRange.bound(key(recordingKey, range.from), key(recordingKey, range.to))
        : all(recordingKey);
      const tx = db.transaction(CHUNKS, 'readonly');
      return (await request(tx.objectStore(CHUNKS).getAll(keyRange))) as ChunkInfo[];
    },
    async getChunk(recordingKey, ref) {
      const tx = db.transaction([CHUNKS, CHUNK_DATA], 'readonly');
      const [info, data] = await Promise.all([
        request(tx.objectStore(CHUNKS).get(key(recordingKey, ref))) as Promise<ChunkInfo | undefined>,
        request(tx.objectStore(CHUNK_DATA).get(key(recordingKey, ref))) as Promise<
          { iv: Uint8Array; ciphertext: ArrayBuffer } | undefined
        >,
      ]);
      return info && data ? { ...info, iv: data.iv, ciphertext: data.ciphertext } : undefined;
    },
    async deleteChunks(recordingKey, upTo, inclusive) {
      const range = upTo
        ? IDBKeyRange.bound([recordingKey], key(recordingKey, upTo), false, !inclusive)
        : all(recordingKey);
      const tx = db.transaction([CHUNKS, CHUNK_DATA], 'readwrite');
      const count = request(tx.objectStore(CHUNKS).count(range));
      tx.objectStore(CHUNKS).delete(range);
      tx.objectStore(CHUNK_DATA).delete(range);
      await done(tx);
      return count;
    },
    async getMeta(recordingKey) {
      const tx = db.transaction(UPLOADS, 'readonly');
      return (await request(tx.objectStore(UPLOADS).get(recordingKey))) as UploadMeta | undefined;
    },
    async putMeta(meta) {
      const tx = db.transaction(UPLOADS, 'readwrite');
      tx.objectStore(UPLOADS).put(meta);
      await done(tx);
    },
    async deleteMeta(recordingKey) {
      const tx = db.transaction(UPLOADS, 'readwrite');
      tx.objectStore(UPLOADS).delete(recordingKey);
      await done(tx);
    },
    async listMeta() {
      const tx = db.transaction(UPLOADS, 'readonly');
      return (await request(tx.objectStore(UPLOADS).getAll())) as UploadMeta[];
    },
    async getKey() {
      const tx = db.transaction(KEYS, 'readonly');
      const row = (await request(tx.objectStore(KEYS).get(CHUNK_KEY_ID))) as { key: CryptoKey } | undefined;
      return row?.key;
    },
    async addKey(k) {
      const tx = db.transaction(KEYS, 'readwrite');
      const store = tx.objectStore(KEYS);
      const winner = new Promise<CryptoKey>((resolve) => {
        const get = store.get(CHUNK_KEY_ID);
        get.onsuccess = () => {
          const row = get.result as { key: CryptoKey } | undefined;
          if (row) resolve(row.key);
          else {
            store.add({ id: CHUNK_KEY_ID, key: k });
            resolve(k);
          }
        };
      });
      await done(tx);
      return winner;
    },
    close: () => db.close(),
  };
}

/**
 * Opens the chunk store on IndexedDB, or on memory when the browser has none or refuses it (some private
 * modes); `durable` says which, so the caller can warn that a crash would lose data.
 */
export async function openChunkStore(
  options: { name?: string; crypto?: CryptoLike } = {},
): Promise<{ store: ChunkStore; durable: boolean }> {
  const storeOptions = options.crypto ? { crypto: options.crypto } : {};
  if (typeof globalThis.indexedDB !== 'undefined') {
    try {
      const backend = await openIndexedDbBackend(options.name);
      return { store: createChunkStore(backend, storeOptions), durable: true };
    } catch {
      // Some private modes refuse IndexedDB at open time; record anyway, without crash protection.
    }
  }
  return { store: createChunkStore(createMemoryBackend(), storeOptions), durable: false };
}
