import { randomInt } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { ACTOR, type Actor, ALL_ACTORS } from '../../../contract/common';
import type { Db } from '../db/db';
import { hashPassword } from './passwords';

/**
 * Accounts and exam groups for an organisation's own exams: the one writer of `users` and `exam_groups` besides
 * the demo seed. The admin CLI and the system manager's Accounts page both go through here, so a rule holds
 * whichever way an account is made.
 */

/** Why a row or a request was refused; the SPA maps the code to a message in the user's language. */
export type AccountIssue =
  | 'columns_missing'
  | 'column_count'
  | 'login_id_missing'
  | 'login_id_invalid'
  | 'login_id_duplicate'
  | 'name_missing'
  | 'name_invalid'
  | 'actor_invalid'
  | 'actor_changed'
  | 'group_required'
  | 'group_not_used'
  | 'group_unknown'
  | 'password_invalid'
  | 'not_utf8'
  | 'empty_file'
  | 'csv_syntax';

const ISSUE_TEXT: Record<AccountIssue, string> = {
  columns_missing: 'The header must name the columns login_id, name, actor, group_code (password optional).',
  column_count: 'This row does not have as many fields as the header.',
  login_id_missing: 'login_id is empty.',
  login_id_invalid: 'login_id may hold only letters, digits and . _ @ + - (at most 64).',
  login_id_duplicate: 'This login_id appears on an earlier line of the file.',
  name_missing: 'name is empty.',
  name_invalid: 'name is longer than 100 characters or holds control characters.',
  actor_invalid:
    'actor must be 1 (examinee), 2 (checker), 3 (test manager), 4 (system manager) or 5 (supervisor).',
  actor_changed:
    'An account with this login_id exists with another actor; roles are not changed by an import.',
  group_required: 'Examinees and test managers belong to exactly one group: group_code is required.',
  group_not_used:
    'Checkers, system managers and supervisors are not bound to a group: leave group_code empty.',
  group_unknown: 'No group has this group_code; create it first.',
  password_invalid:
    'password must be 8 to 128 characters without control characters (or empty to generate one).',
  not_utf8: 'The file is not UTF-8 text. Save it as "CSV UTF-8" and try again.',
  empty_file: 'The file has no header line.',
  csv_syntax: 'The file is not valid CSV (an unclosed quote?).',
};

export function issueText(issue: AccountIssue): string {
  return ISSUE_TEXT[issue];
}

/** An error of the accounts layer that a client caused (bad input, unknown account, conflict). */
export class AccountError extends Error {
  constructor(
    readonly kind: 'invalid' | 'not_found' | 'conflict',
    message: string,
    readonly field?: string,
  ) {
    super(message);
    this.name = 'AccountError';
  }
}

const LOGIN_ID = /^[A-Za-z0-9._@+-]{1,64}$/;
const GROUP_CODE = /^[A-Za-z0-9_-]{1,32}$/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export function validLoginId(v: string): boolean {
  return LOGIN_ID.test(v);
}

function validName(v: string): boolean {
  return v.length <= 100 && !CONTROL.test(v);
}

function validPassword(v: string): boolean {
  return v.length >= 8 && v.length <= 128 && !CONTROL.test(v);
}

/** Spec §6 roles: examinees and test managers belong to one group; the others see every group or none. */
export function actorNeedsGroup(actor: Actor): boolean {
  return actor === ACTOR.tester || actor === ACTOR.testManager;
}

// No 0/O, 1/l/I: a password read off paper or a screen is typed right the first time.
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';

/** A random password of 16 characters (about 93 bits). */
export function generatePassword(length = 16): string {
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[randomInt(ALPHABET.length)];
  return out;
}

// ---------------------------------------------------------------- groups

export interface GroupRow {
  id: number;
  code: string;
  name: string;
  user_count: number;
}

export async function listGroups(db: Db): Promise<GroupRow[]> {
  const { rows } = await db.query<GroupRow>(
    `SELECT g.id, g.code, g.name, (SELECT count(*)::int FROM users u WHERE u.group_id = g.id) AS user_count
       FROM exam_groups g ORDER BY g.code`,
  );
  return rows;
}

