import {
  ENDED_MATCHING_NOTICE_SECONDS,
  MATCHING_END_REASONS,
  UNWATCHED_END_REASONS,
  UNWATCHED_NOTICE_HOURS,
  MATCHING_STATS_MAX_BYTES,
  MAX_TESTERS_PER_CHECKER,
  type MatchingEndReason,
  type DeleteMatchingBody,
  type DeleteMatchingResult,
  type KvsReconnectQuery,
  type Matching,
  type MatchingBody,
  type MatchingResult,
  MATCHING_COMMAND,
  MATCHING_STATUS,
} from '../../../contract/matching';
import type { Db } from '../db/db';
import { ApiError, badRequest, forbidden } from './api-error';
import type { App, AuthContext } from './app-types';
import { MatchingChannels, newChannelName, revokeEndedSignaling } from './matching-channels';
import {
  sharedCredentialColumnsSql,
  sharedCredentialJoinSql,
  sharedRowOf,
  type SharedCredentialRow,
} from './signaling-credentials';
import {
  ASSIGNABLE_SQL,
  closeConnectedSql,
  MATCHING_ROW_SQL,
  POLL_SNAPSHOT_SQL,
  isProctored,
  matchingTimeoutOf,
  paramInt,
  publicStartupParameters,
  retryLimitOf,
  type MatchingRow,
  type PollSnapshot,
} from './matching-rows';
import { BatchQueue, gatherFor } from './batch-queue';
import { ClusterLag, LagMeter } from './matching-lag';
import { LivenessWriter } from './matching-liveness';
import { MatchingQueue, type OpenedMatching } from './matching-queue';
import { testerPollStep, type TesterPollStep } from './matching-step';
import type { MatchingSettings } from './matching-settings';
import {
  cancelAbandonedFinalize,
  endTesterMatching,
  revokeUserSessions,
  scheduleAbandonedFinalize,
  scheduleRecordingFinalize,
} from './sitting-exit';
import { toWireTime } from './management-time';
import { recordConnectionGap } from './live-captures';
import { liveFeedBus } from './live-feed';

/**
 * Seconds past the maximum recording time before the server logs an examinee out itself (the page does it at
 * the limit, after sending what it recorded).
 */
export const RECORDING_TIME_GRACE_SECONDS = 60;

export { PREVIOUS_CHECKER_MINUTES } from './matching-queue';

/**
 * After a poll snapshot found no checker with room for a waiting examinee, the next snapshots of this instance
 * skip that question for this long. With every checker full (an exam's steady state: more examinees than the
 * checkers can take) the question probes every checker present, and asked for each batch it was two thirds of the
 * snapshot's database time (1,000 examinees, 160 checkers). A checker's poll on this instance that finds it has
 * room ends the skipping at once; a checker with room on another instance deals the waiting examinees on its own
 * next poll, so an examinee waits at most the checker's poll interval for it, as one who does not poll meanwhile.
 */
export const NO_ROOM_REUSE_MS = 1_000;

/**
 * A mass silence: at least this share of the examinees (or of the checkers) present went silent at once. One
 * person falling silent is that person's browser or network; most of them at once is the server, its database or
 * its network (a restart, a failover, a server that fell behind), and counting them all gone would release every
 * checker's examinees and re-queue every examinee at the moment the server comes back, a load of re-matching it
 * may never get out from under. The sweep then holds them (the self-preservation of service registries) for at
 * most MASS_SILENCE_HOLD_SECONDS past their own limit, so that a real mass departure still ends.
 */
export const MASS_SILENCE_SHARE = 0.5;
/** A mass silence needs at least this many people of a side present (a small exam is judged person by person). */
export const MASS_SILENCE_MIN_PEOPLE = 10;
/** How long past their limit a mass silence holds people before they count as gone (seconds). */
export const MASS_SILENCE_HOLD_SECONDS = 300;

/** Seconds of hold for a side with `silent` of `present` people silent: MASS_SILENCE_HOLD_SECONDS or 0. */
export function massSilenceHold(silent: number, present: number): number {
  return present >= MASS_SILENCE_MIN_PEOPLE && silent >= present * MASS_SILENCE_SHARE
    ? MASS_SILENCE_HOLD_SECONDS
    : 0;
}

/** An ended matching a checker is told of (`ENDED_SQL`). */
interface EndedRow {
  id: number;
  tester_id: number;
  test_id: number;
  login_id: string;
  exam_name: string;
  reason: MatchingEndReason;
  deleted_at: Date | string;
  unwatched: boolean;
}

/**
 * The checker $1's matchings that ended for a reason the checker must see, one per examinee, leaving out
 * examinees matched to this checker again: those of the last $6 (ENDED_MATCHING_NOTICE_SECONDS) seconds, and —
 * for as long as it lasts, up to $9 (UNWATCHED_NOTICE_HOURS) hours — an examinee whose window went away while the
 * sitting stays open with nobody watching it (`unwatched`), so an examinee cannot leave proctoring unseen.
 * $7: the reasons shown, $8: those that can leave a sitting unwatched.
 */
const ENDED_SQL = `
  SELECT * FROM (
    SELECT DISTINCT ON (m.tester_id) m.id, m.tester_id, m.test_id, u.login_id, t.exam_name,
           m.delete_reason AS reason, m.deleted_at,
           (m.delete_reason = ANY($8::text[]) AND t.status BETWEEN 2 AND 6 AND t.kicked = 0 AND u.kicked = 0
            AND NOT (t.logout_at IS NOT NULL AND (t.login_at IS NULL OR t.logout_at >= t.login_at))
            AND NOT EXISTS (SELECT 1 FROM matchings w WHERE w.tester_id = m.tester_id AND w.deleted_at IS NULL
                              AND w.checker_id IS NOT NULL)) AS unwatched
      FROM matchings m JOIN tests t ON t.id = m.test_id JOIN users u ON u.id = m.tester_id
     WHERE m.checker_id = $1 AND m.deleted_at > now() - $9::int * interval '1 hour'
       AND m.delete_reason = ANY($7::text[])
       AND NOT EXISTS (SELECT 1 FROM matchings x WHERE x.tester_id = m.tester_id AND x.checker_id = $1
                         AND x.deleted_at IS NULL)
     ORDER BY m.tester_id, m.deleted_at DESC) ended
   WHERE ended.unwatched OR ended.deleted_at > now() - $6::int * interval '1 second'`;

