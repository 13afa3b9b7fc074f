import {
  AI_AUTH_PROCESS,
  AI_AUTH_STATUS,
  AI_FAILED_MODE,
  type AiAuthError,
  type AiErrorCode,
} from '../../../../contract/ai-auth';
import { TESTER_STATUS } from '../../../../contract/tester';
import type { FaceVerdict, IdVerdict } from '../ai-provider';
import { checkTransition } from '../sittings/state';
import type { AiAuthPolicy } from './policy';

/** Which photo an attempt sends. */
export type PhotoKind = 'face' | 'id_card';

/** The identity check's own state of a sitting (its ai_auth row). */
export interface AiAuthState {
  /** AI_AUTH_STATUS: in progress until it passed or a fallback took over. */
  status: number;
  /** AI_AUTH_PROCESS: which photo is expected next. */
  process: number;
  faceRetry: number;
  idCardRetry: number;
  allRetry: number;
  /** The accepted (or, for a manager's review, the last) photos. */
  faceKey: string | null;
  idCardKey: string | null;
}

/** What an attempt does to the sitting beyond the identity check's own state. */
export type SittingEffect =
  /** Nothing (a photo to retake, or a pass the tester state can no longer take). */
  | { kind: 'none' }
  /** The face photo was accepted and an ID card comes next: it becomes the sitting's head shot. */
  | { kind: 'head_shot'; key: string }
  /**
   * The check passed (`passed`), or the examinee continues for a manager's review: the sitting moves to
   * 3 identificated with the photos and the name-match rate.
   */
  | { kind: 'identified'; passed: boolean; faceKey: string | null; idCardKey: string | null }
  /** A checker checks the identity instead (monitor authentication). */
  | { kind: 'manual'; code: string }
  /** Forced logout: the sitting is blocked until a manager lets the examinee continue. */
  | { kind: 'forced_logout'; code: string };

/** Everything one attempt decides; {@link decideAttempt} computes it, the persistence step writes it. */
export interface AttemptDecision {
  /** The identity check's state after the attempt. */
  state: AiAuthState;
  /** The photo was accepted. */
  ok: boolean;
  /** Why not (with the retakes left and the limit), or null. */
  error: AiAuthError | null;
  /** The name-match rate read from an ID card (0–100), or null. */
  nameMatch: number | null;
  /** The tester state after the attempt. */
  testerStatus: number;
  /** The attempt's audit row: the verdict's outcome (or `name_mismatch`), its scores and reason. */
  record: { outcome: string; scores: Record<string, number>; reason: string };
  /** The line added to the sitting's AI message log. */
  message: { code: string; text: string };
  effect: SittingEffect;
}

/** What the examinee is told when the check cannot succeed, by fallback mode (appended to the error). */
const FALLBACK_TEXT: Record<number, string> = {
  [AI_FAILED_MODE.manual]: 'Identity will be checked by a monitor instead.',
  [AI_FAILED_MODE.logout]: 'You have been logged out.',
  [AI_FAILED_MODE.continue]: 'You may continue to the exam; a manager will review your photos later.',
};

const FALLBACK_STATUS: Record<number, number> = {
  [AI_FAILED_MODE.logout]: AI_AUTH_STATUS.logout,
  [AI_FAILED_MODE.manual]: AI_AUTH_STATUS.manual,
  [AI_FAILED_MODE.continue]: AI_AUTH_STATUS.review,
};

/**
 * The identity check's state machine (spec §4 "AI identification", §8 messages), without any I/O: given the
 * check's state, the sitting's policy and tester state, and the AI's verdict on the photo just stored under
 * `imageKey`, what the check's state becomes, what the examinee is told, and what happens to the sitting.
 *
 * - A face photo accepted sets the ID card as next (or passes when no card is asked); refused, it counts a
 *   face retry and an overall retry.
 * - An ID card accepted (its face matches and the name reaches the policy's rate) passes; unreadable, it counts
 *   an ID-card retry and an overall retry; another person or a name below the rate counts an overall retry and
 *   starts over from the face photo.
 * - An AI that cannot judge, or any limit reached, hands over to the fallback: a checker, a forced logout, or
 *   continuing with the last photos for a manager's review.
 */
