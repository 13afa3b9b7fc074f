import type {
  TesterConditionsResult,
  TesterRow,
  TesterSearchQuery,
  TesterSearchResult,
  TestPassResult,
} from '../../contract/examinees';
import { call } from './client';
import { ApiError } from './api-error';
import { camelize, snakeize, type Camelize } from '../lib/case';
import { getRuntimeConfig } from '../lib/runtime-config';

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

/** Progress of a file download: bytes so far, data rows so far, and the total announced by the server. */
export interface DownloadProgress {
  bytes: number;
  rows: number;
  totalRows: number | null;
}

export interface DownloadedFile {
  blob: Blob;
  /** The server's file name (Content-Disposition), or null when none was sent. */
  fileName: string | null;
  totalRows: number | null;
}

/** spec §8: the Japanese text of a CSV error body that is not JSON. */
export const CSV_PARSE_FAILED_MESSAGE = 'レスポンスデータの解析に失敗しました。';

function fileNameOf(disposition: string | null): string | null {
  if (!disposition) return null;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  if (star?.[1]) return decodeURIComponent(star[1]);
  const plain = /filename="?([^";]+)"?/i.exec(disposition);
  return plain?.[1] ?? null;
}

function countNewlines(chunk: Uint8Array): number {
  let n = 0;
  for (const b of chunk) if (b === 10) n += 1;
  return n;
}

/**
 * Downloads a CSV from `/api/v1/{endpoint}.php` with progress (bytes and rows read, X-Total-Rows).
 * On failure (spec §8) the body is parsed as JSON and the thrown ApiError carries its message; a body
 * that does not parse becomes status 500 with CSV_PARSE_FAILED_MESSAGE; no response at all is status 0.
 *
 * It reads the body as a stream, which the shared client cannot (it drops blob error bodies and
 * response headers), so it uses fetch with the caller's access token.
 */
export async function downloadCsv(
  endpoint: string,
  params: Record<string, unknown>,
  opts: { accessToken: string | null; onProgress?: (p: DownloadProgress) => void; signal?: AbortSignal },
): Promise<DownloadedFile> {
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) qs.set(k, String(v));
  const url = `${getRuntimeConfig().apiBaseUrl}/v1/${endpoint}.php?${qs.toString()}`;
  let res: Response;
  try {
    res = await fetch(url, {
      headers: opts.accessToken ? { Authorization: `Bearer ${opts.accessToken}` } : {},
      signal: opts.signal,
    });
  } catch (e) {
    throw new ApiError(
      endpoint,
      0,
      e instanceof Error ? e.message : 'Network error',
      'errors:network',
      'network',
    );
  }
  if (res.status !== 200) {
    const text = await res.text().catch(() => '');
    let body: { status?: unknown; message?: unknown; code?: unknown };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new ApiError(endpoint, 500, CSV_PARSE_FAILED_MESSAGE, 'errors:internal', 'parse');
    }
    const status = typeof body.status === 'number' ? body.status : res.status;
    const message = typeof body.message === 'string' && body.message ? body.message : `HTTP ${res.status}`;
    throw new ApiError(
      endpoint,
      status,
      message,
      'errors:default',
      typeof body.code === 'string' ? body.code : null,
    );
  }
  const totalHeader = res.headers.get('X-Total-Rows');
  const totalRows = totalHeader !== null && /^\d+$/.test(totalHeader) ? Number(totalHeader) : null;
  const fileName = fileNameOf(res.headers.get('Content-Disposition'));
  const chunks: Uint8Array[] = [];
  let bytes = 0;
  let lines = 0;
  if (res.body) {
    const reader = res.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      bytes += value.byteLength;
      lines += countNewlines(value);
      // The first line is the header row.
      opts.onProgress?.({ bytes, rows: Math.max(0, lines - 1), totalRows });
    }
  }
  const blob = new Blob(chunks as BlobPart[], { type: res.headers.get('Content-Type') ?? 'text/csv' });
  return { blob, fileName, totalRows };
}

/** GET downloadExamUserList (spec §7): the search result as CSV (same filters as the search). */
export function downloadExamineesCsv(
  q: Partial<ExamineeSearchQuery>,
  opts: { accessToken: string | null; onProgress?: (p: DownloadProgress) => void },
): Promise<DownloadedFile> {
  return downloadCsv('downloadExamUserList', snakeize(q) as Record<string, unknown>, opts);
}
