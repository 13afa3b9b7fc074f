import { setupServer } from 'msw/node';
import { http, HttpResponse } from 'msw';

/**
 * MSW for unit/component tests only. Tests add handlers per case with server.use(...). One default: the exam page
 * asks where the sitting's wider view stands, and a sitting has none unless a test says otherwise.
 */
export const server = setupServer(
  http.get('*/api/v1/tester/wider_view.php', () =>
    HttpResponse.json({
      status: 200,
      message: 'OK',
      result: {
        screen: { required: false, state: null, changed_at: null },
        room_scan: { required: false, done: 0, current: null },
        phone: { required: false },
      },
    }),
  ),
);

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
