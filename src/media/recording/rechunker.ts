/**
 * The byte re-chunker: recorder chunks of any size in, S3 parts of exactly `partSize` bytes out (the last one
 * may be smaller). A 15 s chunk can be well under 5 MiB on a static scene, so parts cannot be one chunk each
 * (perf-reliability.md §3). Pure: no IO, no clock.
 */

/** spec §9: the part size threshold, 5,242,880 bytes (the S3 minimum for every part but the last). */
export const DEFAULT_PART_SIZE = 5_242_880;
/** S3 allows part numbers 1–10,000 (media-stack.md §6). */
export const MAX_PART_NUMBER = 10_000;

/** Where a chunk sits in a recording: segment (one per MediaRecorder run), then sequence within it. */
export interface ChunkRef {
  segment: number;
  seq: number;
}

/** A recorded chunk as the re-chunker sees it. */
export interface ChunkSize extends ChunkRef {
  size: number;
}

/** A byte range of one chunk inside a part. */
export interface ChunkPiece {
  chunk: ChunkRef;
  /** First byte of the chunk used. */
  offset: number;
  length: number;
}

/** The byte layout of one part: which chunk ranges it is made of, in order. */
export interface PartLayout {
  partNumber: number;
  size: number;
  pieces: ChunkPiece[];
}

/** Orders chunk references: by segment, then sequence. */
export function compareChunkRefs(a: ChunkRef, b: ChunkRef): number {
  return a.segment - b.segment || a.seq - b.seq;
}

/** The part's first chunk, last chunk, start offset in the first and end offset (exclusive) in the last. */
export function partBounds(part: PartLayout): {
  firstChunk: ChunkRef;
  lastChunk: ChunkRef;
  offsets: { start: number; end: number };
} {
  const first = part.pieces[0];
  const last = part.pieces[part.pieces.length - 1];
  if (!first || !last) throw new Error('rechunker: a part has no pieces');
  return {
    firstChunk: { ...first.chunk },
    lastChunk: { ...last.chunk },
    offsets: { start: first.offset, end: last.offset + last.length },
  };
}

/** A re-chunker. `push` and `flush` return the parts they complete. */
export interface Rechunker {
  /** Adds a chunk (from `startOffset`, for a chunk partly used by an earlier part); returns full parts. */
  push(chunk: ChunkSize, startOffset?: number): PartLayout[];
  /** Ends the stream: returns the last, possibly smaller, part, or `null` when no bytes are waiting. */
  flush(): PartLayout | null;
  /** Bytes received that are not yet in a part. */
  pendingBytes(): number;
  /** The number the next part will get. */
  nextPartNumber(): number;
}

/**
 * Creates a re-chunker. `nextPartNumber` continues the numbering after a resume.
 * Throws when a part number would pass 10,000 (S3's limit; about 52 GB at 5 MiB parts).
 */
export function createRechunker(options: { partSize?: number; nextPartNumber?: number } = {}): Rechunker {
  const partSize = options.partSize ?? DEFAULT_PART_SIZE;
  if (!Number.isInteger(partSize) || partSize <= 0) throw new Error(`rechunker: bad part size ${partSize}`);
  let next = options.nextPartNumber ?? 1;
  let pieces: ChunkPiece[] = [];
  let pending = 0;

  function cut(): PartLayout {
    if (next > MAX_PART_NUMBER) throw new Error('rechunker: more than 10,000 parts');
    const part = { partNumber: next, size: pending, pieces };
    next += 1;
    pieces = [];
    pending = 0;
    return part;
  }

  return {
    push(chunk, startOffset = 0) {
      if (!Number.isInteger(chunk.size) || chunk.size < 0) throw new Error('rechunker: bad chunk size');
      if (startOffset < 0 || startOffset > chunk.size) throw new Error('rechunker: bad start offset');
      const ref = { segment: chunk.segment, seq: chunk.seq };
      const out: PartLayout[] = [];
      let offset = startOffset;
      while (offset < chunk.size) {
        const length = Math.min(chunk.size - offset, partSize - pending);
        pieces.push({ chunk: ref, offset, length });
        pending += length;
        offset += length;
        if (pending === partSize) out.push(cut());
      }
      return out;
    },
    flush() {
      return pending > 0 ? cut() : null;
    },
    pendingBytes: () => pending,
    nextPartNumber: () => next,
  };
}

