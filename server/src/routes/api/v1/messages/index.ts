import { ACTOR, ALL_ACTORS, Envelope, MANAGER_ACTORS } from '../../../../../../contract/common';
import {
  CLIENT_COMMANDS,
  FixedNotificationList,
  MarkList,
  MESSAGE_COMMANDS,
  parseCommand,
  SEND_TYPE,
  WebrtcMessageBody,
  WebrtcMessageList,
  WebrtcMessageQuery,
  type MessageCommand,
} from '../../../../../../contract/messages';
import { WIDER_VIEW_COMMANDS } from '../../../../../../contract/wider-view';
import { ApiError } from '../../../../lib/api-error';
import type { App } from '../../../../lib/app-types';
import { listFixedNotifications, listMarks } from '../../../../lib/messages/catalogue';
import { readConversation } from '../../../../lib/messages/conversation';
import { loadMessages } from '../../../../lib/tester/detail';
import {
  assertCanView,
  findCurrentSitting,
  findMatching,
  findTesterMatching,
  insertMessage,
  loadTester,
  requireOpenSitting,
  targetTesterId,
} from '../../../../lib/sittings/sittings';

// The wider view's markers are server-written too (tester/screen_share, tester/room_scan*).
const ALL_COMMANDS = new Set<string>([
  ...Object.values(MESSAGE_COMMANDS),
  ...Object.values(WIDER_VIEW_COMMANDS),
]);

/** webrtc_message (chat and signalling markers), fixed_notifications and marks (spec §7). */
export default async function messageRoutes(app: App): Promise<void> {
  app.post(
    '/webrtc_message.php',
    {
      config: { access: [ACTOR.tester, ACTOR.checker] },
      schema: { body: WebrtcMessageBody, response: { 200: Envelope(WebrtcMessageList) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const b = request.body;
      const kind = b.kind ?? 'message';
      let testId: number;
      let checkerId: number | null;
      if (auth.actor === ACTOR.tester) {
        if (b.tester_id !== auth.userId)
          throw new ApiError(403, 'forbidden', 'A tester can only post as itself.');
        if (b.send_type !== SEND_TYPE.tester)
          throw new ApiError(403, 'forbidden', 'A tester posts with send_type 1.');
        testId = (await requireOpenSitting(app.db, auth.userId)).id;
        checkerId = (await findTesterMatching(app.db, auth.userId))?.checker_id ?? null;
      } else {
        if (b.send_type !== SEND_TYPE.checker)
          throw new ApiError(403, 'forbidden', 'A checker posts with send_type 0.');
        const matching = await findMatching(app.db, auth.userId, b.tester_id);
        if (!matching) throw new ApiError(403, 'not_matched', 'You are not matched to this tester.');
        testId = matching.test_id;
        checkerId = auth.userId;
      }
      if (kind === 'command') {
        const { command, payload } = parseCommand(b.message);
        if (!ALL_COMMANDS.has(command)) {
          throw new ApiError(400, 'validation', `Unknown command; one of ${CLIENT_COMMANDS.join(', ')}.`);
        }
        if (!CLIENT_COMMANDS.includes(command as MessageCommand)) {
          throw new ApiError(
            403,
            'forbidden',
            `${command} is sent by the server as the effect of its action.`,
          );
        }
        if (payload !== null) throw new ApiError(400, 'validation', `${command} takes no payload.`);
      } else if (b.message.replace(/[\s\u200b-\u200d\u2060\ufeff]/g, '') === '') {
        // Blank, or only invisible characters (zero-width spaces): nothing a checker could read.
        throw new ApiError(400, 'validation', 'The message is empty.');
      }
      const row = await insertMessage(app.db, {
        testId,
        testerId: b.tester_id,
        checkerId,
        sendType: b.send_type,
        messageType: b.message_type,
        kind,
        message: b.message,
      });
      return reply.ok({ messages: [row] });
    },
  );

  app.get(
    '/webrtc_message.php',
    {
      config: { access: ALL_ACTORS },
      schema: { querystring: WebrtcMessageQuery, response: { 200: Envelope(WebrtcMessageList) } },
    },
    async (request, reply) => {
      const auth = request.auth!;
      const q = request.query;
      const testerId = targetTesterId(auth, q.tester_id);
      if (auth.actor === ACTOR.tester || auth.actor === ACTOR.checker) {
        // The people in the sitting, polling it every few seconds: one batched statement (lib/messages/conversation).
        const messages = await readConversation(app.db, {
          actor: auth.actor,
          callerId: auth.userId,
          testerId,
          sinceId: q.since_id ?? 0,
          limit: q.limit ?? 100,
        });
        return reply.ok({ messages });
      }
      const tester = await loadTester(app.db, testerId);
      await assertCanView(app.db, auth, tester);
      // A manager reads the conversation of the sitting the tester is in now.
      const testId = (await findCurrentSitting(app.db, testerId))?.id;
      if (testId === undefined) return reply.ok({ messages: [] });
      return reply.ok({ messages: await loadMessages(app.db, testId, q.since_id ?? 0, q.limit ?? 100) });
    },
  );

  app.get(
    '/fixed_notifications.php',
    {
      config: { access: [ACTOR.checker, ...MANAGER_ACTORS] },
      schema: { response: { 200: Envelope(FixedNotificationList) } },
    },
    async (_request, reply) => {
      return reply.ok({ list: await listFixedNotifications(app.db) });
    },
  );

  app.get(
    '/marks.php',
    {
      config: { access: [ACTOR.checker, ...MANAGER_ACTORS] },
      schema: { response: { 200: Envelope(MarkList) } },
    },
    async (_request, reply) => {
      return reply.ok({ list: await listMarks(app.db) });
    },
  );
}
