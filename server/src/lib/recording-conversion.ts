import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../db/db';
import { MOVIE_STATUS } from '../../../contract/recording';
import type { ObjectStorage } from './object-storage';
import { changeStatus, findRecord, recordsToConvert, statusOf } from './recording-store';
import { FfmpegMissingError, matroskaFormatOf, remuxWithDuration, startsWithEbml } from './webm-duration';

const convertedListeners = new WeakMap<Db, Set<(recordId: number) => void>>();

/**
 * Calls `fn` whenever a recording of `db` reaches '02' (conversion done), e.g. to queue the automatic AI
 * analysis after an exam (issue #6). Returns the unsubscribe function.
 */
export function onRecordingConverted(db: Db, fn: (recordId: number) => void): () => void {
  let set = convertedListeners.get(db);
  if (!set) convertedListeners.set(db, (set = new Set()));
  set.add(fn);
  return () => set.delete(fn);
}

function notifyConverted(db: Db, recordId: number): void {
  for (const fn of convertedListeners.get(db) ?? []) fn(recordId);
}

/** Settings of the conversion queue. */
export interface ConversionSettings {
  /** FFMPEG_PATH, default /usr/bin/ffmpeg. */
  ffmpegPath: string;
  /** FFPROBE_PATH, default /usr/bin/ffprobe. */
  ffprobePath: string;
  /** RECORDING_CONVERT_TIMEOUT_SECONDS, default 3600: one remux may take this long. */
  timeoutMs: number;
}

/** Conversion settings from the environment. */
export function conversionSettings(env: NodeJS.ProcessEnv = process.env): ConversionSettings {
  const t = Number(env.RECORDING_CONVERT_TIMEOUT_SECONDS || 3600);
  return {
    ffmpegPath: env.FFMPEG_PATH || '/usr/bin/ffmpeg',
    ffprobePath: env.FFPROBE_PATH || '/usr/bin/ffprobe',
    timeoutMs: (Number.isFinite(t) && t > 0 ? t : 3600) * 1000,
  };
}

/**
 * The off-request-path queue that moves completed recordings from '01' (converting) to '02' (done) or '08'
 * (conversion error) (spec §4). One job at a time: a remux is I/O bound and the server has 2 cores.
 *
 * A job: WebM/Matroska → remux with ffmpeg into a temporary file with Duration and Cues (media-stack.md §8
 * pitfall 13), replace the object under the same key, store the duration; MP4 → nothing to fix, '02'.
 * Without ffmpeg the object stays as uploaded: '02' with detail 'duration not fixed: ffmpeg missing'.
 *
 * Records are only ever moved out of '01', so a job that runs twice (a restart between the replacement and
 * the status change) remuxes an already fixed file, which is harmless. On close the running ffmpeg is
 * stopped and its record stays '01'; `start()` re-queues such records at the next start-up.
 */
export class RecordingConverter {
  private readonly queue: number[] = [];
  private readonly queued = new Set<number>();
  private running: Promise<void> | null = null;
  private readonly abort = new AbortController();
  private closed = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly opts: {
      db: Db;
      storage: () => ObjectStorage;
      log: FastifyBaseLogger;
      settings: ConversionSettings;
    },
  ) {}

  /** Queues the records left in '01' by an earlier run. */
  async start(): Promise<void> {
    for (const id of await recordsToConvert(this.opts.db)) this.enqueue(id);
  }

  /** Queues one record (once; a record already queued is not added again). */
  enqueue(recordId: number): void {
    if (this.closed || this.queued.has(recordId)) return;
    this.queued.add(recordId);
    this.queue.push(recordId);
    this.running ??= this.drain();
  }

  /** Resolves when the queue is empty (for tests and orderly shutdown). */
  idle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Stops taking jobs and stops the running one (its record stays '01' for the next start). */
  async close(): Promise<void> {
    this.closed = true;
    this.queue.length = 0;
    this.abort.abort(new Error('server closing'));
    await this.running;
  }

  private async drain(): Promise<void> {
    try {
      for (let id = this.queue.shift(); id !== undefined; id = this.queue.shift()) {
        this.queued.delete(id);
        try {
          await this.convert(id);
        } catch (err) {
          if (this.abort.signal.aborted) break;
          this.opts.log.error({ err, recordId: id }, 'recording conversion failed unexpectedly');
        }
      }
    } finally {
      this.running = null;
      for (const w of this.idleWaiters.splice(0)) w();
    }
  }

  private async convert(recordId: number): Promise<void> {
    const { db, log } = this.opts;
    const rec = await findRecord(db, recordId);
    if (!rec || statusOf(rec) !== MOVIE_STATUS.converting) return;
    const format = matroskaFormatOf(rec.mime_type);
    if (!format) {
      // MP4 carries its duration in the moov box: nothing to fix.
      if (await changeStatus(db, recordId, '01', '02', 'no conversion needed', { encoded: true })) {
        notifyConverted(db, recordId);
      }
      return;
    }
    const storage = this.opts.storage();
    const ref = { bucket: rec.bucket, key: rec.object_key };
    const signal = this.abort.signal;
    const dir = await mkdtemp(path.join(os.tmpdir(), 'recording-fix-'));
    try {
      let input = storage.localPath(ref);
      if (!input || !existsSync(input)) {
        input = path.join(dir, 'input');
        await storage.downloadToFile(ref, input, signal);
      }
      if (!(await startsWithEbml(input))) {
        await changeStatus(
          db,
          recordId,
          '01',
          '08',
          'conversion error: the object is not a WebM/Matroska file (no EBML header)',
        );
        return;
      }
      const output = path.join(dir, `fixed.${format === 'webm' ? 'webm' : 'mkv'}`);
      let durationMs: number | null;
      try {
        ({ durationMs } = await remuxWithDuration(input, output, {
          ffmpegPath: this.opts.settings.ffmpegPath,
          ffprobePath: this.opts.settings.ffprobePath,
          format,
          timeoutMs: this.opts.settings.timeoutMs,
          signal,
        }));
      } catch (err) {
        if (err instanceof FfmpegMissingError) {
          log.warn({ recordId, binary: err.binary }, 'ffmpeg missing: recording left without a duration');
          if (
            await changeStatus(db, recordId, '01', '02', 'duration not fixed: ffmpeg missing', {
              encoded: true,
            })
          ) {
            notifyConverted(db, recordId);
          }
          return;
        }
        throw err;
      }
      signal.throwIfAborted();
      const size = (await stat(output)).size;
      const etag = await storage.uploadFile(ref, output, rec.mime_type, signal);
      if (await changeStatus(db, recordId, '01', '02', '', { durationMs, size, etag, encoded: true })) {
        notifyConverted(db, recordId);
      }
    } catch (err) {
      if (signal.aborted) throw err;
      const message = err instanceof Error ? err.message : String(err);
      log.warn({ err, recordId }, 'recording conversion failed');
      await changeStatus(db, recordId, '01', '08', `conversion error: ${message}`);
    } finally {
      await rm(dir, { recursive: true, force: true }).catch(() => undefined);
    }
  }
}
