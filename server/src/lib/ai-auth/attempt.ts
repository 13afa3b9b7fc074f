import { AI_AUTH_PROCESS, AI_AUTH_STATUS, type AiAuthAttemptResult } from '../../../../contract/ai-auth';
import { TESTER_STATUS } from '../../../../contract/tester';
import { getAiProvider, type AiImage, type FaceVerdict, type IdVerdict } from '../ai-provider';
import { ApiError } from '../api-error';
import type { App, AuthContext } from '../app-types';
import { validateImage, type ImageStore } from '../images';
import { loadTester, requireOpenSitting, startupOf } from '../sittings/sittings';
import { decideAttempt, type PhotoKind } from './decision';
import { aiAuthPolicy } from './policy';
import { ensureAiAuthRow, findAiAuthRow, persistAttempt, stateOf } from './repository';

/**
 * One AI identity attempt of the calling examinee (ai_auth/face.php, ai_auth/id_card.php): checks that the
 * sitting is at that step, stores the photo, asks the AI, then decides ({@link decideAttempt}) and persists
 * the outcome in one transaction with the check's row locked. Returns the answer (the check's state after the
 * attempt) and the sitting's id.
 */
export async function attemptAiAuth(
  app: App,
  images: ImageStore,
  auth: AuthContext,
  kind: PhotoKind,
  image: Buffer,
): Promise<{ result: AiAuthAttemptResult; testId: number }> {
  const s = await requireOpenSitting(app.db, auth.userId);
  const policy = aiAuthPolicy(s);
  if (!policy.enabled)
    throw new ApiError(409, 'conflict', 'The AI identity check is off for this sitting (is_ai_auth 0).');
  if (s.kicked) throw new ApiError(403, 'kicked', 'The tester was kicked out.');
  const type = validateImage(image);
  await ensureAiAuthRow(app.db, s.id);
  const before = (await findAiAuthRow(app.db, s.id))!;
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

  return app.db.transaction(async (tx) => {
    const row = (await findAiAuthRow(tx, s.id, true))!;
    if (row.status !== AI_AUTH_STATUS.inProgress) {
      throw new ApiError(409, 'conflict', 'The AI identity check of this sitting has ended.');
    }
    const decision = decideAttempt({
      state: stateOf(row),
      policy,
      kind,
      verdict,
      imageKey: key,
      testerStatus: s.status,
    });
    await persistAttempt(tx, { testId: s.id, testerId: auth.userId, kind, imageKey: key, row, decision });
    const result: AiAuthAttemptResult = {
      ok: decision.ok,
      error: decision.error,
      status: decision.state.status,
      process: decision.state.process,
      tester_status: decision.testerStatus,
      url: await images.url(key),
    };
    return { result, testId: s.id };
  });
}
