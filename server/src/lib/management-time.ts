import { TZDate } from '@date-fns/tz';
import { format } from 'date-fns';

/** The zone the product runs in when TIME_ZONE is not set: the product is Japanese (spec §1). */
export const DEFAULT_TIME_ZONE = 'Asia/Tokyo';

/** `name` when it is an IANA zone this runtime knows, else an Error naming it. */
export function resolveTimeZone(name: string | undefined): string {
  const tz = (name ?? '').trim() || DEFAULT_TIME_ZONE;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
  } catch {
    throw new Error(`TIME_ZONE is not a known IANA time zone: ${tz}`);
  }
  return tz;
}

/**
 * The deployment's time zone (TIME_ZONE, default Asia/Tokyo): the wall clock of search dates, of the offset
 * every timestamp is sent with, of CSV times and file names, of the retention day boundary, and (through
 * /config.json) of every time the SPA shows. One zone per process: it is read once, at start.
 */
export const MANAGEMENT_TIME_ZONE = resolveTimeZone(process.env.TIME_ZONE);

/**
 * The one wire format of a timestamp (README "Times"): ISO 8601 with milliseconds and the offset of the
 * deployment's zone, e.g. `2026-11-25T08:19:42.435+09:00`. Null stays null.
 */
export function toWireTime(v: Date | string | number | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  const ms = v instanceof Date ? v.getTime() : typeof v === 'number' ? v : Date.parse(v);
  if (!Number.isFinite(ms)) return null;
  return format(new TZDate(ms, MANAGEMENT_TIME_ZONE), "yyyy-MM-dd'T'HH:mm:ss.SSSxxx");
}

/**
 * SQL rendering a timestamptz expression in the wire format of toWireTime (the function `wire_time` of
 * migration 0040), for rows built in the database.
 */
export function sqlWireTime(expr: string): string {
  return `wire_time((${expr}), '${MANAGEMENT_TIME_ZONE}')`;
}

/**
 * SQL that renders a timestamptz expression as `yyyy-MM-dd HH:mm:ss` in MANAGEMENT_TIME_ZONE: the text of a
 * time in a CSV file, the same wall clock (to the second) the SPA shows for it.
 */
export function sqlDisplayTime(expr: string): string {
  return `to_char((${expr}) AT TIME ZONE '${MANAGEMENT_TIME_ZONE}', 'YYYY-MM-DD HH24:MI:SS')`;
}

/**
 * Parses `yyyy-MM-dd` or `yyyy/MM/dd` (an optional ` HH:mm:ss` is ignored) into a normalised
 * `yyyy-MM-dd`; null when the text is not a real calendar date or the year is outside 1–9999
 * (spec §5 "the year must not exceed 9999").
 */
export function parseDate(text: string): string | null {
  const m = /^(\d{1,5})[-/](\d{1,2})[-/](\d{1,2})(?:[ T]\d{2}:\d{2}(?::\d{2})?)?$/.exec(text.trim());
  if (!m) return null;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (y < 1 || y > 9999 || mo < 1 || mo > 12 || d < 1) return null;
  const days = new Date(Date.UTC(2000, mo, 0)).getUTCDate();
  const leap = (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
  if (d > (mo === 2 ? (leap ? 29 : 28) : days)) return null;
  return `${String(y).padStart(4, '0')}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')}`;
}

/** Parses `HH:mm` or `HH:mm:ss` into `HH:mm:ss`; null when invalid. */
export function parseTime(text: string): string | null {
  const m = /^(\d{1,2}):(\d{2})(?::(\d{2}))?$/.exec(text.trim());
  if (!m) return null;
  const [h, mi, s] = [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)];
  if (h > 23 || mi > 59 || s > 59) return null;
  return `${String(h).padStart(2, '0')}:${String(mi).padStart(2, '0')}:${String(s).padStart(2, '0')}`;
}

/** The calendar date (`yyyy-MM-dd`) of an instant in MANAGEMENT_TIME_ZONE. */
export function dateInZone(at: Date): string {
  const f = new Intl.DateTimeFormat('en-CA', {
    timeZone: MANAGEMENT_TIME_ZONE,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  });
  return f.format(at);
}

/** `yyyyMMddHHmmss` of an instant in MANAGEMENT_TIME_ZONE (spec §9 generated-id format), for file names. */
export function stampInZone(at: Date): string {
  const f = new Intl.DateTimeFormat('en-US', {
    timeZone: MANAGEMENT_TIME_ZONE,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
    hourCycle: 'h23',
  });
  const p: Record<string, string> = {};
  for (const part of f.formatToParts(at)) p[part.type] = part.value;
  return `${p.year}${p.month}${p.day}${p.hour}${p.minute}${p.second}`;
}
