import { randomUUID } from 'node:crypto';
import os from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { Db } from '../../db/db';
import type { ImageStore } from '../images';
import { bumpLiveSeq, captureSettingsOf, excuseOf, type CaptureSettings } from '../live-captures';
import { liveFeedBus } from '../live-feed';
import type { ObjectStorage } from '../object-storage';
import { startupOf } from '../sittings/sittings';
import type { AiSettings } from './settings';
import { stillFlags, type StillDetection, type StillFlag } from './still';

/** Looks at one still somewhere (the worker pool in production; the engine in-process in tests). */
export interface StillRunner {
  detect(job: {
    image: Buffer;
    headShot: Buffer | null;
    priority: 'medium' | 'low';
  }): Promise<StillDetection>;
}

/** How many times a still is tried before it is marked failed. */
export const CAPTURE_MAX_ATTEMPTS = 2;
/** A claimed still whose instance stopped is taken over after this long (ms). */
const LEASE_MS = 60_000;
/** How often an instance looks for stills left behind and for post-analysis stills of finished sittings. */
const SWEEP_MS = 60_000;
/** Consecutive stills more than this many intervals apart start a new episode. */
const EPISODE_GAP_INTERVALS = 2.5;

interface Work {
  id: number;
  test_id: number;
  bucket: string;
  object_key: string;
  captured_at: Date | string;
  age_ms: number;
  capture_type: number;
  attempts: number;
}

/**
 * Analyses live stills (start-up capture_type 1 AI realtime: at once; 2 AI post analysis: once the sitting is
 * over, with the recording analysis) and turns what they show into AI markings. Stills of one sitting are
 * looked at in the order they were taken, one at a time, so consecutive stills with the same flag extend one
 * marking (an episode) instead of adding one per still. A marking from a still taken while the examinee's
 * connection was down is excused: kept, shown, not scored. Every change wakes the checkers' feed.
 */
export class CaptureAnalyser {
  private readonly chains = new Map<number, Promise<void>>();
  private readonly inflight = new Set<Promise<void>>();
  private closed = false;
  private timer: NodeJS.Timeout | null = null;
  /** This instance's name on the stills it claims. */
  readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  constructor(
    private readonly o: {
      db: Db;
      storage: () => ObjectStorage;
      runner: StillRunner;
      /** The stored head shots (object storage). */
      images: ImageStore;
      thresholds: AiSettings['capture'];
      log: { warn(obj: object, msg: string): void; error(obj: object, msg: string): void };
      leaseMs?: number;
      /** Period of the sweep; 0 = no timer (tests call sweep()). */
      sweepMs?: number;
    },
  ) {}

  /** Starts the periodic sweep (and runs one now). */
  async start(): Promise<void> {
    await this.sweep();
    const every = this.o.sweepMs ?? SWEEP_MS;
    if (every > 0) {
      this.timer = setInterval(() => void this.sweep(), every);
      this.timer.unref();
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer) clearInterval(this.timer);
    await Promise.allSettled([...this.inflight]);
  }

  /** Resolves when nothing this instance took is still being analysed (tests, benchmarks). */
  async idle(): Promise<void> {
    while (this.inflight.size) await Promise.allSettled([...this.inflight]);
  }

  /** An AI realtime still was stored: analyse it now (after the sitting's earlier stills); `image` saves a read. */
  realtime(captureId: number, testId: number, image?: Buffer): void {
    this.enqueue(testId, () => this.analyse(captureId, 'medium', image));
  }

  /**
   * Takes over AI realtime stills whose analysis was never finished (an instance stopped: lease run out, or never
   * claimed for longer than a lease), and the AI post-analysis stills of sittings that are over (finished,
   * logged out or kicked out), oldest first.
   */
  async sweep(): Promise<void> {
    if (this.closed) return;
    try {
      const lease = (this.o.leaseMs ?? LEASE_MS) / 1000;
      const { rows } = await this.o.db.query<{ id: number; test_id: number; capture_type: number }>(
        `SELECT c.id, c.test_id, c.capture_type FROM captures c JOIN tests t ON t.id = c.test_id
          WHERE (c.status = 'pending' AND c.received_at < now() - make_interval(secs => $1))
             OR (c.status = 'running' AND c.lease_until < now())
             OR (c.status = 'queued' AND (t.status = 7 OR t.kicked = 1
                  OR (t.logout_at IS NOT NULL AND (t.login_at IS NULL OR t.logout_at >= t.login_at))))
          ORDER BY c.test_id, c.captured_at, c.id LIMIT 500`,
        [lease],
      );
      for (const r of rows) {
        const priority = Number(r.capture_type) === 1 ? 'medium' : 'low';
        this.enqueue(Number(r.test_id), () => this.analyse(Number(r.id), priority));
      }
    } catch (err) {
      this.o.log.warn({ err }, 'capture sweep failed');
    }
  }