/** Per-request facts the engine needs: where the stand-in endpoint lives (`<protocol>://<host>`). */
export interface PollContext {
  endpointBase: string;
}

/** A checker that may receive testers now, with its load (active matchings). */
export interface CheckerLoad {
  checker_id: number;
  load: number;
  last_assigned_at: Date | string | null;
}

interface Sitting {
  id: number;
  startup_parameters: unknown;
  kicked: number;
  rejected: number;
  /** The sitting was logged out after its last login (logout, self kick-out, AI forced logout). */
  logged_out: boolean;
  /** When the sitting's first recording started, or null. */
  recording_started_at: Date | string | null;
}

interface Current {
  id: number;
  test_id: number;
  checker_id: number | null;
  matching_status: number;
  matching_command: number;
  checker_command: number;
  tester_retry: number;
  first_connected_at: Date | string | null;
}

const CURRENT_COLUMNS = `id, test_id, checker_id, matching_status, matching_command, checker_command, tester_retry, first_connected_at`;

/** A matching as it is opened: waiting, no checker, nothing counted or pending. */
const NEW_MATCHING = {
  checker_id: null,
  matching_status: MATCHING_STATUS.waiting,
  matching_command: MATCHING_COMMAND.none,
  checker_command: MATCHING_COMMAND.none,
  tester_retry: 0,
} as const;

/** A numeric id from the wire (Id schema: integer or digit string), as a safe integer. */
export function toId(v: number | string, field: string): number {
  const n = typeof v === 'number' ? v : Number(v);
  if (!Number.isSafeInteger(n) || n < 1) throw badRequest(`${field} is not a valid id.`);
  return n;
}

/** The stats object of a poll as JSON text for a jsonb column, or null; refuses oversized or unstorable values. */
export function statsJson(stats: Record<string, unknown> | undefined): string | null {
  if (stats === undefined) return null;
  const text = JSON.stringify(stats);
  if (Buffer.byteLength(text, 'utf8') > MATCHING_STATS_MAX_BYTES) {
    throw new ApiError(413, 'payload_too_large', `stats exceeds ${MATCHING_STATS_MAX_BYTES} bytes.`);
  }
  // PostgreSQL jsonb cannot store U+0000; refuse it as a client mistake rather than fail in the database.
  if (text.includes('\\u0000')) throw badRequest('stats must not contain NUL characters.');
  return text;
}

function sameTime(a: Date | string | null, b: Date | string | null): number {
  const x = a === null ? -Infinity : new Date(a).getTime();
  const y = b === null ? -Infinity : new Date(b).getTime();
  return x - y;
}

/** Assignment order: least loaded first, then longest idle (oldest last assignment; never assigned first), then id. */
export function compareCheckers(a: CheckerLoad, b: CheckerLoad): number {
  return a.load - b.load || sameTime(a.last_assigned_at, b.last_assigned_at) || a.checker_id - b.checker_id;
}

/**
 * How many of `waiting` testers the checker `me` would receive if they were dealt one by one to the least
 * loaded eligible checker (spec §9 cap of five): the rule the dealing statement (`MatchingQueue.assign`)
 * applies to everyone waiting at once, so testers that arrived before the checkers are spread as evenly as
 * testers arriving one at a time.
 */
export function fairShare(checkers: readonly CheckerLoad[], me: number, waiting: number): number {
  const pool = checkers.filter((c) => c.load < MAX_TESTERS_PER_CHECKER).map((c) => ({ ...c }));
  let mine = 0;
  for (let i = 0; i < waiting; i++) {
    pool.sort(compareCheckers);
    const next = pool.find((c) => c.load < MAX_TESTERS_PER_CHECKER);
    if (!next) break;
    next.load += 1;
    // A sequence number past every real time stands for "assigned just now".
    next.last_assigned_at = new Date(8.64e15 - waiting + i);
    if (next.checker_id === me) mine += 1;
  }
  return mine;
}

/**
 * The live-channel matching of spec §3/§4: testers and checkers poll; the engine keeps one active matching
 * per tester, assigns waiting testers to active checkers (least loaded first, at most five each, spec §9),
 * counts failed channel reports, releases the testers of checkers that stopped polling, and hands out
 * signaling channels with credentials.
 *
 * Retry policy: each tester report `failed`/`error` adds one to the matching's tester_retry and `open`
 * resets it; from the second consecutive failure both sides get matching_command 1 (reset the signaling
 * channel); past the sitting's `tester_retry` (default 3) the matching becomes invalid (-1), is answered
 * once with status -1 and is closed, freeing the checker; the tester's next poll queues it afresh. A
 * checker's per-tester report counts the same way against `checker_retry`.
 */
/** The matching's own fields of a poll's answer; the rest is the sitting's, as the poll snapshot read it. */
type MatchingPart = Pick<
  MatchingRow,
  | 'id'
  | 'test_id'
  | 'checker_id'
  | 'matching_status'
  | 'channel_name'
  | 'matching_command'
  | 'checker_command'
  | 'viewer_client_id'
  | 'total_seconds'
  | 'connected_seconds'
>;

/** A poll's answer row without a query: the matching's fields as given, the sitting's from the snapshot. */
function snapshotRow(userId: number, snap: PollSnapshot, m: MatchingPart): MatchingRow {
  return {
    ...m,
    tester_id: userId,
    file_name: snap.file_name,
    login_id: snap.login_id,
    ex_login_id: snap.ex_login_id,
    exam_name: snap.exam_name,
    tester_status: snap.tester_status,
    rejected: snap.rejected,
    kicked: snap.kicked,
    startup_parameters: snap.startup_parameters,
  };
}

/** A snapshot's matching is waiting for a checker, or there is none yet (the SQL asks about room for it). */
function waitsForChecker(r: PollSnapshot): boolean {
  return r.checker_id === null && (r.matching_status ?? MATCHING_STATUS.waiting) === MATCHING_STATUS.waiting;
}

