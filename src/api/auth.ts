import type { LoginResult } from '@contract/auth';
import { call, sendOnUnload } from './client';
import { camelize, type Camelize } from '../lib/case';

export type Login = Camelize<LoginResult>;

/**
 * POST login (spec §7). The login id is trimmed of whitespace before sending (spec §5). `urlKey` is the
 * short-URL key of the start-up: the server binds that URL's start-up parameters (is_auth, …) to a
 * tester's sitting; without it the default tester URL's parameters apply.
 */
export async function login(loginId: string, password: string, urlKey?: string): Promise<Login> {
  const data: Record<string, unknown> = { login_id: loginId.trim(), password };
  if (urlKey) data.url_key = urlKey;
  const r = await call<LoginResult>('login', { method: 'POST', data });
  return camelize(r);
}

/** POST logout with query p=self (spec §7). */
export async function logout(): Promise<void> {
  await call<null>('logout', { method: 'POST', params: { p: 'self' }, data: {} });
}

/** The same logout from a page that is going away (fetch keepalive; nothing waited for). */
export function logoutOnUnload(): void {
  sendOnUnload('logout', {}, undefined, { p: 'self' });
}
