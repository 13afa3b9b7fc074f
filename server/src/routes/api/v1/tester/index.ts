import { ALL_ACTORS, Envelope } from '../../../../../../contract/common';
import { MESSAGE_COMMANDS, MESSAGE_TYPE, SEND_TYPE } from '../../../../../../contract/messages';
import {
  HeadShotPostResult,
  HeadShotQuery,
  HeadShotResult,
  ImageBody,
  KickOutBody,
  KickOutResult,
  LATEST_MODE,
  MarkingBody,
  MarkingResult,
  MC_TOKEN_PARAMS,
  McTokenRedeemBody,
  McTokenRedeemResult,
  McTokenBody,
  McTokenResult,
  RejectedBody,
  RejectedResult,
  TESTER_STATUS,
  TesterDetail,
  TesterDetailQuery,
  TesterStatusBody,
  TesterStatusResult,
  type KickOutResult as KickOutResultT,
} from '../../../../../../contract/tester';
import { ApiError } from '../../../../lib/api-error';
import { assertReadyForExam } from '../../../../lib/wider-view/wider-view';
import type { App, AuthContext } from '../../../../lib/app-types';
import { audit } from '../../../../lib/audit';
import { perIpLimit } from '../../../../lib/db-rate-limit';
import { IMAGE_URL_TTL_SECONDS, appImageStore } from '../../../../lib/images';
import { appObjectStorage } from '../../../../lib/object-storage';
import {
  assertCanViewSitting,
  assertMayLookUp,
  buildTesterDetail,
  markingTotalScore,
} from '../../../../lib/tester/detail';
import { DEMO_EXAM_PATH } from '../../../demo-exam';
import {
  issueMcToken,
  MC_TOKEN_TTL_SECONDS,
  mcTokenInvalid,
  redeemMcToken,
} from '../../../../lib/tester/mc-token';
import {
  assertCanView,
  findCurrentSitting,
  findMatching,
  findOpenSitting,
  findSitting,
  findTesterMatching,
  insertMessage,
  iso,
  loadTester,
  logExamineeEvent,
  requireOpenSitting,
  startupInt,
  startupOf,
  startupText,
  targetTesterId,
  type SittingRow,
} from '../../../../lib/sittings/sittings';
import { checkTransition, eventForStatus, type StatusChanger } from '../../../../lib/sittings/state';
import {
  endTesterMatching,
  revokeUserSessions,
  scheduleAbandonedFinalize,
  scheduleRecordingFinalize,
} from '../../../../lib/sitting-exit';
import {
  IMAGE_JSON_BODY_LIMIT,
  multipartToBody,
  requireUploadedImage,
  uploadedImage,
} from '../../../../lib/tester/upload';
import type { Db } from '../../../../db/db';
import { revokeEndedSignaling } from '../../../../lib/matching-channels';

const kickedError = () =>
  new ApiError(403, 'kicked', 'The tester was kicked out; a manager must lift it first.');

/** A checker may act on a tester only while matched to it (spec §6); system managers and supervisors always. */
async function assertCheckerOrAdmin(db: Db, auth: AuthContext, testerId: number): Promise<void> {
  if (auth.actor === 4 || auth.actor === 5) return;
  if (auth.actor === 2 && (await findMatching(db, auth.userId, testerId))) return;
  throw new ApiError(403, 'not_matched', 'You are not matched to this tester.');
}

/** The sitting a detail request is about (spec §3 latest modes); 404 when the tester has none. */
async function pickSitting(
  db: Db,
  testerId: number,
  testId: number | undefined,
  latest: number,
): Promise<number> {
  if (latest === LATEST_MODE.latest || latest === LATEST_MODE.examiningLatest) {
    // Mode 2 "examining latest": the newest sitting that reached the exam (status 5–7), else the newest one.
    const { rows } = await db.query<{ id: number }>(
      `SELECT id FROM tests WHERE user_id = $1
        ORDER BY ($2::boolean AND status >= 5) DESC, id DESC LIMIT 1`,
      [testerId, latest === LATEST_MODE.examiningLatest],
    );
    if (!rows[0]) throw new ApiError(404, 'sitting_not_found', 'The tester has no sitting yet.');
    return rows[0].id;
  }
  if (testId !== undefined) {
    const s = await findSitting(db, testId);
    if (!s || s.user_id !== testerId)
      throw new ApiError(404, 'sitting_not_found', 'No such sitting of this tester.');
    return s.id;
  }
  const s = await findCurrentSitting(db, testerId);
  if (!s) throw new ApiError(404, 'sitting_not_found', 'The tester has no sitting yet.');
  return s.id;
}

