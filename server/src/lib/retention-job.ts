import { randomUUID } from 'node:crypto';
import os from 'node:os';
import { CLEANER_GROUP } from '../../../contract/management';
import type { Db } from '../db/db';
import type { App } from './app-types';
import { audit } from './audit';
import { MANAGEMENT_TIME_ZONE, dateInZone } from './management-time';

/** How long a claimed day's run is held without renewal (a dead instance delays the day at most this long). */
export const RETENTION_LEASE_MS = 10 * 60_000;

/** Used when even the default row (group -3) is missing; the migration creates it with this value. */
const FALLBACK_DEFAULT_DAYS = 1095;
const TZ = `'${MANAGEMENT_TIME_ZONE}'`;

/**
 * The retention rule (spec §3 "Delete plan", perf-reliability §5 "Retention"), for the run on date `$1`
 * (yyyy-MM-dd, start of that day in the management time zone). A test sitting is due once its end
 * (stop_at; test_at or created_at when it never stopped, so no sitting lives forever) lies more than its
 * group's duration before that moment, or the default duration (group -3) when its group has no row.
 * Records, markings, images, messages and matchings of a due sitting go with it.
 */
const PLANNED_TESTS = `FROM tests t
  LEFT JOIN cleaner_settings c ON c.group_id = t.group_id
  LEFT JOIN exam_groups g ON g.id = t.group_id
  WHERE COALESCE(t.stop_at, t.test_at, t.created_at) <
    (($1::date)::timestamp AT TIME ZONE ${TZ})
    - COALESCE(c.duration, (SELECT duration FROM cleaner_settings WHERE group_id = ${CLEANER_GROUP.default}), ${FALLBACK_DEFAULT_DAYS})
      * interval '1 day'`;

/** Start of the run day minus the duration of a system row, as SQL over `$1` (the date). */
function systemCutoff(groupId: number): string {
  return `((($1::date)::timestamp AT TIME ZONE ${TZ})
    - COALESCE((SELECT duration FROM cleaner_settings WHERE group_id = ${groupId}), 365) * interval '1 day')`;
}

// Audit entries are hash-chained from the first one (lib/audit.ts), so pruning them would break the
// chain; they are kept until a checkpointing scheme exists.
const PLANNED_LOGS = `FROM logs WHERE source <> 'audit' AND created_at < ${systemCutoff(CLEANER_GROUP.systemLog)}`;
// Monitor history = ended matchings (deleted_at set); a live matching is never removed.
const PLANNED_MATCHINGS = `FROM matchings WHERE deleted_at IS NOT NULL AND created_at < ${systemCutoff(CLEANER_GROUP.monitorHistory)}`;

/** What a retention run on a date deletes. */
export interface RetentionPlan {
  /** The run date, yyyy-MM-dd in the management time zone. */
  date: string;
  /** Test sittings (tests.id) to delete, ascending. */
  testIds: number[];
  /** Recordings (records.id) of those sittings, ascending. */
  recordIds: number[];
  /** Client/device/server log rows older than the system-log duration (audit rows excluded). */
  logCount: number;
  /** Ended matchings older than the monitor-history duration. */
  matchingCount: number;
}

/** A row of the tester plan CSV. */
export interface PlannedTestRow {
  test_id: number;
  user_id: number;
  login_id: string;
  group: string | null;
  test_name: string;
  exam_name: string;
  test_at: string | null;
  stop_at: string | null;
  duration: number;
  record_count: number;
}

/** A row of the record plan CSV. */
export interface PlannedRecordRow {
  record_id: number;
  test_id: number;
  login_id: string;
  start_at: string | null;
  stop_at: string | null;
  object_key: string;
  size_bytes: number | null;
}

const fmt = (e: string) => `to_char((${e}) AT TIME ZONE ${TZ}, 'YYYY-MM-DD HH24:MI:SS')`;

