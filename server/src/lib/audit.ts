import { createHash } from 'node:crypto';
import type { Db } from '../db/db';

/** One audit event (perf-reliability §5: who, from where, on what; ids only, no personal data). */
export interface AuditEvent {
  /** Event name, e.g. 'auth.login'. */
  type: string;
  actor?: number | null;
  userId?: number | null;
  loginId?: string | null;
  ip?: string | null;
  /** What the action applied to (an id or a short key). */
  target?: string | null;
  /** Short free text or a JSON string; cut to 1024 characters. */
  details?: string | null;
  /** 'info' by default; failures use 'warn'. */
  level?: 'info' | 'warn';
}

// Any fixed 64-bit number: serialises appenders on PostgreSQL so two requests cannot fork the chain.
const AUDIT_LOCK_KEY = 7_305_001;
const GENESIS = '0'.repeat(64);
const DETAILS_MAX = 1024;

interface AuditRow {
  id: number;
  type: string;
  level: string;
  actor: number | null;
  user_id: number | null;
  login_id: string | null;
  ip: string | null;
  location: string;
  details: string;
  prev_hash: string | null;
  hash: string | null;
  created_at: Date | string;
}

function chainHash(prevHash: string, e: Omit<AuditRow, 'id' | 'prev_hash' | 'hash'>): string {
  const createdAt = new Date(e.created_at).toISOString();
  const canonical = JSON.stringify([
    prevHash,
    createdAt,
    e.type,
    e.level,
    e.actor,
    e.user_id,
    e.login_id,
    e.ip,
    e.location,
    e.details,
  ]);
  return createHash('sha256').update(canonical, 'utf8').digest('hex');
}

/**
 * Appends an event to the audit trail: a `logs` row with source 'audit' whose `hash` is the SHA-256 of the
 * previous audit row's hash and this row's fields, so an edited or deleted row breaks the chain
 * (perf-reliability §5 "append-only and hash-chained"). The target is stored in `location`.
 */
export async function audit(db: Db, e: AuditEvent): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [AUDIT_LOCK_KEY]);
    const last = await tx.query<{ hash: string | null }>(
      `SELECT hash FROM logs WHERE source = 'audit' ORDER BY id DESC LIMIT 1`,
    );
    const prev = last.rows[0]?.hash ?? GENESIS;
    const row = {
      type: e.type,
      level: e.level ?? 'info',
      actor: e.actor ?? null,
      user_id: e.userId ?? null,
      login_id: e.loginId ?? null,
      ip: e.ip ?? null,
      location: (e.target ?? '').slice(0, 256),
      details: (e.details ?? '').slice(0, DETAILS_MAX),
      // Millisecond precision, stored as is, so the hash can be recomputed from the row.
      created_at: new Date().toISOString(),
    };
    await tx.query(
      `INSERT INTO logs (source, type, level, actor, user_id, login_id, ip, location, details, prev_hash, hash, created_at)
       VALUES ('audit', $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [
        row.type,
        row.level,
        row.actor,
        row.user_id,
        row.login_id,
        row.ip,
        row.location,
        row.details,
        prev,
        chainHash(prev, row),
        row.created_at,
      ],
    );
  });
}

/** Result of walking the audit chain: `brokenAt` is the id of the first row that does not verify. */
export interface AuditChainCheck {
  ok: boolean;
  count: number;
  brokenAt?: number;
}

/** Recomputes the whole audit chain in id order; for tests and an operator's integrity check. */
export async function verifyAuditChain(db: Db): Promise<AuditChainCheck> {
  const { rows } = await db.query<AuditRow>(
    `SELECT id, type, level, actor, user_id, login_id, ip, location, details, prev_hash, hash, created_at
       FROM logs WHERE source = 'audit' ORDER BY id`,
  );
  let prev = GENESIS;
  for (const r of rows) {
    if (r.prev_hash !== prev || r.hash !== chainHash(prev, r))
      return { ok: false, count: rows.length, brokenAt: r.id };
    prev = r.hash;
  }
  return { ok: true, count: rows.length };
}
