import type { AiAuthStatusResult } from '../../../../contract/ai-auth';
import type { Db } from '../../db/db';
import { toWireTime } from '../management-time';
import { endTesterMatching } from '../sitting-exit';
import { logExamineeEvent, recordHeadShot } from '../sittings/sittings';
import type { AiAuthState, AttemptDecision, PhotoKind } from './decision';

/** One line of a sitting's AI message log. */
type AiAuthMessage = AiAuthStatusResult['messages'][number];

/** The ai_auth row of a sitting. */
export interface AiAuthRow {
  status: number;
  process: number;
  face_retry: number;
  id_card_retry: number;
  ai_all_retry: number;
  face_key: string | null;
  id_card_key: string | null;
  messages: AiAuthMessage[] | string;
}

/** The message log of a row (jsonb arrives parsed; text is parsed defensively). */
export function messagesOf(r: AiAuthRow): AiAuthMessage[] {
  if (Array.isArray(r.messages)) return r.messages;
  try {
    const v = JSON.parse(r.messages) as unknown;
    return Array.isArray(v) ? (v as AiAuthMessage[]) : [];
  } catch {
    return [];
  }
}

/** The state the decision function works on. */
export function stateOf(r: AiAuthRow): AiAuthState {
  return {
    status: r.status,
    process: r.process,
    faceRetry: r.face_retry,
    idCardRetry: r.id_card_retry,
    allRetry: r.ai_all_retry,
    faceKey: r.face_key,
    idCardKey: r.id_card_key,
  };
}

/** Creates the sitting's ai_auth row (in progress, nothing sent) unless it has one. */
export async function ensureAiAuthRow(db: Db, testId: number): Promise<void> {
  await db.query(`INSERT INTO ai_auth (test_id) VALUES ($1) ON CONFLICT (test_id) DO NOTHING`, [testId]);
}

/** The sitting's ai_auth row, or undefined; `lock` takes it for the rest of the transaction. */
export async function findAiAuthRow(db: Db, testId: number, lock = false): Promise<AiAuthRow | undefined> {
  const { rows } = await db.query<AiAuthRow>(
    lock ? `SELECT * FROM ai_auth WHERE test_id = $1 FOR UPDATE` : `SELECT * FROM ai_auth WHERE test_id = $1`,
    [testId],
  );
  return rows[0];
}

/** The message log keeps the newest lines only. */
const MESSAGES_KEPT = 50;

/**
 * Writes one decided attempt (inside the caller's transaction, with the row locked): the attempt's audit
 * row, the identity check's new state with its message line, and the decision's effect on the sitting.
 */
export async function persistAttempt(
  tx: Db,
  a: {
    testId: number;
    testerId: number;
    kind: PhotoKind;
    imageKey: string;
    row: AiAuthRow;
    decision: AttemptDecision;
  },
): Promise<void> {
  const { testId, testerId, kind, imageKey, decision: d } = a;
  await tx.query(
    `INSERT INTO ai_auth_attempts (test_id, kind, outcome, scores, image_key, reason)
         VALUES ($1, $2, $3, $4, $5, $6)`,
    [testId, kind, d.record.outcome, JSON.stringify(d.record.scores), imageKey, d.record.reason],
  );
  const messages = messagesOf(a.row);
  messages.push({ at: toWireTime(new Date())!, kind, ...d.message });
  const s = d.state;
  await tx.query(
    `UPDATE ai_auth SET status = $2, process = $3, face_retry = $4, id_card_retry = $5, ai_all_retry = $6,
                face_key = $7, id_card_key = $8, messages = $9, updated_at = now() WHERE test_id = $1`,
    [
      testId,
      s.status,
      s.process,
      s.faceRetry,
      s.idCardRetry,
      s.allRetry,
      s.faceKey,
      s.idCardKey,
      JSON.stringify(messages.slice(-MESSAGES_KEPT)),
    ],
  );

  const e = d.effect;
  switch (e.kind) {
    case 'identified':
      await tx.query(
        `UPDATE tests SET status = 3, head_shot_key = coalesce($2, head_shot_key),
                    head_shot_at = CASE WHEN $2::text IS NULL THEN head_shot_at ELSE now() END,
                    id_card_key = coalesce($3, id_card_key),
                    id_card_at = CASE WHEN $3::text IS NULL THEN id_card_at ELSE now() END,
                    ai_namematch = coalesce($4, ai_namematch),
                    authenticated_at = CASE WHEN $5 THEN now() ELSE authenticated_at END, updated_at = now()
              WHERE id = $1`,
        [testId, e.faceKey, e.idCardKey, d.nameMatch, e.passed],
      );
      await tx.query(`UPDATE users SET status = 3, updated_at = now() WHERE id = $1`, [testerId]);
      await logExamineeEvent(
        tx,
        testId,
        e.passed ? 'authenticated' : 'ai_auth_review',
        e.passed ? 'by ai' : 'continued without AI confirmation; manager review',
      );
      break;
    case 'manual':
      await logExamineeEvent(tx, testId, 'ai_auth_manual', e.code);
      break;
    case 'forced_logout':
      // Forced logout (is_ai_faild_manual 0): the sitting is blocked at once (kicked, so only a manager can
      // let the examinee continue; nothing else can be done with it), the checker is told, and the page then
      // leaves with the spec's exit mode "kick out by oneself via AI" (kick_out PUT_MYSELF_AI), which ends the
      // examinee's sessions.
      await tx.query(`UPDATE tests SET kicked = 1, updated_at = now() WHERE id = $1`, [testId]);
      await tx.query(`UPDATE users SET kicked = 1, updated_at = now() WHERE id = $1`, [testerId]);
      await endTesterMatching(tx, testerId, 'ai_forced_logout');
      await logExamineeEvent(tx, testId, 'ai_forced_logout', `ai_auth ${e.code}`);
      break;
    case 'head_shot':
      await recordHeadShot(tx, testId, e.key);
      break;
    case 'none':
      break;
  }
}
