import {
  AI_AUTH_PROCESS,
  AI_AUTH_STATUS,
  AI_DEFAULT_LIMITS,
  AI_DEFAULT_NAME_MATCH,
  AI_FAILED_MODE,
  AiAuthAttemptResult,
  AiAuthImageBody,
  AiAuthStatusBody,
  AiAuthStatusResult,
  type AiAuthAttemptResult as AttemptResult,
  type AiErrorCode,
} from '../../../../../../contract/ai-auth';
import { ALL_ACTORS, Envelope } from '../../../../../../contract/common';
import { TESTER_STATUS } from '../../../../../../contract/tester';
import type { Db } from '../../../../db/db';
import { getAiProvider, type AiImage, type FaceVerdict, type IdVerdict } from '../../../../lib/ai-provider';
import { ApiError } from '../../../../lib/api-error';
import type { App, AuthContext } from '../../../../lib/app-types';
import { audit } from '../../../../lib/audit';
import { appImageStore, validateImage } from '../../../../lib/images';
import {
  assertCanView,
  findCurrentSitting,
  loadTester,
  logExamineeEvent,
  requireOpenSitting,
  startupInt,
  startupOf,
  targetTesterId,
  type SittingRow,
} from '../../../../lib/sittings/sittings';
import { endTesterMatching } from '../../../../lib/sitting-exit';
import { checkTransition } from '../../../../lib/sittings/state';
import { IMAGE_JSON_BODY_LIMIT, multipartToBody, requireUploadedImage } from '../../../../lib/tester/upload';
import { toWireTime } from '../../../../lib/management-time';
import { revokeEndedSignaling } from '../../../../lib/matching-channels';

interface AiAuthRow {
  status: number;
  process: number;
  face_retry: number;
  id_card_retry: number;
  ai_all_retry: number;
  face_key: string | null;
  id_card_key: string | null;
  messages: { at: string; kind: string; code: string; text: string }[] | string;
}

/** Retry limits and fallback of a sitting, from its start-up parameters (spec §3, §4). */
function policyOf(s: SittingRow) {
  const p = startupOf(s);
  const positive = (key: string, d: number) => {
    const v = startupInt(p, key, d);
    return v > 0 ? v : d;
  };
  const fallback = startupInt(p, 'is_ai_faild_manual', AI_FAILED_MODE.manual);
  return {
    enabled: startupInt(p, 'is_ai_auth', 1) !== 0,
    idCardRequired: startupInt(p, 'is_ai_idcard_request', 1) !== 0,
    face: positive('ai_face_retry', AI_DEFAULT_LIMITS.face),
    idCard: positive('ai_idcard_retry', AI_DEFAULT_LIMITS.idCard),
    all: positive('ai_all_retry', AI_DEFAULT_LIMITS.all),
    nameMatch: Math.min(100, positive('ai_namematch', AI_DEFAULT_NAME_MATCH)),
    fallback: ([AI_FAILED_MODE.logout, AI_FAILED_MODE.manual, AI_FAILED_MODE.continue] as number[]).includes(
      fallback,
    )
      ? fallback
      : AI_FAILED_MODE.manual,
  };
}

function messagesOf(r: AiAuthRow): AiAuthRow['messages'] & object[] {
  if (Array.isArray(r.messages)) return r.messages;
  try {
    const v = JSON.parse(r.messages) as unknown;
    return Array.isArray(v) ? (v as { at: string; kind: string; code: string; text: string }[]) : [];
  } catch {
    return [];
  }
}

async function ensureRow(db: Db, testId: number): Promise<void> {
  await db.query(`INSERT INTO ai_auth (test_id) VALUES ($1) ON CONFLICT (test_id) DO NOTHING`, [testId]);
}

const FALLBACK_TEXT: Record<number, string> = {
  [AI_FAILED_MODE.manual]: 'Identity will be checked by a monitor instead.',
  [AI_FAILED_MODE.logout]: 'You have been logged out.',
  [AI_FAILED_MODE.continue]: 'You may continue to the exam; a manager will review your photos later.',
};

