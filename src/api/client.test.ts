import { afterEach, describe, expect, it, vi } from 'vitest';
import { http, HttpResponse } from 'msw';
import { server } from '../../tests/msw/server';
import {
  call,
  download,
  onApiError,
  setAccessTokenProvider,
  DEFAULT_ERROR_MESSAGE,
  PARSE_FAILED_MESSAGE,
} from './client';
import { ApiError } from './api-error';

afterEach(() => setAccessTokenProvider(() => null));

function route(handler: Parameters<typeof http.post>[1]) {
  server.use(http.post('*/api/v1/probe.php', handler), http.get('*/api/v1/probe.php', handler));
}

async function failure(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p;
  } catch (e) {
    if (e instanceof ApiError) return e;
    throw e;
  }
  throw new Error('expected the call to fail');
}

describe('api client success rule (spec §5)', () => {
  it('returns result when HTTP 200 and body status 200', async () => {
    route(() => HttpResponse.json({ status: 200, message: 'OK', result: { a: 1 } }));
    await expect(call('probe', { method: 'POST', data: {} })).resolves.toEqual({ a: 1 });
  });

  it('treats HTTP 200 with no body as success', async () => {
    route(() => new HttpResponse(null, { status: 200 }));
    await expect(call('probe')).resolves.toBeUndefined();
  });

  it('rejects HTTP 200 whose body status is not 200', async () => {
    route(() => HttpResponse.json({ status: 403, message: 'nope', result: null }));
    const e = await failure(call('probe'));
    expect(e.status).toBe(403);
    expect(e.message).toBe('nope');
    expect(e.endpoint).toBe('probe');
  });

  it('rejects non-200 HTTP statuses with the body message and code', async () => {
    route(() =>
      HttpResponse.json(
        { status: 429, message: 'slow down', result: null, code: 'account_locked' },
        { status: 429 },
      ),
    );
    const e = await failure(call('probe'));
    expect(e.status).toBe(429);
    expect(e.code).toBe('account_locked');
    // A known code: the SPA's own text, never the server's ('slow down').
    expect(e.messageKey).toBe('errors:code.account_locked');
    expect(e.serverText).toBeNull();
  });

  it('replaces an empty or "OK" error message by the default and says so on the console (spec §8)', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    route(() => HttpResponse.json({ status: 500, message: 'OK', result: null }, { status: 500 }));
    const e = await failure(call('probe'));
    expect(e.message).toBe(DEFAULT_ERROR_MESSAGE);
    expect(e.messageKey).toBe('errors:internal');
    expect(warn).toHaveBeenCalled();
    route(() => HttpResponse.json({ status: 400, message: '', result: null }, { status: 400 }));
    const e2 = await failure(call('probe'));
    expect(e2.message).toBe(DEFAULT_ERROR_MESSAGE);
    expect(e2.messageKey).toBe('errors:badRequest');
    warn.mockRestore();
  });

  it('turns a network failure into status 0 with the network message key', async () => {
    route(() => HttpResponse.error());
    const e = await failure(call('probe'));
    expect(e.status).toBe(0);
    expect(e.messageKey).toBe('errors:code.network');
  });

  it('sends the bearer header only when a token exists', async () => {
    const seen: (string | null)[] = [];
    route(({ request }) => {
      seen.push(request.headers.get('authorization'));
      return HttpResponse.json({ status: 200, message: 'OK', result: null });
    });
    await call('probe');
    setAccessTokenProvider(() => 'tok-abcdefghijklmnopqrstuvwxyz');
    await call('probe');
    expect(seen).toEqual([null, 'Bearer tok-abcdefghijklmnopqrstuvwxyz']);
  });

  it('reports each failure once to the error listeners, but not silent calls', async () => {
    const seen: ApiError[] = [];
    const off = onApiError((e) => seen.push(e));
    route(() => HttpResponse.json({ status: 500, message: 'boom', result: null }, { status: 500 }));
    await failure(call('probe'));
    await failure(call('probe', { silent: true }));
    off();
    expect(seen).toHaveLength(1);
    expect(seen[0]?.toSerializable()).toEqual({
      endpoint: 'probe',
      status: 500,
      message: 'boom',
      messageKey: 'errors:internal',
      // No code: the status's text, with the server's own message beside it.
      serverText: 'boom',
      code: null,
      field: null,
    });
  });

  it("shows the server's message only for a code the SPA does not know", async () => {
    route(() =>
      HttpResponse.json(
        { status: 403, message: 'You may not see this tester.', result: null, code: 'tester_not_visible' },
        { status: 403 },
      ),
    );
    const known = await failure(call('probe'));
    expect(known.messageKey).toBe('errors:code.tester_not_visible');
    expect(known.serverText).toBeNull();
    route(() =>
      HttpResponse.json(
        { status: 409, message: 'Brand new rule.', result: null, code: 'new_rule' },
        { status: 409 },
      ),
    );
    const unknown = await failure(call('probe'));
    expect(unknown.messageKey).toBe('errors:default');
    expect(unknown.serverText).toBe('Brand new rule.');
  });

  it("carries the server's result.field on a validation error", async () => {
    route(() =>
      HttpResponse.json(
        {
          status: 400,
          message: 'IPアドレスはIPv4の形式でなければなりません。',
          result: { field: 'ip' },
          code: 'validation',
        },
        { status: 400 },
      ),
    );
    const e = await failure(call('probe'));
    expect(e.field).toBe('ip');
    expect(e.toSerializable().field).toBe('ip');
  });
});

