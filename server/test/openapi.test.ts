import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type TestServer } from './helper';

let s: TestServer;
beforeAll(async () => {
  s = await build();
});
afterAll(async () => s.close());

/**
 * Contract routes whose 200 answer is not a JSON envelope (a file or an image) or has no result, so they
 * declare no response schema; each must say why. Any other route without a schema fails the test below.
 */
const NO_RESPONSE_SCHEMA: Record<string, string> = {
  'POST /api/v1/logout.php': 'answers the envelope with result null',
  'GET /api/v1/cleaner/csv.php': 'a CSV file',
  'GET /api/v1/downloadExamUserList.php': 'a CSV file',
};

describe('OpenAPI 3.1 of the contract (/api/openapi.json)', () => {
  it('every contract route declares its schemas: input for every write, a response for every JSON answer', () => {
    const routes = s.app.apiRoutes;
    expect(routes.length).toBeGreaterThan(50);
    const problems: string[] = [];
    for (const r of routes) {
      const key = `${r.method} ${r.url}`;
      const schema = (r.schema ?? {}) as Record<string, unknown>;
      if (r.method !== 'GET' && !schema.body && !schema.querystring && !schema.params)
        problems.push(`${key}: no body/querystring schema`);
      const response = schema.response as Record<string, unknown> | undefined;
      if (!response?.['200'] && !NO_RESPONSE_SCHEMA[key]) problems.push(`${key}: no response schema for 200`);
    }
    expect(problems).toEqual([]);
  });

  it('is served at /api/openapi.json with every contract route, its actors and its schemas', async () => {
    const res = await s.app.inject({ url: '/api/openapi.json' });
    expect(res.statusCode).toBe(200);
    const doc = res.json() as {
      openapi: string;
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    expect(doc.openapi).toBe('3.1.0');
    for (const r of s.app.apiRoutes) {
      expect(doc.paths[r.url]?.[r.method.toLowerCase()], `${r.method} ${r.url}`).toBeDefined();
    }
    // Only the contract: no operations, stand-in or SPA routes.
    expect(Object.keys(doc.paths).every((p) => p.startsWith('/api/v1/') || p === '/api/servertime')).toBe(
      true,
    );
    const login = doc.paths['/api/v1/login.php']!.post!;
    expect(login.security).toEqual([]);
    const body = (login.requestBody as { content: Record<string, { schema: { required: string[] } }> })
      .content;
    expect(body['application/json']!.schema.required).toEqual(
      expect.arrayContaining(['login_id', 'password']),
    );
    const accounts = doc.paths['/api/v1/accounts/list.php']!.get!;
    expect(accounts['x-actors']).toEqual([4]);
    expect(accounts.security).toEqual([{ bearer: [] }]);
  });
});
