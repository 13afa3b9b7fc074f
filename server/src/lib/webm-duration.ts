import { spawn } from 'node:child_process';
import { open } from 'node:fs/promises';

/** The EBML magic every WebM/Matroska file starts with. */
export const EBML_MAGIC = Uint8Array.of(0x1a, 0x45, 0xdf, 0xa3);

/** Thrown when the ffmpeg (or ffprobe) binary is not there: the fix is skipped, not failed. */
export class FfmpegMissingError extends Error {
  constructor(readonly binary: string) {
    super(`${binary} is missing`);
    this.name = 'FfmpegMissingError';
  }
}

/** Thrown when ffmpeg ran and failed (bad input, unsupported codec, timeout). `stderr` is its last words. */
export class RemuxError extends Error {
  constructor(
    message: string,
    readonly stderr: string,
  ) {
    super(message);
    this.name = 'RemuxError';
  }
}

/** Container format ffmpeg writes: `webm` (VP8/VP9/AV1 + Opus/Vorbis) or plain `matroska` (e.g. avc1). */
export type MatroskaFormat = 'webm' | 'matroska';

/** Options of the remux. */
export interface RemuxOptions {
  ffmpegPath: string;
  /** For the duration read-back; optional (then `durationMs` is null). */
  ffprobePath?: string;
  format: MatroskaFormat;
  timeoutMs: number;
  signal?: AbortSignal;
}

/** True when `file` starts with the EBML magic (1A 45 DF A3). */
export async function startsWithEbml(file: string): Promise<boolean> {
  const fh = await open(file, 'r');
  try {
    const buf = Buffer.alloc(4);
    const { bytesRead } = await fh.read(buf, 0, 4, 0);
    return bytesRead === 4 && buf.equals(EBML_MAGIC);
  } finally {
    await fh.close();
  }
}

/** The format to remux a recording of this MIME type into, or null when no fix applies (MP4). */
export function matroskaFormatOf(mimeType: string): MatroskaFormat | null {
  const base = mimeType.split(';')[0]?.trim().toLowerCase() ?? '';
  if (base.endsWith('/webm')) return 'webm';
  if (base.endsWith('/x-matroska')) return 'matroska';
  return null;
}

interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a binary without a shell; FfmpegMissingError when it does not exist. Output is capped at 64 KiB. */
function run(binary: string, args: string[], timeoutMs: number, signal?: AbortSignal): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], signal, timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    const cap = (s: string, more: Buffer) => (s + more.toString('utf8')).slice(-65_536);
    child.stdout.on('data', (b: Buffer) => (stdout = cap(stdout, b)));
    child.stderr.on('data', (b: Buffer) => (stderr = cap(stderr, b)));
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'EACCES') reject(new FfmpegMissingError(binary));
      else reject(err);
    });
    child.on('close', (code, sig) => {
      if (sig)
        reject(
          signal?.aborted
            ? (signal.reason as Error)
            : new RemuxError(`${binary} was stopped (${sig}; timeout ${timeoutMs} ms)`, stderr),
        );
      else resolve({ code, stdout, stderr });
    });
  });
}

/** The duration ffprobe reads from the container header, in ms; null when unknown or ffprobe is missing. */
export async function probeDurationMs(
  file: string,
  ffprobePath: string,
  signal?: AbortSignal,
): Promise<number | null> {
  try {
    const r = await run(
      ffprobePath,
      ['-v', 'error', '-show_entries', 'format=duration', '-of', 'default=noprint_wrappers=1:nokey=1', file],
      60_000,
      signal,
    );
    const seconds = Number(r.stdout.trim());
    return r.code === 0 && Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1000) : null;
  } catch (err) {
    if (err instanceof FfmpegMissingError) return null;
    throw err;
  }
}

/**
 * Makes a MediaRecorder WebM seekable (media-stack.md §8 pitfall 13: no Duration, no Cues, so `<video>` shows
 * Infinity and seeks poorly): `ffmpeg -c copy` remuxes `input` into `output`, which gets a Duration and Cues
 * because the output file is seekable. No re-encode, so it is fast (I/O bound). A `webm` remux that ffmpeg
 * refuses (a codec WebM does not allow, e.g. a mislabelled avc1) is retried once as plain Matroska.
 *
 * Throws FfmpegMissingError when ffmpeg is not installed, RemuxError when it fails.
 */
export async function remuxWithDuration(
  input: string,
  output: string,
  opts: RemuxOptions,
): Promise<{ durationMs: number | null; format: MatroskaFormat }> {
  const attempt = (format: MatroskaFormat) =>
    run(
      opts.ffmpegPath,
      [
        '-hide_banner',
        '-nostdin',
        '-loglevel',
        'error',
        '-y',
        '-i',
        input,
        '-map',
        '0',
        '-c',
        'copy',
        '-f',
        format,
        output,
      ],
      opts.timeoutMs,
      opts.signal,
    );
  let format = opts.format;
  let r = await attempt(format);
  if (r.code !== 0 && format === 'webm' && /only .*supported for webm/i.test(r.stderr)) {
    format = 'matroska';
    r = await attempt(format);
  }
  if (r.code !== 0) {
    const last = r.stderr.trim().split('\n').slice(-3).join(' ').slice(0, 400);
    throw new RemuxError(`ffmpeg exited with ${String(r.code)}: ${last || 'no output'}`, r.stderr);
  }
  const durationMs = opts.ffprobePath ? await probeDurationMs(output, opts.ffprobePath, opts.signal) : null;
  return { durationMs, format };
}
