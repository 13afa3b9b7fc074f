import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './db';

const dir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

// Any fixed 64-bit number: instances starting together (an upgrade) apply the migrations one at a time.
const MIGRATION_LOCK_KEY = 7_305_015;

async function migrationFiles(): Promise<string[]> {
  return (await readdir(dir)).filter((f) => /^\d{4}_.+\.sql$/.test(f)).sort();
}

async function appliedVersions(db: Db): Promise<Set<string>> {
  return new Set(
    (await db.query<{ version: string }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
  );
}

/**
 * Applies every `migrations/NNNN_name.sql` not yet applied, in order, each in its own transaction. On
 * PostgreSQL the whole run holds an advisory lock, so several instances starting at once (a rolling
 * upgrade) never apply the same file twice: the second waits, then finds nothing left to do. `then` runs
 * under the same lock after the files (start-up's demo seed, so two instances never seed it twice).
 */
export async function migrate(db: Db, then?: () => Promise<void>): Promise<string[]> {
  if (db.kind === 'postgres') {
    // One pooled connection holds the lock in an open transaction while others apply the files; the lock
    // ends with that transaction, also when this process dies.
    return db.transaction(async (lock) => {
      await lock.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
      const applied = await applyPending(db);
      await then?.();
      return applied;
    });
  }
  const applied = await applyPending(db);
  await then?.();
  return applied;
}

async function applyPending(db: Db): Promise<string[]> {
  await db.query(
    `CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())`,
  );
  const done = await appliedVersions(db);
  const applied: string[] = [];
  for (const f of await migrationFiles()) {
    if (done.has(f)) continue;
    const sql = await readFile(path.join(dir, f), 'utf8');
    await db.transaction(async (tx) => {
      await tx.exec(sql);
      await tx.query('INSERT INTO schema_migrations (version) VALUES ($1)', [f]);
    });
    applied.push(f);
  }
  return applied;
}

/** Migration files this build has that the database has not applied (empty when up to date). */
export async function pendingMigrations(db: Db): Promise<string[]> {
  const done = await appliedVersions(db).catch(() => new Set<string>());
  return (await migrationFiles()).filter((f) => !done.has(f));
}
