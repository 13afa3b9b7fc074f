import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { type Actor, ALL_ACTORS } from '../../../contract/common';
import { loadConfig } from '../config';
import { openDb, type Db } from '../db/db';
import { lockDataDir } from '../db/data-dir-lock';
import { migrate } from '../db/migrate';
import { loadEnvFile } from '../env-file';
import { audit } from '../lib/audit';
import {
  AccountError,
  createGroup,
  createUser,
  decodeCsv,
  importAccounts,
  listAccounts,
  listGroups,
  resetPassword,
  setDisabled,
} from '../lib/accounts';
import { CSV_BOM, csvRow } from '../lib/csv';

export const USAGE = `Usage: npm run admin -- <command> [options]

  create-group   --code CODE --name NAME
  create-user    --actor N --login-id ID --name NAME [--group CODE] [--password-stdin]
  import-users   FILE.csv [--dry-run] [--skip-invalid] [--passwords-out FILE]
  reset-password --login-id ID [--password-stdin]
  disable-user   --login-id ID
  enable-user    --login-id ID
  list-groups
  list-users     [--actor N] [--group CODE] [--search TEXT]

Actors: 1 examinee, 2 checker, 3 test manager, 4 system manager, 5 supervisor. Examinees and test managers
belong to one group (--group); the others to none. Without --password-stdin a password is generated and
printed once. import-users reads UTF-8 CSV (with or without BOM) with the columns
login_id,name,actor,group_code,password; any invalid row stops the whole import unless --skip-invalid;
generated passwords go to a new file (FILE.passwords-<time>.csv, or --passwords-out), never printed.
The database is the server's: DATABASE_URL, or DATA_DIR (stop the server first: PGlite allows one process).`;

export interface AdminIo {
  out(line: string): void;
  err(line: string): void;
  /** The whole standard input (for --password-stdin). */
  readStdin(): Promise<string>;
  cwd: string;
  now?: () => Date;
}

const ACTOR_NAMES: Record<Actor, string> = {
  1: 'examinee',
  2: 'checker',
  3: 'test manager',
  4: 'system manager',
  5: 'supervisor',
};

class UsageError extends Error {}

function required(v: string | undefined, flag: string): string {
  if (v === undefined || v === '') throw new UsageError(`${flag} is required.`);
  return v;
}

function actorOf(v: string | undefined): Actor {
  const a = Number(required(v, '--actor'));
  if (!(ALL_ACTORS as readonly number[]).includes(a))
    throw new UsageError('--actor must be 1, 2, 3, 4 or 5.');
  return a as Actor;
}

async function passwordFromStdin(io: AdminIo): Promise<string> {
  // One line: a trailing newline from `echo` or a here-string is not part of the password.
  const pw = (await io.readStdin()).replace(/\r?\n$/, '');
  if (!pw) throw new UsageError('--password-stdin was given but standard input is empty.');
  return pw;
}

function stamp(d: Date): string {
  return d.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
}

