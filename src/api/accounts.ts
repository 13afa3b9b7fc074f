import type {
  AccountImportResult,
  AccountListResult,
  GroupListResult,
  GroupRow,
  PasswordResetResult,
} from '@contract/accounts';
import { call } from './client';
import { camelize, type Camelize } from '../lib/case';

export type AccountsPage = Camelize<AccountListResult>;
export type AccountRow = AccountsPage['list'][number];
export type Group = Camelize<GroupRow>;
export type ImportResult = Camelize<AccountImportResult>;
export type ImportRowError = ImportResult['errors'][number];

export interface AccountsQuery {
  /** '' = every actor. */
  actor: '' | '1' | '2' | '3' | '4' | '5';
  groupCode: string;
  q: string;
  status: 'all' | 'enabled' | 'disabled';
  page: number;
}

/** GET accounts/list: accounts filtered by actor, group, login id or name part, status; 50 per page. */
export async function listAccounts(q: AccountsQuery): Promise<AccountsPage> {
  const params: Record<string, unknown> = { status: q.status, page: q.page };
  if (q.actor) params.actor = q.actor;
  if (q.groupCode) params.group_code = q.groupCode;
  if (q.q.trim()) params.q = q.q.trim();
  return camelize(await call<AccountListResult>('accounts/list', { params }));
}

/** GET accounts/groups: every exam group with its number of accounts. */
export async function listGroups(): Promise<Group[]> {
  return camelize(await call<GroupListResult>('accounts/groups')).list;
}

/** POST accounts/create_group. A code already taken answers 409. */
export async function createGroup(code: string, name: string): Promise<Group> {
  return camelize(await call<GroupRow>('accounts/create_group', { data: { code, name } }));
}

/** POST accounts/import: the CSV text; a dry run writes nothing. Generated passwords come in this answer only. */
export async function importAccounts(
  csv: string,
  opts: { dryRun: boolean; skipInvalid: boolean },
): Promise<ImportResult> {
  return camelize(
    await call<AccountImportResult>('accounts/import', {
      data: { csv, dry_run: opts.dryRun, skip_invalid: opts.skipInvalid },
      timeoutMs: 300_000,
    }),
  );
}

/** POST accounts/set_disabled: a disabled account cannot log in and its sessions end. */
export async function setAccountDisabled(loginId: string, disabled: boolean): Promise<void> {
  await call<null>('accounts/set_disabled', { data: { login_id: loginId, disabled } });
}

/** POST accounts/reset_password: a new generated password (shown once); the account's sessions end. */
export async function resetAccountPassword(loginId: string): Promise<string> {
  return (await call<PasswordResetResult>('accounts/reset_password', { data: { login_id: loginId } }))
    .password;
}