export class MatchingEngine {
  readonly channels: MatchingChannels;
  private readonly liveness: LivenessWriter;
  private readonly queue: MatchingQueue;
  /** How far behind the instances answer polls (the sweep allows for it). */
  readonly lag: ClusterLag;
  /** Whether the last sweep allowed for the servers' lag (for its log lines). */
  private behind = false;
  /** Whether the last sweep held a side in a mass silence (for its log lines). */
  private readonly massSilence = { examinees: false, checkers: false };
  /** Examinee polls read together (`POLL_SNAPSHOT_SQL`), two statements at most under way at once. */
  private readonly snapshots: BatchQueue<number, PollSnapshot | undefined>;
  private lastSweepAt = 0;
  private sweeping: Promise<void> | null = null;
  /** Until when the snapshots skip the room question (`NO_ROOM_REUSE_MS`). */
  private noRoomUntil = 0;

  constructor(
    private readonly app: App,
    readonly settings: MatchingSettings,
  ) {
    this.channels = new MatchingChannels(app, settings);
    this.liveness = new LivenessWriter(app.db);
    this.queue = new MatchingQueue(app.db);
    this.lag = new ClusterLag(app.db, new LagMeter({ off: !settings.measureLag }));
    this.snapshots = new BatchQueue(
      async (userIds) => {
        // On the generic plan: planning this statement for each batch cost about a third of the database's CPU per
        // poll (BENCH_TOP, 1,000 examinees: 0.16-0.25 ms per poll planned per batch, 0.12 generic). It was planned
        // per batch while the room question ran in every batch, when the generic plan cost about three times the
        // database time of the custom one; with the question asked at most once a second it costs the same.
        const asked = Date.now() >= this.noRoomUntil;
        const { rows } = await this.db.query<PollSnapshot>(
          POLL_SNAPSHOT_SQL,
          [userIds, MAX_TESTERS_PER_CHECKER, asked],
          { genericPlan: true },
        );
        if (asked && rows.some((r) => waitsForChecker(r) && !r.room))
          this.noRoomUntil = Date.now() + NO_ROOM_REUSE_MS;
        const byUser = new Map(rows.map((r) => [r.user_id, r]));
        return userIds.map((id) => byUser.get(id));
      },
      2,
      undefined,
      gatherFor(app.db),
    );
  }

  private get db(): Db {
    return this.app.db;
  }

  // ---------------------------------------------------------------------------------------------------------
  // Polls

  /** matching.php for a tester (actor 1). */
  async testerPoll(auth: AuthContext, body: MatchingBody, ctx: PollContext): Promise<MatchingResult> {
    if (body.tester_id !== undefined && toId(body.tester_id, 'tester_id') !== auth.userId) {
      throw forbidden('A tester may report only its own matching.');
    }
    const stats = statsJson(body.stats);
    await this.maybeSweep();
    const snap = await this.snapshots.submit(auth.userId);
    if (!snap) {
      // The sitting is over (status 7) or was never opened: nothing to match; close a leftover matching.
      await endTesterMatching(this.db, auth.userId, 'finished');
      return { matchings: [], matching_timeout: this.settings.defaultTimeoutSeconds };
    }
    const sitting: Sitting = {
      id: snap.sitting_id,
      startup_parameters: snap.startup_parameters,
      kicked: snap.kicked,
      rejected: snap.sitting_rejected,
      logged_out: snap.logged_out,
      recording_started_at: snap.recording_started_at,
    };
    if (sitting.kicked || sitting.logged_out) {
      // A kicked or logged-out examinee is watched by nobody and queued for nobody: no matching row at all.
      await endTesterMatching(this.db, auth.userId, sitting.kicked ? 'kicked' : 'logout');
      return {
        matchings: [],
        matching_timeout: matchingTimeoutOf(sitting.startup_parameters, this.settings),
      };
    }
    if (await this.recordingTimeOver(auth.userId, sitting)) {
      return {
        matchings: [],
        matching_timeout: matchingTimeoutOf(sitting.startup_parameters, this.settings),
      };
    }
    const timeout = matchingTimeoutOf(sitting.startup_parameters, this.settings);
    const quick = await this.quickPoll(auth.userId, snap, sitting, body, stats, timeout);
    if (quick) {
      if (quick.excused) liveFeedBus(this.db).changed(sitting.id);
      const matching = await this.toMatching(quick.row, { side: 'tester', command: 0, ctx });
      return { matchings: [matching], matching_timeout: timeout };
    }
    const step = await this.db.transaction((tx) =>
      this.recordTesterPoll(tx, auth.userId, sitting, body, stats, timeout),
    );
    if (step.excused) liveFeedBus(this.db).changed(sitting.id);
    let command = step.command;
    if (
      step.assign &&
      (await this.queue.assign(step.id)).checker_id !== null &&
      body.channel_status === 'open'
    ) {
      // The tester's channel is already open and a checker was just assigned: connected now, not one poll later.
      const again = await this.db.transaction((tx) =>
        this.recordTesterPoll(tx, auth.userId, sitting, { channel_status: 'open' }, null, timeout),
      );
      command = Math.max(command, again.command);
    }
    const row = await this.readMatching(step.id);
    const matching = await this.toMatching(row, { side: 'tester', command, ctx });
    return { matchings: [matching], matching_timeout: timeout };
  }

  /**
   * An examinee's poll answered without a transaction of its own, or undefined (the poll then goes through
   * `recordTesterPoll`): a poll that changes nothing but its liveness (`steadyRow`) stores it with the other
   * polls' (`LivenessWriter`); a poll that finds no live matching and reports nothing a new matching would
   * count opens a waiting one with the other polls that need one (`MatchingQueue.open`). A waiting matching
   * while some checker has room is then dealt with everyone waiting (`MatchingQueue.assign`); one dealt just
   * now to a tester whose channel is already open goes through the transaction, which connects it at once.
   */
  private async quickPoll(
    userId: number,
    snap: PollSnapshot,
    sitting: Sitting,
    body: MatchingBody,
    stats: string | null,
    timeout: number,
  ): Promise<{ row: MatchingRow; excused: boolean } | undefined> {
    let row: MatchingRow;
    let excused: boolean;
    if (snap.id === null) {
      if (testerPollStep(NEW_MATCHING, body, this.limitsOf(sitting)).changed) return undefined;
      const opened = await this.queue.open({
        testerId: userId,
        testId: sitting.id,
        staleSeconds: timeout * this.settings.testerStaleFactor,
        timeoutSeconds: timeout,
        stats,
        channelStatus: body.channel_status ?? null,
      });
      if (!opened) return undefined;
      row = this.openedRow(userId, snap, opened);
      excused = opened.excused;
    } else {
      const steady = this.steadyRow(userId, snap, sitting, body);
      if (!steady) return undefined;
      const stored = await this.liveness.record({
        matchingId: steady.id,
        staleSeconds: timeout * this.settings.testerStaleFactor,
        timeoutSeconds: timeout,
        stats,
        channelStatus: body.channel_status ?? null,
      });
      row = steady;
      excused = stored.excused;
    }
    if (
      snap.room &&
      row.checker_id === null &&
      this.assignable({ status: row.matching_status, invalid: false }, null, sitting)
    ) {
      const dealt = await this.queue.assign(row.id);
      if (dealt.checker_id !== null) {
        if (body.channel_status === 'open') return undefined;
        row = { ...row, checker_id: dealt.checker_id, viewer_client_id: dealt.viewer_client_id };
      }
    }
    return { row, excused };
  }

