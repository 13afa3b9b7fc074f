import {
  LIVE_TIMELINE_MINUTES,
  type LiveFeedResult,
  type LiveFlag,
  type LivePane,
} from '../../../contract/capture';
import type { Db } from '../db/db';
import { captureSettingsOf } from './live-captures';
import { toWireTime } from './management-time';
import type { ObjectStorage } from './object-storage';
import { IMAGE_URL_TTL_SECONDS } from './images';
import { startupOf } from './sittings/sittings';
import type { AiSettings } from './ai/settings';

/**
 * Wakes the checkers' feed requests waiting on a sitting when its stills or flags change on this instance.
 * Feeds also look at the database every second, so a change made by another instance arrives within that.
 */
export class LiveFeedBus {
  private readonly waiters = new Map<number, Set<() => void>>();

  /** Resolves at the next change of one of `testIds`, or when `signal` aborts. */
  next(testIds: readonly number[], signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        for (const id of testIds) this.waiters.get(id)?.delete(done);
        signal.removeEventListener('abort', done);
        resolve();
      };
      if (signal.aborted) return resolve();
      for (const id of testIds) {
        let set = this.waiters.get(id);
        if (!set) this.waiters.set(id, (set = new Set()));
        set.add(done);
      }
      signal.addEventListener('abort', done, { once: true });
    });
  }

  /** A sitting's stills or flags changed. */
  changed(testId: number): void {
    const set = this.waiters.get(testId);
    if (!set) return;
    this.waiters.delete(testId);
    for (const w of [...set]) w();
  }
}

const buses = new WeakMap<Db, LiveFeedBus>();

/** The feed bus of an app's database (one per app: every plugin of the app shares its Db). */
export function liveFeedBus(db: Db): LiveFeedBus {
  let b = buses.get(db);
  if (!b) buses.set(db, (b = new LiveFeedBus()));
  return b;
}

/** The checker's matched sittings and the version of their live data. */
export interface CheckerSittings {
  version: string;
  rows: {
    monitor_id: number;
    tester_id: number;
    test_id: number;
    startup_parameters: unknown;
  }[];
}

/**
 * Which sittings a checker watches now, and a version that changes whenever one of them gets a still or a flag
 * (tests.live_seq) or the set of matchings changes. One indexed query: cheap enough to repeat every second.
 */
export async function checkerSittings(db: Db, checkerId: number): Promise<CheckerSittings> {
  const { rows } = await db.query<{
    monitor_id: number;
    tester_id: number;
    test_id: number;
    startup_parameters: unknown;
    live_seq: number | string;
  }>(
    `SELECT m.id AS monitor_id, m.tester_id, m.test_id, t.startup_parameters, t.live_seq
       FROM matchings m JOIN tests t ON t.id = m.test_id
      WHERE m.checker_id = $1 AND m.deleted_at IS NULL
      ORDER BY m.assigned_at, m.id`,
    [checkerId],
  );
  const norm = rows.map((r) => ({
    monitor_id: Number(r.monitor_id),
    tester_id: Number(r.tester_id),
    test_id: Number(r.test_id),
    startup_parameters: r.startup_parameters,
    live_seq: Number(r.live_seq),
  }));
  return {
    version: 'v1:' + norm.map((r) => `${r.monitor_id}.${r.live_seq}`).join('-'),
    rows: norm,
  };
}

interface FlagRow {
  id: number;
  test_id: number;
  flag: LiveFlag['flag'];
  analysis_type: string;
  confidence: number;
  marking_at: Date | string;
  ended_at: Date | string | null;
  excused: boolean;
  bucket: string | null;
  object_key: string | null;
}

/**
 * The live picture of a checker's examinees: per matched sitting its capture settings, newest still, flag
 * counts and the flags of the last LIVE_TIMELINE_MINUTES. Stills (the newest and each flag's) are presigned
 * object-storage URLs, and only on sittings that show stills (is_capture_show).
 */
export async function buildLiveFeed(
  db: Db,
  storage: ObjectStorage,
  thresholds: AiSettings['capture'],
  sittings: CheckerSittings,
): Promise<LiveFeedResult> {
  const ids = sittings.rows.map((r) => r.test_id);
  const now = new Date();
  if (ids.length === 0) return { version: sittings.version, server_time: toWireTime(now)!, panes: [] };
  const [latest, counts, flags] = await Promise.all([
    db.query<{
      test_id: number;
      id: number;
      captured_at: Date | string;
      status: string;
      bucket: string;
      object_key: string;
    }>(
      `SELECT DISTINCT ON (test_id) test_id, id, captured_at, status, bucket, object_key
         FROM captures WHERE test_id = ANY($1::bigint[])
        ORDER BY test_id, captured_at DESC, id DESC`,
      [ids],
    ),
    db.query<{ test_id: number; scored: number; excused: number }>(
      `SELECT test_id, count(*) FILTER (WHERE NOT excused)::int AS scored,
              count(*) FILTER (WHERE excused)::int AS excused
         FROM ai_markings WHERE test_id = ANY($1::bigint[]) AND source = 'capture' GROUP BY test_id`,
      [ids],
    ),
    db.query<FlagRow>(
      `SELECT m.id, m.test_id, m.flag, m.analysis_type, m.confidence, m.marking_at, m.ended_at, m.excused,
              c.bucket, c.object_key
         FROM ai_markings m LEFT JOIN captures c ON c.id = m.capture_id
        WHERE m.test_id = ANY($1::bigint[]) AND m.source = 'capture'
          AND coalesce(m.ended_at, m.marking_at) > now() - make_interval(mins => $2)
        ORDER BY m.marking_at, m.id`,
      [ids, LIVE_TIMELINE_MINUTES],
    ),
  ]);
  const url = (show: boolean, bucket: string | null, key: string | null) =>
    show && bucket && key ? storage.presignGet({ bucket, key }, IMAGE_URL_TTL_SECONDS) : null;
  const panes: LivePane[] = [];
  for (const s of sittings.rows) {
    const cs = captureSettingsOf(startupOf({ startup_parameters: s.startup_parameters as never }));
    const alertAt = thresholds[cs.sensitivity].alertConfidence;
    const last = latest.rows.find((r) => Number(r.test_id) === s.test_id);
    const count = counts.rows.find((r) => Number(r.test_id) === s.test_id);
    const mine = flags.rows.filter((r) => Number(r.test_id) === s.test_id);
    panes.push({
      monitor_id: s.monitor_id,
      tester_id: s.tester_id,
      test_id: s.test_id,
      capture_interval: cs.interval,
      capture_type: cs.type,
      is_capture_show: cs.show,
      sensitivity: cs.sensitivity,
      latest_capture: last
        ? {
            id: Number(last.id),
            captured_at: toWireTime(last.captured_at)!,
            status: last.status,
            url: await url(cs.show, last.bucket, last.object_key),
          }
        : null,
      flag_count: count?.scored ?? 0,
      excused_count: count?.excused ?? 0,
      flags: await Promise.all(
        mine.map(async (f) => ({
          id: Number(f.id),
          flag: f.flag,
          analysis_type: f.analysis_type,
          confidence: Math.round(Number(f.confidence) * 1000) / 1000,
          started_at: toWireTime(f.marking_at)!,
          ended_at: toWireTime(f.ended_at ?? f.marking_at)!,
          excused: f.excused,
          alert: !f.excused && Math.round(Number(f.confidence) * 1000) / 1000 >= alertAt,
          image_url: await url(cs.show, f.bucket, f.object_key),
        })),
      ),
    });
  }
  return { version: sittings.version, server_time: toWireTime(now)!, panes };
}