/**
 * exam_url of the sitting with the one-time token added under the mode's parameter name; only http(s) URLs or
 * same-origin paths.
 */
function windowOpenUrl(examUrl: string, token: string, mode: 1 | 2, lang: string): string | null {
  const u = examUrl.trim();
  if (!u) return null;
  const relative = u.startsWith('/') && !u.startsWith('//');
  let parsed: URL;
  try {
    parsed = new URL(u, 'http://relative.invalid');
  } catch {
    return null;
  }
  if (!relative && parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return null;
  if (!relative && !/^https?:\/\//i.test(u)) return null;
  parsed.searchParams.set(MC_TOKEN_PARAMS[mode], token);
  // The built-in demo exam opens in the sitting's language (an outside exam system learns it on redemption).
  if (relative && parsed.pathname === DEMO_EXAM_PATH && !parsed.searchParams.has('lang')) {
    parsed.searchParams.set('lang', lang === 'en' ? 'en' : 'ja');
  }
  return relative ? `${parsed.pathname}${parsed.search}${parsed.hash}` : parsed.toString();
}

/**
 * Examinee routes of spec §7: tester/detail, tester/status, tester/kick_out, tester/rejected,
 * tester/markings, tester/head_shot and get_mc_token.
 */
export default async function testerRoutes(app: App): Promise<void> {
  // Identity and marking images, and the stills of live captures, are in object storage (shared by every
  // instance), served by presigned URLs.
  const images = appImageStore(app);

  app.get(
    '/tester/detail.php',
    {
      config: { access: ALL_ACTORS },
      schema: { querystring: TesterDetailQuery, response: { 200: Envelope(TesterDetail) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const q = request.query;
      let testerId: number;
      if (auth.actor === 1) {
        testerId = targetTesterId(auth, q.tester_id);
        // spec §8 "405 on tester detail: tester logged out": this session is alive but the sitting was logged
        // out after its last login (logout from another window, a self kick-out, or an AI forced logout).
        const cur = await findCurrentSitting(app.db, testerId);
        if (cur?.logout_at && (!cur.login_at || new Date(cur.logout_at) >= new Date(cur.login_at))) {
          throw new ApiError(405, 'tester_logged_out', 'The tester has logged out.');
        }
      } else if (q.tester_id !== undefined) {
        testerId = q.tester_id;
      } else if (q.test_id !== undefined) {
        const s = await findSitting(app.db, q.test_id);
        if (!s) throw new ApiError(404, 'sitting_not_found', 'No such sitting.');
        testerId = s.user_id;
      } else {
        throw new ApiError(400, 'validation', 'tester_id or test_id is required.');
      }
      const tester = await loadTester(app.db, testerId);
      await assertMayLookUp(app.db, auth, tester);
      const testId = await pickSitting(app.db, testerId, q.test_id, q.latest ?? LATEST_MODE.none);
      // spec §6 per sitting: a checker sees the sittings it monitored, a test manager its group's.
      const relatedScope = await assertCanViewSitting(app.db, auth, tester, testId);
      // The AI identity decisions are for monitors and managers, not for the examinee's own detail.
      return reply.ok(
        await buildTesterDetail(app.db, tester, testId, {
          imageUrl: (key) => images.url(key),
          withAiAuth: auth.actor !== 1,
          relatedScope,
          presignCapture: (ref) => appObjectStorage(app).presignGet(ref, IMAGE_URL_TTL_SECONDS),
        }),
      );
    },
  );

  app.post(
    '/tester/status.php',
    {
      config: { access: [1, 2, 4, 5] },
      schema: { body: TesterStatusBody, response: { 200: Envelope(TesterStatusResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const testerId = targetTesterId(auth, request.body.tester_id);
      const to = request.body.status;
      await loadTester(app.db, testerId);
      if (auth.actor !== 1) await assertCheckerOrAdmin(app.db, auth, testerId);
      const by: StatusChanger = auth.actor === 1 ? 'tester' : auth.actor === 2 ? 'checker' : 'admin';

      const result = await app.db.transaction(async (tx) => {
        const open = await tx.query<SittingRow>(
          `SELECT * FROM tests WHERE user_id = $1 AND status < 7 ORDER BY id DESC LIMIT 1 FOR UPDATE`,
          [testerId],
        );
        const s = open.rows[0];
        if (!s)
          throw new ApiError(
            409,
            'invalid_transition',
            'The tester has no open sitting (finished or not logged in).',
          );
        if (s.kicked && by !== 'admin') throw kickedError();
        const params = startupOf(s);
        const check = checkTransition(s.status, to, by, {
          isAuth: startupInt(params, 'is_auth', 1) !== 0,
          matched: (await findTesterMatching(tx, testerId)) !== null,
          rejected: s.rejected === 1,
        });
        if (!check.ok)
          throw new ApiError(
            check.forbidden ? 403 : 409,
            check.forbidden ? 'forbidden' : 'invalid_transition',
            check.reason,
          );
        if (check.noop)
          return {
            tester_id: testerId,
            test_id: s.id,
            status: to,
            previous_status: s.status,
            changed: false,
          };

        await tx.query(
          `UPDATE tests SET status = $2::smallint, updated_at = now(),
                  matched_at = CASE WHEN $2::smallint = 2 THEN coalesce(matched_at, now()) ELSE matched_at END,
                  authenticated_at = CASE WHEN $2::smallint = 3 THEN now() ELSE authenticated_at END,
                  stop_at = CASE WHEN $2::smallint = 7 THEN now() ELSE stop_at END
            WHERE id = $1`,
          [s.id, to],
        );
        await tx.query(`UPDATE users SET status = $2, updated_at = now() WHERE id = $1`, [testerId, to]);
        if (to === TESTER_STATUS.finishExam) {
          // The exam is over: the checker sees "finished" at once, and a recording the page does not complete
          // itself is completed by the server from what it holds.
          await endTesterMatching(tx, testerId, 'finished');
          await scheduleRecordingFinalize(tx, s.id);
        }
        const event = eventForStatus(s.status, to);
        if (event) await logExamineeEvent(tx, s.id, event, `by ${by} ${auth.loginId}`);
        if (to === TESTER_STATUS.identificated && by !== 'tester') {
          // spec §4: the examinee waits for ACCEPTED, then for status IDENTIFICATED; the server sends the marker
          // whoever accepted (the matched checker, or a system manager / supervisor).
          await insertMessage(tx, {
            testId: s.id,
            testerId,
            checkerId: auth.userId,
            sendType: SEND_TYPE.checker,
            messageType: MESSAGE_TYPE.identificationByChecker,
            kind: 'command',
            message: MESSAGE_COMMANDS.accepted,
          });
        }
        return { tester_id: testerId, test_id: s.id, status: to, previous_status: s.status, changed: true };
      });
      if (result.changed && result.status === TESTER_STATUS.finishExam) await revokeEndedSignaling(app);
      if (result.changed && by !== 'tester') {
        // Identity acceptance and state corrections by staff are security-relevant: keep them in the audit trail.
        await audit(app.db, {
          type: 'tester.status',
          actor: auth.actor,
          userId: auth.userId,
          loginId: auth.loginId,
          ip: request.ip,
          target: `tester:${testerId}`,
          details: `${result.previous_status}->${result.status}`,
        });
      }
      return reply.ok(result);
    },
  );

  app.post(
    '/get_mc_token.php',
    {
      config: { access: [1] },
      schema: { body: McTokenBody, response: { 200: Envelope(McTokenResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const s = await requireOpenSitting(app.db, auth.userId);
      if (s.kicked) throw kickedError();
      // The exam system opens only for a sitting ready for its exam: identity checked where required (the
      // 3 → 4 rules of tester/status), so state 4 (before exam), 5 (examing) or 6 (interrupted).
      if (s.status < TESTER_STATUS.beforeExam) {
        throw new ApiError(
          409,
          'invalid_transition',
          'The exam system opens only once the sitting is ready for the exam (state 4 before exam or later).',
        );
      }
      // The wider view's steps come first: the entire screen shared, the room scan done.
      await assertReadyForExam(app.db, s);
      let examUrl = startupText(startupOf(s), 'exam_url');
      if (!examUrl && app.config.demo) examUrl = DEMO_EXAM_PATH;
      // One link at a time: an earlier link not yet used stops working.
      await app.db.query(`UPDATE mc_tokens SET expires_at = now() WHERE test_id = $1 AND used_at IS NULL`, [
        s.id,
      ]);
      const token = await issueMcToken(app.db, {
        testId: s.id,
        userId: auth.userId,
        mode: request.body.mode,
      });
      const url = windowOpenUrl(examUrl, token, request.body.mode, startupText(startupOf(s), 'lang'));
      if (url === null) {
        await app.db.query(
          `DELETE FROM mc_tokens WHERE test_id = $1 AND used_at IS NULL AND expires_at > now()`,
          [s.id],
        );
        throw new ApiError(409, 'conflict', 'No valid exam URL (exam_url) is configured for this sitting.');
      }
      return reply.ok({ access_token: token, window_open_url: url, expires_in: MC_TOKEN_TTL_SECONDS });
    },
  );

  app.post(
    '/redeem_mc_token.php',
    {
      config: {
        // Called by the exam system (the page opened with window_open_url, or its back end): the token is the
        // credential. Limited per address, so tokens cannot be guessed in bulk.
        access: 'public',
        skipIpLimit: true,
      },
      onRequest: perIpLimit(app, {
        scope: 'mc_token_ip',
        max: 60,
        windowSeconds: 60,
        message: 'Too many one-time token redemptions from this address.',
      }),
      schema: { body: McTokenRedeemBody, response: { 200: Envelope(McTokenRedeemResult) } },
    },
    async (request, reply) => {
      const result = await redeemMcToken(app.db, request.body.token.trim());
      if (!result) throw mcTokenInvalid();
      reply.header('Cache-Control', 'no-store');
      return reply.ok(result);
    },
  );

  app.post(
    '/tester/kick_out.php',
    {
      config: { access: [1, 2, 4, 5] },
      schema: { body: KickOutBody, response: { 200: Envelope(KickOutResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const method = request.body.method;
      const selfMethods = ['PUT_MYSELF', 'PUT_MYSELF_AI', 'DISCONNECT'];
      if (selfMethods.includes(method) && auth.actor !== 1) {
        throw new ApiError(403, 'forbidden', `${method} is sent by the tester itself.`);
      }
      if (method === 'PUT' && auth.actor === 1)
        throw new ApiError(403, 'forbidden', 'A tester cannot kick out.');
      if (method === 'DELETE' && auth.actor !== 4 && auth.actor !== 5) {
        throw new ApiError(403, 'forbidden', 'Only system managers and supervisors can lift a kick-out.');
      }
      const testerId = targetTesterId(auth, request.body.tester_id);
      await loadTester(app.db, testerId);
      if (method === 'PUT') await assertCheckerOrAdmin(app.db, auth, testerId);

      const result = await app.db.transaction(async (tx): Promise<KickOutResultT> => {
        const s = await findOpenSitting(tx, testerId);
        const testId = s?.id ?? null;
        let kicked = 0;
        switch (method) {
          case 'PUT': {
            // spec §4 kick-out: flag the sitting and the account, end the matching, tell the examinee. The
            // examinee's session stays, so its page can still send the recording it holds; the server completes
            // the recording with what it has after a grace period in any case.
            await tx.query(`UPDATE users SET kicked = 1, updated_at = now() WHERE id = $1`, [testerId]);
            if (s) {
              await tx.query(`UPDATE tests SET kicked = 1, updated_at = now() WHERE id = $1`, [s.id]);
              await insertMessage(tx, {
                testId: s.id,
                testerId,
                checkerId: auth.actor === 2 ? auth.userId : null,
                sendType: SEND_TYPE.checker,
                messageType: MESSAGE_TYPE.monitoring,
                kind: 'command',
                message: MESSAGE_COMMANDS.kickOut,
              });
              await logExamineeEvent(tx, s.id, 'kicked', `by ${auth.loginId}`);
              await scheduleRecordingFinalize(tx, s.id);
            }
            await endTesterMatching(tx, testerId, 'kicked');
            kicked = 1;
            break;
          }
          case 'PUT_MYSELF':
          case 'PUT_MYSELF_AI': {
            // spec §4 window exit modes: a self kick-out replaces the logout call, so it ends the examinee's
            // sessions. The AI variant (the AI identity policy is a forced logout) also flags the sitting kicked,
            // so a person reviews it before the examinee may continue.
            const ai = method === 'PUT_MYSELF_AI';
            if (s) {
              await tx.query(
                `UPDATE tests SET logout_at = now(), kicked = CASE WHEN $2 THEN 1 ELSE kicked END, updated_at = now() WHERE id = $1`,
                [s.id, ai],
              );
              await logExamineeEvent(tx, s.id, 'logout', ai ? 'self_kick_out_ai' : 'self_kick_out');
              await scheduleRecordingFinalize(tx, s.id);
              kicked = ai ? 1 : s.kicked;
            }
            if (ai)
              await tx.query(`UPDATE users SET kicked = 1, updated_at = now() WHERE id = $1`, [testerId]);
            await endTesterMatching(tx, testerId, ai ? 'ai_forced_logout' : 'logout');
            await revokeUserSessions(tx, testerId, ai ? 'ai_forced_logout' : 'self_kick_out');
            break;
          }
          case 'DELETE': {
            await tx.query(`UPDATE users SET kicked = 0, updated_at = now() WHERE id = $1`, [testerId]);
            const cur = s ?? (await findCurrentSitting(tx, testerId));
            if (cur) {
              await tx.query(`UPDATE tests SET kicked = 0, updated_at = now() WHERE id = $1`, [cur.id]);
              await logExamineeEvent(tx, cur.id, 'kick_lifted', `by ${auth.loginId}`);
            }
            return { tester_id: testerId, test_id: cur?.id ?? null, method, kicked: 0 };
          }
          case 'DISCONNECT': {
            // spec §4 disconnect: the examinee's window is closing (or reloading). The checker sees it at once;
            // a page that comes back (reload, new login) is queued again and goes back to the same checker if
            // it has room.
            if (s) {
              await logExamineeEvent(tx, s.id, 'disconnect');
              kicked = s.kicked;
              await scheduleAbandonedFinalize(tx, [s.id]);
            }
            await endTesterMatching(tx, testerId, 'window_closed');
            break;
          }
        }
        return { tester_id: testerId, test_id: testId, method, kicked };
      });
      await revokeEndedSignaling(app);
      await audit(app.db, {
        type: `tester.kick_out.${method.toLowerCase()}`,
        actor: auth.actor,
        userId: auth.userId,
        loginId: auth.loginId,
        ip: request.ip,
        target: `tester:${testerId}`,
      });
      return reply.ok(result);
    },
  );

  app.post(
    '/tester/rejected.php',
    {
      config: { access: [2, 4, 5] },
      schema: { body: RejectedBody, response: { 200: Envelope(RejectedResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const { tester_id: testerId, method } = request.body;
      await loadTester(app.db, testerId);
      await assertCheckerOrAdmin(app.db, auth, testerId);
      const rejected = method === 'PUT' ? 1 : 0;
      const testId = await app.db.transaction(async (tx) => {
        const s = await findOpenSitting(tx, testerId);
        if (!s) throw new ApiError(409, 'conflict', 'The tester has no open sitting.');
        await tx.query(`UPDATE tests SET rejected = $2, updated_at = now() WHERE id = $1`, [s.id, rejected]);
        await tx.query(`UPDATE users SET rejected = $2, updated_at = now() WHERE id = $1`, [
          testerId,
          rejected,
        ]);
        await logExamineeEvent(tx, s.id, rejected ? 'rejected' : 'rejection_lifted', `by ${auth.loginId}`);
        if (rejected) {
          await insertMessage(tx, {
            testId: s.id,
            testerId,
            checkerId: auth.actor === 2 ? auth.userId : null,
            sendType: SEND_TYPE.checker,
            messageType: MESSAGE_TYPE.identificationByChecker,
            kind: 'command',
            message: MESSAGE_COMMANDS.rejected,
          });
        }
        return s.id;
      });
      await audit(app.db, {
        type: rejected ? 'tester.rejected' : 'tester.rejection_lifted',
        actor: auth.actor,
        userId: auth.userId,
        loginId: auth.loginId,
        ip: request.ip,
        target: `tester:${testerId}`,
      });
      return reply.ok({ tester_id: testerId, test_id: testId, rejected });
    },
  );

  app.post(
    '/tester/markings.php',
    {
      bodyLimit: IMAGE_JSON_BODY_LIMIT,
      preValidation: multipartToBody,
      config: { access: [2] },
      schema: { body: MarkingBody, response: { 200: Envelope(MarkingResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const b = request.body;
      const matching = await findMatching(app.db, auth.userId, b.tester_id);
      if (!matching) throw new ApiError(403, 'not_matched', 'You are not matched to this tester.');
      const mark = await app.db.query<{ id: number; message: string; score: number }>(
        `SELECT id, message, score FROM marks WHERE id = $1`,
        [b.mark],
      );
      const m = mark.rows[0];
      if (!m) throw new ApiError(400, 'validation', 'Unknown mark.');
      const img = uploadedImage(request, b);
      const key = img ? await images.save('marking', matching.test_id, img) : null;
      const notify = b.notification === 1;

      const out = await app.db.transaction(async (tx) => {
        const rec = await tx.query<{ id: number }>(
          `SELECT id FROM records WHERE test_id = $1 AND stream = 'camera' AND stop_at IS NULL
            ORDER BY start_at DESC, id DESC LIMIT 1`,
          [matching.test_id],
        );
        const ins = await tx.query<{ id: number }>(
          `INSERT INTO markings (test_id, tester_id, checker_id, mark_id, image_key, content_type, time_lag, notification, record_id, marking_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() - $7::int * interval '1 millisecond')
           RETURNING id`,
          [
            matching.test_id,
            b.tester_id,
            auth.userId,
            m.id,
            key,
            img ? (b.content_type ?? null) : null,
            b.time_lag ?? 0,
            notify ? 1 : 0,
            rec.rows[0]?.id ?? null,
          ],
        );
        const total = await markingTotalScore(tx, matching.test_id);
        await tx.query(
          `UPDATE tests SET with_mark = true, total_score = $2, updated_at = now() WHERE id = $1`,
          [matching.test_id, total],
        );
        if (notify) {
          await insertMessage(tx, {
            testId: matching.test_id,
            testerId: b.tester_id,
            checkerId: auth.userId,
            sendType: SEND_TYPE.checker,
            messageType: MESSAGE_TYPE.monitoring,
            kind: 'command',
            message: `${MESSAGE_COMMANDS.markingAlert}:${m.message}`,
          });
        }
        return { id: ins.rows[0]!.id, total };
      });
      return reply.ok({
        alert: notify ? m.message : '',
        url: await images.url(key),
        marking_id: out.id,
        marking_total_score: out.total,
      });
    },
  );

  app.post(
    '/tester/head_shot.php',
    {
      bodyLimit: IMAGE_JSON_BODY_LIMIT,
      preValidation: multipartToBody,
      config: { access: [1] },
      schema: { body: ImageBody, response: { 200: Envelope(HeadShotPostResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const s = await requireOpenSitting(app.db, auth.userId);
      const img = requireUploadedImage(request, request.body);
      const key = await images.save('head_shot', s.id, img);
      await app.db.query(
        `UPDATE tests SET head_shot_key = $2, head_shot_at = now(), updated_at = now() WHERE id = $1`,
        [s.id, key],
      );
      return reply.ok({ url: (await images.url(key))! });
    },
  );

  app.get(
    '/tester/head_shot.php',
    {
      config: { access: ALL_ACTORS },
      schema: { querystring: HeadShotQuery, response: { 200: Envelope(HeadShotResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const testerId = targetTesterId(auth, request.query.tester_id);
      const tester = await loadTester(app.db, testerId);
      await assertCanView(app.db, auth, tester);
      const s = await findCurrentSitting(app.db, testerId);
      return reply.ok({
        url: await images.url(s?.head_shot_key),
        updated_at: s?.head_shot_key ? iso(s.head_shot_at) : null,
      });
    },
  );
}
