import { Readable } from 'node:stream';

/** UTF-8 byte-order mark: spreadsheet programs need it to read UTF-8 (Japanese) CSV correctly. */
export const CSV_BOM = '\uFEFF';

/** A value a CSV cell can be made from; null and undefined become an empty cell. */
export type CsvValue = string | number | boolean | null | undefined;

// perf-reliability §5 (ASVS 5.0 V1.2.10): a cell starting with one of these is read as a formula by
// spreadsheet programs; CR is the secondary guard's addition.
const FORMULA_START = /^[=+\-@\t\r\0]/;

/**
 * One CSV cell: formula-safe (a leading `=`, `+`, `-`, `@`, TAB, CR or NUL gets a `'` prefix) and quoted per
 * RFC 4180 §2.6–2.7 when it holds a comma, quote, CR or LF (quotes doubled). Numbers are written as they
 * are, so a negative number stays a number.
 */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  if (typeof value === 'boolean') return value ? '1' : '0';
  let s = value;
  if (FORMULA_START.test(s)) s = `'${s}`;
  if (/[",\r\n]/.test(s)) s = `"${s.replace(/"/g, '""')}"`;
  return s;
}

/** One CSV record ending in CRLF (RFC 4180 §2.1). */
export function csvRow(values: readonly CsvValue[]): string {
  return values.map(csvCell).join(',') + '\r\n';
}

/**
 * A CSV document as a Readable: BOM, header row, then one chunk per batch of rows. Batches are pulled
 * from `batches` only when the consumer reads (backpressure), so memory stays at about one batch.
 */
export function csvStream<T>(
  header: readonly string[],
  batches: AsyncIterable<readonly T[]>,
  toValues: (row: T) => readonly CsvValue[],
): Readable {
  async function* generate(): AsyncGenerator<string> {
    yield CSV_BOM + csvRow(header);
    for await (const batch of batches) {
      if (batch.length === 0) continue;
      let chunk = '';
      for (const row of batch) chunk += csvRow(toValues(row));
      yield chunk;
    }
  }
  return Readable.from(generate(), { objectMode: false, highWaterMark: 64 * 1024 });
}
