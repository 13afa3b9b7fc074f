/** A validation failure: an i18n key with values; `fieldKey` (a label key) is translated into `field`. */
import type { TranslationKey } from '../../lib/translation-key';
export interface FieldMessage {
  key: TranslationKey;
  values?: Record<string, string | number> & { fieldKey?: TranslationKey };
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
export function dateError(v: string, fieldKey: TranslationKey): FieldMessage | undefined {
  const m = /^(\d{4,})-(\d{2})-(\d{2})/.exec(v);
  if (!m || Number(m[1]) > 9999) return { key: 'validation:date', values: { fieldKey } };
  return undefined;
}

/** The /logview search form; `from`/`to` as a datetime-local value (`yyyy-MM-ddTHH:mm`) or ''. */
export interface LogSearchForm {
  from: string;
  to: string;
  source: 'all' | 'client' | 'device' | 'audit' | 'server';
  actor: string;
  loginId: string;
  level: string;
  text: string;
}

const MINUTE = /^(\d{4})-(\d{2})-(\d{2})[T ](\d{2}):(\d{2})$/;

function minuteError(v: string, fieldKey: TranslationKey): FieldMessage | undefined {
  if (v === '') return undefined;
  const m = MINUTE.exec(v);
  const valid =
    m !== null &&
    (() => {
      const [y, mo, d, h, mi] = m.slice(1).map(Number) as [number, number, number, number, number];
      const date = new Date(Date.UTC(y, mo - 1, d, h, mi));
      return y >= 1 && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d && h < 24 && mi < 60;
    })();
  return valid ? undefined : { key: 'validation:date', values: { fieldKey } };
}

/** /logview rules: real dates and times, `to` not before `from`, text at most 200 characters. */
export function validateLogSearch(f: LogSearchForm): FieldErrors {
  const e: FieldErrors = {};
  const from = minuteError(f.from, 'management:logview.from');
  const to = minuteError(f.to, 'management:logview.to');
  if (from) e.from = from;
  if (to) e.to = to;
  if (!from && !to && f.from && f.to && f.from.replace('T', ' ') > f.to.replace('T', ' '))
    e.to = { key: 'management:logview.rangeOrder' };
  if ([...f.loginId.trim()].length > 64)
    e.loginId = {
      key: 'management:logview.tooLong',
      values: { fieldKey: 'management:logview.loginId', max: 64 },
    };
  if ([...f.text.trim()].length > 200)
    e.text = { key: 'management:logview.tooLong', values: { fieldKey: 'management:logview.text', max: 200 } };
  return e;
}

/** The /edit-terms form: which template, and its title, body (HTML) and footer URL. */
export interface TemplateForm {
  kind: string;
  templateId: string;
  lang: 'ja' | 'en';
  title: string;
  body: string;
  footerUrl: string;
}

/** /edit-terms rules: a template id of digits, a title, a body, and an http(s) footer URL when given. */
export function validateTemplate(f: TemplateForm): FieldErrors {
  const e: FieldErrors = {};
  if (!/^\d{1,9}$/.test(f.templateId.trim()))
    e.templateId = { key: 'validation:numeric', values: { fieldKey: 'management:terms.templateId' } };
  if (f.title.trim() === '')
    e.title = { key: 'validation:required', values: { fieldKey: 'management:terms.title' } };
  else if ([...f.title.trim()].length > 256)
    e.title = { key: 'management:logview.tooLong', values: { fieldKey: 'management:terms.title', max: 256 } };
  if (f.body.trim() === '')
    e.body = { key: 'validation:required', values: { fieldKey: 'management:terms.body' } };
  if (f.footerUrl.trim() !== '' && !isHttpUrl(f.footerUrl.trim()))
    e.footerUrl = { key: 'validation:url', values: { fieldKey: 'management:terms.footerUrl' } };
  return e;
}