/** The stored, compact form of a part's layout (what the upload meta keeps). */
export interface PartSpan {
  PartNumber: number;
  size: number;
  firstChunk: ChunkRef;
  lastChunk: ChunkRef;
  offsets: { start: number; end: number };
}

/**
 * Rebuilds a part's pieces from its compact span and the stored chunk sizes (sorted or not). Throws when a
 * chunk in the span is missing or the sizes do not add up, so a damaged store never yields a wrong part.
 */
export function piecesOf(span: PartSpan, chunks: readonly ChunkSize[]): ChunkPiece[] {
  const inSpan = chunks
    .filter((c) => compareChunkRefs(c, span.firstChunk) >= 0 && compareChunkRefs(c, span.lastChunk) <= 0)
    .sort(compareChunkRefs);
  const pieces: ChunkPiece[] = [];
  inSpan.forEach((c, i) => {
    const offset = i === 0 ? span.offsets.start : 0;
    const end = i === inSpan.length - 1 ? span.offsets.end : c.size;
    pieces.push({ chunk: { segment: c.segment, seq: c.seq }, offset, length: end - offset });
  });
  const first = inSpan[0];
  const last = inSpan[inSpan.length - 1];
  const total = pieces.reduce((n, p) => n + p.length, 0);
  if (
    !first ||
    !last ||
    compareChunkRefs(first, span.firstChunk) !== 0 ||
    compareChunkRefs(last, span.lastChunk) !== 0 ||
    total !== span.size ||
    pieces.some((p) => p.length < 0)
  ) {
    throw new Error(`rechunker: stored chunks do not make part ${span.PartNumber}`);
  }
  return pieces;
}

/**
 * Where to pick up after a reload: the next part number and the stored chunks (with start offsets) that no
 * planned part covers yet. `parts` are the planned parts of the upload meta, `chunks` the stored chunks.
 */
export function resumeFeed(
  parts: readonly PartSpan[],
  chunks: readonly ChunkSize[],
): { nextPartNumber: number; feed: Array<{ chunk: ChunkSize; startOffset: number }> } {
  const sorted = [...chunks].sort(compareChunkRefs);
  let last: PartSpan | undefined;
  for (const p of parts) if (!last || p.PartNumber > last.PartNumber) last = p;
  if (!last) return { nextPartNumber: 1, feed: sorted.map((chunk) => ({ chunk, startOffset: 0 })) };
  const end = last;
  const feed: Array<{ chunk: ChunkSize; startOffset: number }> = [];
  for (const chunk of sorted) {
    const cmp = compareChunkRefs(chunk, end.lastChunk);
    if (cmp > 0) feed.push({ chunk, startOffset: 0 });
    else if (cmp === 0 && end.offsets.end < chunk.size) feed.push({ chunk, startOffset: end.offsets.end });
  }
  return { nextPartNumber: end.PartNumber + 1, feed };
}

/**
 * The chunks that may be deleted: every chunk up to the returned reference is covered only by confirmed
 * parts (`confirmed(part)` true), counting from part 1. `inclusive` false means the last confirmed part ends
 * inside that chunk, so it must stay (a later part still needs its tail). `null`: nothing can go yet.
 */
export function deletableUpTo<P extends PartSpan>(
  parts: readonly P[],
  confirmed: (part: P) => boolean,
  chunkSize: (ref: ChunkRef) => number | undefined,
): { upTo: ChunkRef; inclusive: boolean } | null {
  const sorted = [...parts].sort((a, b) => a.PartNumber - b.PartNumber);
  let lastDone: P | undefined;
  for (const [i, p] of sorted.entries()) {
    // Only an unbroken prefix 1..k counts: bytes after a gap are not all confirmed.
    if (p.PartNumber !== i + 1 || !confirmed(p)) break;
    lastDone = p;
  }
  if (!lastDone) return null;
  const size = chunkSize(lastDone.lastChunk);
  const whole = size !== undefined && lastDone.offsets.end >= size;
  return { upTo: { ...lastDone.lastChunk }, inclusive: whole };
}