  /** The answer's row for a matching `MatchingQueue.open` just opened (waiting, no checker, no time yet). */
  private openedRow(userId: number, snap: PollSnapshot, opened: OpenedMatching): MatchingRow {
    return snapshotRow(userId, snap, {
      id: opened.id,
      test_id: snap.sitting_id,
      checker_id: null,
      matching_status: MATCHING_STATUS.waiting,
      channel_name: opened.channelName,
      matching_command: MATCHING_COMMAND.none,
      checker_command: MATCHING_COMMAND.none,
      viewer_client_id: null,
      total_seconds: 0,
      connected_seconds: 0,
    });
  }

  /** matching.php for a checker (actor 2). */
  async checkerPoll(auth: AuthContext, body: MatchingBody, ctx: PollContext): Promise<MatchingResult> {
    const stats = statsJson(body.stats);
    const command = body.matching_command === undefined ? 0 : Number(body.matching_command);
    if (command !== 0 && body.tester_id === undefined) throw badRequest('matching_command needs tester_id.');
    await this.maybeSweep();
    const timeout = this.settings.defaultTimeoutSeconds;
    if (body.tester_id !== undefined) {
      await this.recordCheckerReport(
        auth.userId,
        toId(body.tester_id, 'tester_id'),
        body.channel_status,
        command,
      );
    }
    const presence = [
      timeout * this.settings.checkerStaleFactor,
      timeout,
      body.channel_status ?? null,
      stats,
    ];
    let view = await this.checkerView(auth.userId, presence);
    const pending = new Set(view.pending);
    // A checker with room: the examinees' polls on this instance ask about room again from now.
    if (view.matchings.length < MAX_TESTERS_PER_CHECKER) this.noRoomUntil = 0;
    if (view.waiting && view.matchings.length < MAX_TESTERS_PER_CHECKER) {
      // Examinees wait and this checker has room: they are dealt (to it and any other checker with room), then
      // it sees what it has now.
      await this.queue.assign();
      view = await this.checkerView(auth.userId, presence);
      for (const id of view.pending) pending.add(id);
    }
    const matchings: Matching[] = [];
    for (const row of view.matchings) {
      matchings.push(
        await this.toMatching(row, {
          side: 'checker',
          viewerId: auth.userId,
          command: pending.has(row.id) ? MATCHING_COMMAND.resetSignalingChannel : MATCHING_COMMAND.none,
          ctx,
        }),
      );
    }
    const ended = view.ended
      .map((r) => ({
        monitor_id: r.id,
        tester_id: r.tester_id,
        test_id: r.test_id,
        login_id: r.login_id,
        exam_name: r.exam_name,
        reason: r.reason,
        ended_at: toWireTime(r.deleted_at)!,
        ...(r.unwatched ? { unwatched: true } : {}),
      }))
      .sort((x, y) => y.ended_at.localeCompare(x.ended_at));
    return { matchings, matching_timeout: timeout, ended };
  }

  /**
   * One statement for a checker's poll: records that it polled (presence), takes the commands waiting for it
   * (cleared as they are read, so a command set a moment later stays pending for the next poll instead of being
   * lost), and reads its matchings, whether any examinee waits for a checker, and the ended matchings it must be
   * told of (`ENDED_SQL`).
   */
  private async checkerView(
    checkerId: number,
    presence: unknown[],
  ): Promise<{ matchings: MatchingRow[]; pending: number[]; waiting: boolean; ended: EndedRow[] }> {
    const { rows } = await this.db.query<{
      matchings: MatchingRow[];
      pending: number[];
      waiting: boolean;
      ended: EndedRow[];
    }>(
      `WITH presence AS (
         INSERT INTO checker_presence (checker_id, last_poll_at, stale_at, matching_timeout, channel_status, stats)
         VALUES ($1, now(), now() + $2::int * interval '1 second', $3, $4, $5::jsonb)
         ON CONFLICT (checker_id) DO UPDATE SET
           last_poll_at = now(), stale_at = EXCLUDED.stale_at, matching_timeout = EXCLUDED.matching_timeout,
           channel_status = coalesce(EXCLUDED.channel_status, checker_presence.channel_status),
           stats = coalesce(EXCLUDED.stats, checker_presence.stats)
         RETURNING checker_id),
       cleared AS (
         UPDATE matchings SET checker_command = 0
          WHERE checker_id = $1 AND deleted_at IS NULL AND checker_command <> 0 RETURNING id)
       SELECT (SELECT coalesce(json_agg(x ORDER BY x.assigned_at, x.id), '[]') FROM (
                 ${MATCHING_ROW_SQL}
                  WHERE m.checker_id = $1 AND m.deleted_at IS NULL) x) AS matchings,
              (SELECT coalesce(array_agg(id), '{}') FROM cleared) AS pending,
              EXISTS (SELECT 1 FROM matchings m JOIN tests t ON t.id = m.test_id JOIN users u ON u.id = m.tester_id
                       WHERE ${ASSIGNABLE_SQL}) AS waiting,
              (SELECT coalesce(json_agg(e), '[]') FROM (${ENDED_SQL}) e) AS ended,
              (SELECT count(*) FROM presence) AS present`,
      [
        checkerId,
        ...presence,
        ENDED_MATCHING_NOTICE_SECONDS,
        [...MATCHING_END_REASONS],
        [...UNWATCHED_END_REASONS],
        UNWATCHED_NOTICE_HOURS,
      ],
      { genericPlan: true },
    );
    const r = rows[0]!;
    return { matchings: r.matchings, pending: r.pending.map(Number), waiting: r.waiting, ended: r.ended };
  }

