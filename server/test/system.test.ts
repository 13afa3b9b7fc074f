import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../contract/common';
import type { AdminPermissionResult, ServerTimeResult } from '../../contract/logs';
import { formatInTimeZone } from '../src/lib/server-time';
import { build, DEMO_LOGIN, envelope, injectAs, loginAs, type TestServer } from './helper';

const ACTORS: Actor[] = [1, 2, 3, 4, 5];
const TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;

/** Minutes between two 'yyyy-MM-dd HH:mm:ss' wall-clock strings. */
function minutesBetween(a: string, b: string): number {
  const t = (s: string) => Date.parse(s.replace(' ', 'T') + 'Z');
  return Math.round((t(a) - t(b)) / 60000);
}

describe('formatInTimeZone', () => {
  it('formats wall-clock time in an IANA zone', () => {
    const d = new Date('2024-01-31T23:59:58Z');
    expect(formatInTimeZone(d, 'UTC')).toBe('2024-01-31 23:59:58');
    expect(formatInTimeZone(d, 'Asia/Tokyo')).toBe('2024-02-01 08:59:58');
    expect(formatInTimeZone(new Date('2024-07-01T00:00:00Z'), 'America/New_York')).toBe(
      '2024-06-30 20:00:00',
    );
    expect(formatInTimeZone(new Date('2024-07-01T00:30:00Z'), 'UTC')).toBe('2024-07-01 00:30:00');
  });
});

describe('servertime.php, get_servertime.php', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build();
  });
  afterAll(async () => {
    await s.close();
  });

  it.each(['/api/v1/servertime.php', '/api/v1/get_servertime.php'])(
    '%s answers the time in the asked zone',
    async (url) => {
      const tokyo = await s.app.inject({ method: 'GET', url: `${url}?timeZone=Asia/Tokyo` });
      expect(tokyo.statusCode).toBe(200);
      const r = envelope<ServerTimeResult>(tokyo).result;
      expect(r.timeZone).toBe('Asia/Tokyo');
      expect(r.serverTime).toMatch(TIME);
      const utc = envelope<ServerTimeResult>(await s.app.inject({ method: 'GET', url })).result;
      expect(utc.timeZone).toBe('UTC');
      expect(minutesBetween(r.serverTime, utc.serverTime)).toBe(9 * 60);
    },
  );

  it.each(ACTORS)('answers actor %i too', async (actor) => {
    const token = await loginAs(s.app, DEMO_LOGIN[actor]);
    const res = await injectAs(s.app, token, {
      method: 'GET',
      url: '/api/v1/servertime.php?timeZone=Europe/London',
    });
    expect(res.statusCode).toBe(200);
  });

  it.each(['Mars/Olympus_Mons', '../../etc', 'Asia/Tokyo%00', 'x'.repeat(100), ''])(
    'rejects the time zone %j with a 400 envelope',
    async (tz) => {
      const res = await s.app.inject({
        method: 'GET',
        url: `/api/v1/servertime.php?timeZone=${encodeURIComponent(tz)}`,
      });
      expect(res.statusCode).toBe(400);
      expect(envelope(res)).toMatchObject({ status: 400, result: null });
    },
  );

  it('is not available by POST (404, not 500)', async () => {
    const res = await s.app.inject({ method: 'POST', url: '/api/v1/servertime.php', payload: {} });
    expect(res.statusCode).toBe(404);
  });
});

describe('/api/servertime (outside /api/v1, spec §7)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build();
  });
  afterAll(async () => {
    await s.close();
  });

  it('answers like servertime.php', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/api/servertime?timeZone=Asia/Tokyo' });
    expect(res.statusCode).toBe(200);
    const r = envelope<ServerTimeResult>(res).result;
    expect(r).toEqual({ serverTime: expect.stringMatching(TIME), timeZone: 'Asia/Tokyo' });
    const bad = await s.app.inject({ method: 'GET', url: '/api/servertime?timeZone=No/Where' });
    expect(bad.statusCode).toBe(400);
  });
});

describe('admin_permission.php', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build();
  });
  afterAll(async () => {
    await s.close();
  });

  it('needs a login', async () => {
    const res = await s.app.inject({ method: 'GET', url: '/api/v1/admin_permission.php' });
    expect(res.statusCode).toBe(401);
    expect(envelope(res).code).toBe('unauthorized');
  });

  it('is not for testers (403)', async () => {
    const token = await loginAs(s.app, DEMO_LOGIN[1]);
    const res = await injectAs(s.app, token, { method: 'GET', url: '/api/v1/admin_permission.php' });
    expect(res.statusCode).toBe(403);
    expect(envelope(res).code).toBe('forbidden');
  });

  it.each([2, 3, 4, 5] as Actor[])(
    'reports process 1 for actor %i from an allowed IP, process 0 once limited',
    async (actor) => {
      const token = await loginAs(s.app, DEMO_LOGIN[actor]);
      const ok = await injectAs(s.app, token, { method: 'GET', url: '/api/v1/admin_permission.php' });
      expect(ok.statusCode).toBe(200);
      expect(envelope<AdminPermissionResult>(ok).result).toEqual({ status: 200, process: 1, message: '' });

      await s.db.query(`INSERT INTO access_limits (actor, ip) VALUES ($1, '10.9.9.9')`, [actor]);
      try {
        const denied = await injectAs(s.app, token, { method: 'GET', url: '/api/v1/admin_permission.php' });
        // The status call itself answers 200; the verdict is in the result.
        expect(denied.statusCode).toBe(200);
        const r = envelope<AdminPermissionResult>(denied).result;
        expect(r.process).toBe(0);
        expect(r.status).toBe(403);
        expect(r.message).not.toBe('');
      } finally {
        await s.db.query(`DELETE FROM access_limits`);
      }
    },
  );
});
