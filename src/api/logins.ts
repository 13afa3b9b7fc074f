import type { LoginsResult } from '@contract/management';
import { call } from './client';
import { camelize, type Camelize } from '../lib/case';

export type LoginsPage = Camelize<LoginsResult>;
export type LoginListRow = LoginsPage['list'][number];

/** GET logins (spec §3): actor_kind 1 testers, 2 others, -1 all; sort keys 1–9; order 0 desc, 1 asc. */
export async function listLogins(q: {
  actorKind: 1 | 2 | -1;
  page: number;
  sortKey: number;
  sortOrder: 0 | 1;
}): Promise<LoginsPage> {
  return camelize(
    await call<LoginsResult>('logins', {
      params: { actor_kind: q.actorKind, page: q.page, sort_key: q.sortKey, sort_order: q.sortOrder },
    }),
  );
}

/** POST logins/force_logout: ends every session of the user. */
export async function forceLogout(userId: number): Promise<void> {
  await call<unknown>('logins/force_logout', { method: 'POST', data: { user_id: userId } });
}
