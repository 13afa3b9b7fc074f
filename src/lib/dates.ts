import { getRuntimeConfig } from './runtime-config';

// Times are formatted with the browser's Intl (the deployment's zone included), not date-fns and
// @date-fns/tz: every pattern here is numeric, so a wall clock's six numbers are all it takes, and the pages
// that show times (the examinee's chat, the checker's panes) do not carry ≈ 3 KB gzip of date code.

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A wall clock: year, month (1–12), day, hours (0–23), minutes, seconds. */
type WallClock = readonly [number, number, number, number, number, number];

const stamp = ([y, mo, d, h, mi, s]: WallClock, dateSep: string, between: string, timeSep: string) =>
  `${pad(y, 4)}${dateSep}${pad(mo)}${dateSep}${pad(d)}${between}${pad(h)}${timeSep}${pad(mi)}${timeSep}${pad(s)}`;

/**
 * Local time as `yyyy-MM-dd HH:mm:ss` (spec §3 "Log entry" timestamp: the browser's own clock and zone).
 */
export function formatLocalDateTime(d: Date): string {
  const wall: WallClock = [
    d.getFullYear(),
    d.getMonth() + 1,
    d.getDate(),
    d.getHours(),
    d.getMinutes(),
    d.getSeconds(),
  ];
  return stamp(wall, '-', ' ', ':');
}

/** The zone every time is shown in: the deployment's (/config.json `timeZone`, default Asia/Tokyo). */
export function displayTimeZone(): string {
  return getRuntimeConfig().timeZone;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** The wall clock of an instant in an IANA zone (the zone was checked by runtime-config). */
function wallClockIn(ms: number, zone: string): WallClock {
  let f = formatters.get(zone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    formatters.set(zone, f);
  }
  const part: Record<string, number> = {};
  for (const p of f.formatToParts(ms)) part[p.type] = Number(p.value);
  // `% 24`: some engines wrote midnight as 24 with a 24-hour clock.
  return [part.year!, part.month!, part.day!, part.hour! % 24, part.minute!, part.second!];
}

/** The wall clock read as if it were UTC, in epoch milliseconds. */
const asUtc = ([y, mo, d, h, mi, s]: WallClock, ms = 0) => Date.UTC(y, mo - 1, d, h, mi, s, ms);

/** The zone's offset from UTC at an instant, in minutes (Tokyo +540). */
function offsetMinutes(ms: number, zone: string): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return Math.round((asUtc(wallClockIn(whole, zone)) - whole) / 60_000);
}

const WALL_CLOCK = /^(\d{4})[-/](\d{2})[-/](\d{2})[ T](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?$/;

/**
 * A server timestamp as epoch milliseconds, NaN when absent or unreadable. The reference server sends ISO
 * 8601 with an offset (README "Times"); a wall-clock `yyyy-MM-dd HH:mm:ss` without one (as an older API
 * may send) is read in the deployment's zone.
 */
export function parseServerTime(v: string | number | Date | null | undefined): number {
  if (v === null || v === undefined || v === '') return Number.NaN;
  if (typeof v === 'number') return v;
  if (v instanceof Date) return v.getTime();
  const m = WALL_CLOCK.exec(v.trim());
  if (m) {
    const [y, mo, d, h, mi, s] = m.slice(1, 7).map((x) => Number(x ?? 0)) as number[];
    const ms = m[7] ? Math.floor(Number(`0.${m[7]}`) * 1000) : 0;
    const wall = asUtc([y!, mo!, d!, h!, mi!, s!], ms);
    // The zone's offset at that wall clock: guessed from the wall clock read as UTC, then checked at the
    // instant it gives (they differ only near a change of offset, e.g. daylight saving time).
    const zone = displayTimeZone();
    const guess = wall - offsetMinutes(wall, zone) * 60_000;
    return wall - offsetMinutes(guess, zone) * 60_000;
  }
  return Date.parse(v);
}

/** A server time's wall clock in the deployment's zone and that zone's offset then; null when absent. */
function inZone(v: string | number | Date | null | undefined): { wall: WallClock; offset: number } | null {
  const ms = parseServerTime(v);
  if (!Number.isFinite(ms)) return null;
  const zone = displayTimeZone();
  return { wall: wallClockIn(ms, zone), offset: offsetMinutes(ms, zone) };
}

/** An offset in minutes as `+09:00` (date-fns `xxx`). */
function offsetText(minutes: number): string {
  const abs = Math.abs(minutes);
  return `${minutes < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** `yyyy-MM-dd HH:mm:ss` in the deployment's zone (the text the CSV files hold too); '' when absent. */
export const formatDateTime = (v: string | number | Date | null | undefined): string => {
  const t = inZone(v);
  return t ? stamp(t.wall, '-', ' ', ':') : '';
};

/** `yyyy-MM-dd` in the deployment's zone; '' when absent. */
export const formatDate = (v: string | number | Date | null | undefined): string =>
  formatDateTime(v).slice(0, 10);

/** ISO 8601 with the deployment zone's offset (for `<time dateTime>`); '' when absent. */
export const formatIso = (v: string | number | Date | null | undefined): string => {
  const t = inZone(v);
  return t ? stamp(t.wall, '-', 'T', ':') + offsetText(t.offset) : '';
};

/** spec §9 generated ids: `yyyyMMddHHmmss` in the deployment's zone (report file names). */
export const formatStamp = (v: string | number | Date | null | undefined): string => {
  const t = inZone(v);
  return t ? stamp(t.wall, '', '', '') : '';
};

/** Milliseconds from one server time to another (NaN when either is missing). */
export function msBetween(from: string | null | undefined, to: string | null | undefined): number {
  return parseServerTime(to) - parseServerTime(from);
}
