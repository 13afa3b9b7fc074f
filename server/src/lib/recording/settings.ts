import { RECORDING_PART_SIZE } from '../../../../contract/recording';

/** Recording settings, read from the environment once at start-up. */
export interface RecordingSettings {
  /** S3_BUCKET, default 'recordings'. */
  bucket: string;
  /** RECORDING_PART_SIZE, default 5,242,880 (spec §9); never answered below what the store accepts. */
  partSize: number;
  /** RECORDING_INTERVAL_SECONDS, default 15: the recorder timeslice (spec §9). */
  intervalSeconds: number;
  /** RECORDING_CREDENTIALS_TTL_SECONDS, default 3600: lifetime of the browser's upload credentials. */
  credentialsTtlSeconds: number;
  /** RECORDING_URL_TTL_SECONDS, default 300: lifetime of a get_onetime_uri URL. */
  urlTtlSeconds: number;
  /**
   * RECORDING_FINALIZE_TICK_MS, default 5000: how often the server looks for recordings it must complete
   * itself because their sitting ended without the page completing them.
   */
  finalizeTickMs: number;
  /**
   * A sitting's byte quota per stream (integrity.ts): (max_rectime or RECORDING_QUOTA_DEFAULT_SECONDS, default
   * 14,400) + RECORDING_QUOTA_EXTRA_SECONDS (default 1,800: recording starts at the identity check) seconds at
   * RECORDING_QUOTA_BITS_PER_SECOND (default 7,200,000: the highest video and audio quality levels, 3100 + 140
   * MB/h), times 1.25.
   */
  quotaDefaultSeconds: number;
  quotaExtraSeconds: number;
  /** RECORDING_ROOM_SCAN_QUOTA_SECONDS, default 1,800: the room scans of a sitting together (their own quota). */
  roomScanQuotaSeconds: number;
  quotaBitsPerSecond: number;
  quotaMargin: number;
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, dflt: number, max: number): number {
  const v = env[name];
  if (v === undefined || v === '') return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new Error(`Invalid ${name}: ${v} (an integer 1…${max})`);
  return n;
}

/** Reads the recording settings; throws on a malformed value so a bad deployment fails at start-up. */
export function recordingSettings(env: NodeJS.ProcessEnv = process.env): RecordingSettings {
  const bucket = env.S3_BUCKET || 'recordings';
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw new Error(`Invalid S3_BUCKET: ${bucket}`);
  return {
    bucket,
    partSize: positiveInt(env, 'RECORDING_PART_SIZE', RECORDING_PART_SIZE, 5 * 1024 * 1024 * 1024),
    intervalSeconds: positiveInt(env, 'RECORDING_INTERVAL_SECONDS', 15, 3600),
    // STS AssumeRole allows 900 s … 12 h; role chaining caps it at 1 h.
    credentialsTtlSeconds: positiveInt(env, 'RECORDING_CREDENTIALS_TTL_SECONDS', 3600, 43_200),
    urlTtlSeconds: positiveInt(env, 'RECORDING_URL_TTL_SECONDS', 300, 604_800),
    finalizeTickMs: positiveInt(env, 'RECORDING_FINALIZE_TICK_MS', 5000, 600_000),
    quotaDefaultSeconds: positiveInt(env, 'RECORDING_QUOTA_DEFAULT_SECONDS', 14_400, 604_800),
    quotaExtraSeconds:
      env.RECORDING_QUOTA_EXTRA_SECONDS === '0'
        ? 0
        : positiveInt(env, 'RECORDING_QUOTA_EXTRA_SECONDS', 1_800, 86_400),
    roomScanQuotaSeconds: positiveInt(env, 'RECORDING_ROOM_SCAN_QUOTA_SECONDS', 1_800, 86_400),
    quotaBitsPerSecond: positiveInt(env, 'RECORDING_QUOTA_BITS_PER_SECOND', 7_200_000, 1_000_000_000),
    quotaMargin: 1.25,
  };
}
