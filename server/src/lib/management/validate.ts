import { isIPv4 } from 'node:net';

const LABEL = '[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?';
const HOST = new RegExp(`^(?=.{1,253}$)${LABEL}(?:\\.${LABEL})*$`);
const DOMAIN = new RegExp(`^(?:\\*\\.)?(?=.{1,253}$)${LABEL}(?:\\.${LABEL})+$`);

/** An IPv4 address, or an IPv4 CIDR block a.b.c.d/n (the access-limit matcher accepts both). */
export function isIpv4Rule(s: string): boolean {
  const [addr, bits, extra] = s.split('/');
  if (extra !== undefined || !addr || !isIPv4(addr)) return false;
  return bits === undefined || (/^[0-9]{1,2}$/.test(bits) && Number(bits) <= 32);
}

/** A domain name of at least two labels, optionally starting with `*.` (spec §5 "domain: must look like {host}"). */
export function isDomain(s: string): boolean {
  return DOMAIN.test(s);
}

/**
 * An auth-server name: an FQDN (a single label such as `localhost` is accepted for local set-ups) or an
 * IPv4 address, without scheme, port, path or trailing slash (spec §5).
 */
export function isServerName(s: string): boolean {
  return isIPv4(s) || HOST.test(s);
}

/** An absolute http(s) URL with a host (spec §5 "url: must be http(s)"). */
export function isHttpUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '' && !/\s/.test(s);
  } catch {
    return false;
  }
}
