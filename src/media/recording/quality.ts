/**
 * Recording quality: which container/codec the MediaRecorder uses, at what bitrates, and how often it
 * cuts a chunk (spec §9 "Recording", "Codec preference", quality levels).
 */

/** Video and audio target bitrates in bits per second, and where they came from. */
export interface Bitrates {
  videoBitsPerSecond: number;
  audioBitsPerSecond: number;
  /** `fixed`: no quality level was set (spec §9 5,000,000 / 128,000); `levels`: from the start-up levels. */
  source: 'fixed' | 'levels';
}

/** spec §9: video 5,000,000 bit/s when no quality level is set. */
export const FIXED_VIDEO_BITS_PER_SECOND = 5_000_000;
/** spec §9: audio 128,000 bit/s when no quality level is set. */
export const FIXED_AUDIO_BITS_PER_SECOND = 128_000;
/** spec §9: the fixed timeslice, 15 s. */
export const FIXED_TIMESLICE_MS = 15_000;
/** spec §9: the alternate timeslice numerator, in bits (75,497,472 bits = 9 MiB per timeslice). */
export const ALTERNATE_TIMESLICE_BITS = 75_497_472;

/**
 * spec §9: audio quality levels 1–10 in MB per hour. Index 0 is level 1. The default level is 5 (55 MB/h).
 */
export const AUDIO_LEVEL_MB_PER_HOUR: readonly number[] = [140, 110, 80, 70, 55, 40, 27, 25, 20, 18];
/** spec §9: the audio default, 55 MB per hour (level 5). */
export const DEFAULT_AUDIO_MB_PER_HOUR = 55;

/**
 * Video quality levels 1–20 in MB per hour. Index 0 is level 1.
 *
 * spec §9 only fixes the ends (level 1 = 3100, level 20 = 30) and the default (2250). This table is our
 * definition: strictly decreasing, with the default at level 3, and steps that shrink as the rate falls, as
 * the audio table does. 2250 MB/h is exactly 5,000,000 bit/s, the fixed video rate, so the default level
 * and "no level" record at the same rate.
 */
export const VIDEO_LEVEL_MB_PER_HOUR: readonly number[] = [
  3100, 2700, 2250, 1900, 1600, 1350, 1100, 900, 750, 600, 480, 380, 300, 230, 170, 120, 85, 60, 45, 30,
];
/** spec §9: the video default, 2250 MB per hour. */
export const DEFAULT_VIDEO_MB_PER_HOUR = 2250;

/**
 * MB per hour → bits per second. We define 1 MB = 1,000,000 bytes (decimal), so the video default 2250 MB/h
 * is exactly the fixed 5,000,000 bit/s. (The audio default 55 MB/h is then 122,222 bit/s, near the fixed
 * 128,000; a binary MiB would have made the audio exact and the video 5,242,880.)
 */
export function mbPerHourToBitsPerSecond(mbPerHour: number): number {
  return Math.round((mbPerHour * 1_000_000 * 8) / 3600);
}

function levelValue(table: readonly number[], level: number, fallback: number): number {
  if (!Number.isInteger(level)) return fallback;
  return table[level - 1] ?? fallback;
}

function isSet(level: number | null | undefined): level is number {
  return level !== undefined && level !== null && !Number.isNaN(level);
}

/**
 * The recorder bitrates for the start-up quality levels (`videoRecordingPreference` 1–20,
 * `voiceQualityPreference` 1–10).
 *
 * When neither level is set, the fixed spec §9 rates apply (5,000,000 and 128,000 bit/s). When either is set,
 * both come from the level tables. A missing or out-of-range level then takes its default (2250 or 55 MB/h).
 */
export function bitratesFor(levels: {
  videoLevel?: number | null | undefined;
  audioLevel?: number | null | undefined;
}): Bitrates {
  const { videoLevel, audioLevel } = levels;
  if (!isSet(videoLevel) && !isSet(audioLevel)) {
    return {
      videoBitsPerSecond: FIXED_VIDEO_BITS_PER_SECOND,
      audioBitsPerSecond: FIXED_AUDIO_BITS_PER_SECOND,
      source: 'fixed',
    };
  }
  const video = isSet(videoLevel)
    ? levelValue(VIDEO_LEVEL_MB_PER_HOUR, videoLevel, DEFAULT_VIDEO_MB_PER_HOUR)
    : DEFAULT_VIDEO_MB_PER_HOUR;
  const audio = isSet(audioLevel)
    ? levelValue(AUDIO_LEVEL_MB_PER_HOUR, audioLevel, DEFAULT_AUDIO_MB_PER_HOUR)
    : DEFAULT_AUDIO_MB_PER_HOUR;
  return {
    videoBitsPerSecond: mbPerHourToBitsPerSecond(video),
    audioBitsPerSecond: mbPerHourToBitsPerSecond(audio),
    source: 'levels',
  };
}