/** Lists what the retention run on `date` (yyyy-MM-dd) deletes. */
export async function planDeletions(db: Db, date: string): Promise<RetentionPlan> {
  const tests = await db.query<{ id: number }>(`SELECT t.id ${PLANNED_TESTS} ORDER BY t.id`, [date]);
  const records = await db.query<{ id: number }>(
    `SELECT r.id FROM records r WHERE r.test_id IN (SELECT t.id ${PLANNED_TESTS}) ORDER BY r.id`,
    [date],
  );
  const logs = await db.query<{ n: number }>(`SELECT count(*)::int AS n ${PLANNED_LOGS}`, [date]);
  const matchings = await db.query<{ n: number }>(`SELECT count(*)::int AS n ${PLANNED_MATCHINGS}`, [date]);
  return {
    date,
    testIds: tests.rows.map((r) => r.id),
    recordIds: records.rows.map((r) => r.id),
    logCount: logs.rows[0]?.n ?? 0,
    matchingCount: matchings.rows[0]?.n ?? 0,
  };
}

/** Counts of the plan for `date` (the management summary), without listing ids. */
export async function countPlannedDeletions(
  db: Db,
  date: string,
): Promise<{ tests: number; records: number }> {
  const { rows } = await db.query<{ tests: number; records: number }>(
    `SELECT (SELECT count(*)::int ${PLANNED_TESTS}) AS tests,
            (SELECT count(*)::int FROM records r WHERE r.test_id IN (SELECT t.id ${PLANNED_TESTS})) AS records`,
    [date],
  );
  return { tests: rows[0]?.tests ?? 0, records: rows[0]?.records ?? 0 };
}

/** The planned sittings in keyset batches (by test id), for the delete-plan CSV. */
export async function* plannedTestBatches(
  db: Db,
  date: string,
  batchSize = 1000,
): AsyncGenerator<PlannedTestRow[]> {
  let last = 0;
  for (;;) {
    const { rows } = await db.query<PlannedTestRow>(
      `SELECT t.id AS test_id, t.user_id, t.login_id, g.name AS "group", t.test_name, t.exam_name,
              ${fmt('t.test_at')} AS test_at, ${fmt('t.stop_at')} AS stop_at,
              COALESCE(c.duration, (SELECT duration FROM cleaner_settings WHERE group_id = ${CLEANER_GROUP.default}), ${FALLBACK_DEFAULT_DAYS}) AS duration,
              (SELECT count(*)::int FROM records r WHERE r.test_id = t.id) AS record_count
         ${PLANNED_TESTS} AND t.id > $2 ORDER BY t.id LIMIT $3`,
      [date, last, batchSize],
    );
    if (rows.length === 0) return;
    yield rows;
    last = rows[rows.length - 1]!.test_id;
    if (rows.length < batchSize) return;
  }
}

/** The planned recordings in keyset batches (by record id), for the delete-plan CSV. */
export async function* plannedRecordBatches(
  db: Db,
  date: string,
  batchSize = 1000,
): AsyncGenerator<PlannedRecordRow[]> {
  let last = 0;
  for (;;) {
    const { rows } = await db.query<PlannedRecordRow>(
      `SELECT r.id AS record_id, r.test_id, t.login_id, ${fmt('r.start_at')} AS start_at, ${fmt('r.stop_at')} AS stop_at,
              r.object_key, r.size_bytes
         FROM records r JOIN tests t ON t.id = r.test_id
        WHERE r.test_id IN (SELECT t.id ${PLANNED_TESTS}) AND r.id > $2 ORDER BY r.id LIMIT $3`,
      [date, last, batchSize],
    );
    if (rows.length === 0) return;
    yield rows;
    last = rows[rows.length - 1]!.record_id;
    if (rows.length < batchSize) return;
  }
}

/** Removes stored media; called before the database rows go, so a failure leaves the sitting for the next run. */
export interface RetentionOptions {
  /** Deletes one recording object (S3 or the local stand-in). Must succeed when it is already gone. */
  deleteObject(ref: { bucket: string; key: string }): Promise<void>;
  /** Deletes one stored image (head shot, ID card, marking or AI capture) by its key. Default: nothing. */
  deleteImage?(key: string): Promise<void>;
  /** Sittings handled per database round (default 200). */
  batchSize?: number;
  log?: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void };
}

/** What a run deleted. */
export interface RetentionReport {
  date: string;
  deletedTestIds: number[];
  deletedRecordIds: number[];
  /** Sittings kept because deleting their media failed; they stay planned for the next run. */
  failedTestIds: number[];
  logs: number;
  matchings: number;
}

/**
 * Deletes what `planDeletions` lists for the day of `now` (management time zone): each due sitting's
 * recordings (via `deleteObject`) and images (via `deleteImage`), then its rows; old log rows; old ended
 * matchings. Writes one audit entry per deleted sitting and one per bulk deletion of logs and matchings.
 */
