import type { Db } from '../../db/db';
import type { App } from '../app-types';
import { ClusterSchedule } from '../cluster-schedule';
import { CHANNEL_PREFIX, baseChannelName, testIdOfChannel } from '../matching-channels';
import { recordChannelDeletions } from '../signaling-credentials';
import type { ChannelSummary, KvsControl } from './kvs-control';

/** The sweep's job in `scheduler_runs` (one run per interval across instances). */
export const CHANNEL_SWEEP_JOB = 'kvs_channel_sweep';

/** When the server deletes signaling channels in AWS mode. */
export interface ChannelSweepSettings {
  /** Between two sweeps (KVS_CHANNEL_SWEEP_MINUTES, default 15; 0 turns the sweep off). */
  intervalMs: number;
  /**
   * A finished sitting's channel goes once its last matching has been over this long (default 5 min), and
   * no channel younger than this is touched.
   */
  graceMs: number;
  /**
   * An unfinished sitting's channel goes after this long without a live matching (KVS_CHANNEL_IDLE_HOURS,
   * default 6): the examinee closed the browser and did not come back. A later return re-creates it.
   */
  idleMs: number;
}

/** Reads KVS_CHANNEL_SWEEP_MINUTES and KVS_CHANNEL_IDLE_HOURS. */
export function loadChannelSweepSettings(env: NodeJS.ProcessEnv = process.env): ChannelSweepSettings {
  const num = (name: string, fallback: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!Number.isFinite(n) || n < 0 || n > max)
      throw new Error(`Invalid ${name}: ${raw} (0–${max} expected)`);
    return n;
  };
  return {
    intervalMs: num('KVS_CHANNEL_SWEEP_MINUTES', 15, 24 * 60) * 60_000,
    graceMs: 5 * 60_000,
    idleMs: num('KVS_CHANNEL_IDLE_HOURS', 6, 24 * 30) * 3600_000,
  };
}

/** What a sweep did. */
export interface ChannelSweepReport {
  /** Channels listed with the product's name prefix. */
  listed: number;
  deleted: string[];
  /** Names the database does not know (another deployment in the account, or a hand-made channel): kept. */
  unknown: number;
  /** Deletions that failed; retried by the next sweep. */
  failed: string[];
}

interface ChannelUse {
  channel_name: string;
  live: boolean;
  finished: boolean;
  idle_seconds: number | null;
}

/** Facts per channel name from the sittings (tests) the names point at, in one query per batch. */
async function channelUse(db: Db, testIds: number[]): Promise<Map<string, ChannelUse>> {
  const out = new Map<string, ChannelUse>();
  for (let i = 0; i < testIds.length; i += 500) {
    const batch = testIds.slice(i, i + 500);
    // A matching is live while open and its tester still polls (tester_stale_at ahead); a sitting that
    // ended without anyone polling afterwards still counts as over once its tester went stale.
    const { rows } = await db.query<ChannelUse>(
      `SELECT m.channel_name,
              bool_or(m.deleted_at IS NULL AND (m.tester_stale_at IS NULL OR m.tester_stale_at > now())) AS live,
              bool_or(t.status >= 7) AS finished,
              extract(epoch FROM now() - max(coalesce(m.deleted_at, m.tester_stale_at, m.updated_at)))::float8
                AS idle_seconds
         FROM matchings m JOIN tests t ON t.id = m.test_id
        WHERE m.test_id IN (SELECT value::int FROM jsonb_array_elements_text($1::jsonb))
        GROUP BY m.channel_name`,
      [JSON.stringify(batch.map(String))],
    );
    for (const r of rows) out.set(r.channel_name, r);
  }
  return out;
}

/** Whether a channel with these facts is no longer needed. */
function unneeded(use: ChannelUse, settings: ChannelSweepSettings): boolean {
  if (use.live) return false;
  const idleMs = (use.idle_seconds ?? 0) * 1000;
  return idleMs >= (use.finished ? settings.graceMs : settings.idleMs);
}

/**
 * Deletes the signaling channels no sitting needs (one per sitting, `exam-<test id>-<random>`, and its phone's
 * `…-phone` when the sitting has the phone camera, created by
 * `KvsControl.ensure`): those of finished sittings (status 7) whose last matching ended more than the grace
 * period ago, and those of unfinished sittings without a live matching for the idle period. Channels the
 * database does not know are left alone. A failed deletion is logged and retried by the next sweep.
 *
 * Why a sweep and not a delete where a sitting ends: a sitting ends in several places (finish, kick-out,
 * an examinee who closes the browser and never returns, a server that restarts in between), a channel is
 * never replaced while its sitting lives (one channel per sitting, reused across matchings), and deleting
 * from the listing is idempotent across server instances. The daily retention job would be too coarse:
 * active channels count against the account's channel quota.
 */