export function decideAttempt(input: {
  state: AiAuthState;
  policy: AiAuthPolicy;
  kind: PhotoKind;
  verdict: FaceVerdict | IdVerdict;
  imageKey: string;
  testerStatus: number;
}): AttemptDecision {
  const { policy, kind, verdict, imageKey } = input;
  const next: AiAuthState = { ...input.state, status: AI_AUTH_STATUS.inProgress };
  let ok = false;
  let error: AiAuthError | null = null;
  let nameMatch: number | null = null;
  let outcome: string = verdict.outcome;
  const fail = (code: AiErrorCode, message: string, remaining: number, limit: number) => {
    error = { code, message, remaining: Math.max(0, remaining), limit };
  };

  const unavailable = verdict.outcome === 'unavailable';
  if (unavailable) {
    fail(
      'ai_unavailable',
      'The AI identity check is unavailable.',
      0,
      kind === 'face' ? policy.face : policy.idCard,
    );
  } else if (kind === 'face') {
    if (verdict.outcome === 'ok') {
      ok = true;
      next.faceKey = imageKey;
      next.process = policy.idCardRequired ? AI_AUTH_PROCESS.idCard : AI_AUTH_PROCESS.done;
      if (!policy.idCardRequired) next.status = AI_AUTH_STATUS.passed;
    } else {
      next.faceRetry += 1;
      next.allRetry += 1;
      fail(
        'face_not_recognised',
        'The face could not be recognised; retake the photo.',
        policy.face - next.faceRetry,
        policy.face,
      );
    }
  } else {
    const v = verdict as IdVerdict;
    nameMatch = typeof v.nameMatch === 'number' ? Math.round(v.nameMatch) : null;
    const nameOk = nameMatch === null || nameMatch >= policy.nameMatch;
    if (v.outcome === 'ok' && nameOk) {
      ok = true;
      next.idCardKey = imageKey;
      next.process = AI_AUTH_PROCESS.done;
      next.status = AI_AUTH_STATUS.passed;
    } else if (v.outcome === 'unreadable') {
      next.idCardRetry += 1;
      next.allRetry += 1;
      fail(
        'id_card_not_recognised',
        'The ID card could not be recognised; retake the photo.',
        policy.idCard - next.idCardRetry,
        policy.idCard,
      );
    } else {
      // spec §8: "cannot confirm it is the person (start over from the face photo)".
      outcome = v.outcome === 'ok' ? 'name_mismatch' : v.outcome;
      next.allRetry += 1;
      next.process = AI_AUTH_PROCESS.face;
      fail(
        'person_not_confirmed',
        'It could not be confirmed that you are the person; start again from the face photo.',
        policy.all - next.allRetry,
        policy.all,
      );
    }
  }

  const faceExceeded = next.faceRetry >= policy.face;
  const idCardExceeded = next.idCardRetry >= policy.idCard;
  const exceeded = faceExceeded || idCardExceeded || next.allRetry >= policy.all;
  if (unavailable || (!ok && exceeded)) {
    if (!unavailable) {
      const limit = faceExceeded ? policy.face : idCardExceeded ? policy.idCard : policy.all;
      fail('retry_limit_exceeded', 'The retry limit was reached.', 0, limit);
    }
    next.status = FALLBACK_STATUS[policy.fallback] ?? AI_AUTH_STATUS.manual;
    const e = error as AiAuthError | null;
    if (e) e.message = `${e.message} ${FALLBACK_TEXT[policy.fallback] ?? ''}`.trim();
    // "continue with the last photo": keep whatever was last sent for the manager's review.
    if (next.status === AI_AUTH_STATUS.review) {
      if (kind === 'face') next.faceKey = imageKey;
      else next.idCardKey = imageKey;
    }
  }

  const err = error as AiAuthError | null;
  let testerStatus = input.testerStatus;
  let effect: SittingEffect = { kind: 'none' };
  if (next.status === AI_AUTH_STATUS.passed || next.status === AI_AUTH_STATUS.review) {
    const check = checkTransition(input.testerStatus, TESTER_STATUS.identificated, 'system', {
      isAuth: true,
      matched: true,
      rejected: false,
    });
    if (check.ok) {
      testerStatus = TESTER_STATUS.identificated;
      effect = {
        kind: 'identified',
        passed: next.status === AI_AUTH_STATUS.passed,
        faceKey: next.faceKey,
        idCardKey: next.idCardKey,
      };
    }
  } else if (next.status === AI_AUTH_STATUS.manual) {
    effect = { kind: 'manual', code: err?.code ?? '' };
  } else if (next.status === AI_AUTH_STATUS.logout) {
    effect = { kind: 'forced_logout', code: err?.code ?? '' };
  } else if (ok && kind === 'face') {
    effect = { kind: 'head_shot', key: imageKey };
  }

  return {
    state: next,
    ok,
    error: err,
    nameMatch,
    testerStatus,
    record: {
      outcome,
      scores: { ...(verdict.scores ?? {}), ...(nameMatch !== null ? { name_match: nameMatch } : {}) },
      reason: (verdict.reason ?? '').slice(0, 64),
    },
    message: err
      ? { code: err.code, text: err.message }
      : { code: 'accepted', text: kind === 'face' ? 'Face photo accepted.' : 'ID card accepted.' },
    effect,
  };
}
