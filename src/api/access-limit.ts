import type { AccessLimitListResult, AccessLimitRow as Row } from '@contract/management';
import { call } from './client';
import { camelize, type Camelize } from '../lib/case';

export type AccessLimitRow = Camelize<Row>;

/** GET access_limit/select_access_limit: every rule. */
export async function listAccessLimits(): Promise<AccessLimitRow[]> {
  return camelize(await call<AccessLimitListResult>('access_limit/select_access_limit')).list;
}

/** POST access_limit/insert_access_limit: server ('' = every server), ip or domain, target actor 2–5. */
export async function insertAccessLimit(input: {
  server: string;
  ip: string;
  domain: string;
  actor: number;
}): Promise<void> {
  await call<unknown>('access_limit/insert_access_limit', { method: 'POST', data: input });
}

/** POST access_limit/delete_access_limit: the ids of the selected rows. A 409 refuses a self lock-out. */
export async function deleteAccessLimits(ids: number[]): Promise<void> {
  await call<unknown>('access_limit/delete_access_limit', { method: 'POST', data: { ids } });
}
