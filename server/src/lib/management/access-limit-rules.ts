import type { Actor } from '../../../../contract/common';
import type { AccessLimitRow } from '../../../../contract/management';
import type { Db } from '../../db/db';
import { domainMatches, hostOf, ipMatches } from '../ip-match';
import { sqlWireTime } from '../management-time';

/** One access-limit rule (spec §3 "Access limit"): an IP/CIDR or a domain, for an actor, on a server or all. */
export interface AccessLimitRule {
  id: number;
  server: string;
  ip: string | null;
  domain: string | null;
  actor: number;
}

const ROW_COLUMNS = `id, server, ip, domain, actor::int AS actor, ${sqlWireTime('created_at')} AS created_at`;

/**
 * Whether `rules` let the caller in, by the auth plugin's rule (lib/access-limits.ts): the rules of the
 * caller's actor for this server (or every server) must include one matching its IP or host name; no
 * such rule means no limit. The settings page asks it of the rules as they would be after a change, so an
 * administrator cannot lock themself out.
 */
export async function rulesAdmit(
  rules: readonly AccessLimitRule[],
  actor: Actor,
  ip: string,
  hostname: string,
): Promise<boolean> {
  const host = hostname.split(':')[0]?.toLowerCase() ?? '';
  const applicable = rules.filter(
    (r) => r.actor === actor && (r.server === '' || r.server.toLowerCase() === host),
  );
  if (applicable.length === 0) return true;
  if (applicable.some((r) => r.ip && ipMatches(ip, r.ip))) return true;
  if (applicable.some((r) => r.domain)) {
    const name = await hostOf(ip);
    return applicable.some((r) => r.domain !== null && domainMatches(name, r.domain));
  }
  return false;
}

/** The rules of one actor, on every server. */
export async function accessLimitRulesOf(db: Db, actor: number): Promise<AccessLimitRule[]> {
  const { rows } = await db.query<AccessLimitRule>(
    'SELECT id, server, ip, domain, actor FROM access_limits WHERE actor = $1',
    [actor],
  );
  return rows;
}

/** Every rule, by actor and server. */
export async function listAccessLimits(db: Db): Promise<AccessLimitRow[]> {
  const { rows } = await db.query<AccessLimitRow>(
    `SELECT ${ROW_COLUMNS} FROM access_limits ORDER BY actor, server, id`,
  );
  return rows;
}

/** Stores a rule (validated by the caller). */
export async function insertAccessLimit(db: Db, rule: Omit<AccessLimitRule, 'id'>): Promise<AccessLimitRow> {
  const { rows } = await db.query<AccessLimitRow>(
    `INSERT INTO access_limits (server, ip, domain, actor) VALUES ($1, $2, $3, $4) RETURNING ${ROW_COLUMNS}`,
    [rule.server, rule.ip, rule.domain, rule.actor],
  );
  return rows[0]!;
}

/** Deletes the rules with these ids; how many there were. */
export async function deleteAccessLimits(db: Db, ids: readonly number[]): Promise<number> {
  const { rowCount } = await db.query('DELETE FROM access_limits WHERE id = ANY($1::bigint[])', [ids]);
  return rowCount;
}
