import type { LoginResult } from '../../contract/auth';
import { call } from './client';
import { camelize, type Camelize } from '../lib/case';

export type Login = Camelize<LoginResult>;

/** POST login (spec §7). The login id is trimmed of whitespace before sending (spec §5). */
export async function login(loginId: string, password: string): Promise<Login> {
  const r = await call<LoginResult>('login', {
    method: 'POST',
    data: { login_id: loginId.trim(), password },
  });
  return camelize(r);
}

/** POST logout with query p=self (spec §7). */
export async function logout(): Promise<void> {
  await call<null>('logout', { method: 'POST', params: { p: 'self' }, data: {} });
}
