import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PART_SIZE,
  createRechunker,
  deletableUpTo,
  partBounds,
  piecesOf,
  resumeFeed,
  type ChunkSize,
  type PartLayout,
  type PartSpan,
} from './rechunker';

const c = (seq: number, size: number, segment = 0): ChunkSize => ({ segment, seq, size });

function run(partSize: number, sizes: number[]): { parts: PartLayout[]; last: PartLayout | null } {
  const r = createRechunker({ partSize });
  const parts = sizes.flatMap((size, seq) => r.push(c(seq, size)));
  return { parts, last: r.flush() };
}

function span(part: PartLayout): PartSpan {
  return { PartNumber: part.partNumber, size: part.size, ...partBounds(part) };
}

describe('createRechunker', () => {
  it('defaults to the spec §9 part size', () => {
    const r = createRechunker();
    expect(r.push(c(0, DEFAULT_PART_SIZE - 1))).toEqual([]);
    const [part] = r.push(c(1, 1));
    expect(part?.size).toBe(5_242_880);
    expect(r.flush()).toBeNull();
  });

  it('returns nothing for empty input', () => {
    const r = createRechunker({ partSize: 10 });
    expect(r.flush()).toBeNull();
    expect(r.push(c(0, 0))).toEqual([]);
    expect(r.flush()).toBeNull();
    expect(r.nextPartNumber()).toBe(1);
  });

  it('accumulates small chunks into one exact part and keeps the rest', () => {
    const { parts, last } = run(10, [4, 4, 4]);
    expect(parts).toEqual([
      {
        partNumber: 1,
        size: 10,
        pieces: [
          { chunk: { segment: 0, seq: 0 }, offset: 0, length: 4 },
          { chunk: { segment: 0, seq: 1 }, offset: 0, length: 4 },
          { chunk: { segment: 0, seq: 2 }, offset: 0, length: 2 },
        ],
      },
    ]);
    expect(last).toEqual({
      partNumber: 2,
      size: 2,
      pieces: [{ chunk: { segment: 0, seq: 2 }, offset: 2, length: 2 }],
    });
  });

  it('cuts on an exact boundary with no empty last part', () => {
    const { parts, last } = run(10, [5, 5, 10]);
    expect(parts.map((p) => p.size)).toEqual([10, 10]);
    expect(last).toBeNull();
  });

  it('splits a chunk larger than several parts', () => {
    const { parts, last } = run(10, [3, 35]);
    expect(parts.map((p) => [p.partNumber, p.size])).toEqual([
      [1, 10],
      [2, 10],
      [3, 10],
    ]);
    expect(parts[1]?.pieces).toEqual([{ chunk: { segment: 0, seq: 1 }, offset: 7, length: 10 }]);
    expect(last?.size).toBe(8);
    expect(last?.pieces).toEqual([{ chunk: { segment: 0, seq: 1 }, offset: 27, length: 8 }]);
  });

  it('covers every byte once, in order, for random sizes', () => {
    let seed = 7;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) % 50;
    const sizes = Array.from({ length: 200 }, rand);
    const { parts, last } = run(37, sizes);
    const all = last ? [...parts, last] : parts;
    expect(all.slice(0, -1).every((p) => p.size === 37)).toBe(true);
    expect(all.map((p) => p.partNumber)).toEqual(all.map((_, i) => i + 1));
    const covered = all.flatMap((p) => p.pieces);
    let seq = 0;
    let offset = 0;
    for (const piece of covered) {
      while (sizes[seq] === 0 || offset === sizes[seq]) {
        seq += 1;
        offset = 0;
      }
      expect(piece.chunk.seq).toBe(seq);
      expect(piece.offset).toBe(offset);
      offset += piece.length;
    }
    expect(covered.reduce((n, p) => n + p.length, 0)).toBe(sizes.reduce((a, b) => a + b, 0));
  });

  it('crosses segment boundaries and resumes numbering', () => {
    const r = createRechunker({ partSize: 10, nextPartNumber: 5 });
    expect(r.push({ segment: 0, seq: 9, size: 6 })).toEqual([]);
    const [part] = r.push({ segment: 1, seq: 0, size: 6 });
    expect(part?.partNumber).toBe(5);
    expect(part && partBounds(part)).toEqual({
      firstChunk: { segment: 0, seq: 9 },
      lastChunk: { segment: 1, seq: 0 },
      offsets: { start: 0, end: 4 },
    });
    expect(r.pendingBytes()).toBe(2);
    expect(r.nextPartNumber()).toBe(6);
  });

  it('starts inside a chunk when given an offset, and rejects bad input', () => {
    const r = createRechunker({ partSize: 4 });
    expect(r.push(c(0, 10), 6)).toEqual([
      { partNumber: 1, size: 4, pieces: [{ chunk: { segment: 0, seq: 0 }, offset: 6, length: 4 }] },
    ]);
    expect(() => r.push(c(1, 3), 4)).toThrow();
    expect(() => r.push(c(1, -1))).toThrow();
    expect(() => createRechunker({ partSize: 0 })).toThrow();
  });

  it('refuses part 10,001', () => {
    const r = createRechunker({ partSize: 1, nextPartNumber: 10_000 });
    expect(r.push(c(0, 1))).toHaveLength(1);
    expect(() => r.push(c(1, 1))).toThrow(/10,000/);
  });
});

