import type { AiAuthAttemptResult, AiAuthStatusResult } from '@contract/ai-auth';
import { camelize, type Camelize } from '../lib/case';
import { call } from './client';

/** Result of one AI photo attempt (an error object is returned, not thrown: spec §7). */
export type AiAttempt = Camelize<AiAuthAttemptResult>;
/** AI auth status of spec §3, plus limits and fallback. */
export type AiStatus = Camelize<AiAuthStatusResult>;

/** A captured photo: base64 (no data: prefix) and its content type. */
export interface PhotoPayload {
  image: string;
  contentType: string;
}

/** POST ai_auth/face.php or ai_auth/id_card.php with a JPEG photo. */
export async function postAiPhoto(kind: 'face' | 'idCard', photo: PhotoPayload): Promise<AiAttempt> {
  const r = await call<AiAuthAttemptResult>(kind === 'face' ? 'ai_auth/face' : 'ai_auth/id_card', {
    data: { image: photo.image, content_type: photo.contentType },
    timeoutMs: 60_000,
  });
  return camelize(r);
}

/** POST ai_auth/status.php: the sitting's AI state, retry counts, limits and fallback. */
export async function getAiStatus(testerId?: number): Promise<AiStatus> {
  const r = await call<AiAuthStatusResult>('ai_auth/status', {
    data: testerId === undefined ? {} : { tester_id: testerId },
  });
  return camelize(r);
}