/** Creates an exam group; a code already taken is a conflict. */
export async function createGroup(db: Db, code: string, name: string): Promise<GroupRow> {
  const c = code.trim();
  const n = name.trim();
  if (!GROUP_CODE.test(c))
    throw new AccountError('invalid', 'code may hold only letters, digits, _ and - (1 to 32).', 'code');
  if (!n || !validName(n)) throw new AccountError('invalid', 'name must be 1 to 100 characters.', 'name');
  const { rows } = await db.query<GroupRow>(
    `INSERT INTO exam_groups (code, name) VALUES ($1, $2) ON CONFLICT (code) DO NOTHING
     RETURNING id, code, name, 0 AS user_count`,
    [c, n],
  );
  if (!rows[0]) throw new AccountError('conflict', `A group with code ${c} exists already.`, 'code');
  return rows[0];
}

// ---------------------------------------------------------------- users

export interface AccountRow {
  id: number;
  login_id: string;
  name: string;
  actor: Actor;
  group_code: string | null;
  group_name: string | null;
  disabled: boolean;
  updated_at: string;
}

export interface AccountFilter {
  actor?: Actor | undefined;
  groupCode?: string | undefined;
  /** Part of the login id or name. */
  q?: string | undefined;
  status?: 'all' | 'enabled' | 'disabled' | undefined;
  page?: number | undefined;
  perPage?: number | undefined;
}