/** Which timeslice rule to use: the fixed 15 s, or 75,497,472 ÷ (audio + video bitrate) seconds. */
export type TimesliceRule = 'fixed' | 'alternate';

/**
 * The rule that applies to a set of bitrates: `alternate` when the rates came from start-up quality levels
 * (so a chunk stays about 9 MiB whatever the level), `fixed` otherwise. This is our reading of spec §9,
 * which names both rules but not when each applies.
 */
export function timesliceRuleFor(bitrates: Bitrates): TimesliceRule {
  return bitrates.source === 'levels' ? 'alternate' : 'fixed';
}

/**
 * The MediaRecorder timeslice in milliseconds (spec §9): 15,000 for `fixed`; for `alternate`,
 * 75,497,472 ÷ (audio + video bit/s) seconds, rounded to the millisecond. At the lowest levels that is
 * minutes, which is fine: the recorder also asks for data every 5 s (see recorder.ts), so the timeslice only
 * sets an upper bound on chunk length.
 */
export function timesliceFor(bitrates: Bitrates, rule: TimesliceRule): number {
  if (rule === 'fixed') return FIXED_TIMESLICE_MS;
  const total = bitrates.audioBitsPerSecond + bitrates.videoBitsPerSecond;
  if (!(total > 0)) return FIXED_TIMESLICE_MS;
  return Math.round((ALTERNATE_TIMESLICE_BITS / total) * 1000);
}

/** `MediaRecorder.isTypeSupported`, or a stub of it in tests. */
export type IsTypeSupported = (mimeType: string) => boolean;

/** Candidate MIME types for one entry of the preference list, best first. */
function candidatesFor(entry: string): string[] {
  const e = entry.trim();
  if (e === '') return [];
  if (e.includes('/')) return [e];
  switch (e.toLowerCase()) {
    case 'webm':
      return ['video/webm'];
    case 'mp4':
      return ['video/mp4'];
    case 'avc1':
    case 'h264':
      // MP4 first: Chromium records `video/webm;codecs=avc1` as video/x-matroska (media-stack.md §5, §8.14).
      return [
        'video/mp4;codecs=avc1,mp4a.40.2',
        'video/mp4;codecs=avc1,opus',
        'video/mp4;codecs=avc1',
        'video/webm;codecs=avc1,opus',
        'video/webm;codecs=avc1',
      ];
    default:
      return [
        `video/webm;codecs=${e},opus`,
        `video/webm;codecs=${e}`,
        `video/mp4;codecs=${e},opus`,
        `video/mp4;codecs=${e}`,
      ];
  }
}

/** spec §9: the codec preference after the start-up codec. */
export const CODEC_PREFERENCE: readonly string[] = ['vp9', 'vp8', 'avc1', 'webm', 'mp4'];

/**
 * The first MIME type of the spec §9 preference list (start-up codec, vp9, vp8, avc1, webm, mp4) that the
 * browser can record, or `null` when none is (then let the browser pick by giving no `mimeType`).
 *
 * `startupCodec` is the `videoCodec` start-up parameter: a codec name (`vp9`, `h264`) or a full MIME type.
 * On the project's Chromium the list resolves to `video/webm;codecs=vp9,opus`. Store the recorder's own
 * `mimeType` afterwards, not this request (media-stack.md §8.14).
 */
export function chooseMimeType(
  startupCodec: string | null | undefined,
  isTypeSupported: IsTypeSupported,
): string | null {
  const supported = (t: string): boolean => {
    try {
      return isTypeSupported(t);
    } catch {
      return false;
    }
  };
  const entries = [startupCodec ?? '', ...CODEC_PREFERENCE];
  for (const entry of entries) {
    const found = candidatesFor(entry).find(supported);
    if (found) return found;
  }
  return null;
}

/** The browser's `MediaRecorder.isTypeSupported`, or an always-false stub where there is no MediaRecorder. */
export function browserIsTypeSupported(): IsTypeSupported {
  const mr = (globalThis as { MediaRecorder?: { isTypeSupported?: IsTypeSupported } }).MediaRecorder;
  const fn = mr?.isTypeSupported;
  return fn ? (t) => fn.call(mr, t) : () => false;
}
