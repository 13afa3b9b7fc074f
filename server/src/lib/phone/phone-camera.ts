import {
  PHONE_PAIRING_TTL_SECONDS,
  PHONE_STALE_FACTOR,
  type PhoneCamera,
  type PhoneLeaveResult,
  type PhoneLostReason,
  type PhonePairResult,
  type PhonePairingResult,
  type PhonePollBody,
  type PhonePollResult,
  type PhoneState,
  type PhoneView,
} from '../../../../contract/phone';
import type { Matching } from '../../../../contract/matching';
import { WIDER_VIEW_PARAMS } from '../../../../contract/constants/wider-view';
import type { Db } from '../../db/db';
import { ApiError } from '../api-error';
import type { App, AuthContext } from '../app-types';
import { toWireTime } from '../management-time';
import { phoneChannelName, type MatchingChannels } from '../matching-channels';
import { isProctored, matchingTimeoutOf, paramInt } from '../matching-rows';
import type { MatchingSettings } from '../matching-settings';
import { statsJson } from '../matching-engine';
import { RECORDING_FINALIZE_GRACE_SECONDS } from '../sitting-exit';
import { hashToken, newToken } from '../tokens';

/**
 * The examinee's phone as a second camera (README "Phone as a second camera"): pairing codes, the phone's session,
 * its polls and its state as the examinee and the checker see it. A phone session is a `sessions` row of the
 * examinee's account with `phone_test_id` set: the auth plugin lets it call only routes whose access names
 * 'phone', so it can do nothing but the phone's job for that one sitting.
 */

/** A text start-up parameter, or null when it is absent or empty. */
function startupText(sp: unknown, key: string): string | null {
  const v = sp && typeof sp === 'object' ? (sp as Record<string, unknown>)[key] : undefined;
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : null;
}

/** Whether the sitting's start-up parameters switch the phone camera on. */
export function phoneCameraOn(startupParameters: unknown): boolean {
  return paramInt(startupParameters, WIDER_VIEW_PARAMS.phone, 0) === 1;
}

// The open-sitting test of the matching engine: not finished, not kicked, not logged out since its last login.
const SITTING_OPEN_SQL = `(t.status < 7 AND t.kicked = 0 AND u.kicked = 0
  AND NOT (t.logout_at IS NOT NULL AND (t.login_at IS NULL OR t.logout_at >= t.login_at)))`;

// The phone's state from its link row (alias l): a phone past its stale time is lost even before the sweep says so.
const STATE_SQL = `CASE WHEN l.test_id IS NULL THEN 'waiting'
  WHEN l.lost_at IS NOT NULL OR l.stale_at <= now() THEN 'lost'
  WHEN l.channel_status = 'open' THEN 'live' ELSE 'connecting' END`;
const SINCE_SQL = `CASE WHEN l.test_id IS NULL THEN NULL
  WHEN l.lost_at IS NOT NULL OR l.stale_at <= now() THEN coalesce(l.lost_at, l.stale_at)
  WHEN l.channel_status = 'open' THEN coalesce(l.live_at, l.paired_at) ELSE l.paired_at END`;

/** Whether the sitting is open as the phone sees it (not finished, kicked or logged out since its last login). */
export async function phoneSittingOpen(db: Db, testId: number): Promise<boolean> {
  const { rows } = await db.query<{ open: boolean }>(
    `SELECT ${SITTING_OPEN_SQL} AS open FROM tests t JOIN users u ON u.id = t.user_id WHERE t.id = $1`,
    [testId],
  );
  return rows[0]?.open === true;
}

interface LinkRow {
  test_id: number;
  state: PhoneState;
  since: Date | string | null;
  lost_reason: PhoneLostReason | null;
  camera: PhoneCamera | null;
}

/**
 * tester/phone_pairing.php: a new single-use pairing code for the examinee's open sitting, valid
 * PHONE_PAIRING_TTL_SECONDS; the sitting's unused older codes stop working. 409 `phone_off` for a sitting
 * without the phone camera.
 */