/** Runs one admin command against `db`; returns the process exit code (0 ok, 1 refused, 2 usage). */
export async function runAdmin(argv: string[], db: Db, io: AdminIo): Promise<number> {
  const [command, ...rest] = argv;
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: rest,
      allowPositionals: true,
      options: {
        code: { type: 'string' },
        name: { type: 'string' },
        actor: { type: 'string' },
        'login-id': { type: 'string' },
        group: { type: 'string' },
        search: { type: 'string' },
        'password-stdin': { type: 'boolean' },
        'dry-run': { type: 'boolean' },
        'skip-invalid': { type: 'boolean' },
        'passwords-out': { type: 'string' },
      },
    }));
  } catch (e) {
    io.err(`${(e as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const s = (k: string) => values[k] as string | undefined;
  const cliAudit = (type: string, target: string, details?: string) =>
    audit(db, { type, target, details: details ?? null, loginId: 'admin-cli' });
  try {
    switch (command) {
      case 'create-group': {
        const g = await createGroup(db, required(s('code'), '--code'), required(s('name'), '--name'));
        await cliAudit('account.group_created', g.code);
        io.out(`Created group ${g.code} (${g.name}).`);
        return 0;
      }
      case 'create-user': {
        const actor = actorOf(s('actor'));
        const loginId = required(s('login-id'), '--login-id');
        const password = values['password-stdin'] ? await passwordFromStdin(io) : undefined;
        const r = await createUser(db, {
          loginId,
          name: required(s('name'), '--name'),
          actor,
          groupCode: s('group'),
          password,
        });
        await cliAudit('account.created', loginId, `actor ${actor}`);
        io.out(`Created ${ACTOR_NAMES[actor]} ${loginId.trim()}.`);
        if (r.generatedPassword) io.out(`Password (shown once): ${r.generatedPassword}`);
        return 0;
      }
      case 'import-users': {
        const file = positionals[0];
        if (!file) throw new UsageError('import-users needs the CSV file.');
        const text = decodeCsv(await readFile(path.resolve(io.cwd, file)));
        const dryRun = values['dry-run'] === true;
        const r = await importAccounts(db, text, { dryRun, skipInvalid: values['skip-invalid'] === true });
        for (const e of r.errors)
          io.err(`line ${e.line}${e.login_id ? ` (${e.login_id})` : ''}: ${e.message}`);
        const counts = `${r.created} to create, ${r.updated} to update, ${r.unchanged} unchanged`;
        if (!r.applied) {
          if (dryRun && (r.errors.length === 0 || values['skip-invalid'])) {
            io.out(
              `Dry run: ${r.rows} rows; ${counts}${r.skipped ? `, ${r.skipped} invalid rows skipped` : ''}. Nothing was written.`,
            );
            return 0;
          }
          io.err(
            `${new Set(r.errors.map((e) => e.line)).size} invalid rows: nothing was imported` +
              (dryRun ? ' (dry run).' : '. Fix them, or pass --skip-invalid to import the valid rows.'),
          );
          return 1;
        }
        let outFile: string | null = null;
        if (r.passwords.length) {
          outFile = path.resolve(
            io.cwd,
            s('passwords-out') ??
              `${file.replace(/\.csv$/i, '')}.passwords-${stamp(io.now?.() ?? new Date())}.csv`,
          );
          const body =
            CSV_BOM +
            csvRow(['login_id', 'password']) +
            r.passwords.map((p) => csvRow([p.login_id, p.password])).join('');
          // 'wx': never overwrite an earlier file of passwords; 0600: readable by this user only.
          await writeFile(outFile, body, { flag: 'wx', mode: 0o600 }).catch((e: NodeJS.ErrnoException) => {
            // The accounts exist now; without the file their passwords are lost, so say how to recover.
            io.err(
              `Could not write ${outFile} (${e.code ?? e.message}). The accounts were created; give them ` +
                'passwords with reset-password.',
            );
            throw e;
          });
        }
        await cliAudit(
          'account.imported',
          path.basename(file),
          JSON.stringify({ created: r.created, updated: r.updated }),
        );
        io.out(
          `Imported ${r.rows} rows: ${r.created} created, ${r.updated} updated, ${r.unchanged} unchanged` +
            `${r.skipped ? `, ${r.skipped} invalid rows skipped` : ''}.`,
        );
        if (outFile) io.out(`Generated passwords for ${r.passwords.length} new accounts: ${outFile}`);
        return 0;
      }
      case 'reset-password': {
        const loginId = required(s('login-id'), '--login-id');
        const password = values['password-stdin'] ? await passwordFromStdin(io) : undefined;
        const r = await resetPassword(db, loginId, password);
        await cliAudit('account.password_reset', loginId);
        io.out(`Password of ${loginId} reset; its sessions have ended.`);
        if (r.generatedPassword) io.out(`Password (shown once): ${r.generatedPassword}`);
        return 0;
      }
      case 'disable-user':
      case 'enable-user': {
        const loginId = required(s('login-id'), '--login-id');
        const disabled = command === 'disable-user';
        await setDisabled(db, loginId, disabled);
        await cliAudit(disabled ? 'account.disabled' : 'account.enabled', loginId);
        io.out(disabled ? `Disabled ${loginId}: login refused, sessions ended.` : `Enabled ${loginId}.`);
        return 0;
      }
      case 'list-groups': {
        for (const g of await listGroups(db)) io.out(`${g.code}\t${g.name}\t${g.user_count} accounts`);
        return 0;
      }
      case 'list-users': {
        const r = await listAccounts(db, {
          actor: s('actor') ? actorOf(s('actor')) : undefined,
          groupCode: s('group'),
          q: s('search'),
          perPage: 100_000,
        });
        for (const u of r.list)
          io.out(
            `${u.login_id}\t${u.name}\t${u.actor}\t${u.group_code ?? ''}\t${u.disabled ? 'disabled' : ''}`,
          );
        return 0;
      }
      case undefined:
      case 'help':
      case '--help':
        io.out(USAGE);
        return command ? 0 : 2;
      default:
        throw new UsageError(`Unknown command: ${command}`);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`${e.message}\n\n${USAGE}`);
      return 2;
    }
    if (e instanceof AccountError) {
      io.err(e.message);
      return 1;
    }
    throw e;
  }
}

async function readAll(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(typeof c === 'string' ? Buffer.from(c) : c);
  return Buffer.concat(chunks).toString('utf8');
}

/** `npm run admin -- …`: the server's configuration (.env included), its database, migrations applied. */
async function main(): Promise<number> {
  loadEnvFile();
  const config = loadConfig();
  const pgliteDir = path.join(config.dataDir, 'pglite');
  if (!config.databaseUrl) await mkdir(config.dataDir, { recursive: true });
  const lock = config.databaseUrl ? null : lockDataDir(config.dataDir);
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: pgliteDir });
  try {
    await migrate(db);
    return await runAdmin(process.argv.slice(2), db, {
      out: (l) => process.stdout.write(`${l}\n`),
      err: (l) => process.stderr.write(`${l}\n`),
      readStdin: () => readAll(process.stdin),
      cwd: process.env.INIT_CWD ?? process.cwd(),
    });
  } finally {
    await db.close();
    lock?.release();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : e);
      process.exit(1);
    },
  );
}