  /**
   * The matching as the answer shows it when this poll changes nothing but its liveness, else undefined (the
   * poll then goes through its transaction): the live matching belongs to the open sitting and the report
   * changes no status, count or command (`testerPollStep`). A silence before the poll does not matter here: the
   * liveness write records a connection gap itself.
   */
  private steadyRow(
    userId: number,
    snap: PollSnapshot,
    sitting: Sitting,
    body: MatchingBody,
  ): MatchingRow | undefined {
    if (snap.id === null || snap.test_id !== sitting.id || snap.poll_age_seconds === null) return undefined;
    const cur = {
      checker_id: snap.checker_id,
      matching_status: snap.matching_status!,
      matching_command: snap.matching_command!,
      checker_command: snap.checker_command!,
      tester_retry: snap.tester_retry!,
    };
    const step = testerPollStep(cur, body, this.limitsOf(sitting));
    if (step.changed) return undefined;
    return snapshotRow(userId, snap, {
      id: snap.id,
      test_id: snap.test_id,
      checker_id: snap.checker_id,
      matching_status: cur.matching_status,
      channel_name: snap.channel_name!,
      matching_command: cur.matching_command,
      checker_command: cur.checker_command,
      viewer_client_id: snap.viewer_client_id,
      total_seconds: snap.total_seconds!,
      connected_seconds: snap.connected_seconds!,
    });
  }

  private limitsOf(sitting: Sitting): { retryLimit: number; failuresBeforeReset: number } {
    return {
      retryLimit: retryLimitOf(sitting.startup_parameters, 'tester_retry', this.settings.defaultTesterRetry),
      failuresBeforeReset: this.settings.failuresBeforeReset,
    };
  }

  /** A matching this poll leaves waiting with no checker, in a sitting a checker may be given. */
  private assignable(
    step: Pick<TesterPollStep, 'status' | 'invalid'>,
    checkerId: number | null,
    sitting: Sitting,
  ): boolean {
    return (
      !step.invalid &&
      step.status === MATCHING_STATUS.waiting &&
      checkerId === null &&
      isProctored(sitting.startup_parameters) &&
      sitting.kicked === 0 &&
      sitting.rejected === 0
    );
  }

  /**
   * The server's side of the recording-time limit (spec §4, start-up max_rectime): counted from the sitting's
   * first recording start, so neither a reload nor a new login resets it. The page logs itself out when the
   * time is up; a page that has not done so RECORDING_TIME_GRACE_SECONDS later is logged out here (its sessions
   * end with the reason, the checker is told, the recording is completed with what the store holds).
   */
  private async recordingTimeOver(userId: number, sitting: Sitting): Promise<boolean> {
    const max = paramInt(sitting.startup_parameters, 'max_rectime', 0);
    if (max <= 0 || sitting.recording_started_at === null) return false;
    const deadline =
      new Date(sitting.recording_started_at).getTime() + (max + RECORDING_TIME_GRACE_SECONDS) * 1000;
    if (Date.now() < deadline) return false;
    const ended = await this.db.transaction(async (tx) => {
      const t = await tx.query(
        `UPDATE tests SET logout_at = now(), updated_at = now()
          WHERE id = $1 AND (logout_at IS NULL OR logout_at < coalesce(login_at, logout_at))`,
        [sitting.id],
      );
      if (t.rowCount === 0) return false;
      await tx.query(`INSERT INTO examinee_logs (test_id, event, detail) VALUES ($1, 'logout', $2)`, [
        sitting.id,
        'recording_time_exceeded',
      ]);
      await endTesterMatching(tx, userId, 'recording_time_exceeded');
      await revokeUserSessions(tx, userId, 'recording_time_exceeded');
      await scheduleRecordingFinalize(tx, sitting.id, 0);
      return true;
    });
    if (ended) this.app.authCache.forgetUser(userId);
    return true;
  }

  /** Upserts the tester's matching and applies its report, in one transaction; returns what to do next. */
  private async recordTesterPoll(
    tx: Db,
    userId: number,
    sitting: Sitting,
    body: MatchingBody,
    stats: string | null,
    timeout: number,
  ): Promise<{ id: number; command: number; assign: boolean; excused: boolean }> {
    let cur = (
      await tx.query<Current>(
        `SELECT ${CURRENT_COLUMNS} FROM matchings WHERE tester_id = $1 AND deleted_at IS NULL FOR UPDATE`,
        [userId],
      )
    ).rows[0];
    // A poll after a long silence: the examinee's connection was down meanwhile (flags from then are excused).
    // After the matching's lock, as the batched liveness write does (matching, then markings and sitting), so
    // the two cannot wait for each other.
    const excused = await recordConnectionGap(tx, sitting.id, timeout);
    if (cur && cur.test_id !== sitting.id) {
      await softDelete(tx, cur.id, 'sitting_changed');
      cur = undefined;
    }
    cur ??= await this.createMatching(tx, userId, sitting.id);

    const { status, retry, command, checkerCommand, opening, closing, invalid, changed } = testerPollStep(
      cur,
      body,
      this.limitsOf(sitting),
    );
    const cs = body.channel_status;
    await tx.query(
      `UPDATE matchings SET
         channel_status = coalesce($2, channel_status),
         ${closeConnectedSql('$3::boolean')},
         connected_at = CASE WHEN $3::boolean THEN NULL WHEN $4::boolean THEN now() ELSE connected_at END,
         first_connected_at = CASE WHEN $4::boolean THEN coalesce(first_connected_at, now()) ELSE first_connected_at END,
         matching_status = $5, tester_retry = $6, matching_command = 0, checker_command = $7,
         last_tester_poll_at = now(), tester_stale_at = now() + $8::int * interval '1 second',
         tester_stats = coalesce($9::jsonb, tester_stats),
         deleted_at = CASE WHEN $10::boolean THEN now() ELSE NULL END,
         delete_reason = CASE WHEN $10::boolean THEN 'tester_retry' ELSE delete_reason END,
         updated_at = CASE WHEN $11::boolean THEN now() ELSE updated_at END
       WHERE id = $1`,
      [
        cur.id,
        cs ?? null,
        closing,
        opening,
        status,
        retry,
        checkerCommand,
        timeout * this.settings.testerStaleFactor,
        stats,
        invalid,
        changed,
      ],
    );
    if (opening && cur.first_connected_at === null) {
      // spec §4: the examinee log gets 'matched', and a tester still at 1 (login) becomes 2 (matched).
      await tx.query(
        `UPDATE tests SET matched_at = now(), status = CASE WHEN status = 1 THEN 2 ELSE status END, updated_at = now() WHERE id = $1`,
        [sitting.id],
      );
      // Once per matching: the examinee's page may have reported 'matched' itself (tester/status.php) when the
      // poll assigned a checker, before the channel opened; the log then already says so.
      await tx.query(
        `INSERT INTO examinee_logs (test_id, event)
         SELECT $1, 'matched' WHERE NOT EXISTS (
           SELECT 1 FROM examinee_logs
            WHERE test_id = $1 AND event = 'matched'
              AND created_at >= (SELECT created_at FROM matchings WHERE id = $2))`,
        [sitting.id, cur.id],
      );
    }
    const assign = this.assignable({ status, invalid }, cur.checker_id, sitting);
    return { id: cur.id, command, assign, excused };
  }

