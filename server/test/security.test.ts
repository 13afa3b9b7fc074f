import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, envelope, injectAs, loginAs, type TestServer } from './helper';

function expectSecurityHeaders(headers: Record<string, unknown>): void {
  const csp = String(headers['content-security-policy']);
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("object-src 'none'");
  expect(csp).toContain("base-uri 'none'");
  expect(csp).toMatch(/frame-ancestors '(self|none)'/);
  expect(csp).not.toContain('unsafe-inline');
  expect(csp).not.toContain('unsafe-eval');
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBeDefined();
}

describe('security headers', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build();
  });
  afterAll(async () => {
    await s.close();
  });

  it('are on an API success, not cached', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/api/v1/servertime.php' });
    expect(res.statusCode).toBe(200);
    expectSecurityHeaders(res.headers);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('are on an API error envelope', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/v1/login.php',
      payload: { login_id: 'x', password: 'y' },
    });
    expect(res.statusCode).toBe(401);
    expectSecurityHeaders(res.headers);
  });

  it('are on an unknown API path (404 envelope)', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/api/v1/no_such_call.php' });
    expect(res.statusCode).toBe(404);
    expect(envelope(res)).toMatchObject({ status: 404, result: null, code: 'not_found' });
    expectSecurityHeaders(res.headers);
  });

  it('are on the SPA history fallback', async () => {
    for (const url of ['/login', '/examinees/12', '/env-setting/']) {
      const res = await s.app.inject({ method: 'GET', url, headers: { accept: 'text/html' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toContain('text/html');
      expect(res.body).toContain('<div id="root">');
      expectSecurityHeaders(res.headers);
    }
  });
});

describe('config.json', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build();
  });
  afterAll(async () => {
    await s.close();
  });

  it('holds only the SPA runtime configuration', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/config.json' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/json');
    const c = res.json() as Record<string, unknown>;
    expect(Object.keys(c).sort()).toEqual([
      'allowedLinkOrigins',
      'apiBaseUrl',
      'desktopApp',
      'extraAllowedEnvironments',
      'iceTransportPolicy',
      'logLevel',
      'timeZone',
    ]);
    expect(c.apiBaseUrl).toBe('/api');
    expect(typeof c.logLevel).toBe('number');
    expect(c.desktopApp === null || typeof c.desktopApp === 'object').toBe(true);
    expect(Array.isArray(c.extraAllowedEnvironments)).toBe(true);
    for (const e of c.extraAllowedEnvironments as Record<string, unknown>[]) {
      expect(e).toEqual({
        os: expect.any(String),
        browser: expect.any(String),
        minOs: expect.any(Number),
        minBrowser: expect.any(Number),
      });
    }
    // The demo adds Linux Chrome/Chromium >= 80 (ARCHITECTURE.md "Demo data").
    expect(c.extraAllowedEnvironments).toContainEqual({
      os: 'Linux',
      browser: 'Chrome',
      minOs: 0,
      minBrowser: 80,
    });
    expectSecurityHeaders(res.headers);
  });
});

describe('hostile input never causes a 500', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build();
  });
  afterAll(async () => {
    await s.close();
  });

  it('answers malformed JSON with a 400 envelope', async () => {
    for (const payload of ['{', '{"login_id": "a", "password": }', 'null', '"just a string"', '[1,2]']) {
      const res = await s.app.inject({
        method: 'POST',
        url: '/api/v1/login.php',
        headers: { 'content-type': 'application/json' },
        payload,
      });
      expect(res.statusCode, payload).toBe(400);
      expect(envelope(res)).toMatchObject({ status: 400, result: null });
    }
  });

  it('answers a 2 MB body with a 413 envelope, JSON or form', async () => {
    const json = await s.app.inject({
      method: 'POST',
      url: '/api/v1/login.php',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ login_id: 'a', password: 'x'.repeat(2 * 1024 * 1024) }),
    });
    expect(json.statusCode).toBe(413);
    expect(envelope(json)).toMatchObject({ status: 413, code: 'payload_too_large', result: null });
    const form = await s.app.inject({
      method: 'POST',
      url: '/api/v1/login.php',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'login_id=a&password=' + 'x'.repeat(2 * 1024 * 1024),
    });
    expect(form.statusCode).toBe(413);
    expect(envelope(form).status).toBe(413);
  });

  it('answers an unsupported content type with a 415 envelope', async () => {
    const res = await s.app.inject({
      method: 'POST',
      url: '/api/v1/login.php',
      headers: { 'content-type': 'application/xml' },
      payload: '<login_id>a</login_id>',
    });
    expect(res.statusCode).toBe(415);
    expect(envelope(res)).toMatchObject({ status: 415, result: null });
  });

  it('answers SQL-ish and odd login ids with the generic 401', async () => {
    for (const id of ["' OR 1=1 --", 'tester01\u0000', '😀', 'a'.repeat(128)]) {
      const res = await s.app.inject({
        method: 'POST',
        url: '/api/v1/login.php',
        payload: { login_id: id, password: 'demo-pass' },
      });
      expect([400, 401], id).toContain(res.statusCode);
    }
  });

  it('answers garbage Authorization headers on a protected route with 401', async () => {
    for (const h of [
      'Bearer',
      'Bearer ' + 'a'.repeat(500),
      'Basic dGVzdDp0ZXN0',
      'Bearer !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!',
    ]) {
      const res = await s.app.inject({
        method: 'GET',
        url: '/api/v1/admin_permission.php',
        headers: { authorization: h },
      });
      expect(res.statusCode, h).toBe(401);
    }
  });

  it('keeps a valid token working next to those', async () => {
    const token = await loginAs(s.app, 'sysadmin01');
    const res = await injectAs(s.app, token, { method: 'GET', url: '/api/v1/admin_permission.php' });
    expect(res.statusCode).toBe(200);
  });
});
