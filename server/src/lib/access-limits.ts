import type { FastifyInstance } from 'fastify';
import type { Actor } from '../../../contract/common';
import { domainMatches, hostOf, ipMatches } from './ip-match';

interface LimitRow {
  server: string;
  ip: string | null;
  domain: string | null;
}

/**
 * IP access limits (spec §3 "Access limit", actors 2–5): when rows exist for the actor (and for this auth
 * server, or for every server when `server` is empty), the caller must match one by IP/CIDR or by domain.
 * No rows for the actor means no limit.
 */
export async function checkIpAllowed(
  app: FastifyInstance,
  actor: Actor,
  ip: string,
  hostname: string,
): Promise<boolean> {
  if (actor === 1) return true;
  const host = hostname.split(':')[0]?.toLowerCase() ?? '';
  const { rows } = await app.db.query<LimitRow>(
    `SELECT server, ip, domain FROM access_limits WHERE actor = $1 AND (server = '' OR lower(server) = $2)`,
    [actor, host],
  );
  if (rows.length === 0) return true;
  for (const r of rows) if (r.ip && ipMatches(ip, r.ip)) return true;
  if (rows.some((r) => r.domain)) {
    const name = await hostOf(ip);
    for (const r of rows) if (r.domain && domainMatches(name, r.domain)) return true;
  }
  return false;
}
