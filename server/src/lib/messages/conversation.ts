import { ACTOR } from '../../../../contract/common';
import type { WebrtcMessage } from '../../../../contract/messages';
import type { Db } from '../../db/db';
import { ApiError } from '../api-error';
import { BatchQueue, gatherFor } from '../batch-queue';
import { sqlWireTime } from '../management-time';

/**
 * The live conversation read (GET webrtc_message.php) of the two people in a sitting: the examinee polls its
 * own sitting's messages and the checker each pane's, every few seconds for the whole exam, so together they
 * make this the busiest call after the matching poll. Reads that arrive together go as one statement (each
 * read's tester, its permission and the sitting it means are decided inside it), with a generic plan: the
 * answer and the refusals are those of the per-read lookups managers still use.
 */
export interface ConversationRead {
  actor: typeof ACTOR.tester | typeof ACTOR.checker;
  callerId: number;
  testerId: number;
  sinceId: number;
  limit: number;
}

interface ConversationRow {
  ord: string | number;
  tester_found: boolean;
  test_id: string | number | null;
  messages: WebrtcMessage[] | null;
}

const CONVERSATION_SQL = `
SELECT r.ord,
       u.id IS NOT NULL AS tester_found,
       coalesce(m.test_id, cur.id) AS test_id,
       msgs.list AS messages
  FROM unnest($1::int[], $2::bigint[], $3::bigint[], $4::bigint[], $5::int[])
       WITH ORDINALITY AS r(actor, caller, tester, since, lim, ord)
  LEFT JOIN users u ON u.id = r.tester AND u.actor = ${ACTOR.tester}
  LEFT JOIN LATERAL (
        SELECT test_id FROM matchings
         WHERE r.actor = ${ACTOR.checker} AND checker_id = r.caller AND tester_id = r.tester AND deleted_at IS NULL
         LIMIT 1) m ON true
  LEFT JOIN LATERAL (
        SELECT id FROM tests
         WHERE r.actor = ${ACTOR.tester} AND user_id = r.tester
         ORDER BY (status < 7) DESC, id DESC LIMIT 1) cur ON true
  LEFT JOIN LATERAL (
        SELECT json_agg(json_build_object(
                 'id', x.id, 'send_type', x.send_type, 'message_type', x.message_type, 'kind', x.kind,
                 'message', x.message, 'created_at', ${sqlWireTime('x.created_at')}) ORDER BY x.id DESC) AS list
          FROM (SELECT id, send_type, message_type, kind, message, created_at FROM messages
                 WHERE u.id IS NOT NULL AND test_id = coalesce(m.test_id, cur.id) AND id > r.since
                 ORDER BY id DESC LIMIT r.lim) x) msgs ON true
 ORDER BY r.ord`;

const queues = new WeakMap<Db, BatchQueue<ConversationRead, ConversationRow>>();

function queueOf(db: Db): BatchQueue<ConversationRead, ConversationRow> {
  let q = queues.get(db);
  if (!q) {
    q = new BatchQueue(
      async (reads) => {
        const { rows } = await db.query<ConversationRow>(
          CONVERSATION_SQL,
          [
            reads.map((r) => r.actor),
            reads.map((r) => r.callerId),
            reads.map((r) => r.testerId),
            reads.map((r) => r.sinceId),
            reads.map((r) => r.limit),
          ],
          { genericPlan: true },
        );
        return rows;
      },
      2,
      undefined,
      gatherFor(db),
    );
    queues.set(db, q);
  }
  return q;
}

/**
 * Newest first, at most `limit` after `sinceId`: the examinee's current sitting's conversation, or the sitting a
 * checker is matched to. 404 tester_not_found for no such examinee, 403 tester_not_visible for a checker not
 * matched to it (a tester asking for another examinee is refused before, by targetTesterId).
 */
export async function readConversation(db: Db, read: ConversationRead): Promise<WebrtcMessage[]> {
  const row = await queueOf(db).submit(read);
  if (!row.tester_found) throw new ApiError(404, 'tester_not_found', 'No such tester.');
  if (read.actor === ACTOR.checker && row.test_id === null)
    throw new ApiError(403, 'tester_not_visible', 'You may not see this tester.');
  return (row.messages ?? []).map((m) => ({ ...m, id: Number(m.id) }));
}