  private enqueue(testId: number, job: () => Promise<void>): void {
    if (this.closed) return;
    const prev = this.chains.get(testId) ?? Promise.resolve();
    const next = prev.then(job).catch((err: unknown) => {
      this.o.log.error({ err, testId }, 'capture analysis failed');
    });
    this.chains.set(testId, next);
    this.inflight.add(next);
    void next.finally(() => {
      this.inflight.delete(next);
      if (this.chains.get(testId) === next) this.chains.delete(testId);
    });
  }

  /** Claims a still for this instance; null when another has it or it is done. */
  private async claim(id: number): Promise<Work | null> {
    const { rows } = await this.o.db.query<Work>(
      `UPDATE captures SET status = 'running', attempts = attempts + 1, claimed_by = $2,
              lease_until = now() + make_interval(secs => $3), updated_at = now()
        WHERE id = $1 AND (status IN ('pending', 'queued') OR (status = 'running' AND lease_until < now()))
        RETURNING id, test_id, bucket, object_key, captured_at, age_ms, capture_type, attempts`,
      [id, this.owner, (this.o.leaseMs ?? LEASE_MS) / 1000],
    );
    return rows[0] ?? null;
  }

  private async analyse(id: number, priority: 'medium' | 'low', image?: Buffer): Promise<void> {
    if (this.closed) return;
    const w = await this.claim(id);
    if (!w) return;
    const { db } = this.o;
    try {
      const sitting = (
        await db.query<{ startup_parameters: unknown; head_shot_key: string | null }>(
          `SELECT startup_parameters, head_shot_key FROM tests WHERE id = $1`,
          [w.test_id],
        )
      ).rows[0];
      if (!sitting) return;
      const settings = captureSettingsOf(
        startupOf({ startup_parameters: sitting.startup_parameters as never }),
      );
      const body = image ?? (await this.o.storage().getObject({ bucket: w.bucket, key: w.object_key }));
      if (!body) throw new Error('the still is no longer in storage');
      const head = sitting.head_shot_key ? await this.o.images.read(sitting.head_shot_key) : null;
      const detection = await this.o.runner.detect({ image: body, headShot: head?.body ?? null, priority });
      const flags = stillFlags(detection, this.o.thresholds[settings.sensitivity], settings.types);
      const capturedAt = new Date(w.captured_at);
      const excuse = await excuseOf(db, w.test_id, capturedAt, Number(w.age_ms), settings.matchingTimeout);
      const stored = await this.store(w, settings, detection, flags, excuse);
      if (stored) liveFeedBus(db).changed(w.test_id);
    } catch (err) {
      const reason = err instanceof Error ? err.message : String(err);
      this.o.log.warn({ err, captureId: id, attempt: w.attempts }, 'still not analysed');
      const back = w.attempts < CAPTURE_MAX_ATTEMPTS && !this.closed;
      await db
        .query(
          `UPDATE captures SET status = $3, error = $4, claimed_by = NULL, lease_until = NULL, updated_at = now()
            WHERE id = $1 AND claimed_by = $2`,
          [
            id,
            this.owner,
            back ? (w.capture_type === 1 ? 'pending' : 'queued') : 'failed',
            reason.slice(0, 500),
          ],
        )
        .catch(() => undefined);
      if (back) this.enqueue(w.test_id, () => this.analyse(id, priority));
    }
  }