describe('download (spec §8 download errors)', () => {
  it('returns the bytes, the file name and the headers, with progress', async () => {
    route(
      () =>
        new HttpResponse('\uFEFFa,b\n1,2\n', {
          headers: {
            'Content-Type': 'text/csv; charset=utf-8',
            'Content-Disposition': `attachment; filename="x.csv"; filename*=UTF-8''%E5%90%8D.csv`,
            'X-Total-Rows': '1',
          },
        }),
    );
    const progress: number[] = [];
    const r = await download('probe', { params: { a: 1 }, onProgress: (p) => progress.push(p.loaded) });
    expect(r.filename).toBe('名.csv');
    expect(r.headers['x-total-rows']).toBe('1');
    // The BOM (3 bytes) and 8 bytes of text, unchanged.
    expect(r.blob.size).toBe(11);
    expect(progress.length).toBeGreaterThan(0);
  });

  it("turns a JSON error body into an ApiError with the server's status and message, reported once", async () => {
    const seen: ApiError[] = [];
    const off = onApiError((e) => seen.push(e));
    route(() =>
      HttpResponse.json(
        { status: 403, message: '権限がありません。', result: null, code: 'forbidden' },
        { status: 403 },
      ),
    );
    const e = await failure(download('probe'));
    off();
    expect(e.status).toBe(403);
    expect(e.message).toBe('権限がありません。');
    expect(e.code).toBe('forbidden');
    expect(seen).toHaveLength(1);
  });

  it('answers a body that is not JSON with status 500 and the parse-failure message', async () => {
    route(() => new HttpResponse('<html>bad gateway</html>', { status: 502 }));
    const e = await failure(download('probe'));
    expect(e.status).toBe(500);
    expect(e.message).toBe(PARSE_FAILED_MESSAGE);
    expect(e.code).toBe('parse');
  });

  it('treats an HTTP 200 JSON error envelope as a failure', async () => {
    route(() => HttpResponse.json({ status: 400, message: 'bad', result: { field: 'key' } }));
    const e = await failure(download('probe'));
    expect(e.status).toBe(400);
    expect(e.field).toBe('key');
  });

  it('turns a network failure into status 0', async () => {
    route(() => HttpResponse.error());
    expect((await failure(download('probe'))).status).toBe(0);
  });
});

describe('axios loads with the first request', () => {
  afterEach(() => {
    vi.doUnmock('axios');
    vi.resetModules();
  });

  it('reports a failed load as a network error (status 0) and loads again on the next call', async () => {
    vi.resetModules();
    vi.doMock('axios', () => {
      throw new Error('Failed to fetch dynamically imported module');
    });
    const fresh = await import('./client');
    // A preload that fails is quiet (no unhandled rejection); the call reports it.
    fresh.preloadHttp();
    // A fresh module graph: its ApiError is not the one imported above.
    const e = (await fresh.call('probe').catch((err: unknown) => err)) as ApiError;
    expect(e.name).toBe('ApiError');
    expect(e.status).toBe(0);
    expect(e.code).toBe('network');
    vi.doUnmock('axios');
    route(() => HttpResponse.json({ status: 200, message: 'OK', result: 'again' }));
    await expect(fresh.call('probe')).resolves.toBe('again');
  });
});
