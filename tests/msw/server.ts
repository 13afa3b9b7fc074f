import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';

/** MSW for unit/component tests only. Tests add handlers per case with server.use(...). */
export const server = setupServer();

/** `{status:200, message:'OK', result}` at /api/v1/{endpoint}.php. */
export function ok(endpoint: string, result: unknown, method: 'get' | 'post' = 'post') {
  return http[method](`*/api/v1/${endpoint}.php`, () =>
    HttpResponse.json({ status: 200, message: 'OK', result }),
  );
}

/** An error envelope with the given HTTP and body status. */
export function fail(
  endpoint: string,
  status: number,
  message = 'error',
  code?: string,
  method: 'get' | 'post' = 'post',
) {
  return http[method](`*/api/v1/${endpoint}.php`, () =>
    HttpResponse.json({ status, message, result: null, ...(code ? { code } : {}) }, { status }),
  );
}
