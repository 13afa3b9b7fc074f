import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { FastifyBaseLogger } from 'fastify';
import type { Db } from '../../db/db';
import { MOVIE_STATUS } from '../../../../contract/recording';
import type { ObjectStorage } from '../object-storage';
import {
  changeStatus,
  claimConversion,
  findRecord,
  releaseConversionClaim,
  renewConversionClaim,
  statusOf,
} from './store';
import { FfmpegMissingError, matroskaFormatOf, remuxWithDuration, startsWithEbml } from '../webm-duration';

const convertedListeners = new WeakMap<Db, Set<(recordId: number) => void>>();

/**
 * Calls `fn` whenever a recording of `db` reaches '02' (conversion done), e.g. to queue the automatic AI
 * analysis after an exam. Returns the unsubscribe function.
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
  /**
   * RECORDING_CONVERT_LEASE_SECONDS, default 120: how long a claim holds without renewal (renewed every
   * third of it while a job runs). A crashed instance's records are taken over after this long.
   */
  leaseMs: number;
  /**
   * RECORDING_CONVERT_POLL_SECONDS, default 30: how often an idle instance looks for claimable records
   * (records another instance finished uploading, or left behind when it died).
   */
  pollMs: number;
}

/** Conversion settings from the environment. */
export function conversionSettings(env: NodeJS.ProcessEnv = process.env): ConversionSettings {
  const seconds = (v: string | undefined, d: number) => {
    const n = Number(v || d);
    return (Number.isFinite(n) && n > 0 ? n : d) * 1000;
  };
  return {
    ffmpegPath: env.FFMPEG_PATH || '/usr/bin/ffmpeg',
    ffprobePath: env.FFPROBE_PATH || '/usr/bin/ffprobe',
    timeoutMs: seconds(env.RECORDING_CONVERT_TIMEOUT_SECONDS, 3600),
    leaseMs: seconds(env.RECORDING_CONVERT_LEASE_SECONDS, 120),
    pollMs: seconds(env.RECORDING_CONVERT_POLL_SECONDS, 30),
  };
}

/**
 * The off-request-path queue that moves completed recordings from '01' (converting) to '02' (done) or '08'
 * (conversion error) (spec §4). The queue is the records table itself, shared by every server instance on
 * the database: a worker claims one record in '01' at a time (`claimConversion`: SELECT … FOR UPDATE SKIP
 * LOCKED plus a lease it renews while the job runs), so two instances never fix the same record at once and
 * a crashed instance's record is taken over when its lease runs out. One job at a time per instance: a remux
 * is I/O bound and a server has 2 cores. `enqueue` (a recording just ended here) wakes the worker; an idle
 * worker also looks every `pollMs` for records other instances left.
 *
 * A job: WebM/Matroska → remux with ffmpeg into a temporary file with Duration and Cues (media-stack.md §8
 * pitfall 13), replace the object under the same key, store the duration; MP4 → nothing to fix, '02'.
 * Without ffmpeg the object stays as uploaded: '02' with detail 'duration not fixed: ffmpeg missing'.
 *
 * Records are only ever moved out of '01', so a job that runs twice (a lease lost between the replacement and
 * the status change) remuxes an already fixed file, which is harmless. On close the running ffmpeg is
 * stopped, its record stays '01' and its claim is released for another instance (or the next start).
 */
export class RecordingConverter {
  /** This instance's name on its claims. */
  readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private running: Promise<void> | null = null;
  /** Set by `enqueue` while a pass runs: look again before going idle. */
  private woken = false;
  private readonly abort = new AbortController();
  private closed = false;
  private idleWaiters: (() => void)[] = [];
  private poll: NodeJS.Timeout | null = null;

  constructor(
    private readonly opts: {
      db: Db;
      storage: () => ObjectStorage;
      log: FastifyBaseLogger;
      settings: ConversionSettings;
    },
  ) {}

  /** Takes the records left in '01' (an earlier run, other instances) and starts polling for more. */
  start(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.enqueue();
    this.poll ??= setInterval(() => this.enqueue(), this.opts.settings.pollMs);
    this.poll.unref();
    return Promise.resolve();
  }

  /**
   * Wakes the worker: a record (`recordId`, informational) reached '01'. It is claimed through the database
   * like any other, by this instance or another one.
   */
  enqueue(recordId?: number): void {
    void recordId;
    if (this.closed) return;
    this.woken = true;
    this.running ??= this.drain();
  }

  /** Resolves when this instance finds nothing more to claim (for tests and orderly shutdown). */
  idle(): Promise<void> {
    if (!this.running) return Promise.resolve();
    return new Promise((r) => this.idleWaiters.push(r));
  }

  /** Stops taking jobs and stops the running one (its record stays '01', its claim is released). */
  async close(): Promise<void> {
    this.closed = true;
    if (this.poll) clearInterval(this.poll);
    this.poll = null;
    this.abort.abort(new Error('server closing'));
    await this.running;
  }

  private async drain(): Promise<void> {
    const { db, log, settings } = this.opts;
    try {
      while (!this.closed) {
        this.woken = false;
        let id: number | null;
        try {
          id = await claimConversion(db, this.owner, settings.leaseMs);
        } catch (err) {
          if (!this.closed) log.error({ err }, 'recording conversion: claiming a record failed');
          break;
        }
        if (id === null) {
          if (this.woken) continue;
          break;
        }
        const recordId = id;
        const renew = setInterval(
          () => {
            renewConversionClaim(db, recordId, this.owner, settings.leaseMs).then(
              (held) => {
                if (!held) log.warn({ recordId }, 'recording conversion: claim lost (lease ran out)');
              },
              (err: unknown) => log.warn({ err, recordId }, 'recording conversion: lease renewal failed'),
            );
          },
          Math.max(1000, settings.leaseMs / 3),
        );
        // Released when the job is done or stopped by close(); after an unexpected failure the lease is left
        // to run out, so the record is tried again later (by any instance) instead of in a tight loop.
        let release = true;
        try {
          await this.convert(recordId);
        } catch (err) {
          if (this.abort.signal.aborted) break;
          release = false;
          log.error({ err, recordId }, 'recording conversion failed unexpectedly; retried after the lease');
        } finally {
          clearInterval(renew);
          if (release) {
            await releaseConversionClaim(db, recordId, this.owner).catch((err: unknown) => {
              if (!this.closed)
                log.warn({ err, recordId }, 'recording conversion: releasing the claim failed');
            });
          }
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
      // Replace the object only while the claim is still ours (a lease taken over means another instance
      // is fixing this record now).
      if (!(await renewConversionClaim(db, recordId, this.owner, this.opts.settings.leaseMs))) {
        log.warn(
          { recordId },
          'recording conversion: claim lost before replacing the object; left to its owner',
        );
        return;
      }
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
