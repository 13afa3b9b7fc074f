/**
 * The path (with query and hash) of `value` when it is a URL on this site, else null. Used by /redirect and
 * /iframe so that neither opens or embeds another site's page (an open redirect).
 */
export function sameOriginPath(
  value: string | null | undefined,
  origin: string = window.location.origin,
): string | null {
  const v = (value ?? '').trim();
  if (!v) return null;
  try {
    const u = new URL(v, origin);
    if (u.origin !== origin) return null;
    if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
    return `${u.pathname}${u.search}${u.hash}`;
  } catch {
    return null;
  }
}
