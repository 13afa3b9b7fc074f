import { TZDate } from '@date-fns/tz';
import { lightFormat } from 'date-fns';
import { getRuntimeConfig } from './runtime-config';

/**
 * Local time as `yyyy-MM-dd HH:mm:ss` (spec §3 "Log entry" timestamp: the browser's own clock and zone).
 */
export function formatLocalDateTime(d: Date): string {
  return lightFormat(d, 'yyyy-MM-dd HH:mm:ss');
}

/** The zone every time is shown in: the deployment's (/config.json `timeZone`, default Asia/Tokyo). */
export function displayTimeZone(): string {
  return getRuntimeConfig().timeZone;
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
    return new TZDate(y!, mo! - 1, d!, h!, mi!, s!, ms, displayTimeZone()).getTime();
  }
  return Date.parse(v);
}

// Every pattern here is numeric, so date-fns' lightFormat does: `format` would bring its locale tables (≈ 5 KB
// gzip) to every page that shows a time, the examinee's chat included.
function inZone(
  v: string | number | Date | null | undefined,
  pattern: string,
  suffix?: (d: TZDate) => string,
) {
  const ms = parseServerTime(v);
  if (!Number.isFinite(ms)) return '';
  const d = new TZDate(ms, displayTimeZone());
  return lightFormat(d, pattern) + (suffix?.(d) ?? '');
}

/** The zone's offset at that moment as `+09:00` (date-fns `xxx`). */
function offsetOf(d: TZDate): string {
  const minutes = -d.getTimezoneOffset();
  const abs = Math.abs(minutes);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${minutes < 0 ? '-' : '+'}${pad(Math.floor(abs / 60))}:${pad(abs % 60)}`;
}

/** `yyyy-MM-dd HH:mm:ss` in the deployment's zone (the text the CSV files hold too); '' when absent. */
export const formatDateTime = (v: string | number | Date | null | undefined): string =>
  inZone(v, 'yyyy-MM-dd HH:mm:ss');

/** `yyyy-MM-dd` in the deployment's zone; '' when absent. */
export const formatDate = (v: string | number | Date | null | undefined): string => inZone(v, 'yyyy-MM-dd');

/** ISO 8601 with the deployment zone's offset (for `<time dateTime>`); '' when absent. */
export const formatIso = (v: string | number | Date | null | undefined): string =>
  inZone(v, "yyyy-MM-dd'T'HH:mm:ss", offsetOf);

/** spec §9 generated ids: `yyyyMMddHHmmss` in the deployment's zone (report file names). */
export const formatStamp = (v: string | number | Date | null | undefined): string =>
  inZone(v, 'yyyyMMddHHmmss');

/** Milliseconds from one server time to another (NaN when either is missing). */
export function msBetween(from: string | null | undefined, to: string | null | undefined): number {
  return parseServerTime(to) - parseServerTime(from);
}
