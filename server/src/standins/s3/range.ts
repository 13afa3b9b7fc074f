import { s3Errors } from './errors';

/** An inclusive byte range of an object. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Resolves a `Range` header against an object size: `bytes=a-b`, `bytes=a-`, `bytes=-n` (media-stack.md §7.2).
 * Returns null for "send the whole object": no header, a syntax S3 ignores, or several ranges (S3 serves
 * the whole object for multi-range requests). Throws InvalidRange (416) when the range is unsatisfiable.
 */
export function resolveRange(header: string | undefined, size: number): ByteRange | null {
  if (!header) return null;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m) return null;
  const [, a = '', b = ''] = m;
  if (a === '' && b === '') return null;
  if (a === '') {
    const n = Number(b);
    if (n === 0 || size === 0) throw s3Errors.invalidRange(size);
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(a);
  const end = b === '' ? size - 1 : Number(b);
  if (b !== '' && end < start) return null;
  if (start >= size) throw s3Errors.invalidRange(size);
  return { start, end: Math.min(end, size - 1) };
}
