import { ACTOR, ADMIN_ACTORS, ALL_ACTORS, Envelope } from '../../../../../../contract/common';
import {
  HeadShotPostResult,
  HeadShotQuery,
  HeadShotResult,
  ImageBody,
  KickOutBody,
  KickOutResult,
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
} from '../../../../../../contract/tester';
import type { Db } from '../../../../db/db';
import { ApiError } from '../../../../lib/api-error';
import { assertReadyForExam } from '../../../../lib/wider-view/wider-view';
import type { App, AuthContext } from '../../../../lib/app-types';
import { audit } from '../../../../lib/audit';
import { perIpLimit } from '../../../../lib/db-rate-limit';
import { IMAGE_URL_TTL_SECONDS, appImageStore } from '../../../../lib/images';
import { revokeEndedSignaling } from '../../../../lib/matching-channels';
import { findMark } from '../../../../lib/messages/catalogue';
import { appObjectStorage } from '../../../../lib/object-storage';
import {
  assertCanView,
  findCurrentSitting,
  findMatching,
  iso,
  kickedError,
  loadTester,
  recordHeadShot,
  requireOpenSitting,
  startupOf,
  startupText,
  targetTesterId,
} from '../../../../lib/sittings/sittings';
import type { StatusChanger } from '../../../../lib/sittings/state';
import { loadTesterDetail } from '../../../../lib/tester/detail';
import { kickOut } from '../../../../lib/tester/kick-out';
import { saveMarking } from '../../../../lib/tester/markings';
import {
  expireUnusedMcTokens,
  issueMcToken,
  MC_TOKEN_TTL_SECONDS,
  mcTokenInvalid,
  redeemMcToken,
  withdrawUnusedMcTokens,
} from '../../../../lib/tester/mc-token';
import { setRejection } from '../../../../lib/tester/rejection';
import { changeTesterStatus } from '../../../../lib/tester/status';
import {
  IMAGE_JSON_BODY_LIMIT,
  multipartToBody,
  requireUploadedImage,
  uploadedImage,
} from '../../../../lib/tester/upload';
import { DEMO_EXAM_PATH } from '../../../demo-exam';

/** A checker may act on a tester only while matched to it (spec §6); system managers and supervisors always. */
async function assertCheckerOrAdmin(db: Db, auth: AuthContext, testerId: number): Promise<void> {
  if (auth.actor === ACTOR.systemManager || auth.actor === ACTOR.supervisor) return;
  if (auth.actor === ACTOR.checker && (await findMatching(db, auth.userId, testerId))) return;
  throw new ApiError(403, 'not_matched', 'You are not matched to this tester.');
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
      // Authorisation (actor, group, own data, spec §6 per sitting, the 405 of a logged-out examinee), the
      // sitting and its detail, in one statement. The AI identity decisions are for monitors and managers, not
      // for the examinee's own detail.
      return reply.ok(
        await loadTesterDetail(app.db, auth, request.query, {
          imageUrl: (key) => images.url(key),
          withAiAuth: auth.actor !== ACTOR.tester,
          presignCapture: (ref) => appObjectStorage(app).presignGet(ref, IMAGE_URL_TTL_SECONDS),
        }),
      );
    },
  );

  app.post(
    '/tester/status.php',
    {
      config: { access: [ACTOR.tester, ACTOR.checker, ...ADMIN_ACTORS] },
      schema: { body: TesterStatusBody, response: { 200: Envelope(TesterStatusResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const testerId = targetTesterId(auth, request.body.tester_id);
      const to = request.body.status;
      await loadTester(app.db, testerId);
      if (auth.actor !== ACTOR.tester) await assertCheckerOrAdmin(app.db, auth, testerId);
      const by: StatusChanger =
        auth.actor === ACTOR.tester ? 'tester' : auth.actor === ACTOR.checker ? 'checker' : 'admin';

      const result = await changeTesterStatus(app.db, {
        testerId,
        to,
        by,
        userId: auth.userId,
        loginId: auth.loginId,
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
      config: { access: [ACTOR.tester] },
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
      await expireUnusedMcTokens(app.db, s.id);
      const token = await issueMcToken(app.db, {
        testId: s.id,
        userId: auth.userId,
        mode: request.body.mode,
      });
      const url = windowOpenUrl(examUrl, token, request.body.mode, startupText(startupOf(s), 'lang'));
      if (url === null) {
        await withdrawUnusedMcTokens(app.db, s.id);
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
      config: { access: [ACTOR.tester, ACTOR.checker, ...ADMIN_ACTORS] },
      schema: { body: KickOutBody, response: { 200: Envelope(KickOutResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const method = request.body.method;
      const selfMethods = ['PUT_MYSELF', 'PUT_MYSELF_AI', 'DISCONNECT'];
      if (selfMethods.includes(method) && auth.actor !== ACTOR.tester) {
        throw new ApiError(403, 'forbidden', `${method} is sent by the tester itself.`);
      }
      if (method === 'PUT' && auth.actor === ACTOR.tester)
        throw new ApiError(403, 'forbidden', 'A tester cannot kick out.');
      if (method === 'DELETE' && auth.actor !== ACTOR.systemManager && auth.actor !== ACTOR.supervisor) {
        throw new ApiError(403, 'forbidden', 'Only system managers and supervisors can lift a kick-out.');
      }
      const testerId = targetTesterId(auth, request.body.tester_id);
      await loadTester(app.db, testerId);
      if (method === 'PUT') await assertCheckerOrAdmin(app.db, auth, testerId);

      const result = await kickOut(app.db, testerId, method, auth);
      app.authCache.forgetUser(testerId); // a kick-out may have ended the examinee's sessions
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
      config: { access: [ACTOR.checker, ...ADMIN_ACTORS] },
      schema: { body: RejectedBody, response: { 200: Envelope(RejectedResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const { tester_id: testerId, method } = request.body;
      await loadTester(app.db, testerId);
      await assertCheckerOrAdmin(app.db, auth, testerId);
      const rejected = method === 'PUT' ? 1 : 0;
      const testId = await setRejection(app.db, testerId, rejected, auth);
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
      config: { access: [ACTOR.checker] },
      schema: { body: MarkingBody, response: { 200: Envelope(MarkingResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const b = request.body;
      const matching = await findMatching(app.db, auth.userId, b.tester_id);
      if (!matching) throw new ApiError(403, 'not_matched', 'You are not matched to this tester.');
      const m = await findMark(app.db, b.mark);
      if (!m) throw new ApiError(400, 'validation', 'Unknown mark.');
      const img = uploadedImage(request, b);
      const key = img ? await images.save('marking', matching.test_id, img) : null;
      const notify = b.notification === 1;

      const out = await saveMarking(app.db, {
        testId: matching.test_id,
        testerId: b.tester_id,
        checkerId: auth.userId,
        mark: m,
        imageKey: key,
        contentType: img ? (b.content_type ?? null) : null,
        timeLagMs: b.time_lag ?? 0,
        notify,
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
      config: { access: [ACTOR.tester] },
      schema: { body: ImageBody, response: { 200: Envelope(HeadShotPostResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const s = await requireOpenSitting(app.db, auth.userId);
      const img = requireUploadedImage(request, request.body);
      const key = await images.save('head_shot', s.id, img);
      await recordHeadShot(app.db, s.id, key);
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