  /**
   * A new waiting matching; the sitting keeps its signaling channel across matchings (one channel per sitting).
   * The channel itself is created when credentials for it are first handed out (`toMatching`, after this
   * transaction): an AWS call must not hold the transaction open, and unproctored sittings need none.
   */
  private async createMatching(tx: Db, userId: number, testId: number): Promise<Current> {
    // The examinee is back: its recordings are not completed behind its page's back.
    await cancelAbandonedFinalize(tx, testId);
    const prev = await tx.query<{ channel_name: string }>(
      `SELECT channel_name FROM matchings WHERE test_id = $1 ORDER BY id DESC LIMIT 1`,
      [testId],
    );
    const channelName = prev.rows[0]?.channel_name ?? newChannelName(testId);
    const ins = await tx.query<Current>(
      `INSERT INTO matchings (test_id, tester_id, matching_status, channel_name, channel_status)
       VALUES ($1, $2, 1, $3, 'close')
       ON CONFLICT (tester_id) WHERE deleted_at IS NULL DO NOTHING
       RETURNING ${CURRENT_COLUMNS}`,
      [testId, userId, channelName],
    );
    if (ins.rows[0]) return ins.rows[0];
    // A concurrent poll of the same tester created it first.
    const again = await tx.query<Current>(
      `SELECT ${CURRENT_COLUMNS} FROM matchings WHERE tester_id = $1 AND deleted_at IS NULL FOR UPDATE`,
      [userId],
    );
    if (!again.rows[0]) throw new Error('matching vanished during creation');
    return again.rows[0];
  }

  /** A checker's report about one of its testers: counts toward checker_retry, or asks the tester to reset. */
  private async recordCheckerReport(
    checkerId: number,
    testerId: number,
    cs: MatchingBody['channel_status'],
    command: number,
  ): Promise<void> {
    await this.db.transaction(async (tx) => {
      const { rows } = await tx.query<{
        id: number;
        checker_id: number | null;
        checker_retry: number;
        startup_parameters: unknown;
      }>(
        `SELECT m.id, m.checker_id, m.checker_retry, t.startup_parameters
           FROM matchings m JOIN tests t ON t.id = m.test_id
          WHERE m.tester_id = $1 AND m.deleted_at IS NULL FOR UPDATE OF m`,
        [testerId],
      );
      const cur = rows[0];
      // Reports race with releases and deletions (the tester may have left a moment ago), so a report about a
      // tester that is not, or no longer, this checker's is ignored rather than failing the whole poll.
      if (!cur || cur.checker_id !== checkerId) return;
      const limit = retryLimitOf(cur.startup_parameters, 'checker_retry', this.settings.defaultCheckerRetry);
      let retry = cur.checker_retry;
      if (cs === 'open') retry = 0;
      else if (cs === 'failed' || cs === 'error') retry += 1;
      const invalid = retry > limit;
      await tx.query(
        `UPDATE matchings SET checker_retry = $2,
           matching_command = CASE WHEN $3::boolean THEN 1 ELSE matching_command END,
           ${closeConnectedSql('$4::boolean AND matching_status = 2')},
           connected_at = CASE WHEN $4::boolean THEN NULL ELSE connected_at END,
           matching_status = CASE WHEN $4::boolean THEN -1 ELSE matching_status END,
           deleted_at = CASE WHEN $4::boolean THEN now() ELSE deleted_at END,
           delete_reason = CASE WHEN $4::boolean THEN 'checker_retry' ELSE delete_reason END,
           updated_at = now()
         WHERE id = $1`,
        [cur.id, retry, command === 1 && !invalid, invalid],
      );
    });
  }

  // ---------------------------------------------------------------------------------------------------------
  // Sweeps

  /** Runs the sweep unless one ran within the sweep interval; waits for one already running. */
  private async maybeSweep(): Promise<void> {
    if (this.sweeping) return this.sweeping;
    const now = Date.now();
    if (now - this.lastSweepAt < this.settings.sweepIntervalMs) return;
    this.lastSweepAt = now;
    this.sweeping = this.sweep()
      .then(async () => {
        await revokeEndedSignaling(this.app);
      })
      .catch((err: unknown) => this.app.log.error({ err }, 'matching sweep failed'))
      .finally(() => {
        this.sweeping = null;
      });
    return this.sweeping;
  }

