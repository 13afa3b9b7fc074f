import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { build, type TestServer } from './helper';

let s: TestServer;
beforeAll(async () => {
  s = await build();
});
afterAll(async () => s.close());

describe('probe', () => {
  it('lists', async () => {
    const missing = s.app.apiRoutes.filter((r) => !r.schema || !(r.schema as any).response);
    console.log(s.app.apiRoutes.length, missing.map((r) => `${r.method} ${r.url} ${Object.keys(r.schema ?? {}).join(',')}`).join('\n'));
    const noInput = s.app.apiRoutes.filter((r) => !r.schema || !((r.schema as any).body || (r.schema as any).querystring || (r.schema as any).params));
    console.log('NO INPUT', noInput.map((r) => `${r.method} ${r.url}`).join('\n'));
    const res = await s.app.inject({ url: '/api/openapi.json' });
    console.log(res.statusCode, res.body.slice(0, 1500));
    expect(res.statusCode).toBe(200);
  });
});