export async function runRetention(db: Db, now: Date, opts: RetentionOptions): Promise<RetentionReport> {
  const date = dateInZone(now);
  const batchSize = opts.batchSize ?? 200;
  const report: RetentionReport = {
    date,
    deletedTestIds: [],
    deletedRecordIds: [],
    failedTestIds: [],
    logs: 0,
    matchings: 0,
  };
  let last = 0;
  for (;;) {
    const { rows } = await db.query<{ id: number }>(
      `SELECT t.id ${PLANNED_TESTS} AND t.id > $2 ORDER BY t.id LIMIT $3`,
      [date, last, batchSize],
    );
    if (rows.length === 0) break;
    last = rows[rows.length - 1]!.id;
    for (const { id } of rows) {
      const records = await db.query<{ id: number; bucket: string; object_key: string }>(
        'SELECT id, bucket, object_key FROM records WHERE test_id = $1 ORDER BY id',
        [id],
      );
      // Live stills are in object storage next to the recordings.
      const stills = await db.query<{ bucket: string; object_key: string }>(
        'SELECT bucket, object_key FROM captures WHERE test_id = $1 ORDER BY id',
        [id],
      );
      const images = await db.query<{ key: string }>(
        `SELECT k AS key FROM (
           SELECT head_shot_key AS k FROM tests WHERE id = $1
           UNION SELECT id_card_key FROM tests WHERE id = $1
           UNION SELECT image_key FROM markings WHERE test_id = $1
           UNION SELECT image_key FROM ai_markings WHERE test_id = $1
           UNION SELECT face_key FROM ai_auth WHERE test_id = $1
           UNION SELECT id_card_key FROM ai_auth WHERE test_id = $1
           UNION SELECT image_key FROM ai_auth_attempts WHERE test_id = $1
         ) s WHERE k IS NOT NULL AND k <> ''`,
        [id],
      );
      try {
        for (const r of records.rows) await opts.deleteObject({ bucket: r.bucket, key: r.object_key });
        for (const c of stills.rows) await opts.deleteObject({ bucket: c.bucket, key: c.object_key });
        if (opts.deleteImage) for (const i of images.rows) await opts.deleteImage(i.key);
      } catch (err) {
        opts.log?.warn(
          { err, testId: id },
          'retention: deleting media failed; the sitting is kept for the next run',
        );
        report.failedTestIds.push(id);
        continue;
      }
      // ON DELETE CASCADE removes records, markings, messages, matchings, logs of the sitting.
      await db.query('DELETE FROM tests WHERE id = $1', [id]);
      await audit(db, {
        type: 'retention.delete_test',
        target: `test:${id}`,
        details: JSON.stringify({
          date,
          records: records.rows.map((r) => r.id),
          images: images.rows.length,
          stills: stills.rows.length,
        }),
      });
      report.deletedTestIds.push(id);
      report.deletedRecordIds.push(...records.rows.map((r) => r.id));
    }
    if (rows.length < batchSize) break;
  }
  const logs = await db.query(`DELETE ${PLANNED_LOGS}`, [date]);
  report.logs = logs.rowCount;
  if (logs.rowCount > 0) {
    await audit(db, {
      type: 'retention.delete_logs',
      target: 'logs',
      details: JSON.stringify({ date, count: logs.rowCount }),
    });
  }
  const matchings = await db.query(`DELETE ${PLANNED_MATCHINGS}`, [date]);
  report.matchings = matchings.rowCount;
  if (matchings.rowCount > 0) {
    await audit(db, {
      type: 'retention.delete_matchings',
      target: 'matchings',
      details: JSON.stringify({ date, count: matchings.rowCount }),
    });
  }
  opts.log?.info(
    {
      ...report,
      deletedTestIds: report.deletedTestIds.length,
      deletedRecordIds: report.deletedRecordIds.length,
    },
    'retention run done',
  );
  return report;
}

/** Options of the daily scheduler: the media deleters (recordings and images in object storage). */
export interface RetentionSchedulerOptions {
  deleteObject: RetentionOptions['deleteObject'];
  deleteImage: NonNullable<RetentionOptions['deleteImage']>;
  /** Lease of a claimed day's run in ms, renewed while it runs (default 10 minutes; tests shorten it). */
  leaseMs?: number;
  /** Minutes after local midnight of the daily run (default 5). */
  minuteOfDay?: number;
}

