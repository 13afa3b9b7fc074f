import type { AxiosError, AxiosInstance, AxiosRequestConfig, AxiosStatic, Method } from 'axios';
import { getRuntimeConfig } from '../lib/runtime-config';
import { ApiError, NETWORK_ERROR_STATUS, messageKeyFor } from './api-error';
import { logger } from '../lib/logger';

interface Http {
  axios: AxiosStatic;
  http: AxiosInstance;
}
let httpLoad: Promise<Http> | null = null;
let alongside: () => Promise<unknown> = () => Promise.resolve();

/**
 * What loads with axios, before any response is handled (the app: the texts of the server's error codes, so a
 * failure's message key always has its text, and no page waits for them before its first render).
 */
export function loadWithHttp(load: () => Promise<unknown>): void {
  alongside = load;
}

/**
 * The single axios instance (STYLE habit 3). Nothing else in src/ imports axios. It is loaded by the first
 * request, not with the entry: no page needs it to render (FE-1), and a failed load is retried next time.
 */
function loadHttp(): Promise<Http> {
  httpLoad ??= Promise.all([import('axios'), alongside()]).then(
    ([{ default: axios }]) => ({
      axios,
      http: axios.create({ timeout: 30_000, validateStatus: () => true }),
    }),
    (e: unknown) => {
      httpLoad = null;
      throw e;
    },
  );
  return httpLoad;
}

/** Starts loading axios ahead of a request known to come soon (a JT start-up logs in before any page). */
export function preloadHttp(): void {
  loadHttp().catch(() => {
    // The request itself reports the failure (as a network error) and loads again.
  });
}

let tokenProvider: () => string | null = () => null;
const errorListeners = new Set<(e: ApiError) => void>();

/** The app tells the client where the access token is (the session slice); sent as a bearer header. */
export function setAccessTokenProvider(fn: () => string | null): void {
  tokenProvider = fn;
}

/** Every failed call is reported here once (the app records it, and handles 401/405/500 rules of spec §6, §8). */
export function onApiError(fn: (e: ApiError) => void): () => void {
  errorListeners.add(fn);
  return () => errorListeners.delete(fn);
}

export interface CallOptions {
  method?: Method;
  /** Body (POST) — plain object sent as JSON, or FormData. */
  data?: unknown;
  params?: Record<string, unknown>;
  /** Path outside /v1 (e.g. /api/servertime). */
  rawPath?: boolean;
  signal?: AbortSignal;
  timeoutMs?: number;
  /** Don't report to the error listeners (e.g. log_receive, whose failure must not loop). */
  silent?: boolean;
  /**
   * The bearer token of this call instead of the session's: the phone camera's page calls with the phone's own
   * session, which is not a login of this window.
   */
  token?: string;
  responseType?: AxiosRequestConfig['responseType'];
  onDownloadProgress?: AxiosRequestConfig['onDownloadProgress'];
}

export const DEFAULT_ERROR_MESSAGE = 'An error occurred.';

function endpointUrl(endpoint: string, rawPath: boolean | undefined): string {
  const base = getRuntimeConfig().apiBaseUrl;
  return rawPath ? `${base}/${endpoint}` : `${base}/v1/${endpoint}.php`;
}

/** The `field` of a validation error body (`result: {field}`), else null. */
function fieldOf(result: unknown): string | null {
  if (result === null || typeof result !== 'object') return null;
  const f = (result as { field?: unknown }).field;
  return typeof f === 'string' && f !== '' ? f : null;
}

function fail(
  endpoint: string,
  status: number,
  message: unknown,
  code: unknown,
  silent?: boolean,
  field: string | null = null,
): never {
  let text = typeof message === 'string' ? message.trim() : '';
  // spec §8: an empty message or the text OK is replaced by a default message and written to the console.
  if (!text || text === 'OK') {
    console.warn(`[api] ${endpoint}: status ${status} with message "${text}"; using the default message.`);
    text = DEFAULT_ERROR_MESSAGE;
  }
  const c = typeof code === 'string' ? code : null;
  const err = new ApiError(endpoint, status, text, messageKeyFor(status, c), c, field);
  // A silent call's failure (log_receive among them) stays on the console: sending it to log_receive could fail
  // the same way and loop.
  if (silent) logger.local('api', `${endpoint} failed: ${status} ${text}`);
  else logger.error('api', `${endpoint} failed: ${status} ${text}`);
  if (!silent) for (const l of errorListeners) l(err);
  throw err;
}