  /**
   * Releases the testers of checkers silent for 3 × their timeout back to waiting (each gets a fresh waiting
   * matching that keeps its place in the queue; the old one stays as history), and closes the matchings of
   * testers silent for testerStaleFactor × their timeout, so a closed browser does not hold a checker's place.
   * In a mass silence of a side (`massSilenceHold`) that side's people are held MASS_SILENCE_HOLD_SECONDS longer.
   * Time the servers were behind is not theirs: with the slowest instance answering polls L seconds after
   * they arrived (`ClusterLag`), every interval of a page that polls a timeout after each answer is L longer,
   * so each side's limit grows by its factor × L (at most by MASS_SILENCE_HOLD_SECONDS, the hold's limit, and
   * not on top of a hold). A server that falls behind gradually then keeps its people
   * (and their checkers) instead of counting them gone one after another and re-matching them all.
   */
  async sweep(): Promise<void> {
    const lag = await this.lag.publish();
    this.noteLag(lag);
    const c = (
      await this.db.query<{
        testers: number;
        silent_testers: number;
        checkers: number;
        silent_checkers: number;
      }>(
        `SELECT count(*)::int AS testers, count(*) FILTER (WHERE tester_stale_at <= now())::int AS silent_testers,
                (SELECT count(*) FROM checker_presence
                  WHERE swept_at IS NULL OR swept_at < stale_at)::int AS checkers,
                (SELECT count(*) FROM checker_presence
                  WHERE stale_at <= now() AND (swept_at IS NULL OR swept_at < stale_at))::int AS silent_checkers
           FROM matchings WHERE deleted_at IS NULL`,
        [],
        { genericPlan: true },
      )
    ).rows[0]!;
    const testerMass = massSilenceHold(c.silent_testers, c.testers);
    const checkerMass = massSilenceHold(c.silent_checkers, c.checkers);
    this.noteMassSilence('examinees', testerMass > 0, c.silent_testers, c.testers);
    this.noteMassSilence('checkers', checkerMass > 0, c.silent_checkers, c.checkers);
    // The lag's allowance, like the hold, ends at MASS_SILENCE_HOLD_SECONDS: a longer silence still ends.
    const allow = (factor: number) => Math.min(lag * factor, MASS_SILENCE_HOLD_SECONDS);
    const testerHold = Math.max(testerMass, allow(this.settings.testerStaleFactor));
    const checkerHold = Math.max(checkerMass, allow(this.settings.checkerStaleFactor));
    if (c.silent_checkers > 0) {
      // The released matchings are locked in id order, as the batched liveness write locks them.
      await this.db.transaction(async (tx) => {
        const released = await tx.query<{ id: number }>(
          `WITH stale AS (
             UPDATE checker_presence SET swept_at = now()
              WHERE stale_at <= now() - make_interval(secs => $1) AND (swept_at IS NULL OR swept_at < stale_at)
              RETURNING checker_id),
           held AS (
             SELECT m.id FROM matchings m JOIN stale ON stale.checker_id = m.checker_id
              WHERE m.deleted_at IS NULL ORDER BY m.id FOR UPDATE OF m)
           UPDATE matchings m SET deleted_at = now(), delete_reason = 'checker_timeout', ${closeConnectedSql('m.matching_status = 2')},
                  connected_at = NULL, updated_at = now()
             FROM held
            WHERE m.id = held.id AND m.deleted_at IS NULL
            RETURNING m.id`,
          [checkerHold],
        );
        for (const r of released.rows) {
          await tx.query(
            `INSERT INTO matchings (test_id, tester_id, matching_status, channel_name, channel_status, created_at,
                                    last_tester_poll_at, tester_stale_at, tester_stats, updated_at)
             SELECT test_id, tester_id, 1, channel_name, channel_status, created_at, last_tester_poll_at, tester_stale_at, tester_stats, now()
               FROM matchings WHERE id = $1
             ON CONFLICT (tester_id) WHERE deleted_at IS NULL DO NOTHING`,
            [r.id],
          );
        }
      });
    }
    if (c.silent_testers === 0) return;
    // Locked in id order, as the batched liveness write locks them: the two cannot deadlock over their rows.
    const gone = await this.db.query<{ test_id: number }>(
      `WITH silent AS (
         SELECT id FROM matchings
          WHERE deleted_at IS NULL AND tester_stale_at <= now() - make_interval(secs => $1)
          ORDER BY id FOR UPDATE)
       UPDATE matchings m SET deleted_at = now(), delete_reason = 'no_response', ${closeConnectedSql('m.matching_status = 2')},
              connected_at = NULL, updated_at = now()
         FROM silent
        WHERE m.id = silent.id AND m.deleted_at IS NULL AND m.tester_stale_at <= now() - make_interval(secs => $1)
        RETURNING m.test_id`,
      [testerHold],
    );
    // Nobody may come back: their recordings are completed later unless they do.
    await scheduleAbandonedFinalize(
      this.db,
      gone.rows.map((r) => r.test_id),
    );
  }

  /** Logs when the servers fall a poll interval or more behind, and when they catch up (once each). */
  private noteLag(lag: number): void {
    const behind = lag >= this.settings.defaultTimeoutSeconds;
    if (behind === this.behind) return;
    this.behind = behind;
    if (behind)
      this.app.log.warn(
        { lagSeconds: lag },
        'matching polls answered late: silences allow for the servers being behind',
      );
    else this.app.log.info({ lagSeconds: lag }, 'matching polls answered in time again');
  }

  /** Logs when a side's mass silence begins and ends (once each, not every sweep). */
  private noteMassSilence(side: 'examinees' | 'checkers', holding: boolean, silent: number, present: number) {
    if (holding === this.massSilence[side]) return;
    this.massSilence[side] = holding;
    if (holding)
      this.app.log.warn(
        { side, silent, present, holdSeconds: MASS_SILENCE_HOLD_SECONDS },
        'mass silence: most of a side went silent at once (the server, its database or its network, not them); holding them before counting them gone',
      );
    else this.app.log.info({ side, silent, present }, 'mass silence over');
  }

  // ---------------------------------------------------------------------------------------------------------
  // delete_matching, kvs_reconnect

