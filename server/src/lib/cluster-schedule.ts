import os from 'node:os';
import { randomUUID } from 'node:crypto';
import type { Db } from '../db/db';

/** A claimed run: renew its lease while working, finish it when done. */
export interface ClaimedRun {
  /** Extends the lease; false when it was lost (it ran out and another instance took the run over). */
  renew(): Promise<boolean>;
  /** Marks the run finished (only this owner's). */
  finish(): Promise<void>;
}

/**
 * Periodic jobs run once per interval across every server instance on one database (`scheduler_runs`,
 * migration 0060), instead of once per instance: a run is claimed in one statement when it is due — the
 * last run started at least `everyMs` ago and finished, or it is unfinished and its holder's lease ran out
 * (that instance died; the run is taken over). The holder renews its lease while the job works.
 */
export class ClusterSchedule {
  /** This instance's name on the runs it claims (host, process and a random part: unique per start). */
  readonly owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  constructor(private readonly db: Db) {}

  /** Claims the job's run when due; null when another instance runs it or it is not due yet. */
  async claim(job: string, everyMs: number, leaseMs: number): Promise<ClaimedRun | null> {
    const { rows } = await this.db.query<{ owner: string }>(
      `INSERT INTO scheduler_runs AS r (job, owner, started_at, lease_until)
         VALUES ($1, $2, now(), now() + make_interval(secs => $4::double precision / 1000))
       ON CONFLICT (job) DO UPDATE SET owner = EXCLUDED.owner, started_at = now(),
              lease_until = EXCLUDED.lease_until, finished_at = NULL
        WHERE (r.finished_at IS NOT NULL
               AND r.started_at <= now() - make_interval(secs => $3::double precision / 1000))
           OR (r.finished_at IS NULL AND r.lease_until < now())
       RETURNING owner`,
      [job, this.owner, everyMs, leaseMs],
    );
    if (rows.length !== 1) return null;
    return {
      renew: async () =>
        (
          await this.db.query(
            `UPDATE scheduler_runs SET lease_until = now() + make_interval(secs => $3::double precision / 1000)
              WHERE job = $1 AND owner = $2 AND finished_at IS NULL`,
            [job, this.owner, leaseMs],
          )
        ).rowCount === 1,
      finish: async () => {
        await this.db.query(
          `UPDATE scheduler_runs SET finished_at = now() WHERE job = $1 AND owner = $2 AND finished_at IS NULL`,
          [job, this.owner],
        );
      },
    };
  }

  /**
   * Runs `fn` when this instance claims the job's due run (renewing the lease every third of it), and marks
   * the run finished afterwards, also when `fn` throws (the error is rethrown). Returns whether it ran.
   */
  async runIfDue(
    job: string,
    everyMs: number,
    fn: () => Promise<void>,
    leaseMs = Math.max(60_000, everyMs),
  ): Promise<boolean> {
    const run = await this.claim(job, everyMs, leaseMs);
    if (!run) return false;
    const timer = setInterval(() => void run.renew().catch(() => undefined), Math.floor(leaseMs / 3));
    timer.unref();
    try {
      await fn();
    } finally {
      clearInterval(timer);
      await run.finish().catch(() => undefined);
    }
    return true;
  }
}