/**
 * Calls `/api/v1/{endpoint}.php` and returns `result`. Success is HTTP 200 and, when a body exists, body
 * status 200 (spec §5); anything else becomes an ApiError (reported once, then thrown).
 */
export async function call<T>(endpoint: string, opts: CallOptions = {}): Promise<T> {
  const token = opts.token ?? tokenProvider();
  const method = opts.method ?? (opts.data === undefined ? 'GET' : 'POST');
  logger.debug('api', `${method} ${endpoint}`, opts.params ?? opts.data);
  let lib: Http | undefined;
  let res;
  try {
    lib = await loadHttp();
    res = await lib.http.request({
      url: endpointUrl(endpoint, opts.rawPath),
      method,
      data: opts.data,
      params: opts.params,
      signal: opts.signal,
      timeout: opts.timeoutMs ?? 30_000,
      responseType: opts.responseType ?? 'json',
      onDownloadProgress: opts.onDownloadProgress,
      headers: token ? { Authorization: `Bearer ${token}` } : {},
    });
  } catch (e) {
    if (lib?.axios.isCancel(e)) throw e;
    const ae = e as AxiosError;
    return fail(
      endpoint,
      NETWORK_ERROR_STATUS,
      ae.message || 'Network error',
      ae.code === 'ECONNABORTED' ? 'timeout' : 'network',
      opts.silent,
    );
  }
  if (opts.responseType === 'blob' || opts.responseType === 'arraybuffer') {
    if (res.status === 200) return res.data as T;
    return fail(endpoint, res.status, `HTTP ${res.status}`, null, opts.silent);
  }
  const body = res.data as
    { status?: unknown; message?: unknown; result?: unknown; code?: unknown } | '' | null | undefined;
  const hasBody = body !== '' && body !== null && body !== undefined && typeof body === 'object';
  if (res.status === 200 && (!hasBody || body.status === 200)) {
    logger.debug('api', `${endpoint} ok`);
    return (hasBody ? body.result : undefined) as T;
  }
  const status =
    hasBody && typeof body.status === 'number' && body.status !== 200
      ? body.status
      : res.status === 200
        ? 500
        : res.status;
  return fail(
    endpoint,
    status,
    hasBody ? body.message : '',
    hasBody ? body.code : null,
    opts.silent,
    hasBody ? fieldOf(body.result) : null,
  );
}

/**
 * Sends a POST that must outlive the page (a window being closed or reloaded): `fetch` with `keepalive`, so the
 * browser delivers it after the document is gone; nothing is waited for and a failure is ignored (the server's
 * timeouts cover a request that never arrives).
 */
export function sendOnUnload(
  endpoint: string,
  data: Record<string, unknown>,
  bearer?: string,
  query?: Record<string, string>,
): void {
  const token = bearer ?? tokenProvider();
  if (!token || typeof fetch !== 'function') return;
  const search = query ? `?${new URLSearchParams(query).toString()}` : '';
  try {
    void fetch(endpointUrl(endpoint, false) + search, {
      method: 'POST',
      keepalive: true,
      headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
      body: JSON.stringify(data),
    }).catch(() => undefined);
  } catch {
    // The page is going away; nothing more to do.
  }
}

/** spec §8: the message of a download whose error body is not JSON (status 500). */
export const PARSE_FAILED_MESSAGE = 'レスポンスデータの解析に失敗しました。';

/** Progress of a download: bytes received and, when the server announced it, the total bytes. */
export interface DownloadProgress {
  loaded: number;
  total: number | null;
}

export interface DownloadOptions {
  params?: Record<string, unknown>;
  /** Body: when given, the request is a POST. */
  data?: unknown;
  signal?: AbortSignal;
  /** Default 5 minutes: a large CSV is streamed for a while. */
  timeoutMs?: number;
  silent?: boolean;
  onProgress?: (p: DownloadProgress) => void;
}