  /** delete_matching.php: a tester its own; a checker only one assigned to it. Soft delete. */
  async deleteMatching(auth: AuthContext, body: DeleteMatchingBody): Promise<DeleteMatchingResult> {
    const testerId = this.targetTester(auth, body.tester_id);
    const monitorId = body.monitor_id === undefined ? undefined : toId(body.monitor_id, 'monitor_id');
    const result = await this.db.transaction(async (tx) => {
      const cur = (
        await tx.query<{ id: number; checker_id: number | null; test_id: number }>(
          `SELECT id, checker_id, test_id FROM matchings WHERE tester_id = $1 AND deleted_at IS NULL FOR UPDATE`,
          [testerId],
        )
      ).rows[0];
      if (!cur) return { deleted: false, monitor_id: null };
      if (auth.actor === 2 && cur.checker_id !== auth.userId)
        throw forbidden('This matching is not assigned to you.');
      // spec §4: a delayed deletion applies only if the same matching is still present.
      if (monitorId !== undefined && monitorId !== cur.id) return { deleted: false, monitor_id: cur.id };
      // The examinee's page gives up its channel only when the video connection cannot be made (spec §4:
      // signaling retried 3 times); a checker says so when its viewer lost the examinee. Both leave the sitting
      // open and, until the examinee is watched again, unwatched. A checker's release is its own business.
      const reason = auth.actor === 1 || body.reason === 'connection_lost' ? 'connection_lost' : 'checker';
      await softDelete(tx, cur.id, reason);
      if (reason === 'connection_lost') await scheduleAbandonedFinalize(tx, [cur.test_id]);
      return { deleted: true, monitor_id: cur.id };
    });
    if (result.deleted) await revokeEndedSignaling(this.app);
    return result;
  }

  /**
   * kvs_reconnect.php: the caller's matching for the tester with fresh credentials, or null. The other side is
   * told to reset too (matching_command 1): the tester when a checker reconnects, the checker when the tester does.
   */
  async reconnect(auth: AuthContext, query: KvsReconnectQuery, ctx: PollContext): Promise<Matching | null> {
    const testerId = this.targetTester(auth, query.tester_id);
    const checker = auth.actor === 2;
    // One statement: the live matching, the command to the other side written only where the caller may
    // reconnect it (a checker only its own matching; nothing is written for a refused one), and the caller's
    // credentials for this matching if an instance issued some (reused while good: no STS or KVS call).
    const row = (
      await this.db.query<MatchingRow & Record<string, unknown>>(
        `WITH r AS (${MATCHING_ROW_SQL} WHERE m.tester_id = $1 AND m.deleted_at IS NULL),
              told AS (
                UPDATE matchings
                   SET matching_command = CASE WHEN $2::boolean THEN 1 ELSE matching_command END,
                       checker_command = CASE WHEN $2::boolean THEN checker_command ELSE 1 END,
                       updated_at = now()
                 WHERE id IN (SELECT id FROM r
                               WHERE CASE WHEN $2::boolean THEN checker_id = $3::bigint ELSE checker_id IS NOT NULL END))
         SELECT r.*, ${sharedCredentialColumnsSql()}
           FROM r ${sharedCredentialJoinSql(`CASE WHEN $2::boolean THEN 'viewer' ELSE 'master' END`, `CASE WHEN $2::boolean THEN $3::bigint ELSE r.tester_id END`)}`,
        [testerId, checker, auth.userId],
      )
    ).rows[0];
    if (!row) return null;
    if (checker && row.checker_id !== auth.userId) throw forbidden('This tester is not matched to you.');
    return this.toMatching(row, {
      side: auth.actor === 1 ? 'tester' : 'checker',
      viewerId: auth.userId,
      command: 0,
      ctx,
      fresh: true,
      shared: sharedRowOf(row),
    });
  }

  /** The tester a call is about: a tester may name only itself (or nobody); a checker must name one. */
  private targetTester(auth: AuthContext, raw: number | string | undefined): number {
    if (auth.actor === 1) {
      const id = raw === undefined ? auth.userId : toId(raw, 'tester_id');
      if (id !== auth.userId) throw forbidden('A tester may act only on its own matching.');
      return id;
    }
    if (raw === undefined) throw badRequest('tester_id is required.');
    return toId(raw, 'tester_id');
  }

  // ---------------------------------------------------------------------------------------------------------
  // Reading

  private async readMatching(id: number): Promise<MatchingRow> {
    const { rows } = await this.db.query<MatchingRow>(`${MATCHING_ROW_SQL} WHERE m.id = $1`, [id]);
    if (!rows[0]) throw new Error(`matching ${id} not found`);
    return rows[0];
  }

  /** A Matching of spec §3 for one side; the signaling channel only where that side needs one. */
  private async toMatching(
    row: MatchingRow,
    opts: {
      side: 'tester' | 'checker';
      viewerId?: number;
      command: number;
      ctx: PollContext;
      fresh?: boolean;
      /** The caller's shared credentials for this matching, read by the reconnect. */
      shared?: SharedCredentialRow | null;
    },
  ): Promise<Matching> {
    const needsChannel =
      row.matching_status >= 0 &&
      isProctored(row.startup_parameters) &&
      (opts.side === 'checker' ? row.checker_id !== null : row.kicked === 0);
    const signaling = needsChannel
      ? await this.channels.signalingChannel({
          userId: opts.side === 'tester' ? row.tester_id : (opts.viewerId ?? 0),
          role: opts.side === 'tester' ? 'master' : 'viewer',
          channelName: row.channel_name,
          endpointBase: opts.ctx.endpointBase,
          matchingId: row.id,
          ...(opts.fresh ? { fresh: true, shared: opts.shared ?? null } : {}),
        })
      : null;
    return {
      monitor_id: row.id,
      tester_id: row.tester_id,
      test_id: row.test_id,
      checker_id: row.checker_id,
      file_name: row.file_name,
      matching_status: row.matching_status,
      login_id: row.login_id,
      ex_login_id: row.ex_login_id,
      exam_name: row.exam_name,
      tester_status: row.tester_status,
      rejected: row.rejected,
      kicked: row.kicked,
      matching_total_time: row.total_seconds,
      matching_connected_time: row.connected_seconds,
      startup_parameters: publicStartupParameters(row.startup_parameters),
      matching_command: opts.command,
      signaling_channel: signaling,
      viewer_client_id: row.checker_id !== null ? row.viewer_client_id : null,
    };
  }
}

/** Closes a matching (soft delete) with a reason, adding a running connection to its connected time. */
async function softDelete(tx: Db, id: number, reason: string): Promise<void> {
  await tx.query(
    `UPDATE matchings SET deleted_at = now(), delete_reason = $2, ${closeConnectedSql()}, connected_at = NULL, updated_at = now()
      WHERE id = $1 AND deleted_at IS NULL`,
    [id, reason],
  );
}