export async function sweepChannels(
  db: Db,
  control: KvsControl,
  settings: ChannelSweepSettings,
  log: { warn(obj: object, msg: string): void; info(obj: object, msg: string): void },
  now = Date.now(),
): Promise<ChannelSweepReport> {
  const listed = await control.listChannels(CHANNEL_PREFIX);
  const report: ChannelSweepReport = { listed: listed.length, deleted: [], unknown: 0, failed: [] };
  const candidates: ChannelSummary[] = [];
  const testIds = new Set<number>();
  for (const ch of listed) {
    const testId = testIdOfChannel(ch.name);
    if (testId === null) {
      report.unknown += 1;
      continue;
    }
    if (ch.status === 'DELETING') continue;
    if (ch.creationTime && now - ch.creationTime.getTime() < settings.graceMs) continue;
    candidates.push(ch);
    testIds.add(testId);
  }
  const uses = await channelUse(db, [...testIds]);
  for (const ch of candidates) {
    // A phone's channel goes with its sitting's own.
    const use = uses.get(baseChannelName(ch.name));
    if (!use) {
      report.unknown += 1;
      continue;
    }
    if (!unneeded(use, settings)) continue;
    try {
      await control.deleteChannel(ch);
      report.deleted.push(ch.name);
    } catch (err) {
      const e = err as { name?: unknown; message?: unknown };
      log.warn(
        { channel: ch.name, awsError: e.name, awsMessage: e.message },
        'KVS channel deletion failed; the next sweep retries',
      );
      report.failed.push(ch.name);
      continue;
    }
    // Every instance's reconnects learn it: credentials shared for this channel no longer vouch for it.
    try {
      await recordChannelDeletions(db, [ch.name]);
    } catch (err) {
      log.warn(
        { channel: ch.name, err: (err as Error).message },
        'Recording a KVS channel deletion failed; reconnects may hand out the channel until it is re-created',
      );
    }
  }
  if (report.deleted.length || report.failed.length) {
    log.info(
      { ...report, deleted: report.deleted.length, failed: report.failed.length },
      'KVS channel sweep done',
    );
  }
  return report;
}

/**
 * Runs `sweepChannels` every `settings.intervalMs` (first run one interval after the app is ready) until the
 * app closes, once per interval across every server instance on the database (`ClusterSchedule`: the
 * instance that claims the interval's run sweeps, the others skip it; a run cut short by a crash is taken
 * over). A run that throws (AWS or the database unreachable) is logged and the next one tries again.
 * `runNow` runs one at once unless another instance is running one, or joins the one running here.
 */
export function startChannelSweeper(
  app: App,
  control: KvsControl,
  settings: ChannelSweepSettings,
): { runNow(): Promise<ChannelSweepReport | null>; stop(): void } {
  const schedule = new ClusterSchedule(app.db);
  let running: Promise<ChannelSweepReport | null> | null = null;
  let timer: NodeJS.Timeout | undefined;
  const run = (everyMs: number) => {
    running ??= (async () => {
      let report: ChannelSweepReport | null = null;
      await schedule.runIfDue(CHANNEL_SWEEP_JOB, everyMs, async () => {
        report = await sweepChannels(app.db, control, settings, app.log);
      });
      return report;
    })()
      .catch((err: unknown) => {
        const e = err as { name?: unknown; message?: unknown };
        app.log.warn({ awsError: e.name, awsMessage: e.message }, 'KVS channel sweep failed; retried later');
        return null;
      })
      .finally(() => {
        running = null;
      });
    return running;
  };
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  if (settings.intervalMs > 0) {
    app.addHook('onReady', async () => {
      // Ticks a little more often than the interval, so an interval is not missed by timer drift; the claim
      // decides whether a run is due.
      timer = setInterval(() => void run(settings.intervalMs), Math.max(1000, settings.intervalMs / 2));
      timer.unref();
    });
  }
  app.addHook('onClose', async () => {
    stop();
    await running;
  });
  return { runNow: () => run(0), stop };
}