export async function issuePairingCode(db: Db, userId: number): Promise<PhonePairingResult> {
  return db.transaction(async (tx) => {
    const { rows } = await tx.query<{ id: number; startup_parameters: unknown }>(
      `SELECT t.id, t.startup_parameters FROM tests t JOIN users u ON u.id = t.user_id
        WHERE t.user_id = $1 AND ${SITTING_OPEN_SQL} ORDER BY t.id DESC LIMIT 1 FOR UPDATE OF t`,
      [userId],
    );
    const sitting = rows[0];
    if (!sitting)
      throw new ApiError(
        409,
        'no_open_sitting',
        'The tester has no open sitting (log in first, or the exam is over).',
      );
    if (!phoneCameraOn(sitting.startup_parameters))
      throw new ApiError(
        409,
        'phone_off',
        'This sitting has no phone camera (start-up is_phone_camera is 0).',
      );
    await tx.query(
      `UPDATE phone_pairings SET expires_at = least(expires_at, now()) WHERE test_id = $1 AND used_at IS NULL`,
      [sitting.id],
    );
    const code = newToken();
    const ins = await tx.query<{ expires_at: Date | string }>(
      `INSERT INTO phone_pairings (token_hash, test_id, user_id, expires_at)
       VALUES ($1, $2, $3, now() + $4::int * interval '1 second') RETURNING expires_at`,
      [hashToken(code), sitting.id, userId, PHONE_PAIRING_TTL_SECONDS],
    );
    return {
      code,
      expires_at: toWireTime(ins.rows[0]!.expires_at)!,
      ttl_seconds: PHONE_PAIRING_TTL_SECONDS,
    };
  });
}

/** The answer for a code that cannot be spent (410 phone_pairing_invalid). */
export function pairingInvalid(): ApiError {
  return new ApiError(
    410,
    'phone_pairing_invalid',
    'This phone link was already used, has expired, was replaced by a newer one, or its exam is over.',
  );
}

/**
 * phone/pair.php: spends a pairing code once and opens the phone's session for its sitting. A phone paired
 * before (the examinee rescans, e.g. with another phone) is replaced: its session ends (401 `phone_replaced` at
 * its next call) and, on the local stand-in, its signaling credentials are revoked. Logged as `phone_paired`.
 * Null for a used, expired, replaced or unknown code, or a sitting that is over.
 */
export async function pairPhone(
  app: App,
  code: string,
  ip: string,
  settings: MatchingSettings,
): Promise<PhonePairResult | null> {
  if (!/^[A-Za-z0-9_-]{20,200}$/.test(code)) return null;
  const token = newToken();
  const paired = await app.db.transaction(async (tx) => {
    const spent = await tx.query<{ test_id: number; user_id: number }>(
      `UPDATE phone_pairings p SET used_at = now()
        WHERE p.token_hash = $1 AND p.used_at IS NULL AND p.expires_at > now()
          AND EXISTS (SELECT 1 FROM tests t JOIN users u ON u.id = t.user_id
                       WHERE t.id = p.test_id AND ${SITTING_OPEN_SQL})
        RETURNING p.test_id, p.user_id`,
      [hashToken(code)],
    );
    const grant = spent.rows[0];
    if (!grant) return null;
    const replaced = await tx.query<{ id: number }>(
      `UPDATE sessions SET revoked_at = now(), revoke_reason = 'phone_replaced'
        WHERE phone_test_id = $1 AND revoked_at IS NULL RETURNING id`,
      [grant.test_id],
    );
    const session = await tx.query<{ id: number; expires_at: Date | string }>(
      `INSERT INTO sessions (user_id, token_hash, ip, expires_at, phone_test_id)
       VALUES ($1, $2, $3, now() + $4::int * interval '1 second', $5) RETURNING id, expires_at`,
      [grant.user_id, hashToken(token), ip, app.config.tokenTtlSeconds, grant.test_id],
    );
    const { rows } = await tx.query<{
      login_id: string;
      name: string;
      test_name: string;
      startup_parameters: unknown;
    }>(
      `SELECT u.login_id, u.name, t.test_name, t.startup_parameters
         FROM tests t JOIN users u ON u.id = t.user_id WHERE t.id = $1`,
      [grant.test_id],
    );
    const sitting = rows[0]!;
    const timeout = matchingTimeoutOf(sitting.startup_parameters, settings);
    await tx.query(
      `INSERT INTO phone_links (test_id, session_id, paired_at, last_poll_at, stale_at)
       VALUES ($1, $2, now(), now(), now() + $3::int * interval '1 second')
       ON CONFLICT (test_id) DO UPDATE SET session_id = EXCLUDED.session_id, paired_at = now(),
         last_poll_at = now(), stale_at = EXCLUDED.stale_at, channel_status = 'close', live_at = NULL,
         lost_at = NULL, lost_reason = NULL, left_run = NULL, camera = NULL, stats = NULL`,
      [grant.test_id, session.rows[0]!.id, timeout * PHONE_STALE_FACTOR],
    );
    if (replaced.rows.length > 0) await finalizeReplacedPhoneRecordings(tx, grant.test_id);
    await tx.query(`INSERT INTO examinee_logs (test_id, event, detail) VALUES ($1, 'phone_paired', $2)`, [
      grant.test_id,
      replaced.rows.length > 0 ? 'replaced' : '',
    ]);
    const sp = sitting.startup_parameters as Record<string, unknown> | null;
    return {
      testId: grant.test_id,
      replaced: replaced.rows.length > 0,
      result: {
        access_token: token,
        expires_at: toWireTime(session.rows[0]!.expires_at)!,
        exam_user_name: sitting.name,
        login_id: sitting.login_id,
        test_name: sitting.test_name,
        lang: (sp?.lang === 'en' ? 'en' : 'ja') as 'ja' | 'en',
        matching_timeout: timeout,
      },
    };
  });
  if (!paired) return null;
  // The replaced phone must not go on publishing into the sitting's phone channel.
  if (paired.replaced) await revokePhoneMasters(app, paired.testId);
  return paired.result;
}