/** ai_auth/face, ai_auth/id_card and ai_auth/status (spec §3 "AI auth status", §4 "AI identification"). */
export default async function aiAuthRoutes(app: App): Promise<void> {
  const images = appImageStore(app);

  async function attempt(auth: AuthContext, kind: 'face' | 'id_card', image: Buffer): Promise<AttemptResult> {
    const s = await requireOpenSitting(app.db, auth.userId);
    const policy = policyOf(s);
    if (!policy.enabled)
      throw new ApiError(409, 'conflict', 'The AI identity check is off for this sitting (is_ai_auth 0).');
    if (s.kicked) throw new ApiError(403, 'kicked', 'The tester was kicked out.');
    const type = validateImage(image);
    await ensureRow(app.db, s.id);
    const before = (await app.db.query<AiAuthRow>(`SELECT * FROM ai_auth WHERE test_id = $1`, [s.id]))
      .rows[0]!;
    if (before.status !== AI_AUTH_STATUS.inProgress) {
      throw new ApiError(
        409,
        'conflict',
        `The AI identity check of this sitting has ended (status ${before.status}).`,
      );
    }
    if (s.status !== TESTER_STATUS.login && s.status !== TESTER_STATUS.matched) {
      throw new ApiError(
        409,
        'invalid_transition',
        'The AI identity check happens before the exam (tester state 1 or 2).',
      );
    }
    if (kind === 'id_card' && before.process !== AI_AUTH_PROCESS.idCard) {
      throw new ApiError(409, 'conflict', 'Send an accepted face photo first.');
    }
    const key = await images.save(kind === 'face' ? 'ai_face' : 'ai_id_card', s.id, image);
    const img: AiImage = { body: image, type };
    const provider = getAiProvider(app);
    let verdict: FaceVerdict | IdVerdict;
    try {
      if (kind === 'face') {
        verdict = await provider.checkFace(img);
      } else {
        const head = before.face_key ? await images.read(before.face_key) : null;
        const tester = await loadTester(app.db, auth.userId);
        const idTypes = String(startupOf(s).ai_idcard_type ?? '')
          .split(',')
          .map(Number)
          .filter((n) => n >= 1 && n <= 3);
        verdict = await provider.checkIdCard(img, head, tester.name, { idTypes });
      }
    } catch (err) {
      // A crashing model is "could not judge", never a pass.
      app.log.warn({ err }, 'AI provider failed');
      verdict = { outcome: 'unavailable', reason: 'provider_error' };
    }

    const result = await app.db.transaction(async (tx) => {
      const row = (await tx.query<AiAuthRow>(`SELECT * FROM ai_auth WHERE test_id = $1 FOR UPDATE`, [s.id]))
        .rows[0]!;
      if (row.status !== AI_AUTH_STATUS.inProgress) {
        throw new ApiError(409, 'conflict', 'The AI identity check of this sitting has ended.');
      }
      const messages = messagesOf(row);
      let { face_retry: faceRetry, id_card_retry: idRetry, ai_all_retry: allRetry, process } = row;
      let faceKey = row.face_key;
      let idKey = row.id_card_key;
      let status: number = AI_AUTH_STATUS.inProgress;
      let ok = false;
      let error: AttemptResult['error'] = null;
      let nameMatch: number | null = null;
      let outcome: string = verdict.outcome;

      const fail = (code: AiErrorCode, message: string, remaining: number, limit: number) => {
        error = { code, message, remaining: Math.max(0, remaining), limit };
      };

      if (verdict.outcome === 'unavailable') {
        status = -1; // decided below by the fallback
        fail(
          'ai_unavailable',
          'The AI identity check is unavailable.',
          0,
          kind === 'face' ? policy.face : policy.idCard,
        );
      } else if (kind === 'face') {
        if (verdict.outcome === 'ok') {
          ok = true;
          faceKey = key;
          process = policy.idCardRequired ? AI_AUTH_PROCESS.idCard : AI_AUTH_PROCESS.done;
          if (!policy.idCardRequired) status = AI_AUTH_STATUS.passed;
        } else {
          faceRetry += 1;
          allRetry += 1;
          fail(
            'face_not_recognised',
            'The face could not be recognised; retake the photo.',
            policy.face - faceRetry,
            policy.face,
          );
        }
      } else {
        const v = verdict as IdVerdict;
        nameMatch = typeof v.nameMatch === 'number' ? Math.round(v.nameMatch) : null;
        const nameOk = nameMatch === null || nameMatch >= policy.nameMatch;
        if (v.outcome === 'ok' && nameOk) {
          ok = true;
          idKey = key;
          process = AI_AUTH_PROCESS.done;
          status = AI_AUTH_STATUS.passed;
        } else if (v.outcome === 'unreadable') {
          idRetry += 1;
          allRetry += 1;
          fail(
            'id_card_not_recognised',
            'The ID card could not be recognised; retake the photo.',
            policy.idCard - idRetry,
            policy.idCard,
          );
        } else {
          // spec §8: "cannot confirm it is the person (start over from the face photo)".
          outcome = v.outcome === 'ok' ? 'name_mismatch' : v.outcome;
          allRetry += 1;
          process = AI_AUTH_PROCESS.face;
          fail(
            'person_not_confirmed',
            'It could not be confirmed that you are the person; start again from the face photo.',
            policy.all - allRetry,
            policy.all,
          );
        }
      }
      const exceeded = faceRetry >= policy.face || idRetry >= policy.idCard || allRetry >= policy.all;
      if (status === -1 || (!ok && exceeded)) {
        if (status !== -1) {
          const limit =
            faceRetry >= policy.face ? policy.face : idRetry >= policy.idCard ? policy.idCard : policy.all;
          fail('retry_limit_exceeded', 'The retry limit was reached.', 0, limit);
        }
        status =
          policy.fallback === AI_FAILED_MODE.logout
            ? AI_AUTH_STATUS.logout
            : policy.fallback === AI_FAILED_MODE.continue
              ? AI_AUTH_STATUS.review
              : AI_AUTH_STATUS.manual;
        const e = error as AttemptResult['error'];
        if (e) e.message = `${e.message} ${FALLBACK_TEXT[policy.fallback] ?? ''}`.trim();
        // "continue with the last photo": keep whatever was last sent for the manager's review.
        if (status === AI_AUTH_STATUS.review) {
          if (kind === 'face') faceKey = key;
          else idKey = key;
        }
      }

      await tx.query(
        `INSERT INTO ai_auth_attempts (test_id, kind, outcome, scores, image_key, reason)
         VALUES ($1, $2, $3, $4, $5, $6)`,
        [
          s.id,
          kind,
          outcome,
          JSON.stringify({
            ...(verdict.scores ?? {}),
            ...(nameMatch !== null ? { name_match: nameMatch } : {}),
          }),
          key,
          (verdict.reason ?? '').slice(0, 64),
        ],
      );
      const err = error as AttemptResult['error'];
      messages.push({
        at: toWireTime(new Date())!,
        kind,
        code: err ? err.code : 'accepted',
        text: err ? err.message : kind === 'face' ? 'Face photo accepted.' : 'ID card accepted.',
      });
      await tx.query(
        `UPDATE ai_auth SET status = $2, process = $3, face_retry = $4, id_card_retry = $5, ai_all_retry = $6,
                face_key = $7, id_card_key = $8, messages = $9, updated_at = now() WHERE test_id = $1`,
        [
          s.id,
          status,
          process,
          faceRetry,
          idRetry,
          allRetry,
          faceKey,
          idKey,
          JSON.stringify(messages.slice(-50)),
        ],
      );

      let testerStatus = s.status;
      if (status === AI_AUTH_STATUS.passed || status === AI_AUTH_STATUS.review) {
        const check = checkTransition(s.status, TESTER_STATUS.identificated, 'system', {
          isAuth: true,
          matched: true,
          rejected: false,
        });
        if (check.ok) {
          testerStatus = TESTER_STATUS.identificated;
          await tx.query(
            `UPDATE tests SET status = 3, head_shot_key = coalesce($2, head_shot_key),
                    head_shot_at = CASE WHEN $2::text IS NULL THEN head_shot_at ELSE now() END,
                    id_card_key = coalesce($3, id_card_key),
                    id_card_at = CASE WHEN $3::text IS NULL THEN id_card_at ELSE now() END,
                    ai_namematch = coalesce($4, ai_namematch),
                    authenticated_at = CASE WHEN $5 THEN now() ELSE authenticated_at END, updated_at = now()
              WHERE id = $1`,
            [s.id, faceKey, idKey, nameMatch, status === AI_AUTH_STATUS.passed],
          );
          await tx.query(`UPDATE users SET status = 3, updated_at = now() WHERE id = $1`, [auth.userId]);
          await logExamineeEvent(
            tx,
            s.id,
            status === AI_AUTH_STATUS.passed ? 'authenticated' : 'ai_auth_review',
            status === AI_AUTH_STATUS.passed ? 'by ai' : 'continued without AI confirmation; manager review',
          );
        }
      } else if (status === AI_AUTH_STATUS.manual) {
        await logExamineeEvent(tx, s.id, 'ai_auth_manual', err?.code ?? '');
      } else if (status === AI_AUTH_STATUS.logout) {
        // Forced logout (is_ai_faild_manual 0): the sitting is blocked at once (kicked, so only a manager can
        // let the examinee continue; nothing else can be done with it), the checker is told, and the page then
        // leaves with the spec's exit mode "kick out by oneself via AI" (kick_out PUT_MYSELF_AI), which ends the
        // examinee's sessions.
        await tx.query(`UPDATE tests SET kicked = 1, updated_at = now() WHERE id = $1`, [s.id]);
        await tx.query(`UPDATE users SET kicked = 1, updated_at = now() WHERE id = $1`, [auth.userId]);
        await endTesterMatching(tx, auth.userId, 'ai_forced_logout');
        await logExamineeEvent(tx, s.id, 'ai_forced_logout', `ai_auth ${err?.code ?? ''}`);
      } else if (ok && kind === 'face') {
        await tx.query(
          `UPDATE tests SET head_shot_key = $2, head_shot_at = now(), updated_at = now() WHERE id = $1`,
          [s.id, key],
        );
      } else if (ok && kind === 'id_card') {
        // The checker's pane and the examinee detail show the ID card with its last-updated time (spec §3).
        await tx.query(
          `UPDATE tests SET id_card_key = $2, id_card_at = now(), updated_at = now() WHERE id = $1`,
          [s.id, key],
        );
      }
      return { ok, error: err, status, process, tester_status: testerStatus, url: await images.url(key) };
    });
    if (result.status === AI_AUTH_STATUS.logout) await revokeEndedSignaling(app);
    if (result.status !== AI_AUTH_STATUS.inProgress && result.status !== AI_AUTH_STATUS.passed) {
      await audit(app.db, {
        type: 'tester.ai_auth_fallback',
        actor: auth.actor,
        userId: auth.userId,
        loginId: auth.loginId,
        target: `test:${s.id}`,
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
        config: { access: [1] },
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
      const policy = policyOf(s);
      const row = (await app.db.query<AiAuthRow>(`SELECT * FROM ai_auth WHERE test_id = $1`, [s.id])).rows[0];
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
