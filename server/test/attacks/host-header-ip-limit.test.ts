import { afterEach, describe, expect, it } from 'vitest';
import { build, DEMO_PASSWORD, envelope, injectAs, loginAs, type TestServer } from '../helper';

/**
 * An IP access limit bound to this deployment's server name must hold whatever Host or X-Forwarded-Host the
 * client sends: the rules that apply are chosen from the configured public origins, not from the request.
 */
let s: TestServer;

afterEach(async () => {
  await s?.close();
});

async function addRule(server: string): Promise<void> {
  const sup = await loginAs(s.app, 'supervisor01');
  const res = await injectAs(s.app, sup, {
    method: 'POST',
    url: '/api/v1/access_limit/insert_access_limit.php',
    payload: { server, ip: '10.0.0.1', domain: '', actor: 4 },
  });
  expect(res.statusCode, res.body).toBe(200);
}

describe('a client names another server in Host to skip a per-server IP limit', () => {
  it('is refused with any Host, directly and behind a trusted proxy with X-Forwarded-Host', async () => {
    s = await build({
      publicOrigin: 'https://exam.example.org',
      publicOrigins: ['https://exam.example.org'],
      trustProxy: '127.0.0.1',
    });
    const admin = await loginAs(s.app, 'sysadmin01');
    await addRule('exam.example.org');
    for (const headers of [
      { host: 'exam.example.org' },
      { host: 'other.example.org' },
      { host: '127.0.0.1:8080' },
      { host: 'exam.example.org', 'x-forwarded-host': 'anything.example' },
      { host: 'exam.example.org', 'x-forwarded-for': '198.51.100.9', 'x-forwarded-host': 'x.example' },
    ]) {
      const res = await injectAs(s.app, admin, {
        method: 'GET',
        url: '/api/v1/management_summary.php',
        headers,
      });
      expect(res.statusCode, JSON.stringify(headers)).toBe(403);
      expect(envelope(res).code).toBe('ip_not_allowed');
    }
    // The listed address still gets in; a login from elsewhere is refused whatever Host it names.
    const listed = await injectAs(s.app, admin, {
      method: 'GET',
      url: '/api/v1/management_summary.php',
      remoteAddress: '10.0.0.1',
    });
    expect(listed.statusCode).toBe(200);
    const login = await s.app.inject({
      method: 'POST',
      url: '/api/v1/login.php',
      headers: { host: 'other.example.org' },
      payload: { login_id: 'sysadmin01', password: DEMO_PASSWORD },
    });
    expect(login.statusCode).toBe(403);
  });

  it('leaves a rule for another deployment alone, whatever Host claims', async () => {
    s = await build({
      publicOrigin: 'https://exam.example.org',
      publicOrigins: ['https://exam.example.org'],
    });
    const admin = await loginAs(s.app, 'sysadmin01');
    await addRule('other-deployment.example.org');
    const res = await injectAs(s.app, admin, {
      method: 'GET',
      url: '/api/v1/management_summary.php',
      headers: { host: 'other-deployment.example.org' },
    });
    expect(res.statusCode).toBe(200);
  });
});
