import { AI_DEFAULT_LIMITS, AI_DEFAULT_NAME_MATCH, AI_FAILED_MODE } from '../../../../contract/ai-auth';
import { startupInt, startupOf, type SittingRow } from '../sittings/sittings';

/** The AI identity check's rules for one sitting, from its start-up parameters (spec §3, §4). */
export interface AiAuthPolicy {
  /** `is_ai_auth`: the AI check runs at all. */
  enabled: boolean;
  /** `is_ai_idcard_request`: an ID card follows the face photo. */
  idCardRequired: boolean;
  /** Retry limits: face photos, ID-card photos, and attempts of either kind. */
  face: number;
  idCard: number;
  all: number;
  /** Lowest name-match rate (0–100) accepted on an ID card. */
  nameMatch: number;
  /** `is_ai_faild_manual` (AI_FAILED_MODE): what happens when the check cannot succeed. */
  fallback: number;
}

/** Retry limits and fallback of a sitting, from its start-up parameters (spec §3, §4). */
export function aiAuthPolicy(s: Pick<SittingRow, 'startup_parameters'>): AiAuthPolicy {
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