export async function listAccounts(
  db: Db,
  f: AccountFilter,
): Promise<{ count: number; page: number; page_count: number; list: AccountRow[] }> {
  const where: string[] = [];
  const params: unknown[] = [];
  const p = (v: unknown) => {
    params.push(v);
    return `$${params.length}`;
  };
  if (f.actor !== undefined) where.push(`u.actor = ${p(f.actor)}`);
  if (f.groupCode) where.push(`g.code = ${p(f.groupCode)}`);
  if (f.q) {
    const like = `%${f.q.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;
    where.push(`(u.login_id ILIKE ${p(like)} OR u.name ILIKE ${p(like)})`);
  }
  if (f.status === 'enabled') where.push('NOT u.disabled');
  if (f.status === 'disabled') where.push('u.disabled');
  const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
  const from = `FROM users u LEFT JOIN exam_groups g ON g.id = u.group_id ${w}`;
  const count = (await db.query<{ n: number }>(`SELECT count(*)::int AS n ${from}`, params)).rows[0]?.n ?? 0;
  const perPage = f.perPage ?? 50;
  const pageCount = Math.max(1, Math.ceil(count / perPage));
  const page = Math.min(Math.max(1, f.page ?? 1), pageCount);
  const { rows } = await db.query<AccountRow & { updated_at: Date | string }>(
    `SELECT u.id, u.login_id, u.name, u.actor, g.code AS group_code, g.name AS group_name, u.disabled, u.updated_at
       ${from} ORDER BY u.login_id LIMIT ${perPage} OFFSET ${(page - 1) * perPage}`,
    params,
  );
  return {
    count,
    page,
    page_count: pageCount,
    list: rows.map((r) => ({ ...r, updated_at: new Date(r.updated_at).toISOString() })),
  };
}

async function groupIdOf(db: Db, code: string): Promise<number> {
  const { rows } = await db.query<{ id: number }>(`SELECT id FROM exam_groups WHERE code = $1`, [code]);
  if (!rows[0]) throw new AccountError('invalid', issueText('group_unknown'), 'group_code');
  return rows[0].id;
}

export interface NewUser {
  loginId: string;
  name: string;
  actor: Actor;
  groupCode?: string | undefined;
  /** Absent: a password is generated and returned (once). */
  password?: string | undefined;
}

/** Creates one account; returns the password when it was generated. */
export async function createUser(
  db: Db,
  u: NewUser,
): Promise<{ id: number; generatedPassword: string | null }> {
  const loginId = u.loginId.trim();
  const name = u.name.trim();
  const group = u.groupCode?.trim() ?? '';
  if (!validLoginId(loginId)) throw new AccountError('invalid', issueText('login_id_invalid'), 'login_id');
  if (!name) throw new AccountError('invalid', issueText('name_missing'), 'name');
  if (!validName(name)) throw new AccountError('invalid', issueText('name_invalid'), 'name');
  if (!ALL_ACTORS.includes(u.actor)) throw new AccountError('invalid', issueText('actor_invalid'), 'actor');
  if (actorNeedsGroup(u.actor) && !group)
    throw new AccountError('invalid', issueText('group_required'), 'group_code');
  if (!actorNeedsGroup(u.actor) && group)
    throw new AccountError('invalid', issueText('group_not_used'), 'group_code');
  if (u.password !== undefined && !validPassword(u.password))
    throw new AccountError('invalid', issueText('password_invalid'), 'password');
  const groupId = group ? await groupIdOf(db, group) : null;
  const generated = u.password === undefined ? generatePassword() : null;
  const hash = await hashPassword(u.password ?? generated!);
  const { rows } = await db.query<{ id: number }>(
    `INSERT INTO users (login_id, ex_login_id, password_hash, actor, name, group_id)
     VALUES ($1, $1, $2, $3, $4, $5) ON CONFLICT (login_id) DO NOTHING RETURNING id`,
    [loginId, hash, u.actor, name, groupId],
  );
  if (!rows[0])
    throw new AccountError('conflict', `An account with login_id ${loginId} exists already.`, 'login_id');
  return { id: rows[0].id, generatedPassword: generated };
}

async function findUser(db: Db, loginId: string): Promise<{ id: number; actor: Actor; disabled: boolean }> {
  const { rows } = await db.query<{ id: number; actor: Actor; disabled: boolean }>(
    `SELECT id, actor, disabled FROM users WHERE login_id = $1`,
    [loginId.trim()],
  );
  if (!rows[0]) throw new AccountError('not_found', `No account has login_id ${loginId.trim()}.`, 'login_id');
  return rows[0];
}

/**
 * Ends every session of a user (a reset or a disabled account must not keep a stolen token alive); the next
 * call with such a token is told why (401 session_ended).
 */
async function revokeSessions(
  db: Db,
  userId: number,
  reason: 'account_disabled' | 'password_reset',
): Promise<void> {
  await db.query(
    `UPDATE sessions SET revoked_at = now(), revoke_reason = $2 WHERE user_id = $1 AND revoked_at IS NULL`,
    [userId, reason],
  );
}

/** Sets a new password (given, or generated and returned once), ends the user's sessions and lifts a lockout. */
export async function resetPassword(
  db: Db,
  loginId: string,
  password?: string,
): Promise<{ generatedPassword: string | null }> {
  if (password !== undefined && !validPassword(password))
    throw new AccountError('invalid', issueText('password_invalid'), 'password');
  const user = await findUser(db, loginId);
  const generated = password === undefined ? generatePassword() : null;
  const hash = await hashPassword(password ?? generated!);
  await db.transaction(async (tx) => {
    await tx.query(`UPDATE users SET password_hash = $2, updated_at = now() WHERE id = $1`, [user.id, hash]);
    await tx.query(`DELETE FROM login_failures WHERE login_id = $1`, [loginId.trim()]);
    await revokeSessions(tx, user.id, 'password_reset');
  });
  return { generatedPassword: generated };
}

/**
 * Disables (login refused, sessions ended) or enables an account. The last enabled system manager cannot be
 * disabled, so an organisation never locks itself out of account management.
 */
export async function setDisabled(db: Db, loginId: string, disabled: boolean): Promise<void> {
  const user = await findUser(db, loginId);
  await db.transaction(async (tx) => {
    if (disabled && user.actor === ACTOR.systemManager && !user.disabled) {
      // Serialises concurrent disables of system managers, so two cannot each see the other as "the rest".
      await tx.query(`SELECT id FROM users WHERE actor = 4 ORDER BY id FOR UPDATE`);
      const { rows } = await tx.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM users WHERE actor = 4 AND NOT disabled AND id <> $1`,
        [user.id],
      );
      if ((rows[0]?.n ?? 0) === 0)
        throw new AccountError('conflict', 'This is the last enabled system manager; it cannot be disabled.');
    }
    await tx.query(`UPDATE users SET disabled = $2, updated_at = now() WHERE id = $1`, [user.id, disabled]);
    if (disabled) await revokeSessions(tx, user.id, 'account_disabled');
  });
}

// ---------------------------------------------------------------- CSV import

export const CSV_COLUMNS = ['login_id', 'name', 'actor', 'group_code', 'password'] as const;

export interface ImportRowError {
  /** 1-based line of the file where the row starts (the header is line 1). */
  line: number;
  login_id: string;
  issue: AccountIssue;
  message: string;
}

export interface ImportOutcome {
  /** Nothing was written: a dry run, or an all-or-nothing import that found invalid rows. */
  applied: boolean;
  rows: number;
  created: number;
  updated: number;
  unchanged: number;
  /** Invalid rows left out (only with skipInvalid). */
  skipped: number;
  errors: ImportRowError[];
  /** Passwords generated for new accounts: returned once, never stored in clear. */
  passwords: { login_id: string; password: string }[];
}

