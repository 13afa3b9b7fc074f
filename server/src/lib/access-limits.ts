import type { FastifyInstance } from 'fastify';
import type { Actor } from '../../../contract/common';
import type { LimitRow } from './auth-cache';
import { confirmedHostOf, domainMatches, ipMatches } from './ip-match';

/** The host names of the configured public origins, lower case (invalid entries are ignored). */
export function publicHosts(app: FastifyInstance): string[] {
  const out = new Set<string>();
  for (const o of [app.config.publicOrigin, ...app.config.publicOrigins]) {
    try {
      out.add(new URL(o).hostname.toLowerCase());
    } catch {
      /* not an origin */
    }
  }
  return [...out];
}

/**
 * IP access limits (spec §3 "Access limit", actors 2–5): when rows exist for the actor (for every server,
 * `server` empty, or for this deployment: a host of its configured public origins), the caller must match
 * one by IP/CIDR or by a domain its address forward-confirms. No rows for the actor means no limit. The
 * request's own Host / X-Forwarded-Host never chooses the rules: a client could name any server there.
 */
export async function checkIpAllowed(app: FastifyInstance, actor: Actor, ip: string): Promise<boolean> {
  if (actor === 1) return true;
  let rows = app.authCache.accessLimits(actor);
  if (!rows) {
    rows = (
      await app.db.query<LimitRow>(
        `SELECT server, ip, domain FROM access_limits
          WHERE actor = $1 AND (server = '' OR lower(server) = ANY($2::text[]))`,
        [actor, publicHosts(app)],
      )
    ).rows;
    app.authCache.keepAccessLimits(actor, rows);
  }
  if (rows.length === 0) return true;
  for (const r of rows) if (r.ip && ipMatches(ip, r.ip)) return true;
  if (rows.some((r) => r.domain)) {
    const name = await confirmedHostOf(ip);
    for (const r of rows) if (r.domain && domainMatches(name, r.domain)) return true;
  }
  return false;
}
