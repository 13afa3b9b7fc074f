import { isIPv4 } from 'node:net';
import dns from 'node:dns/promises';

function v4ToInt(ip: string): number {
  return ip.split('.').reduce((acc, o) => (acc << 8) + Number(o), 0) >>> 0;
}

/** Strips an IPv4-mapped IPv6 prefix (::ffff:1.2.3.4). */
export function normaliseIp(ip: string): string {
  return ip.startsWith('::ffff:') ? ip.slice(7) : ip;
}

/** True when `ip` equals `rule`, or lies in it when `rule` is an IPv4 CIDR (a.b.c.d/n). */
export function ipMatches(ipRaw: string, rule: string): boolean {
  const ip = normaliseIp(ipRaw);
  if (!rule.includes('/')) return ip === rule;
  const [base, bitsText] = rule.split('/');
  const bits = Number(bitsText);
  if (!base || !isIPv4(base) || !isIPv4(ip) || !Number.isInteger(bits) || bits < 0 || bits > 32) return false;
  const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
  return (v4ToInt(ip) & mask) === (v4ToInt(base) & mask);
}

const cache = new Map<string, { host: string | null; at: number }>();
/** Host name of an IP via getnameinfo (honours /etc/hosts), cached for 5 minutes, 1 s timeout. */
export async function hostOf(ipRaw: string): Promise<string | null> {
  const ip = normaliseIp(ipRaw);
  const hit = cache.get(ip);
  if (hit && Date.now() - hit.at < 300_000) return hit.host;
  let host: string | null;
  try {
    const r = await Promise.race([
      dns.lookupService(ip, 0),
      new Promise<never>((_, rej) => setTimeout(() => rej(new Error('timeout')), 1000)),
    ]);
    host = r.hostname.toLowerCase();
  } catch {
    host = null;
  }
  cache.set(ip, { host, at: Date.now() });
  return host;
}

/**
 * The host name of an IP only when it forward-confirms: the reverse lookup's name resolves back to this
 * address (whoever owns an address controls its PTR record, so the name alone proves nothing).
 */
export async function confirmedHostOf(ipRaw: string): Promise<string | null> {
  const host = await hostOf(ipRaw);
  if (!host) return null;
  const ip = normaliseIp(ipRaw);
  try {
    const addrs = await Promise.race([
      dns.lookup(host, { all: true }),
      new Promise<never>((_, rej) => setTimeout(() => rej(new Error('timeout')), 1000)),
    ]);
    return addrs.some((a) => normaliseIp(a.address) === ip) ? host : null;
  } catch {
    return null;
  }
}

export function domainMatches(host: string | null, domain: string): boolean {
  if (!host) return false;
  const d = domain.toLowerCase().replace(/^\*?\./, '');
  return host === d || host.endsWith('.' + d);
}