/**
 * A phone replaced by another (rescanned) can no longer call: its unfinished recordings are given to the
 * server to complete from the parts they hold, after the usual grace, instead of waiting for the sitting's end.
 */
async function finalizeReplacedPhoneRecordings(tx: Db, testId: number): Promise<number> {
  const r = await tx.query(
    `UPDATE records SET finalize_at = least(coalesce(finalize_at, 'infinity'), now() + $2::int * interval '1 second'),
            finalize_reason = 'phone_replaced', updated_at = now()
      WHERE test_id = $1 AND stream = 'phone' AND stop_at IS NULL`,
    [testId, RECORDING_FINALIZE_GRACE_SECONDS],
  );
  return r.rowCount;
}

/** Revokes (local stand-in) every master credential of the sitting's phone channel; STS ones expire by themselves. */
async function revokePhoneMasters(app: App, testId: number): Promise<void> {
  const issuer = app.localCredentials;
  if (!issuer) return;
  const { rows } = await app.db.query<{ channel_name: string }>(
    `SELECT DISTINCT channel_name FROM matchings WHERE test_id = $1`,
    [testId],
  );
  const names = new Set(rows.map((r) => phoneChannelName(r.channel_name)));
  issuer.revokeWhere((s) => s.kind === 'kvs' && s.role === 'master' && names.has(s.channelName));
}

/** The phone session a request carries: its sitting, or 403 for any other session. */
export function phoneSitting(auth: AuthContext): number {
  if (auth.phoneTestId === undefined || auth.phoneTestId === null)
    throw new ApiError(403, 'forbidden', 'Only a paired phone may call this.');
  return auth.phoneTestId;
}

/**
 * phone/poll.php: the phone says how its publishing goes; the answer gives its MASTER credentials of the
 * sitting's phone channel (while the sitting is proctored and open), the matched checker's ClientId (the only
 * viewer it answers) and whether the sitting is still open. A phone that was lost and polls again is back
 * (`phone_reconnected` in the examinee log).
 */