/**
 * Runs the retention job once shortly after start and then daily (at 00:05 management time by default).
 * Each day runs once across restarts and server instances: the run claims its date in `retention_runs`
 * first (migration 0004) with a lease it renews (0060), and a run whose instance died is taken over. Call it before `listen`; it then stops when the app closes. Returns a handle to stop or run now.
 */
export function startRetentionScheduler(
  app: App,
  opts: RetentionSchedulerOptions,
): { stop(): void; runNow(): Promise<RetentionReport | null> } {
  const minuteOfDay = opts.minuteOfDay ?? 5;
  const deleteImage = opts.deleteImage;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<RetentionReport | null> | null = null;
  let stopped = false;

  const owner = `${os.hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  const leaseMs = opts.leaseMs ?? RETENTION_LEASE_MS;
  const runOnce = async (): Promise<RetentionReport | null> => {
    const now = new Date();
    const date = dateInZone(now);
    // One run per day across every instance: the date is claimed with a lease this instance renews while it
    // deletes; a run whose holder died (its lease ran out before it finished) is taken over.
    const claim = await app.db.query(
      `INSERT INTO retention_runs AS r (run_date, claimed_by, lease_until)
         VALUES ($1::date, $2, now() + make_interval(secs => $3::double precision / 1000))
       ON CONFLICT (run_date) DO UPDATE SET claimed_by = EXCLUDED.claimed_by, lease_until = EXCLUDED.lease_until,
              started_at = now()
        WHERE r.finished_at IS NULL AND coalesce(r.lease_until, r.started_at + interval '1 hour') < now()`,
      [date, owner, leaseMs],
    );
    if (claim.rowCount === 0) return null;
    const renew = setInterval(
      () => {
        void app.db
          .query(
            `UPDATE retention_runs SET lease_until = now() + make_interval(secs => $3::double precision / 1000)
            WHERE run_date = $1::date AND claimed_by = $2 AND finished_at IS NULL`,
            [date, owner, leaseMs],
          )
          .catch(() => undefined);
      },
      Math.floor(leaseMs / 3),
    );
    renew.unref();
    let report: RetentionReport;
    try {
      report = await runRetention(app.db, now, {
        deleteObject: opts.deleteObject,
        deleteImage,
        log: app.log,
      });
    } finally {
      clearInterval(renew);
    }
    await app.db.query(
      `UPDATE retention_runs SET finished_at = now(), report = $3::jsonb WHERE run_date = $1::date AND claimed_by = $2`,
      [
        date,
        owner,
        JSON.stringify({
          ...report,
          deletedTestIds: report.deletedTestIds.length,
          deletedRecordIds: report.deletedRecordIds.length,
        }),
      ],
    );
    return report;
  };
  const runNow = (): Promise<RetentionReport | null> => {
    running ??= runOnce()
      .catch((err: unknown) => {
        app.log.error({ err }, 'retention run failed');
        return null;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
  const msUntilNext = (): number => {
    // Wall-clock minutes now in the management zone; the next run is at minuteOfDay after its midnight.
    const parts = new Intl.DateTimeFormat('en-US', {
      timeZone: MANAGEMENT_TIME_ZONE,
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
      hourCycle: 'h23',
    })
      .formatToParts(new Date())
      .reduce<Record<string, number>>((acc, p) => ((acc[p.type] = Number(p.value)), acc), {});
    const secondsNow = (parts.hour ?? 0) * 3600 + (parts.minute ?? 0) * 60 + (parts.second ?? 0);
    let wait = minuteOfDay * 60 - secondsNow;
    if (wait <= 0) wait += 24 * 3600;
    return wait * 1000;
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(() => {
      void runNow().finally(schedule);
    }, msUntilNext());
    timer.unref();
  };
  const first = setTimeout(() => void runNow(), 1000);
  first.unref();
  schedule();
  // Fastify refuses new hooks once it is ready; then the caller stops the scheduler itself.
  try {
    app.addHook('onClose', async () => {
      stopped = true;
      clearTimeout(first);
      if (timer) clearTimeout(timer);
      await running;
    });
  } catch {
    // already started: the caller's stop() applies
  }
  return {
    stop() {
      stopped = true;
      clearTimeout(first);
      if (timer) clearTimeout(timer);
    },
    runNow,
  };
}
