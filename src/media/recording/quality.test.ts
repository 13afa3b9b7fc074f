import { describe, expect, it } from 'vitest';
import {
  AUDIO_LEVEL_MB_PER_HOUR,
  VIDEO_LEVEL_MB_PER_HOUR,
  bitratesFor,
  chooseMimeType,
  mbPerHourToBitsPerSecond,
  timesliceFor,
  timesliceRuleFor,
} from './quality';

/** isTypeSupported as measured on the project's Debian Chromium 156 (media-stack.md §5). */
const CHROMIUM = new Set([
  'video/webm;codecs=vp9,opus',
  'video/webm;codecs=vp9',
  'video/webm;codecs=vp8,opus',
  'video/webm;codecs=vp8',
  'video/webm;codecs=avc1,opus',
  'video/webm;codecs=avc1',
  'video/webm;codecs=h264',
  'video/webm;codecs=av1,opus',
  'video/webm;codecs=av1',
  'video/mp4;codecs=avc1',
  'video/mp4;codecs=avc1,opus',
  'video/webm',
  'video/mp4',
]);
/** Firefox: WebM VP8/VP9 with Opus, no H.264 recording. */
const FIREFOX = new Set([
  'video/webm;codecs=vp9,opus',
  'video/webm;codecs=vp9',
  'video/webm;codecs=vp8,opus',
  'video/webm;codecs=vp8',
  'video/webm',
]);
/** Safari 17: MP4 with H.264 and AAC only. */
const SAFARI = new Set(['video/mp4;codecs=avc1,mp4a.40.2', 'video/mp4;codecs=avc1', 'video/mp4']);

const stub = (supported: Set<string>) => (t: string) => supported.has(t);

describe('chooseMimeType', () => {
  it('resolves the spec §9 list to vp9+opus WebM on Chromium', () => {
    expect(chooseMimeType(null, stub(CHROMIUM))).toBe('video/webm;codecs=vp9,opus');
    expect(chooseMimeType('', stub(CHROMIUM))).toBe('video/webm;codecs=vp9,opus');
  });

  it('puts the start-up codec first', () => {
    expect(chooseMimeType('vp8', stub(CHROMIUM))).toBe('video/webm;codecs=vp8,opus');
    expect(chooseMimeType('av1', stub(CHROMIUM))).toBe('video/webm;codecs=av1,opus');
    expect(chooseMimeType('h264', stub(CHROMIUM))).toBe('video/mp4;codecs=avc1,opus');
    expect(chooseMimeType('video/webm;codecs=vp8', stub(CHROMIUM))).toBe('video/webm;codecs=vp8');
  });

  it('skips an unsupported start-up codec', () => {
    expect(chooseMimeType('hvc1', stub(CHROMIUM))).toBe('video/webm;codecs=vp9,opus');
    expect(chooseMimeType('avc1', stub(FIREFOX))).toBe('video/webm;codecs=vp9,opus');
  });

  it('falls through to avc1 MP4 on Safari', () => {
    expect(chooseMimeType(null, stub(SAFARI))).toBe('video/mp4;codecs=avc1,mp4a.40.2');
  });

  it('takes a plain container when no codec matches', () => {
    expect(chooseMimeType(null, stub(new Set(['video/webm'])))).toBe('video/webm');
    expect(chooseMimeType(null, stub(new Set(['video/mp4'])))).toBe('video/mp4');
  });

  it('returns null when nothing is supported or the check throws', () => {
    expect(chooseMimeType('vp9', () => false)).toBeNull();
    expect(
      chooseMimeType(null, () => {
        throw new Error('no MediaRecorder');
      }),
    ).toBeNull();
  });
});

