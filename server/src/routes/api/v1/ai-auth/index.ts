import {
  AI_AUTH_PROCESS,
  AI_AUTH_STATUS,
  AiAuthAttemptResult,
  AiAuthImageBody,
  AiAuthStatusBody,
  AiAuthStatusResult,
  type AiAuthAttemptResult as AiAuthAttemptResultT,
} from '../../../../../../contract/ai-auth';
import { ACTOR, ALL_ACTORS, Envelope } from '../../../../../../contract/common';
import { attemptAiAuth } from '../../../../lib/ai-auth/attempt';
import type { PhotoKind } from '../../../../lib/ai-auth/decision';
import { aiAuthPolicy } from '../../../../lib/ai-auth/policy';
import { findAiAuthRow, messagesOf } from '../../../../lib/ai-auth/repository';
import { ApiError } from '../../../../lib/api-error';
import type { App, AuthContext } from '../../../../lib/app-types';
import { audit } from '../../../../lib/audit';
import { appImageStore } from '../../../../lib/images';
import { revokeEndedSignaling } from '../../../../lib/matching-channels';
import {
  assertCanView,
  findCurrentSitting,
  loadTester,
  targetTesterId,
} from '../../../../lib/sittings/sittings';
import { IMAGE_JSON_BODY_LIMIT, multipartToBody, requireUploadedImage } from '../../../../lib/tester/upload';

/** ai_auth/face, ai_auth/id_card and ai_auth/status (spec §3 "AI auth status", §4 "AI identification"). */
export default async function aiAuthRoutes(app: App): Promise<void> {
  const images = appImageStore(app);

  async function attempt(auth: AuthContext, kind: PhotoKind, image: Buffer): Promise<AiAuthAttemptResultT> {
    const { result, testId } = await attemptAiAuth(app, images, auth, kind, image);
    if (result.status === AI_AUTH_STATUS.logout) await revokeEndedSignaling(app);
    if (result.status !== AI_AUTH_STATUS.inProgress && result.status !== AI_AUTH_STATUS.passed) {
      await audit(app.db, {
        type: 'tester.ai_auth_fallback',
        actor: auth.actor,
        userId: auth.userId,
        loginId: auth.loginId,
        target: `test:${testId}`,
        details: `status=${result.status} ${result.error?.code ?? ''}`,
        level: 'warn',
      });
    }
    return result;
  }

  for (const kind of ['face', 'id_card'] as const) {
    app.post(
      `/ai_auth/${kind}.php`,
      {
        bodyLimit: IMAGE_JSON_BODY_LIMIT,
        preValidation: multipartToBody,
        config: { access: [ACTOR.tester] },
        schema: { body: AiAuthImageBody, response: { 200: Envelope(AiAuthAttemptResult) } },
      },
      async (request, reply) => {
        const image = requireUploadedImage(request, request.body);
        return reply.ok(await attempt(request.auth!, kind, image));
      },
    );
  }

  app.post(
    '/ai_auth/status.php',
    {
      config: { access: ALL_ACTORS },
      schema: { body: AiAuthStatusBody, response: { 200: Envelope(AiAuthStatusResult) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const testerId = targetTesterId(auth, request.body?.tester_id);
      const tester = await loadTester(app.db, testerId);
      await assertCanView(app.db, auth, tester);
      const s = await findCurrentSitting(app.db, testerId);
      if (!s) throw new ApiError(404, 'sitting_not_found', 'The tester has no sitting yet.');
      const policy = aiAuthPolicy(s);
      const row = await findAiAuthRow(app.db, s.id);
      return reply.ok({
        status: row?.status ?? AI_AUTH_STATUS.inProgress,
        process: row?.process ?? AI_AUTH_PROCESS.face,
        face_retry: row?.face_retry ?? 0,
        id_card_retry: row?.id_card_retry ?? 0,
        ai_all_retry: row?.ai_all_retry ?? 0,
        face_url: await images.url(row?.face_key),
        id_card_url: await images.url(row?.id_card_key),
        messages: row ? messagesOf(row) : [],
        limits: { face: policy.face, id_card: policy.idCard, all: policy.all },
        fallback: policy.fallback,
      });
    },
  );
}
