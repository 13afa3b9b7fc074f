import { afterEach, describe, expect, it } from 'vitest';
import {
  formatDate,
  formatDateTime,
  formatIso,
  formatLocalDateTime,
  formatStamp,
  msBetween,
  parseServerTime,
} from './dates';
import { setRuntimeConfig } from './runtime-config';
import { TZDate } from '@date-fns/tz';
import { lightFormat } from 'date-fns';

describe('formatLocalDateTime', () => {
  it('formats as yyyy-MM-dd HH:mm:ss with zero padding', () => {
    expect(formatLocalDateTime(new Date(2026, 0, 2, 3, 4, 5))).toBe('2026-01-02 03:04:05');
    expect(formatLocalDateTime(new Date(2026, 11, 31, 23, 59, 59))).toBe('2026-12-31 23:59:59');
  });
});

describe('server times in the deployment zone', () => {
  afterEach(() => setRuntimeConfig({}));

  it('shows an ISO time with an offset, and the same instant in UTC, as the same Tokyo wall clock', () => {
    setRuntimeConfig({ timeZone: 'Asia/Tokyo' });
    expect(formatDateTime('2026-11-24T23:19:42.435Z')).toBe('2026-11-25 08:19:42');
    expect(formatDateTime('2026-11-25T08:19:42.435+09:00')).toBe('2026-11-25 08:19:42');
    expect(formatIso('2026-11-24T23:19:42.435Z')).toBe('2026-11-25T08:19:42+09:00');
    expect(formatStamp('2026-11-24T23:19:42.435Z')).toBe('20261125081942');
  });

  it('reads a wall clock without an offset in the deployment zone', () => {
    setRuntimeConfig({ timeZone: 'Asia/Tokyo' });
    expect(new Date(parseServerTime('2026-11-25 08:19:42')).toISOString()).toBe('2026-11-24T23:19:42.000Z');
    expect(msBetween('2026-11-25 08:19:42', '2026-11-24T23:20:42Z')).toBe(60_000);
  });

  it('follows a configured zone, and falls back to Asia/Tokyo for an unknown one', () => {
    setRuntimeConfig({ timeZone: 'America/New_York' });
    expect(formatDateTime('2026-11-24T23:19:42Z')).toBe('2026-11-24 18:19:42');
    expect(formatIso('2026-11-24T23:19:42Z')).toBe('2026-11-24T18:19:42-05:00');
    expect(formatIso('2026-07-01T12:00:00Z')).toBe('2026-07-01T08:00:00-04:00');
    setRuntimeConfig({ timeZone: 'Asia/Kolkata' });
    expect(formatIso('2026-11-24T23:19:42Z')).toBe('2026-11-25T04:49:42+05:30');
    setRuntimeConfig({ timeZone: 'UTC' });
    expect(formatIso('2026-11-24T23:19:42Z')).toBe('2026-11-24T23:19:42+00:00');
    setRuntimeConfig({ timeZone: 'Not/AZone' });
    expect(formatDateTime('2026-11-24T23:19:42Z')).toBe('2026-11-25 08:19:42');
  });

  it('gives empty text for a missing or unreadable time, never the raw text', () => {
    expect(formatDateTime(null)).toBe('');
    expect(formatDateTime('garbage')).toBe('');
  });

  it('reads a wall clock in a zone with daylight saving time, before, during and after the change', () => {
    setRuntimeConfig({ timeZone: 'America/New_York' });
    expect(new Date(parseServerTime('2026-07-01 08:00:00')).toISOString()).toBe('2026-07-01T12:00:00.000Z');
    expect(new Date(parseServerTime('2026-03-08 01:30:00')).toISOString()).toBe('2026-03-08T06:30:00.000Z');
    expect(new Date(parseServerTime('2026-03-08 03:30:00')).toISOString()).toBe('2026-03-08T07:30:00.000Z');
    expect(new Date(parseServerTime('2026-11-01 12:00:00.5')).toISOString()).toBe('2026-11-01T17:00:00.500Z');
  });

  it('writes midnight as 00, not 24', () => {
    setRuntimeConfig({ timeZone: 'Asia/Tokyo' });
    expect(formatDateTime('2026-11-24T15:00:00Z')).toBe('2026-11-25 00:00:00');
    expect(formatDate('2026-11-24T15:00:00Z')).toBe('2026-11-25');
  });

  it('gives the texts date-fns and @date-fns/tz gave, in several zones through a year', () => {
    for (const zone of [
      'Asia/Tokyo',
      'America/New_York',
      'Europe/London',
      'Asia/Kolkata',
      'Australia/Lord_Howe',
    ]) {
      setRuntimeConfig({ timeZone: zone });
      for (let ms = Date.UTC(2026, 0, 1); ms < Date.UTC(2027, 0, 1); ms += 3_601_234 * 7) {
        const d = new TZDate(ms, zone);
        const offset = -d.getTimezoneOffset();
        const sign = offset < 0 ? '-' : '+';
        const abs = Math.abs(offset);
        const hhmm = `${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
        expect(formatDateTime(ms)).toBe(lightFormat(d, 'yyyy-MM-dd HH:mm:ss'));
        expect(formatStamp(ms)).toBe(lightFormat(d, 'yyyyMMddHHmmss'));
        expect(formatIso(ms)).toBe(`${lightFormat(d, "yyyy-MM-dd'T'HH:mm:ss")}${sign}${hhmm}`);
        const wall = lightFormat(d, 'yyyy-MM-dd HH:mm:ss');
        const [y, mo, day, h, mi, sec] = wall.split(/[- :]/).map(Number) as number[];
        const back = new TZDate(y!, mo! - 1, day!, h!, mi!, sec!, zone);
        expect(parseServerTime(wall)).toBe(back.getTime());
      }
    }
  });
});
