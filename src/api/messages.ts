import type { WebrtcMessage, WebrtcMessageList } from '@contract/messages';
import { camelize, type Camelize } from '../lib/case';
import { call } from './client';

/** One chat message or signalling marker (spec §3 "WebRTC message"), camelCase. */
export type ChatMessage = Camelize<WebrtcMessage>;

/**
 * GET webrtc_message.php: messages of the tester's current sitting with id > sinceId, newest first.
 *
 * @param testerId - the examinee's user id.
 * @param sinceId - only messages after this id (0: all).
 */
export async function getMessages(testerId: number, sinceId = 0): Promise<ChatMessage[]> {
  const r = await call<WebrtcMessageList>('webrtc_message', {
    method: 'GET',
    params: { tester_id: testerId, since_id: sinceId },
  });
  return (r?.messages ?? []).map((m) => camelize(m));
}

/** What an examinee posts: a chat text or one of the client commands (contract CLIENT_COMMANDS). */
export interface PostMessageArgs {
  testerId: number;
  /** 1 identification by tester, 3 monitoring. */
  messageType: 1 | 2 | 3;
  message: string;
  kind?: 'message' | 'command';
}

/** POST webrtc_message.php as the tester (send_type 1); returns the stored message. */
export async function postMessage(args: PostMessageArgs): Promise<ChatMessage | null> {
  const r = await call<WebrtcMessageList>('webrtc_message', {
    data: {
      tester_id: args.testerId,
      send_type: 1,
      message_type: args.messageType,
      message: args.message,
      kind: args.kind ?? 'message',
    },
  });
  const m = r?.messages?.[0];
  return m ? camelize(m) : null;
}
