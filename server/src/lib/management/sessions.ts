/**
 * SQL condition for a live session `s` of user `u`: not revoked, not expired, and for managers (actor ≥ 3)
 * not idle longer than `$idleParam` seconds (the auth plugin's rule, perf-reliability §5).
 */
export function liveSessionSql(idleParam: string): string {
  return `s.revoked_at IS NULL AND s.expires_at > now()
    AND (u.actor < 3 OR s.last_seen_at > now() - ${idleParam}::int * interval '1 second')`;
}
