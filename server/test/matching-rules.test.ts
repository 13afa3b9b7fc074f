import { describe, expect, it } from 'vitest';
import { compareCheckers, fairShare, statsJson, toId, type CheckerLoad } from '../src/lib/matching-engine';
import {
  isProctored,
  matchingTimeoutOf,
  monitorMemo,
  paramInt,
  publicStartupParameters,
  retryLimitOf,
  testerStatusName,
} from '../src/lib/matching-rows';
import { LAG_WINDOW_MS, LagMeter } from '../src/lib/matching-lag';
import { loadMatchingSettings } from '../src/lib/matching-settings';

const settings = loadMatchingSettings({});

function c(id: number, load: number, last: string | null = null): CheckerLoad {
  return { checker_id: id, load, last_assigned_at: last };
}

describe('fair share', () => {
  it('deals waiting testers evenly over idle checkers (4/4/4 of 12)', () => {
    const all = [c(1, 0), c(2, 0), c(3, 0)];
    expect([1, 2, 3].map((me) => fairShare(all, me, 12))).toEqual([4, 4, 4]);
  });

  it('fills the least loaded first and never past five', () => {
    const all = [c(1, 4), c(2, 1), c(3, 5)];
    expect(fairShare(all, 2, 3)).toBe(3);
    expect(fairShare(all, 1, 3)).toBe(0);
    expect(fairShare(all, 2, 20)).toBe(4);
    expect(fairShare(all, 1, 20)).toBe(1);
    expect(fairShare(all, 3, 20)).toBe(0);
  });

  it('breaks ties by the longest idle, then by id', () => {
    const a = c(1, 2, '2024-01-01T00:00:02Z');
    const b = c(2, 2, '2024-01-01T00:00:01Z');
    const never = c(3, 2, null);
    expect([a, b, never].sort(compareCheckers).map((x) => x.checker_id)).toEqual([3, 2, 1]);
    expect(fairShare([a, b], 2, 1)).toBe(1);
    expect(fairShare([c(5, 0), c(4, 0)], 4, 1)).toBe(1);
  });
});

describe('lag meter', () => {
  it("answers the time 95 % of the last minute's polls took at most, never by its one slowest, and forgets older ones", () => {
    let now = 1_000_000 * LAG_WINDOW_MS;
    const meter = new LagMeter({ now: () => now });
    expect(meter.lagMs()).toBe(0);
    // One slow call among quick ones does not count: 99 polls of 50 ms and one of a minute.
    for (let i = 0; i < 99; i++) meter.note(50);
    meter.note(60_000);
    expect(meter.lagMs()).toBe(54); // the 50 ms bin's upper edge (bins span about 9 %)
    // A server that queues a tenth of its polls for 10 s: that is the lag its examinees see, not the mean.
    now += LAG_WINDOW_MS / 2;
    for (let i = 0; i < 20; i++) meter.note(10_000);
    expect(meter.lagMs()).toBe(10_624);
    // The first half of the window passes: only the slow polls are left.
    now += LAG_WINDOW_MS / 2 + LAG_WINDOW_MS / 10;
    expect(meter.lagMs()).toBe(10_624);
    now += LAG_WINDOW_MS;
    expect(meter.lagMs()).toBe(0);
  });
});

describe('start-up parameters', () => {
  it('reads integers from numbers, numeric strings and booleans', () => {
    expect(paramInt({ a: 3, b: '4', c: true, d: 'x', e: '' }, 'a', 0)).toBe(3);
    expect(paramInt({ b: '4' }, 'b', 0)).toBe(4);
    expect(paramInt({ c: true }, 'c', 0)).toBe(1);
    expect(paramInt({ d: 'x' }, 'd', 9)).toBe(9);
    expect(paramInt({ e: '' }, 'e', 9)).toBe(9);
    expect(paramInt(null, 'a', 7)).toBe(7);
  });

  it('treats proctoring as on unless is_proctor is 0', () => {
    expect(isProctored({})).toBe(true);
    expect(isProctored({ is_proctor: 1 })).toBe(true);
    expect(isProctored({ is_proctor: 0 })).toBe(false);
    expect(isProctored({ is_proctor: '0' })).toBe(false);
    expect(isProctored({ is_proctor: false })).toBe(false);
  });

  it('bounds matching_timeout and retry limits', () => {
    expect(matchingTimeoutOf({}, settings)).toBe(5);
    expect(matchingTimeoutOf({ matching_timeout: 12 }, settings)).toBe(12);
    expect(matchingTimeoutOf({ matching_timeout: 0 }, settings)).toBe(5);
    expect(matchingTimeoutOf({ matching_timeout: 100000 }, settings)).toBe(300);
    expect(retryLimitOf({ tester_retry: '2' }, 'tester_retry', 3)).toBe(2);
    expect(retryLimitOf({ tester_retry: -1 }, 'tester_retry', 3)).toBe(3);
  });

  it('reads parameters stored as JSON text, and ignores other shapes', () => {
    expect(isProctored('{"is_proctor":0}')).toBe(false);
    expect(publicStartupParameters('{"memo":"m"}')).toEqual({ memo: 'm' });
    expect(publicStartupParameters('not json')).toEqual({});
    expect(publicStartupParameters([1, 2])).toEqual({});
  });

  it('strips secrets before anyone else sees the parameters', () => {
    expect(
      publicStartupParameters({
        password: 'p',
        accessToken: 't',
        access_token: 't',
        exam_url: '/x',
        memo: 'm',
      }),
    ).toEqual({
      exam_url: '/x',
      memo: 'm',
    });
  });

  it('strips surrounding quotes of a monitor memo (spec §5)', () => {
    expect(monitorMemo('"note"')).toBe('note');
    expect(monitorMemo('""')).toBe('');
    expect(monitorMemo("''")).toBe('');
    expect(monitorMemo('plain')).toBe('plain');
    expect(monitorMemo('"unbalanced')).toBe('"unbalanced');
    expect(monitorMemo(undefined)).toBe('');
    expect(monitorMemo(12)).toBe('12');
  });

  it('names tester states (spec §4)', () => {
    expect(testerStatusName(2)).toBe('MATCHED');
    expect(testerStatusName(7)).toBe('FINISH_EXAM');
    expect(testerStatusName(9)).toBe('UNKNOWN');
  });
});

describe('wire values', () => {
  it('accepts safe positive ids only', () => {
    expect(toId('12', 'x')).toBe(12);
    expect(() => toId(0, 'x')).toThrow();
    expect(() => toId('99999999999999999', 'x')).toThrow();
  });

  it('refuses oversized or unstorable stats', () => {
    expect(statsJson(undefined)).toBeNull();
    expect(statsJson({ rtt: 1 })).toBe('{"rtt":1}');
    expect(() => statsJson({ a: 'x'.repeat(9000) })).toThrow(/exceeds/);
    expect(() => statsJson({ a: '\u0000' })).toThrow(/NUL/);
  });
});

describe('settings', () => {
  it('reads the environment and refuses nonsense', () => {
    expect(loadMatchingSettings({ MATCHING_TIMEOUT_SECONDS: '8', KVS_REGION: 'us-east-1' })).toMatchObject({
      defaultTimeoutSeconds: 8,
      region: 'us-east-1',
    });
    expect(() => loadMatchingSettings({ MATCHING_TIMEOUT_SECONDS: '0' })).toThrow();
  });
});