export async function phonePoll(
  app: App,
  channels: MatchingChannels,
  settings: MatchingSettings,
  auth: AuthContext,
  body: PhonePollBody,
  endpointBase: string,
): Promise<PhonePollResult> {
  const testId = phoneSitting(auth);
  const stats = statsJson(body.stats);
  const step = await app.db.transaction(async (tx) => {
    // The link row first, locked: a pairing that replaces this phone meanwhile waits, and then this poll sees it.
    const link = (
      await tx.query<{ session_id: number; was_lost: boolean; left_run: string | null }>(
        `SELECT session_id, (lost_at IS NOT NULL OR stale_at <= now()) AS was_lost, left_run
           FROM phone_links WHERE test_id = $1 FOR UPDATE`,
        [testId],
      )
    ).rows[0];
    // The link names the newest phone session; an older one was replaced (its session was revoked with it).
    if (!link || Number(link.session_id) !== auth.sessionId)
      throw new ApiError(
        401,
        'phone_replaced',
        'Another phone was paired with this exam in place of this one.',
      );
    const { rows } = await tx.query<{
      open: boolean;
      startup_parameters: unknown;
      channel_name: string | null;
      viewer_client_id: string | null;
    }>(
      `SELECT ${SITTING_OPEN_SQL} AS open, t.startup_parameters,
              (SELECT m.channel_name FROM matchings m WHERE m.test_id = t.id ORDER BY m.id DESC LIMIT 1) AS channel_name,
              (SELECT m.viewer_client_id FROM matchings m WHERE m.test_id = t.id AND m.deleted_at IS NULL
                  AND m.checker_id IS NOT NULL LIMIT 1) AS viewer_client_id
         FROM tests t JOIN users u ON u.id = t.user_id
        WHERE t.id = $1`,
      [testId],
    );
    const row = rows[0]!;
    const timeout = matchingTimeoutOf(row.startup_parameters, settings);
    // A poll of a run that already said it left (sent before its page went, answered after the leave): the phone
    // stays lost, and the gone page gets no credentials.
    const late = link.was_lost && body.run !== undefined && link.left_run === body.run;
    if (!row.open || late) return { row, timeout, state: 'lost' as PhoneState, late };
    const cs = body.channel_status ?? null;
    const upd = await tx.query<{ state: PhoneState }>(
      `UPDATE phone_links l SET
         last_poll_at = now(), stale_at = now() + $2::int * interval '1 second',
         channel_status = coalesce($3, CASE WHEN $4::boolean THEN 'close' ELSE l.channel_status END),
         live_at = CASE WHEN $3 = 'open' AND (l.channel_status <> 'open' OR l.live_at IS NULL OR $4::boolean)
                        THEN now() ELSE l.live_at END,
         lost_at = NULL, lost_reason = NULL,
         camera = coalesce($5, l.camera), stats = coalesce($6::jsonb, l.stats)
       WHERE l.test_id = $1
       RETURNING ${STATE_SQL} AS state`,
      [testId, timeout * PHONE_STALE_FACTOR, cs, link.was_lost, body.camera ?? null, stats],
    );
    if (link.was_lost)
      await tx.query(`INSERT INTO examinee_logs (test_id, event) VALUES ($1, 'phone_reconnected')`, [testId]);
    return { row, timeout, state: upd.rows[0]!.state, late: false };
  });
  const { row, timeout, late } = step;
  const sp = row.startup_parameters;
  const signaling =
    row.open && !late && isProctored(sp) && row.channel_name
      ? await channels.signalingChannel({
          userId: auth.userId,
          role: 'master',
          channelName: phoneChannelName(row.channel_name),
          endpointBase,
          ...(body.fresh_credentials ? { fresh: true } : {}),
        })
      : null;
  return {
    sitting: row.open ? 'open' : 'ended',
    state: step.state,
    matching_timeout: timeout,
    signaling_channel: signaling,
    viewer_client_id: row.open && !late ? row.viewer_client_id : null,
    recording:
      paramInt(sp, 'is_record', 0) === 1
        ? {
            video_level: paramInt(sp, 'video_recording_preference', 0) || null,
            video_codec: startupText(sp, 'video_codec'),
          }
        : null,
  };
}

/**
 * phone/leave.php: the phone's page is going away (closed, stop pressed): the phone is lost at once rather than
 * after PHONE_STALE_FACTOR silent polls, and the examinee log says it left. `run` (the page's publishing run) is
 * kept: a poll of that run answered after this one (it was on its way as the page went) leaves the phone lost.
 */
