import type { InjectOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ID, type Actor } from '../../../contract/common';
import type { AccessRole, RouteAccess } from '../../src/lib/app-types';
import type { ApiRouteInfo } from '../../src/plugins/openapi';
import { build, DEMO_LOGIN, loginAs, pairPhone, type TestServer } from '../helper';

/**
 * A client sends values no column can hold, nesting no route expects, or a body without a token: the answer is
 * always a 4xx envelope, never a 5xx. Generated from the server's route table, so new routes are covered.
 */
let s: TestServer;
const tokens = new Map<AccessRole, string>();

type Schema = {
  type?: string | string[];
  minimum?: number;
  maximum?: number;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  oneOf?: Schema[];
};

/** Every integer node of a request schema, with its path. */
function integers(schema: unknown, path = ''): { path: string; node: Schema }[] {
  const s = schema as Schema | undefined;
  if (!s || typeof s !== 'object') return [];
  const out: { path: string; node: Schema }[] = [];
  if (s.type === 'integer' || (Array.isArray(s.type) && s.type.includes('integer')))
    out.push({ path, node: s });
  for (const [k, v] of Object.entries(s.properties ?? {})) out.push(...integers(v, `${path}.${k}`));
  if (s.items) out.push(...integers(s.items, `${path}[]`));
  for (const v of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) out.push(...integers(v, path));
  return out;
}

/** The top-level integer-typed properties of a request schema. */
function integerFields(schema: unknown): string[] {
  const s = schema as Schema | undefined;
  return Object.entries(s?.properties ?? {})
    .filter(([, v]) => integers(v).length > 0)
    .map(([k]) => k);
}

function callerOf(route: ApiRouteInfo): AccessRole | null {
  const access = route.access as RouteAccess;
  return access === 'public' ? null : (access[0] ?? null);
}

/** A request schema of a route (querystring, body or params), as declared. */
function part(route: ApiRouteInfo, name: 'querystring' | 'body' | 'params'): unknown {
  return (route.schema as Record<string, unknown> | undefined)?.[name];
}

async function send(route: ApiRouteInfo, actor: AccessRole | null, opts: Partial<InjectOptions>) {
  const headers = { ...((opts.headers as Record<string, string>) ?? {}) };
  if (actor !== null) headers.authorization = `Bearer ${tokens.get(actor)}`;
  return s.app.inject({ method: route.method as 'GET', url: route.url, ...opts, headers });
}

beforeAll(async () => {
  s = await build();
  for (const a of [1, 2, 3, 4, 5] as Actor[]) tokens.set(a, await loginAs(s.app, DEMO_LOGIN[a]));
  tokens.set('phone', await pairPhone(s.app, tokens.get(1)!));
});

afterAll(async () => {
  await s.close();
});

describe('client mistakes never produce a 5xx', () => {
  it('bounds every integer a request may carry in the contract, so it fits its column', () => {
    const unbounded: string[] = [];
    for (const r of s.app.apiRoutes) {
      for (const where of ['querystring', 'body', 'params'] as const) {
        for (const { path, node } of integers(part(r, where))) {
          const ok =
            typeof node.minimum === 'number' &&
            typeof node.maximum === 'number' &&
            node.minimum >= -MAX_ID &&
            node.maximum <= MAX_ID;
          if (!ok) unbounded.push(`${r.method} ${r.url} ${where}${path}`);
        }
      }
    }
    expect(unbounded).toEqual([]);
  });

  it('answers 4xx to out-of-range and infinite integers in every query and body field', async () => {
    const fives: string[] = [];
    for (const r of s.app.apiRoutes) {
      const actor = callerOf(r);
      for (const value of ['99999999999999999999', '1e309', '-99999999999999999999', '3000000000', '-1']) {
        for (const field of integerFields(part(r, 'querystring'))) {
          const res = await send(r, actor, { url: `${r.url}?${field}=${value}` });
          if (res.statusCode >= 500) fives.push(`${r.method} ${r.url}?${field}=${value}: ${res.statusCode}`);
        }
        for (const field of integerFields(part(r, 'body'))) {
          const res = await send(r, actor, {
            payload: `{"${field}":${value}}`,
            headers: { 'content-type': 'application/json' },
          });
          if (res.statusCode >= 500)
            fives.push(`${r.method} ${r.url} {${field}:${value}}: ${res.statusCode}`);
        }
      }
    }
    expect(fives).toEqual([]);
  });

  it('refuses deeply nested and oversized JSON on the open endpoints with 4xx', async () => {
    const deep = `{"payload":${'['.repeat(10_000)}${']'.repeat(10_000)}}`;
    for (const url of ['/api/v1/device_logging.php', '/api/v1/log_receive.php', '/api/v1/login.php']) {
      const nested = await s.app.inject({
        method: 'POST',
        url,
        payload: deep,
        headers: { 'content-type': 'application/json' },
      });
      expect(nested.statusCode, url).toBe(400);
      expect(nested.json()).toMatchObject({ status: 400, result: null });
      const huge = await s.app.inject({
        method: 'POST',
        url,
        payload: `{"details":"${'x'.repeat(3 * 1024 * 1024)}"}`,
        headers: { 'content-type': 'application/json' },
      });
      expect(huge.statusCode, url).toBe(413);
    }
  });

  it('answers 401 without a token whatever the body, before reading it', async () => {
    const wrong: string[] = [];
    for (const r of s.app.apiRoutes) {
      if (r.access === 'public') continue;
      for (const payload of ['{', '{"a":'.repeat(100), '{"tester_id":"not a number","status":1e309}']) {
        const res = await s.app.inject({
          method: r.method as 'POST',
          url: r.url,
          payload: r.method === 'GET' ? undefined : payload,
          headers: { 'content-type': 'application/json' },
        });
        if (res.statusCode !== 401) wrong.push(`${r.method} ${r.url}: ${res.statusCode}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
