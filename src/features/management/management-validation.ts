/** A validation failure: an i18n key with values; `fieldKey` (a label key) is translated into `field`. */
export interface FieldMessage {
  key: string;
  values?: Record<string, string | number>;
  /** The server's own message for the field (its `result.field`), shown as is instead of `key`. */
  text?: string;
}
export type FieldErrors = Partial<Record<string, FieldMessage>>;

const IPV4 =
  /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\/([0-9]|[12]\d|3[0-2]))?$/;
const HOST =
  /^(?=.{1,253}$)([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
/** An FQDN, optionally with a port (a local auth server such as localhost:5173 is allowed too). */
const SERVER =
  /^(localhost|[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+)(:\d{1,5})?$/;

export function isIpv4Rule(v: string): boolean {
  return IPV4.test(v);
}

/** Auth server rules of spec §5: no trailing slash; an FQDN. '' means every server / this server. */
export function serverError(v: string): FieldMessage | undefined {
  const s = v.trim();
  if (s === '') return undefined;
  if (s.endsWith('/')) return { key: 'validation:targetSlash' };
  if (!SERVER.test(s)) return { key: 'validation:targetFqdn' };
  return undefined;
}

export interface AccessLimitForm {
  server: string;
  ip: string;
  domain: string;
  actor: string;
}

/** spec §5 access-limit rules: exactly one of IP or domain; IPv4; domain form; target actor 2–5. */
export function validateAccessLimit(f: AccessLimitForm): FieldErrors {
  const e: FieldErrors = {};
  const ip = f.ip.trim();
  const domain = f.domain.trim();
  const server = serverError(f.server);
  if (server) e.server = server;
  if ((ip === '') === (domain === '')) e.ip = { key: 'validation:ipOrDomain' };
  else if (ip !== '' && !IPV4.test(ip)) e.ip = { key: 'validation:ipv4' };
  else if (domain !== '' && !HOST.test(domain)) e.domain = { key: 'validation:domain' };
  if (!['2', '3', '4', '5'].includes(f.actor)) e.actor = { key: 'validation:selectOne' };
  return e;
}

/** Retention days 1–36500 (the server's range). */
export function validateDays(v: string): FieldMessage | undefined {
  const t = v.trim();
  if (!/^\d{1,5}$/.test(t) || Number(t) < 1 || Number(t) > 36500) return { key: 'validation:retentionDays' };
  return undefined;
}

export function isHttpUrl(v: string): boolean {
  try {
    const u = new URL(v);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/** A date's year must not exceed 9999 (spec §5). */
export function dateError(v: string, fieldKey: string): FieldMessage | undefined {
  const m = /^(\d{4,})-(\d{2})-(\d{2})/.exec(v);
  if (!m || Number(m[1]) > 9999) return { key: 'validation:date', values: { fieldKey } };
  return undefined;
}
