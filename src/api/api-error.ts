import { ERROR_CODES, type ErrorCode } from '@contract/constants/common';
import type { TranslationKey } from '../lib/translation-key';

/** What every failed call becomes (spec §8): endpoint, status, message, and an i18n key for the UI. */
export interface SerializedApiError {
  endpoint: string;
  status: number;
  message: string;
  /** i18n key of the message to show (errors namespace), chosen from the status or the server's code. */
  messageKey: TranslationKey;
  /**
   * The server's own message, for a code the SPA has no text of (or no code): shown as well as the
   * messageKey text. Null when the code is known: the SPA's own ja/en text is then the whole message.
   */
  serverText: string | null;
  code: string | null;
  /** The request field a validation error is about (the server's `result.field`), else null. */
  field: string | null;
}

/** A failed call (spec §8); thrown by the client, serialised with toSerializable() for the store. */
export class ApiError extends Error {
  constructor(
    readonly endpoint: string,
    readonly status: number,
    message: string,
    readonly messageKey: TranslationKey,
    readonly code: string | null = null,
    readonly field: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** The server's message when the SPA has no text of its own for the code (README "Error codes"). */
  get serverText(): string | null {
    return isKnownErrorCode(this.code) ? null : this.message;
  }

  toSerializable(): SerializedApiError {
    return {
      endpoint: this.endpoint,
      status: this.status,
      message: this.message,
      messageKey: this.messageKey,
      serverText: this.serverText,
      code: this.code,
      field: this.field,
    };
  }
}

export function isApiError(e: unknown): e is ApiError {
  return e instanceof ApiError;
}

/** Status 0 stands for "no response" (network error or timeout). */
export const NETWORK_ERROR_STATUS = 0;

/** Gateway statuses that mean the server behind the gateway did not answer (bad gateway, unavailable, timeout). */
const GATEWAY_STATUSES: ReadonlySet<number> = new Set([502, 503, 504]);

/**
 * True when a call failed because the server could not be reached: no answer at all (network error, timeout)
 * or a gateway's 502–504. An error the server itself answered (4xx, 500) is not one.
 */
export function isServerUnreachable(e: unknown): boolean {
  return isApiError(e) && (e.status === NETWORK_ERROR_STATUS || GATEWAY_STATUSES.has(e.status));
}

/** Codes the client itself gives: no response, a timeout, a download body that is not JSON. */
export const CLIENT_ERROR_CODES = ['network', 'timeout', 'parse'] as const;
/** A code the SPA has its own text of (`errors:code.<code>`; the type check holds every one to a text). */
export type KnownErrorCode = ErrorCode | (typeof CLIENT_ERROR_CODES)[number];

const KNOWN_CODES: ReadonlySet<string> = new Set<string>([...ERROR_CODES, ...CLIENT_ERROR_CODES]);

/** True when the SPA has its own ja/en text for `code` (errors namespace, `code.<code>`). */
export function isKnownErrorCode(code: string | null | undefined): code is KnownErrorCode {
  return typeof code === 'string' && KNOWN_CODES.has(code);
}

/**
 * The message key for a status/code pair (spec §8 catalogue): the SPA's own text of a known code, else the
 * text of the status (the server's message then goes with it, see serverText).
 */
export function messageKeyFor(status: number, code: string | null): TranslationKey {
  // Codes whose text the session-end flow keys on (app-listeners.ts, tester-listeners.ts).
  if (isKnownErrorCode(code)) {
    if (code === 'session_superseded') return 'errors:sessionSuperseded';
    if (code === 'session_ended') return 'errors:sessionEnded';
    return `errors:code.${code}`;
  }
  if (status === NETWORK_ERROR_STATUS) return 'errors:network';
  if (status === 400) return 'errors:badRequest';
  if (status === 401) return 'errors:unauthorized';
  if (status === 403) return 'errors:forbidden';
  if (status === 404) return 'errors:notFound';
  if (status === 429) return 'errors:tooManyRequests';
  if (status >= 500) return 'errors:internal';
  return 'errors:default';
}
