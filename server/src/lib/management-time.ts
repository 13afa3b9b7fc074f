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

const WIRE_PATTERN = "yyyy-MM-dd'T'HH:mm:ss.SSSxxx";
/** How long a stretch of time one looked-up offset serves (zones change offset on quarter hours at most). */
const OFFSET_SPAN_MS = 15 * 60_000;
const OFFSET_CACHE_MAX = 4096;
const pad2 = (n: number) => (n < 10 ? `0${n}` : String(n));

/**
 * The wire format of instants in one zone (`toWireTime` for the deployment's): ISO 8601 with milliseconds and
 * the zone's offset then. The same text as date-fns `format(new TZDate(ms, zone), "yyyy-MM-dd'T'HH:mm:ss.SSSxxx")`,
 * which costs a zone lookup per field; here the zone's offset is looked up once per quarter hour (kept for the
 * quarter hours asked for, at most 4,096 of them) and the fields are read off the shifted instant. A quarter hour
 * whose offset is not the same whole minutes at its start and its end (a zone's change of offset inside it, or
 * a local mean time of the 19th century) and years outside 1000–9999 go to date-fns, which is exact.
 */
export function wireTimeFormatter(zone: string): (ms: number) => string {
  const parts = new Intl.DateTimeFormat('en-US', {
    timeZone: zone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    era: 'short',
  });
  /** The zone's offset from UTC at a whole second, in seconds. */
  const offsetSecondsAt = (ms: number): number => {
    const p: Record<string, number> = {};
    let bc = false;
    for (const x of parts.formatToParts(ms)) {
      if (x.type === 'era') bc = x.value === 'BC';
      else if (x.type !== 'literal') p[x.type] = Number(x.value);
    }
    const year = bc ? 1 - p.year! : p.year!;
    const wall = Date.UTC(year, p.month! - 1, p.day!, p.hour! % 24, p.minute!, p.second!);
    // Date.UTC reads years 0–99 as 1900–1999.
    const fixed = year >= 0 && year < 100 ? new Date(wall).setUTCFullYear(year) : wall;
    return Math.round((fixed - ms) / 1000);
  };
  /** Offset in minutes for the quarter hour, or NaN when it changes inside it or is not whole minutes. */
  const spans = new Map<number, number>();
  const offsetMinutes = (ms: number): number => {
    const span = Math.floor(ms / OFFSET_SPAN_MS);
    let minutes = spans.get(span);
    if (minutes === undefined) {
      const start = span * OFFSET_SPAN_MS;
      const a = offsetSecondsAt(start);
      const b = offsetSecondsAt(start + OFFSET_SPAN_MS - 1000);
      minutes = a === b && a % 60 === 0 ? a / 60 : Number.NaN;
      if (spans.size >= OFFSET_CACHE_MAX) spans.clear();
      spans.set(span, minutes);
    }
    return minutes;
  };
  return (ms) => {
    const minutes = offsetMinutes(ms);
    const d = new Date(ms + minutes * 60_000);
    const y = d.getUTCFullYear();
    if (!Number.isFinite(minutes) || y < 1000 || y > 9999) return format(new TZDate(ms, zone), WIRE_PATTERN);
    const abs = Math.abs(minutes);
    const msPart = d.getUTCMilliseconds();
    return (
      `${y}-${pad2(d.getUTCMonth() + 1)}-${pad2(d.getUTCDate())}T${pad2(d.getUTCHours())}:` +
      `${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())}.${msPart < 10 ? '00' : msPart < 100 ? '0' : ''}${msPart}` +
      `${minutes < 0 ? '-' : '+'}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)}`
    );
  };
}

const wireTime = wireTimeFormatter(MANAGEMENT_TIME_ZONE);

/**
 * The one wire format of a timestamp (README "Times"): ISO 8601 with milliseconds and the offset of the
 * deployment's zone, e.g. `2026-11-25T08:19:42.435+09:00`. Null stays null.
 */
export function toWireTime(v: Date | string | number | null | undefined): string | null {
  if (v === null || v === undefined) return null;
  const ms = v instanceof Date ? v.getTime() : typeof v === 'number' ? v : Date.parse(v);
  if (!Number.isFinite(ms)) return null;
  return wireTime(ms);
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
