/** What every failed call becomes (spec §8): endpoint, status, message, and an i18n key for the UI. */
export interface SerializedApiError {
  endpoint: string;
  status: number;
  message: string;
  /** i18n key of the message to show (errors namespace), chosen from the status or the server's code. */
  messageKey: string;
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
    readonly messageKey: string,
    readonly code: string | null = null,
    readonly field: string | null = null,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  toSerializable(): SerializedApiError {
    return {
      endpoint: this.endpoint,
      status: this.status,
      message: this.message,
      messageKey: this.messageKey,
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

/** The message key for a status/code pair (spec §8 catalogue). */
export function messageKeyFor(status: number, code: string | null): string {
  switch (code) {
    case 'login_failed':
      return 'errors:loginFailed';
    case 'account_locked':
      return 'errors:accountLocked';
    case 'too_many_requests':
      return 'errors:tooManyRequests';
    case 'ip_not_allowed':
      return 'errors:ipNotAllowed';
    case 'session_superseded':
      return 'errors:sessionSuperseded';
    case 'session_ended':
      return 'errors:sessionEnded';
    default:
      break;
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
