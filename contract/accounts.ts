import { Type, type Static } from 'typebox';

/** Accounts page and admin CLI (system managers): accounts, groups, CSV import. Not part of the PHP API. */

const Actor = Type.Integer({ minimum: 1, maximum: 5 });

export const AccountRow = Type.Object({
  id: Type.Integer(),
  login_id: Type.String(),
  name: Type.String(),
  actor: Type.Integer(),
  group_code: Type.Union([Type.String(), Type.Null()]),
  group_name: Type.Union([Type.String(), Type.Null()]),
  disabled: Type.Boolean(),
  updated_at: Type.String(),
});
export type AccountRow = Static<typeof AccountRow>;

export const AccountListQuery = Type.Object({
  actor: Type.Optional(Type.Union([Actor, Type.String({ pattern: '^[1-5]?$' })])),
  group_code: Type.Optional(Type.String({ maxLength: 32 })),
  q: Type.Optional(Type.String({ maxLength: 100 })),
  status: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('enabled'), Type.Literal('disabled')])),
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
});
export type AccountListQuery = Static<typeof AccountListQuery>;

export const AccountListResult = Type.Object({
  count: Type.Integer(),
  page: Type.Integer(),
  page_count: Type.Integer(),
  list: Type.Array(AccountRow),
});
export type AccountListResult = Static<typeof AccountListResult>;

export const GroupRow = Type.Object({
  id: Type.Integer(),
  code: Type.String(),
  name: Type.String(),
  user_count: Type.Integer(),
});
export type GroupRow = Static<typeof GroupRow>;

export const GroupListResult = Type.Object({ list: Type.Array(GroupRow) });
export type GroupListResult = Static<typeof GroupListResult>;

/** create_group: `code` letters, digits, _ and - (1–32), `name` 1–100 characters. */
export const GroupCreateBody = Type.Object({
  code: Type.String({ maxLength: 64 }),
  name: Type.String({ maxLength: 200 }),
});
export type GroupCreateBody = Static<typeof GroupCreateBody>;

/**
 * import: the CSV file's text (UTF-8; a BOM is dropped), columns login_id,name,actor,group_code,password.
 * `dry_run` checks and counts without writing; `skip_invalid` imports the valid rows when some are invalid
 * (otherwise any invalid row means nothing is written).
 */
export const AccountImportBody = Type.Object({
  csv: Type.String({ maxLength: 900_000 }),
  dry_run: Type.Optional(Type.Boolean()),
  skip_invalid: Type.Optional(Type.Boolean()),
});
export type AccountImportBody = Static<typeof AccountImportBody>;

export const ImportRowError = Type.Object({
  line: Type.Integer(),
  login_id: Type.String(),
  /** Machine-readable reason (e.g. group_unknown); the SPA shows its own text for it. */
  issue: Type.String(),
  message: Type.String(),
});
export type ImportRowError = Static<typeof ImportRowError>;

export const AccountImportResult = Type.Object({
  applied: Type.Boolean(),
  rows: Type.Integer(),
  created: Type.Integer(),
  updated: Type.Integer(),
  unchanged: Type.Integer(),
  skipped: Type.Integer(),
  errors: Type.Array(ImportRowError),
  /** Generated passwords of the accounts this import created: in this answer only, never again. */
  passwords: Type.Array(Type.Object({ login_id: Type.String(), password: Type.String() })),
});
export type AccountImportResult = Static<typeof AccountImportResult>;

export const AccountLoginIdBody = Type.Object({ login_id: Type.String({ minLength: 1, maxLength: 64 }) });
export type AccountLoginIdBody = Static<typeof AccountLoginIdBody>;

export const AccountSetDisabledBody = Type.Object({
  login_id: Type.String({ minLength: 1, maxLength: 64 }),
  disabled: Type.Boolean(),
});
export type AccountSetDisabledBody = Static<typeof AccountSetDisabledBody>;

export const PasswordResetResult = Type.Object({ login_id: Type.String(), password: Type.String() });
export type PasswordResetResult = Static<typeof PasswordResetResult>;
