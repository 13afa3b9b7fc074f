import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app';
import type { App } from '../../src/lib/app-types';
import { build, DEMO_PASSWORD, envelope, testConfig, type TestServer } from '../helper';

/**
 * Password guessing in parallel: the lockout must hold when the guesses arrive all at once (they used to be
 * checked before any failure was counted), and the per-IP limit must hold across server instances.
 */
let s: TestServer;
const extra: App[] = [];

afterEach(async () => {
  for (const a of extra.splice(0)) await a.close();
  await s?.close();
});

const login = (app: App, loginId: string, password: string) =>
  app.inject({ method: 'POST', url: '/api/v1/login.php', payload: { login_id: loginId, password } });

function tally(statuses: number[]): Record<number, number> {
  const out: Record<number, number> = {};
  for (const x of statuses) out[x] = (out[x] ?? 0) + 1;
  return out;
}

describe('a burst of parallel password guesses', () => {
  it('checks at most LOGIN_MAX_FAILURES passwords, and the right password in the burst does not get in', async () => {
    s = await build();
    const max = s.config.login.maxFailures;
    const burst = Array.from({ length: 40 }, (_, i) => login(s.app, 'tester08', `guess-${i}`));
    // The right password arrives while the burst is still being checked (once the lock is in place).
    for (let i = 0; i < 500; i++) {
      const { rows } = await s.db.query<{ locked: boolean }>(
        `SELECT locked_until IS NOT NULL AS locked FROM login_failures WHERE login_id = 'tester08'`,
      );
      if (rows[0]?.locked) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    const right = await login(s.app, 'tester08', DEMO_PASSWORD);
    const statuses = (await Promise.all(burst)).map((r) => r.statusCode);

    // max − 1 wrong passwords answered 401, the max-th locked the account (429), the rest were never checked.
    expect(tally(statuses)).toEqual({ 401: max - 1, 429: 40 - (max - 1) });
    expect(right.statusCode).toBe(429);
    expect(envelope(right).code).toBe('account_locked');
    const after = await login(s.app, 'tester08', DEMO_PASSWORD);
    expect(after.statusCode).toBe(429);
  });

  it('lets the right password in when it is among the first attempts, and clears the count', async () => {
    s = await build();
    const statuses = await Promise.all([
      login(s.app, 'tester09', 'wrong-1'),
      login(s.app, 'tester09', 'wrong-2'),
      login(s.app, 'tester09', DEMO_PASSWORD),
    ]);
    expect(statuses.map((r) => r.statusCode).sort()).toEqual([200, 401, 401]);
    expect((await login(s.app, 'tester09', DEMO_PASSWORD)).statusCode).toBe(200);
  });
});

describe('the per-IP login limit', () => {
  it('holds across two server instances sharing one database', async () => {
    s = await build({ login: { perIpPerMinute: 5 } });
    const second = await buildApp({
      config: testConfig({ login: { perIpPerMinute: 5 } }),
      db: s.db,
      logger: false,
    });
    extra.push(second);
    await second.ready();
    const answers: number[] = [];
    for (let i = 0; i < 6; i++)
      answers.push((await login(i % 2 === 0 ? s.app : second, 'nobody', 'x')).statusCode);
    expect(answers).toEqual([401, 401, 401, 401, 401, 429]);
    const refused = await login(s.app, 'tester01', DEMO_PASSWORD);
    expect(refused.statusCode).toBe(429);
    expect(envelope(refused).code).toBe('too_many_requests');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });
});