/** A downloaded file: its bytes, the server's file name (Content-Disposition), and the response headers. */
export interface DownloadResult {
  blob: Blob;
  filename: string | null;
  /** Response headers, names in lower case. */
  headers: Record<string, string>;
}

/** The file name of a Content-Disposition header (RFC 6266 `filename*` first), or null. */
export function filenameOf(disposition: string | undefined): string | null {
  if (!disposition) return null;
  const star = /filename\*=UTF-8''([^;]+)/i.exec(disposition);
  if (star?.[1]) {
    try {
      return decodeURIComponent(star[1]);
    } catch {
      // A malformed escape: fall back to the plain name.
    }
  }
  const plain = /filename="?([^";]+)"?/i.exec(disposition);
  return plain?.[1] ?? null;
}

function headersOf(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (raw && typeof raw === 'object') {
    for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
      if (v === undefined || v === null) continue;
      out[k.toLowerCase()] = Array.isArray(v) ? v.join(', ') : String(v);
    }
  }
  return out;
}

/**
 * Downloads a file from `/api/v1/{endpoint}.php` (spec §8 download rules). Success is HTTP 200 with a body
 * that is not a JSON error envelope. A failure's body is parsed as JSON: its `status` and `message` make the
 * ApiError; a body that does not parse becomes status 500 with PARSE_FAILED_MESSAGE (code 'parse'); no
 * response is status 0. Errors are reported to the listeners once, like call().
 */
export async function download(endpoint: string, opts: DownloadOptions = {}): Promise<DownloadResult> {
  const token = tokenProvider();
  const method = opts.data === undefined ? 'GET' : 'POST';
  logger.debug('api', `download ${method} ${endpoint}`, opts.params ?? opts.data);
  let lib: Http | undefined;
  let res;
  try {
    lib = await loadHttp();
    res = await lib.http.request<ArrayBuffer>({
      url: endpointUrl(endpoint, false),
      method,
      data: opts.data,
      params: opts.params,
      signal: opts.signal,
      timeout: opts.timeoutMs ?? 300_000,
      responseType: 'arraybuffer',
      onDownloadProgress: opts.onProgress
        ? (e) => opts.onProgress?.({ loaded: e.loaded, total: e.total ?? null })
        : undefined,
      headers: token ? { Authorization: `Bearer ${token}` } : {},
    });
  } catch (e) {
    if (lib?.axios.isCancel(e)) throw e;
    const ae = e as AxiosError;
    return fail(
      endpoint,
      NETWORK_ERROR_STATUS,
      ae.message || 'Network error',
      ae.code === 'ECONNABORTED' ? 'timeout' : 'network',
      opts.silent,
    );
  }
  const headers = headersOf(res.headers);
  const bytes = res.data instanceof ArrayBuffer ? res.data : new ArrayBuffer(0);
  const isJson = /\bjson\b/i.test(headers['content-type'] ?? '');
  if (res.status === 200 && !isJson) {
    const blob = new Blob([bytes], { type: headers['content-type'] ?? 'application/octet-stream' });
    return { blob, filename: filenameOf(headers['content-disposition']), headers };
  }
  let body: { status?: unknown; message?: unknown; code?: unknown; result?: unknown };
  try {
    const parsed: unknown = JSON.parse(new TextDecoder().decode(bytes));
    if (parsed === null || typeof parsed !== 'object') throw new Error('not an object');
    body = parsed as typeof body;
  } catch {
    return fail(endpoint, 500, PARSE_FAILED_MESSAGE, 'parse', opts.silent);
  }
  if (res.status === 200 && body.status === 200) {
    // A JSON file that is itself the download.
    return {
      blob: new Blob([bytes], { type: headers['content-type'] }),
      filename: filenameOf(headers['content-disposition']),
      headers,
    };
  }
  const status =
    typeof body.status === 'number' && body.status !== 200
      ? body.status
      : res.status === 200
        ? 500
        : res.status;
  return fail(endpoint, status, body.message, body.code, opts.silent, fieldOf(body.result));
}