describe('piecesOf', () => {
  it('rebuilds a part from its span and the chunk sizes', () => {
    const sizes = [3, 35];
    const { parts } = run(10, sizes);
    const chunks = sizes.map((size, seq) => c(seq, size));
    for (const part of parts) expect(piecesOf(span(part), chunks)).toEqual(part.pieces);
  });

  it('throws when a chunk is missing or the sizes differ', () => {
    const { parts } = run(10, [4, 4, 4]);
    const s = span(parts[0] as PartLayout);
    expect(() => piecesOf(s, [c(0, 4), c(2, 4)])).toThrow();
    expect(() => piecesOf(s, [c(0, 4), c(1, 5), c(2, 4)])).toThrow();
    expect(() => piecesOf(s, [])).toThrow();
  });
});

describe('resumeFeed', () => {
  it('feeds everything when no part is planned', () => {
    const r = resumeFeed([], [c(1, 5), c(0, 5)]);
    expect(r.nextPartNumber).toBe(1);
    expect(r.feed.map((f) => [f.chunk.seq, f.startOffset])).toEqual([
      [0, 0],
      [1, 0],
    ]);
  });

  it('continues after the last planned part, inside its last chunk', () => {
    const sizes = [4, 4, 4, 9];
    const { parts } = run(10, sizes);
    const chunks = sizes.map((size, seq) => c(seq, size));
    const r = resumeFeed(parts.map(span), chunks);
    expect(r.nextPartNumber).toBe(3);
    expect(r.feed.map((f) => [f.chunk.seq, f.startOffset])).toEqual([[3, 8]]);
    // Feeding it gives the same tail the uninterrupted run would have flushed.
    const again = createRechunker({ partSize: 10, nextPartNumber: r.nextPartNumber });
    r.feed.forEach((f) => again.push(f.chunk, f.startOffset));
    expect(again.flush()).toEqual(run(10, sizes).last);
  });

  it('skips a chunk the last part ends exactly on', () => {
    const { parts } = run(10, [5, 5, 3]);
    const r = resumeFeed(parts.map(span), [c(0, 5), c(1, 5), c(2, 3)]);
    expect(r.feed.map((f) => [f.chunk.seq, f.startOffset])).toEqual([[2, 0]]);
  });
});

describe('deletableUpTo', () => {
  const { parts } = run(10, [4, 4, 4, 8, 10]);
  const spans = parts.map((p) => ({ ...span(p), ETag: null as string | null }));
  const size = (ref: { seq: number }) => [4, 4, 4, 8, 10][ref.seq];
  const confirmed = (p: { ETag: string | null }) => p.ETag !== null;

  it('keeps everything while part 1 is unconfirmed', () => {
    expect(deletableUpTo(spans, confirmed, size)).toBeNull();
    const onlySecond = spans.map((p) => (p.PartNumber === 2 ? { ...p, ETag: 'e' } : p));
    expect(deletableUpTo(onlySecond, confirmed, size)).toBeNull();
  });

  it('keeps the chunk a confirmed part ends inside', () => {
    const first = spans.map((p) => (p.PartNumber === 1 ? { ...p, ETag: 'e' } : p));
    expect(deletableUpTo(first, confirmed, size)).toEqual({ upTo: { segment: 0, seq: 2 }, inclusive: false });
  });

  it('deletes through a chunk the prefix ends exactly on', () => {
    const two = spans.map((p) => (p.PartNumber <= 2 ? { ...p, ETag: 'e' } : p));
    expect(deletableUpTo(two, confirmed, size)).toEqual({ upTo: { segment: 0, seq: 3 }, inclusive: true });
  });

  it('is conservative when a chunk size is unknown', () => {
    const two = spans.map((p) => (p.PartNumber <= 2 ? { ...p, ETag: 'e' } : p));
    expect(deletableUpTo(two, confirmed, () => undefined)?.inclusive).toBe(false);
  });
});