  /**
   * Writes what a still showed: each flag extends the marking of the same flag that the sitting's previous
   * still (taken at most EPISODE_GAP_INTERVALS intervals before) belongs to, when both are excused or both are
   * not; otherwise it starts a marking with this still as its picture. Times are placed in the recording that
   * was running when the episode began (start_ms / end_ms), when there was one.
   */
  private async store(
    w: Work,
    s: CaptureSettings,
    detection: StillDetection,
    flags: StillFlag[],
    excuse: 'late' | 'connection_gap' | null,
  ): Promise<boolean> {
    const standsMs = Math.max(1, s.interval) * 1000;
    return this.o.db.transaction(async (tx) => {
      // One sitting's stills are stored one at a time, also across instances.
      await tx.query(`SELECT id FROM tests WHERE id = $1 FOR UPDATE`, [w.test_id]);
      const mine = await tx.query(
        `SELECT 1 FROM captures WHERE id = $1 AND claimed_by = $2 AND status = 'running'`,
        [w.id, this.owner],
      );
      if (!mine.rows.length) return false;
      const prev = (
        await tx.query<{ id: number; captured_at: Date | string }>(
          `SELECT id, captured_at FROM captures
            WHERE test_id = $1 AND status = 'done' AND capture_type <> 0 AND captured_at <= $2 AND id <> $3
            ORDER BY captured_at DESC, id DESC LIMIT 1`,
          [w.test_id, w.captured_at, w.id],
        )
      ).rows[0];
      const capturedAt = new Date(w.captured_at);
      const consecutive =
        prev !== undefined &&
        capturedAt.getTime() - new Date(prev.captured_at).getTime() <= EPISODE_GAP_INTERVALS * standsMs;
      const endsAt = new Date(capturedAt.getTime() + standsMs);
      for (const f of flags) {
        const score = Math.max(1, Math.min(100, Math.round(f.confidence * 100)));
        const extended = consecutive
          ? await tx.query(
              `UPDATE ai_markings m SET last_capture_id = $3, ended_at = $4,
                      end_ms = round(extract(epoch FROM ($4::timestamptz - coalesce(r.start_at, m.marking_at))) * 1000),
                      confidence = greatest(m.confidence, $5), score = greatest(m.score, $6), updated_at = now()
                 FROM ai_markings x LEFT JOIN records r ON r.id = x.record_id
                WHERE m.id = x.id AND m.test_id = $1 AND m.source = 'capture' AND m.flag = $2
                  AND m.last_capture_id = $7 AND m.excused = $8
                RETURNING m.id`,
              [w.test_id, f.flag, w.id, endsAt, f.confidence, score, prev.id, excuse !== null],
            )
          : { rows: [] };
        if (extended.rows.length) continue;
        const rec = (
          await tx.query<{ id: number; start_at: Date | string }>(
            `SELECT id, start_at FROM records
              WHERE test_id = $1 AND stream = 'camera' AND start_at <= $2 AND (stop_at IS NULL OR stop_at >= $2)
              ORDER BY start_at DESC LIMIT 1`,
            [w.test_id, capturedAt],
          )
        ).rows[0];
        const base = rec ? new Date(rec.start_at).getTime() : capturedAt.getTime();
        await tx.query(
          `INSERT INTO ai_markings (test_id, record_id, analysis_type, score, confidence, start_ms, end_ms, marking_at,
                                    source, flag, capture_id, last_capture_id, ended_at, excused, excuse_reason)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, 'capture', $9, $10, $10, $11, $12, $13)`,
          [
            w.test_id,
            rec?.id ?? null,
            f.analysisType,
            score,
            f.confidence,
            Math.max(0, capturedAt.getTime() - base),
            Math.max(0, endsAt.getTime() - base),
            capturedAt,
            f.flag,
            w.id,
            endsAt,
            excuse !== null,
            excuse,
          ],
        );
      }
      await tx.query(
        `UPDATE captures SET status = 'done', result = $2::jsonb, error = '', analysed_at = now(),
                claimed_by = NULL, lease_until = NULL, updated_at = now()
          WHERE id = $1`,
        [w.id, JSON.stringify({ ...detection, flags, excused: excuse })],
      );
      await bumpLiveSeq(tx, w.test_id);
      return true;
    });
  }
}

const analysers = new WeakMap<object, CaptureAnalyser>();

/** Installs the capture analyser of an app (start-up or a test). */
export function setCaptureAnalyser(app: FastifyInstance, a: CaptureAnalyser | null): void {
  if (a) analysers.set(app, a);
  else analysers.delete(app);
}

/** The app's capture analyser, or null when the AI is off (AI realtime stills then wait as pending). */
export function getCaptureAnalyser(app: FastifyInstance): CaptureAnalyser | null {
  for (let o: object | null = app; o; o = Object.getPrototypeOf(o) as object | null) {
    const a = analysers.get(o);
    if (a) return a;
  }
  return null;
}