interface ParsedRow {
  line: number;
  loginId: string;
  name: string;
  actor: Actor;
  groupCode: string;
  password: string;
}

/** Decodes the uploaded bytes as UTF-8 (a BOM, as Excel's "CSV UTF-8" writes it, is dropped). */
export function decodeCsv(bytes: Uint8Array): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(bytes);
  } catch {
    throw new AccountError('invalid', issueText('not_utf8'), 'csv');
  }
}

/** Parses and checks every row on its own (no database); the file-level problem, if any, comes as line 1. */
export function parseAccountsCsv(text: string): {
  rows: ParsedRow[];
  errors: ImportRowError[];
  total: number;
} {
  const errors: ImportRowError[] = [];
  const err = (line: number, loginId: string, issue: AccountIssue) =>
    errors.push({ line, login_id: loginId, issue, message: issueText(issue) });
  let records: { record: string[]; info: { lines: number } }[];
  try {
    records = parse(text.replace(/^\uFEFF/, ''), {
      info: true,
      skip_empty_lines: true,
      relax_column_count: true,
      record_delimiter: ['\r\n', '\n', '\r'],
    }) as unknown as { record: string[]; info: { lines: number } }[];
  } catch (e) {
    const line = typeof (e as { lines?: unknown }).lines === 'number' ? (e as { lines: number }).lines : 1;
    err(line, '', 'csv_syntax');
    return { rows: [], errors, total: 0 };
  }
  const startLine = (r: { record: string[]; info: { lines: number } }) =>
    r.info.lines - r.record.reduce((n, f) => n + (f.match(/\r\n|\r|\n/g)?.length ?? 0), 0);
  const header = records[0];
  if (!header) {
    err(1, '', 'empty_file');
    return { rows: [], errors, total: 0 };
  }
  const names = header.record.map((h) => h.trim().toLowerCase());
  const index = Object.fromEntries(CSV_COLUMNS.map((c) => [c, names.indexOf(c)])) as Record<
    (typeof CSV_COLUMNS)[number],
    number
  >;
  if (CSV_COLUMNS.slice(0, 4).some((c) => index[c] < 0)) {
    err(startLine(header), '', 'columns_missing');
    return { rows: [], errors, total: 0 };
  }
  const rows: ParsedRow[] = [];
  const seen = new Set<string>();
  for (const r of records.slice(1)) {
    const line = startLine(r);
    const field = (c: (typeof CSV_COLUMNS)[number]) => (index[c] >= 0 ? (r.record[index[c]] ?? '') : '');
    const loginId = field('login_id').trim();
    if (r.record.length !== header.record.length) {
      err(line, loginId, 'column_count');
      continue;
    }
    const name = field('name').trim();
    const actorText = field('actor').trim();
    const groupCode = field('group_code').trim();
    const password = field('password');
    const actor = /^[1-5]$/.test(actorText) ? (Number(actorText) as Actor) : null;
    const before = errors.length;
    if (!loginId) err(line, loginId, 'login_id_missing');
    else if (!validLoginId(loginId)) err(line, loginId, 'login_id_invalid');
    else if (seen.has(loginId)) err(line, loginId, 'login_id_duplicate');
    if (!name) err(line, loginId, 'name_missing');
    else if (!validName(name)) err(line, loginId, 'name_invalid');
    if (actor === null) err(line, loginId, 'actor_invalid');
    else if (actorNeedsGroup(actor) && !groupCode) err(line, loginId, 'group_required');
    else if (!actorNeedsGroup(actor) && groupCode) err(line, loginId, 'group_not_used');
    if (password !== '' && !validPassword(password)) err(line, loginId, 'password_invalid');
    if (loginId) seen.add(loginId);
    if (errors.length === before) rows.push({ line, loginId, name, actor: actor!, groupCode, password });
  }
  return { rows, errors, total: records.length - 1 };
}