describe('quality levels', () => {
  it('has the spec §9 audio table and an explicit, strictly decreasing video table', () => {
    expect(AUDIO_LEVEL_MB_PER_HOUR).toEqual([140, 110, 80, 70, 55, 40, 27, 25, 20, 18]);
    expect(VIDEO_LEVEL_MB_PER_HOUR).toHaveLength(20);
    expect(VIDEO_LEVEL_MB_PER_HOUR[0]).toBe(3100);
    expect(VIDEO_LEVEL_MB_PER_HOUR[19]).toBe(30);
    expect(VIDEO_LEVEL_MB_PER_HOUR).toContain(2250);
    for (let i = 1; i < VIDEO_LEVEL_MB_PER_HOUR.length; i++) {
      expect(VIDEO_LEVEL_MB_PER_HOUR[i]).toBeLessThan(VIDEO_LEVEL_MB_PER_HOUR[i - 1] as number);
    }
  });

  it('converts decimal MB per hour to bits per second', () => {
    expect(mbPerHourToBitsPerSecond(2250)).toBe(5_000_000);
    expect(mbPerHourToBitsPerSecond(55)).toBe(122_222);
    expect(mbPerHourToBitsPerSecond(140)).toBe(311_111);
    expect(mbPerHourToBitsPerSecond(18)).toBe(40_000);
    expect(mbPerHourToBitsPerSecond(3100)).toBe(6_888_889);
    expect(mbPerHourToBitsPerSecond(30)).toBe(66_667);
  });

  it('uses the fixed spec §9 rates when no level is set', () => {
    expect(bitratesFor({})).toEqual({
      videoBitsPerSecond: 5_000_000,
      audioBitsPerSecond: 128_000,
      source: 'fixed',
    });
    expect(bitratesFor({ videoLevel: null, audioLevel: undefined }).source).toBe('fixed');
  });

  it('maps every level through the tables', () => {
    AUDIO_LEVEL_MB_PER_HOUR.forEach((mb, i) => {
      expect(bitratesFor({ audioLevel: i + 1 }).audioBitsPerSecond).toBe(mbPerHourToBitsPerSecond(mb));
    });
    VIDEO_LEVEL_MB_PER_HOUR.forEach((mb, i) => {
      expect(bitratesFor({ videoLevel: i + 1 }).videoBitsPerSecond).toBe(mbPerHourToBitsPerSecond(mb));
    });
    expect(bitratesFor({ videoLevel: 1, audioLevel: 10 })).toEqual({
      videoBitsPerSecond: 6_888_889,
      audioBitsPerSecond: 40_000,
      source: 'levels',
    });
  });

  it('defaults the other level (2250 / 55) and out-of-range levels', () => {
    expect(bitratesFor({ videoLevel: 20 })).toEqual({
      videoBitsPerSecond: 66_667,
      audioBitsPerSecond: 122_222,
      source: 'levels',
    });
    expect(bitratesFor({ audioLevel: 1 }).videoBitsPerSecond).toBe(5_000_000);
    expect(bitratesFor({ videoLevel: 0, audioLevel: 11 })).toEqual({
      videoBitsPerSecond: 5_000_000,
      audioBitsPerSecond: 122_222,
      source: 'levels',
    });
    expect(bitratesFor({ videoLevel: 2.5 }).videoBitsPerSecond).toBe(5_000_000);
  });
});

describe('timesliceFor', () => {
  it('is 15 s under the fixed rule', () => {
    expect(timesliceFor(bitratesFor({}), 'fixed')).toBe(15_000);
  });

  it('is 75,497,472 ÷ (audio + video) seconds under the alternate rule', () => {
    const fixed = bitratesFor({});
    expect(timesliceFor(fixed, 'alternate')).toBe(Math.round((75_497_472 / 5_128_000) * 1000));
    expect(timesliceFor(fixed, 'alternate')).toBe(14_723);
    const low = bitratesFor({ videoLevel: 20, audioLevel: 10 });
    expect(timesliceFor(low, 'alternate')).toBe(Math.round((75_497_472 / (66_667 + 40_000)) * 1000));
  });

  it('applies the alternate rule only to level-based rates', () => {
    expect(timesliceRuleFor(bitratesFor({}))).toBe('fixed');
    expect(timesliceRuleFor(bitratesFor({ videoLevel: 3 }))).toBe('alternate');
  });

  it('falls back to 15 s for a zero total', () => {
    expect(
      timesliceFor({ videoBitsPerSecond: 0, audioBitsPerSecond: 0, source: 'levels' }, 'alternate'),
    ).toBe(15_000);
  });
});
