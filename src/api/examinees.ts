import type {
  TesterConditionsResult,
  TesterRow,
  TesterSearchQuery,
  TesterSearchResult,
  TestPassResult,
} from '@contract/examinees';
import { call, download } from './client';
import { camelize, snakeize, type Camelize } from '../lib/case';

export type ExamineeRow = Camelize<TesterRow>;
export type ExamineeSearchResult = Camelize<TesterSearchResult>;
export type ExamineeConditions = Camelize<TesterConditionsResult>;
/** The search request in camelCase; every field is sent, empty ones as ''. */
export type ExamineeSearchQuery = { [K in keyof Camelize<TesterSearchQuery>]-?: number | string };

/** GET testers (spec §7): one page of the examinee search. */
export async function searchExaminees(q: Partial<ExamineeSearchQuery>): Promise<ExamineeSearchResult> {
  const r = await call<TesterSearchResult>('testers', { params: snakeize(q) as Record<string, unknown> });
  return camelize(r);
}

/** GET testers/conditions (spec §7): the options of the search form. */
export async function getExamineeConditions(): Promise<ExamineeConditions> {
  return camelize(await call<TesterConditionsResult>('testers/conditions'));
}

/** GET test/pass: the current pass value (1 pass, 0 fail, null undecided). */
export async function getTestPass(testId: number): Promise<number | null> {
  const r = await call<TestPassResult>('test/pass', { params: { test_id: testId } });
  return r.pass;
}

/** POST test/pass: PUT sets pass, DELETE sets fail (spec §4); returns the stored value. */
export async function setTestPass(testId: number, pass: boolean): Promise<number | null> {
  const r = await call<TestPassResult>('test/pass', {
    method: 'POST',
    data: { test_id: testId, method: pass ? 'PUT' : 'DELETE' },
  });
  return r.pass;
}

/** Progress of a CSV download: bytes so far; the row total (X-Total-Rows) is known once it is done. */
export interface CsvProgress {
  bytes: number;
}

/** A downloaded CSV: its bytes, the server's file name, and the row total the server announced. */
export interface DownloadedCsv {
  blob: Blob;
  /** The server's file name (Content-Disposition), or null when none was sent. */
  fileName: string | null;
  totalRows: number | null;
}

/**
 * Downloads a CSV through the client's download path (spec §8 error rules) and reads the row total from
 * X-Total-Rows.
 */
export async function downloadCsvFile(
  endpoint: string,
  params: Record<string, unknown>,
  opts: { onProgress?: (p: CsvProgress) => void; signal?: AbortSignal } = {},
): Promise<DownloadedCsv> {
  const r = await download(endpoint, {
    params,
    signal: opts.signal,
    onProgress: opts.onProgress ? (p) => opts.onProgress?.({ bytes: p.loaded }) : undefined,
  });
  const total = r.headers['x-total-rows'];
  return {
    blob: r.blob,
    fileName: r.filename,
    totalRows: total !== undefined && /^\d+$/.test(total) ? Number(total) : null,
  };
}

/** GET downloadExamUserList (spec §7): the search result as CSV (same filters as the search). */
export function downloadExamineesCsv(
  q: Partial<ExamineeSearchQuery>,
  opts: { onProgress?: (p: CsvProgress) => void } = {},
): Promise<DownloadedCsv> {
  return downloadCsvFile('downloadExamUserList', snakeize(q) as Record<string, unknown>, opts);
}
