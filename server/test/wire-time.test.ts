import { TZDate } from '@date-fns/tz';
import { format } from 'date-fns';
import { describe, expect, it } from 'vitest';
import { toWireTime, wireTimeFormatter } from '../src/lib/management-time';

const exact = (ms: number, zone: string) => format(new TZDate(ms, zone), "yyyy-MM-dd'T'HH:mm:ss.SSSxxx");

// Zones with daylight saving time (north and south, a 30-minute one), odd offsets (+05:45, -03:30, +12:45), a
// negative DST (Dublin), a zone that skipped a day (Apia, 2011) and one that changed its standard offset
// (Caracas, 2007 and 2016).
const ZONES = [
  'Asia/Tokyo',
  'Europe/London',
  'America/New_York',
  'Australia/Lord_Howe',
  'Asia/Kathmandu',
  'America/St_Johns',
  'Pacific/Chatham',
  'Europe/Dublin',
  'Pacific/Apia',
  'America/Caracas',
  'UTC',
];

describe('the wire format of a time', () => {
  it('is what date-fns writes, in every zone, at random instants from 1850 to 2150, every hour of a year and around its changes of offset', () => {
    // A fixed sequence, so a failure repeats.
    let seed = 12345;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const from = Date.UTC(1850, 0, 1);
    const to = Date.UTC(2150, 0, 1);
    for (const zone of ZONES) {
      const wire = wireTimeFormatter(zone);
      const instants: number[] = [];
      for (let i = 0; i < 1500; i++) instants.push(Math.floor(from + next() * (to - from)));
      // Every hour of 2026 (and of 2011 in Apia, the year it skipped a day), and every 61 s of the two hours
      // around each change of offset found, each a millisecond past a whole second.
      const years = zone === 'Pacific/Apia' ? [2011, 2026] : [2026];
      for (const year of years) {
        let before = '';
        for (let ms = Date.UTC(year, 0, 1) + 1; ms < Date.UTC(year + 1, 0, 1); ms += 3_600_000) {
          instants.push(ms);
          const offset = exact(ms, zone).slice(-6);
          if (before && offset !== before)
            for (let t = ms - 2 * 3_600_000; t <= ms; t += 61_000) instants.push(t);
          before = offset;
        }
      }
      const wrong = instants.filter((ms) => wire(ms) !== exact(ms, zone));
      expect(
        wrong.map((ms) => `${zone} ${new Date(ms).toISOString()}: ${wire(ms)} ≠ ${exact(ms, zone)}`),
      ).toEqual([]);
    }
  });

  it('reads the last and first millisecond of a change of offset on the right side', () => {
    // New York, 2026-03-08 02:00 EST → 03:00 EDT (07:00 UTC); 2026-11-01 02:00 EDT → 01:00 EST (06:00 UTC).
    const ny = wireTimeFormatter('America/New_York');
    expect(ny(Date.UTC(2026, 2, 8, 6, 59, 59, 999))).toBe('2026-03-08T01:59:59.999-05:00');
    expect(ny(Date.UTC(2026, 2, 8, 7, 0, 0, 0))).toBe('2026-03-08T03:00:00.000-04:00');
    expect(ny(Date.UTC(2026, 10, 1, 5, 59, 59, 999))).toBe('2026-11-01T01:59:59.999-04:00');
    expect(ny(Date.UTC(2026, 10, 1, 6, 0, 0, 0))).toBe('2026-11-01T01:00:00.000-05:00');
    // Lord Howe moves by 30 minutes: 2026-04-05 02:00 +11:00 → 01:30 +10:30 (15:00 UTC the day before).
    const lh = wireTimeFormatter('Australia/Lord_Howe');
    expect(lh(Date.UTC(2026, 3, 4, 14, 59, 59, 999))).toBe('2026-04-05T01:59:59.999+11:00');
    expect(lh(Date.UTC(2026, 3, 4, 15, 0, 0, 0))).toBe('2026-04-05T01:30:00.000+10:30');
  });

  it('writes midnight as 00, pads every field, and gives the same text again from its cache', () => {
    const tokyo = wireTimeFormatter('Asia/Tokyo');
    const midnight = Date.UTC(2026, 11, 31, 15, 0, 0, 7);
    expect(tokyo(midnight)).toBe('2027-01-01T00:00:00.007+09:00');
    expect(tokyo(midnight)).toBe('2027-01-01T00:00:00.007+09:00');
    expect(tokyo(Date.UTC(2026, 0, 1, 0, 1, 2, 30))).toBe('2026-01-01T09:01:02.030+09:00');
  });

  it('is exact outside the years it writes itself (before 1000, after 9999) and for local mean time', () => {
    const tokyo = wireTimeFormatter('Asia/Tokyo');
    for (const ms of [
      Date.UTC(999, 11, 31, 14, 59, 59, 999),
      Date.UTC(1880, 5, 1),
      Date.UTC(9999, 11, 31, 15),
    ])
      expect(tokyo(ms)).toBe(exact(ms, 'Asia/Tokyo'));
  });

  it('takes a Date, epoch milliseconds or text, and keeps null and unreadable values null', () => {
    const at = new Date('2026-11-25T08:19:42.435+09:00');
    expect(toWireTime(at)).toBe('2026-11-25T08:19:42.435+09:00');
    expect(toWireTime(at.getTime())).toBe('2026-11-25T08:19:42.435+09:00');
    expect(toWireTime('2026-11-24T23:19:42.435Z')).toBe('2026-11-25T08:19:42.435+09:00');
    expect(toWireTime(null)).toBeNull();
    expect(toWireTime(undefined)).toBeNull();
    expect(toWireTime('not a time')).toBeNull();
  });
});
