import { describe, expect, it, vi } from 'vitest';
import { createChunkStore, createMemoryBackend, type ChunkBackend, type UploadMeta } from './chunk-store';

const RK = 'rec/exam/1/cam.webm?uploadId=U1';

function bytes(n: number, start = 0): Uint8Array {
  return Uint8Array.from({ length: n }, (_, i) => (start + i) % 251);
}

async function sha256Hex(data: Uint8Array): Promise<string> {
  const d = await globalThis.crypto.subtle.digest('SHA-256', new Uint8Array(data));
  return Array.from(new Uint8Array(d), (b) => b.toString(16).padStart(2, '0')).join('');
}

function setup(backend: ChunkBackend = createMemoryBackend()) {
  return { backend, store: createChunkStore(backend, { storage: undefined }) };
}

describe('chunk store', () => {
  it('encrypts on put and decrypts the same bytes, with size and SHA-256 of the plaintext', async () => {
    const { backend, store } = setup();
    const data = bytes(1000);
    const info = await store.put({ recordingKey: RK, segment: 0, seq: 0, data });
    expect(info).toEqual({ recordingKey: RK, segment: 0, seq: 0, size: 1000, sha256: await sha256Hex(data) });

    const stored = await backend.getChunk(RK, { segment: 0, seq: 0 });
    expect(stored?.iv.byteLength).toBe(12);
    // AES-GCM: ciphertext + 16-byte tag, and not the plaintext.
    expect(stored?.ciphertext.byteLength).toBe(1016);
    expect(new Uint8Array(stored?.ciphertext ?? new ArrayBuffer(0)).subarray(0, 1000)).not.toEqual(data);

    expect(await store.readPlain(RK, { segment: 0, seq: 0 })).toEqual(data);
  });

  it('generates one non-extractable AES-GCM key and reuses it', async () => {
    const { backend, store } = setup();
    await store.put({ recordingKey: RK, segment: 0, seq: 0, data: bytes(10) });
    await store.put({ recordingKey: RK, segment: 0, seq: 1, data: bytes(10) });
    const key = await backend.getKey();
    expect(key?.extractable).toBe(false);
    expect(key?.algorithm).toMatchObject({ name: 'AES-GCM', length: 256 });
    expect(key?.usages.sort()).toEqual(['decrypt', 'encrypt']);
    await expect(globalThis.crypto.subtle.exportKey('raw', key as CryptoKey)).rejects.toThrow();

    // A second store over the same backend (a reload) reads with the stored key.
    const reopened = createChunkStore(backend, { storage: undefined });
    expect(await reopened.readPlain(RK, { segment: 0, seq: 1 })).toEqual(bytes(10));
  });

  it('keeps the key another tab stored first', async () => {
    const backend = createMemoryBackend();
    const other = await globalThis.crypto.subtle.generateKey({ name: 'AES-GCM', length: 256 }, false, [
      'encrypt',
      'decrypt',
    ]);
    const getKey = vi.spyOn(backend, 'getKey').mockResolvedValueOnce(undefined);
    await backend.addKey(other);
    const { store } = setup(backend);
    await store.put({ recordingKey: RK, segment: 0, seq: 0, data: bytes(5) });
    expect(getKey).toHaveBeenCalled();
    expect(await backend.getKey()).toBe(other);
    expect(await store.readPlain(RK, { segment: 0, seq: 0 })).toEqual(bytes(5));
  });

  it('detects tampering and records moved to another place', async () => {
    const { backend, store } = setup();
    await store.put({ recordingKey: RK, segment: 0, seq: 0, data: bytes(20) });
    await store.put({ recordingKey: RK, segment: 0, seq: 1, data: bytes(20, 3) });
    const a = await backend.getChunk(RK, { segment: 0, seq: 0 });
    if (!a) throw new Error('missing');
    const flipped = new Uint8Array(a.ciphertext.slice(0));
    flipped[0] = (flipped[0] ?? 0) ^ 1;
    await backend.putChunk({ ...a, ciphertext: flipped.buffer });
    await expect(store.readPlain(RK, { segment: 0, seq: 0 })).rejects.toThrow();
    // The payload of seq 1 stored under seq 0: the additional data no longer matches.
    const b = await backend.getChunk(RK, { segment: 0, seq: 1 });
    if (!b) throw new Error('missing');
    await backend.putChunk({ ...b, seq: 0, size: 20, sha256: a.sha256 });
    await expect(store.readPlain(RK, { segment: 0, seq: 0 })).rejects.toThrow();
    await expect(store.readPlain(RK, { segment: 5, seq: 0 })).rejects.toThrow(/missing/);
  });

  it('lists in (segment, seq) order per recording and assembles parts across chunks', async () => {
    const { store } = setup();
    await store.put({ recordingKey: RK, segment: 1, seq: 0, data: bytes(6, 100) });
    await store.put({ recordingKey: RK, segment: 0, seq: 1, data: bytes(6, 50) });
    await store.put({ recordingKey: RK, segment: 0, seq: 0, data: bytes(6, 0) });
    await store.put({ recordingKey: 'other', segment: 0, seq: 0, data: bytes(3) });
    const list = await store.list(RK);
    expect(list.map((c) => [c.segment, c.seq])).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
    ]);
    expect(list.every((c) => !('ciphertext' in c))).toBe(true);

    const part = await store.readPart(RK, {
      PartNumber: 2,
      size: 10,
      firstChunk: { segment: 0, seq: 0 },
      lastChunk: { segment: 1, seq: 0 },
      offsets: { start: 4, end: 2 },
    });
    expect(part).toEqual(
      Uint8Array.from([...bytes(6, 0).subarray(4), ...bytes(6, 50), ...bytes(6, 100).subarray(0, 2)]),
    );
  });

  it('deletes up to a chunk, inclusive or not, and clears a recording with its meta', async () => {
    const { store } = setup();
    for (let seq = 0; seq < 4; seq++) await store.put({ recordingKey: RK, segment: 0, seq, data: bytes(4) });
    await store.put({ recordingKey: RK, segment: 1, seq: 0, data: bytes(4) });
    await store.put({ recordingKey: 'other', segment: 0, seq: 0, data: bytes(4) });
    expect(await store.deleteUpTo(RK, { segment: 0, seq: 1 })).toBe(2);
    expect(await store.deleteUpTo(RK, { segment: 1, seq: 0 }, false)).toBe(2);
    expect((await store.list(RK)).map((c) => [c.segment, c.seq])).toEqual([[1, 0]]);

    const meta: UploadMeta = {
      recordingKey: RK,
      bucket: 'rec',
      key: 'exam/1/cam.webm',
      uploadId: 'U1',
      partSize: 5_242_880,
      mimeType: 'video/webm;codecs=vp9,opus',
      lastSegment: 1,
      finished: false,
      parts: [
        {
          PartNumber: 1,
          size: 5_242_880,
          firstChunk: { segment: 0, seq: 0 },
          lastChunk: { segment: 0, seq: 3 },
          offsets: { start: 0, end: 4 },
          ETag: '"abc"',
        },
      ],
    };
    await store.putMeta(meta);
    expect(await store.getMeta(RK)).toEqual(meta);
    expect(await store.listMeta()).toHaveLength(1);
    await store.clear(RK);
    expect(await store.list(RK)).toEqual([]);
    expect(await store.getMeta(RK)).toBeUndefined();
    expect(await store.list('other')).toHaveLength(1);
  });

  it('reports storage figures when the browser gives them', async () => {
    const storage = {
      estimate: () => Promise.resolve({ usage: 1000, quota: 5000 }),
      persist: () => Promise.resolve(true),
    } as unknown as StorageManager;
    const store = createChunkStore(createMemoryBackend(), { storage });
    expect(await store.estimate()).toEqual({ usage: 1000, quota: 5000, available: 4000 });
    expect(await store.persist()).toBe(true);
    const bare = createChunkStore(createMemoryBackend(), { storage: undefined });
    expect(await bare.estimate()).toEqual({ usage: null, quota: null, available: null });
    expect(await bare.persist()).toBe(false);
  });
});