/** Runs fn over items with at most `limit` at a time (Argon2 hashing runs on libuv's small thread pool). */
async function mapLimit<T, R>(items: T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

/**
 * Imports accounts from CSV text (columns CSV_COLUMNS). Every row is checked first; with any invalid row
 * nothing is written unless `skipInvalid`. A login id already present is updated (name, group) and keeps its
 * password, so importing the same file twice changes nothing. New accounts without a password get a generated
 * one, returned once in `passwords`. `dryRun` checks and counts but writes nothing.
 */
export async function importAccounts(
  db: Db,
  text: string,
  opts: { dryRun?: boolean; skipInvalid?: boolean } = {},
): Promise<ImportOutcome> {
  const { rows, errors, total } = parseAccountsCsv(text);
  const groupCodes = [...new Set(rows.map((r) => r.groupCode).filter(Boolean))];
  const groups = new Map(
    (
      await db.query<{ id: number; code: string }>(`SELECT id, code FROM exam_groups WHERE code = ANY($1)`, [
        groupCodes,
      ])
    ).rows.map((g) => [g.code, g.id]),
  );
  const existing = new Map(
    (
      await db.query<{ id: number; login_id: string; name: string; actor: Actor; group_id: number | null }>(
        `SELECT id, login_id, name, actor, group_id FROM users WHERE login_id = ANY($1)`,
        [rows.map((r) => r.loginId)],
      )
    ).rows.map((u) => [u.login_id, u]),
  );
  const valid: ParsedRow[] = [];
  for (const r of rows) {
    const issue: AccountIssue | null =
      r.groupCode && !groups.has(r.groupCode)
        ? 'group_unknown'
        : existing.has(r.loginId) && existing.get(r.loginId)!.actor !== r.actor
          ? 'actor_changed'
          : null;
    if (issue) errors.push({ line: r.line, login_id: r.loginId, issue, message: issueText(issue) });
    else valid.push(r);
  }
  errors.sort((a, b) => a.line - b.line);
  const outcome: ImportOutcome = {
    applied: false,
    rows: total,
    created: 0,
    updated: 0,
    unchanged: 0,
    skipped: 0,
    errors,
    passwords: [],
  };
  const fileLevel = errors.some((e) => ['columns_missing', 'empty_file', 'csv_syntax'].includes(e.issue));
  if (fileLevel || (errors.length && !opts.skipInvalid)) {
    return countOnly(outcome, valid, existing, groups);
  }
  outcome.skipped = new Set(errors.map((e) => e.line)).size;
  if (opts.dryRun) return countOnly(outcome, valid, existing, groups);

  const fresh = valid.filter((r) => !existing.has(r.loginId));
  const generated = new Map<string, string>();
  for (const r of fresh) if (!r.password) generated.set(r.loginId, generatePassword());
  const hashes = await mapLimit(fresh, 4, (r) => hashPassword(r.password || generated.get(r.loginId)!));
  await db.transaction(async (tx) => {
    for (const [i, r] of fresh.entries()) {
      const ins = await tx.query(
        `INSERT INTO users (login_id, ex_login_id, password_hash, actor, name, group_id)
         VALUES ($1, $1, $2, $3, $4, $5) ON CONFLICT (login_id) DO NOTHING RETURNING id`,
        [r.loginId, hashes[i], r.actor, r.name, r.groupCode ? groups.get(r.groupCode)! : null],
      );
      // Created by someone else since the check: the whole import is retried by the caller, not half-applied.
      if (!ins.rows[0])
        throw new AccountError('conflict', `login_id ${r.loginId} was created meanwhile; import again.`);
      outcome.created += 1;
    }
    for (const r of valid) {
      const u = existing.get(r.loginId);
      if (!u) continue;
      const groupId = r.groupCode ? groups.get(r.groupCode)! : null;
      if (u.name === r.name && u.group_id === groupId) {
        outcome.unchanged += 1;
        continue;
      }
      await tx.query(`UPDATE users SET name = $2, group_id = $3, updated_at = now() WHERE id = $1`, [
        u.id,
        r.name,
        groupId,
      ]);
      outcome.updated += 1;
    }
  });
  outcome.applied = true;
  outcome.passwords = fresh
    .filter((r) => generated.has(r.loginId))
    .map((r) => ({ login_id: r.loginId, password: generated.get(r.loginId)! }));
  return outcome;
}

function countOnly(
  outcome: ImportOutcome,
  valid: ParsedRow[],
  existing: Map<string, { name: string; group_id: number | null }>,
  groups: Map<string, number>,
): ImportOutcome {
  for (const r of valid) {
    const u = existing.get(r.loginId);
    if (!u) outcome.created += 1;
    else if (u.name === r.name && u.group_id === (r.groupCode ? groups.get(r.groupCode)! : null))
      outcome.unchanged += 1;
    else outcome.updated += 1;
  }
  return outcome;
}