export async function phoneLeave(db: Db, auth: AuthContext, run: string | null): Promise<PhoneLeaveResult> {
  const testId = phoneSitting(auth);
  const { rows } = await db.query<{ test_id: number }>(
    `WITH left_ AS (
       UPDATE phone_links SET lost_at = now(), lost_reason = 'left', channel_status = 'close', stale_at = now(),
              left_run = $3
        WHERE test_id = $1 AND session_id = $2 AND lost_at IS NULL
        RETURNING test_id)
     INSERT INTO examinee_logs (test_id, event, detail) SELECT test_id, 'phone_lost', 'left' FROM left_
     RETURNING test_id`,
    [testId, auth.sessionId, run],
  );
  return { left: rows.length > 0 };
}

/**
 * Records phones that stopped polling as lost (`lost_at` = when they went stale) and logs `phone_lost` once per
 * loss. Idempotent across instances (the row update decides who logs).
 */
export async function sweepLostPhones(db: Db): Promise<number[]> {
  const { rows } = await db.query<{ test_id: number }>(
    `WITH lost AS (
       UPDATE phone_links SET lost_at = stale_at, lost_reason = 'no_response', channel_status = 'close'
        WHERE lost_at IS NULL AND stale_at <= now()
        RETURNING test_id)
     INSERT INTO examinee_logs (test_id, event, detail) SELECT test_id, 'phone_lost', 'no_response' FROM lost
     RETURNING test_id`,
  );
  return rows.map((r) => Number(r.test_id));
}

/**
 * Adds `phone` to the matchings of a poll (and of kvs_reconnect): for each sitting with the phone camera on, its
 * state; for the matched checker, the VIEWER credentials of the phone's channel while a phone is paired and not
 * lost (`fresh`: newly issued ones, as kvs_reconnect gives for the camera's channel). Sittings without the phone
 * camera cost no query.
 */
export class PhoneViews {
  private lastSweepAt = 0;

  constructor(
    private readonly app: App,
    private readonly channels: MatchingChannels,
    private readonly sweepIntervalMs: number,
  ) {}

  async attach(
    matchings: Matching[],
    opts: { side: 'tester' | 'checker'; viewerId: number; endpointBase: string; fresh?: boolean },
  ): Promise<Matching[]> {
    const withPhone = matchings.filter((m) => phoneCameraOn(m.startup_parameters));
    if (withPhone.length === 0) return matchings;
    await this.maybeSweep();
    const { rows } = await this.app.db.query<LinkRow>(
      `SELECT t.id AS test_id, ${STATE_SQL} AS state, ${SINCE_SQL} AS since,
              CASE WHEN l.lost_at IS NOT NULL OR l.stale_at <= now() THEN coalesce(l.lost_reason, 'no_response') END AS lost_reason,
              l.camera
         FROM tests t LEFT JOIN phone_links l ON l.test_id = t.id
        WHERE t.id = ANY($1::bigint[])`,
      [withPhone.map((m) => m.test_id)],
    );
    const byTest = new Map(rows.map((r) => [Number(r.test_id), r]));
    const out: Matching[] = [];
    for (const m of matchings) {
      const link = phoneCameraOn(m.startup_parameters) ? byTest.get(m.test_id) : undefined;
      if (!link) {
        out.push(m);
        continue;
      }
      const wantsChannel =
        opts.side === 'checker' &&
        m.checker_id === opts.viewerId &&
        m.signaling_channel !== null &&
        (link.state === 'connecting' || link.state === 'live');
      const phone: PhoneView = {
        state: link.state,
        since: toWireTime(link.since),
        camera: link.camera,
        signaling_channel: wantsChannel
          ? await this.channels.signalingChannel({
              userId: opts.viewerId,
              role: 'viewer',
              channelName: phoneChannelName(m.signaling_channel!.channel_name),
              endpointBase: opts.endpointBase,
              ...(opts.fresh ? { fresh: true } : {}),
            })
          : null,
      };
      if (link.state === 'lost' && link.lost_reason) phone.lost_reason = link.lost_reason;
      out.push({ ...m, phone });
    }
    return out;
  }

  /** Sweeps lost phones at most once per interval on this instance (any instance's sweep logs a loss once). */
  private async maybeSweep(): Promise<void> {
    const now = Date.now();
    if (now - this.lastSweepAt < this.sweepIntervalMs) return;
    this.lastSweepAt = now;
    try {
      await sweepLostPhones(this.app.db);
    } catch (err) {
      this.app.log.error({ err }, 'phone sweep failed');
    }
  }
}
