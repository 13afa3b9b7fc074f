import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { build, envelope, injectAs, loginAs, type TestServer } from './helper';

// An instance caches sessions and drops one when the database announces its revocation (auth_changed). On
// PostgreSQL that announcement reaches the instance that revoked the session a few milliseconds after the commit,
// so the same browser's next request could come first and find its ended session still cached. Here the
// announcements are held back, as a slow delivery would: what the instance ended itself must end at once anyway.
describe('a session this instance ended', () => {
  let s: TestServer;
  let release: () => void;
  beforeEach(async () => {
    s = await build();
    const cache = s.app.authCache as unknown as { announced(payload: string): void };
    const announced = cache.announced.bind(cache);
    const held: string[] = [];
    cache.announced = (payload) => void held.push(payload);
    release = () => held.splice(0).forEach(announced);
  });
  afterEach(async () => {
    release();
    await s.close();
  });

  const detail = (token: string) =>
    injectAs(s.app, token, { method: 'GET', url: '/api/v1/tester/detail.php' });

  it('is refused on the next request after a logout', async () => {
    const token = await loginAs(s.app, 'tester01');
    expect((await detail(token)).statusCode).toBe(200); // now cached
    const out = await injectAs(s.app, token, { method: 'POST', url: '/api/v1/logout.php' });
    expect(out.statusCode, out.body).toBe(200);
    const after = await detail(token);
    expect(after.statusCode, after.body).toBe(401);
    expect(envelope(after).code).toBe('unauthorized'); // as after any logout
  });

  it('is refused on the next request after a login elsewhere superseded it', async () => {
    const older = await loginAs(s.app, 'tester01');
    expect((await detail(older)).statusCode).toBe(200);
    const newer = await loginAs(s.app, 'tester01');
    expect((await detail(newer)).statusCode).toBe(200);
    const after = await detail(older);
    expect(after.statusCode, after.body).toBe(401);
    expect(envelope(after).code).toBe('session_superseded');
  });

  it("is refused on the next request after an administrator's forced logout", async () => {
    const token = await loginAs(s.app, 'tester01');
    expect((await detail(token)).statusCode).toBe(200);
    const admin = await loginAs(s.app, 'sysadmin01');
    const { rows } = await s.db.query<{ id: number }>(`SELECT id FROM users WHERE login_id = 'tester01'`);
    const forced = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/logins/force_logout.php',
      payload: { user_id: rows[0]!.id },
    });
    expect(forced.statusCode, forced.body).toBe(200);
    const after = await detail(token);
    expect(after.statusCode, after.body).toBe(401);
  });
});
