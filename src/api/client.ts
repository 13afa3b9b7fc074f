import axios, { type AxiosError, type AxiosRequestConfig, type Method } from 'axios';
import { getRuntimeConfig } from '../lib/runtime-config';
import { ApiError, NETWORK_ERROR_STATUS, messageKeyFor } from './api-error';
import { logger } from '../lib/logger';

/** The single axios instance (STYLE habit 3). Nothing else in src/ imports axios. */
const http = axios.create({ timeout: 30_000, validateStatus: () => true });

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
  responseType?: AxiosRequestConfig['responseType'];
  onDownloadProgress?: AxiosRequestConfig['onDownloadProgress'];
}

export const DEFAULT_ERROR_MESSAGE = 'An error occurred.';

function endpointUrl(endpoint: string, rawPath: boolean | undefined): string {
  const base = getRuntimeConfig().apiBaseUrl;
  return rawPath ? `${base}/${endpoint}` : `${base}/v1/${endpoint}.php`;
}

function fail(endpoint: string, status: number, message: unknown, code: unknown, silent?: boolean): never {
  let text = typeof message === 'string' ? message.trim() : '';
  // spec §8: an empty message or the text OK is replaced by a default message and written to the console.
  if (!text || text === 'OK') {
    console.warn(`[api] ${endpoint}: status ${status} with message "${text}"; using the default message.`);
    text = DEFAULT_ERROR_MESSAGE;
  }
  const c = typeof code === 'string' ? code : null;
  const err = new ApiError(endpoint, status, text, messageKeyFor(status, c), c);
  logger.error('api', `${endpoint} failed: ${status} ${text}`);
  if (!silent) for (const l of errorListeners) l(err);
  throw err;
}

/**
 * Calls `/api/v1/{endpoint}.php` and returns `result`. Success is HTTP 200 and, when a body exists, body
 * status 200 (spec §5); anything else becomes an ApiError (reported once, then thrown).
 */
export async function call<T>(endpoint: string, opts: CallOptions = {}): Promise<T> {
  const token = tokenProvider();
  const method = opts.method ?? (opts.data === undefined ? 'GET' : 'POST');
  logger.debug('api', `${method} ${endpoint}`, opts.params ?? opts.data);
  let res;
  try {
    res = await http.request({
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
    if (axios.isCancel(e)) throw e;
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
  return fail(endpoint, status, hasBody ? body.message : '', hasBody ? body.code : null, opts.silent);
}
