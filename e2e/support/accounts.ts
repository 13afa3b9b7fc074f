import { expect, type APIRequestContext } from '@playwright/test';

/** A bearer token for `loginId` (demo accounts use demo-pass). */
export async function apiToken(
  request: APIRequestContext,
  loginId: string,
  password = 'demo-pass',
): Promise<string> {
  const r = await request.post('/api/v1/login.php', { data: { login_id: loginId, password } });
  expect(r.status(), await r.text()).toBe(200);
  return ((await r.json()) as { result: { access_token: string } }).result.access_token;
}

/** One account of a spec: login id, name, actor, group code ('' for none), password. */
export type SpecAccount = [loginId: string, name: string, actor: number, groupCode: string, password: string];

/**
 * Imports a spec's own accounts through the accounts API as a system manager would (a term's CSV; importing
 * again changes nothing), so a spec does not share the demo accounts other specs use.
 */
export async function importAccounts(
  request: APIRequestContext,
  accounts: readonly SpecAccount[],
): Promise<void> {
  const admin = await apiToken(request, 'sysadmin01');
  const csv = ['login_id,name,actor,group_code,password', ...accounts.map((a) => a.join(','))].join('\r\n');
  const r = await request.post('/api/v1/accounts/import.php', {
    headers: { Authorization: `Bearer ${admin}` },
    data: { csv },
  });
  expect(r.status(), await r.text()).toBe(200);
}
