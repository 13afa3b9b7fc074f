import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FixedNotificationList, MarkList, WebrtcMessageList } from '../../contract/messages';
import { build, envelope, injectAs, loginAs, type TestServer } from './helper';

let s: TestServer;
const ids: Record<string, number> = {};
const tokens: Record<string, string> = {};

async function token(loginId: string): Promise<string> {
  tokens[loginId] ??= await loginAs(s.app, loginId);
  return tokens[loginId];
}
async function get(loginId: string, url: string): Promise<LightMyRequestResponse> {
  return injectAs(s.app, await token(loginId), { method: 'GET', url: `/api/v1${url}` });
}
async function post(loginId: string, payload: Record<string, unknown>): Promise<LightMyRequestResponse> {
  return injectAs(s.app, await token(loginId), {
    method: 'POST',
    url: '/api/v1/webrtc_message.php',
    payload,
  });
}
async function match(tester: string, checker: string): Promise<void> {
  await token(tester);
  const t = await s.db.query<{ id: number }>(
    `SELECT id FROM tests WHERE user_id = $1 AND status < 7 ORDER BY id DESC LIMIT 1`,
    [ids[tester]],
  );
  await s.db.query(
    `INSERT INTO matchings (test_id, tester_id, checker_id, matching_status, channel_name) VALUES ($1, $2, $3, 2, $4)`,
    [t.rows[0]!.id, ids[tester], ids[checker], `ch-${tester}`],
  );
}

beforeAll(async () => {
  s = await build();
  const { rows } = await s.db.query<{ id: number; login_id: string }>(`SELECT id, login_id FROM users`);
  for (const r of rows) ids[r.login_id] = r.id;
  await match('tester01', 'checker01');
  await token('tester02');
});

afterAll(async () => {
  await s.close();
});

describe('webrtc_message.php POST', () => {
  it('lets a tester post as itself with send_type 1 only', async () => {
    const ok = await post('tester01', {
      tester_id: ids.tester01,
      send_type: 1,
      message_type: 1,
      message: 'こんにちは',
    });
    expect(ok.statusCode).toBe(200);
    const m = envelope<WebrtcMessageList>(ok).result.messages[0]!;
    expect(m).toMatchObject({ send_type: 1, message_type: 1, kind: 'message', message: 'こんにちは' });
    expect(new Date(m.created_at).getTime()).toBeGreaterThan(0);
    const stored = await s.db.query<{ checker_id: number }>(`SELECT checker_id FROM messages WHERE id = $1`, [
      m.id,
    ]);
    expect(stored.rows[0]!.checker_id).toBe(ids.checker01);

    expect(
      (await post('tester01', { tester_id: ids.tester01, send_type: 0, message_type: 1, message: 'x' }))
        .statusCode,
    ).toBe(403);
    expect(
      (await post('tester01', { tester_id: ids.tester02, send_type: 1, message_type: 1, message: 'x' }))
        .statusCode,
    ).toBe(403);
  });

  it('lets a checker post only to matched testers with send_type 0', async () => {
    const ok = await post('checker01', {
      tester_id: ids.tester01,
      send_type: 0,
      message_type: 3,
      message: '座り直してください',
    });
    expect(ok.statusCode).toBe(200);
    expect(
      (await post('checker01', { tester_id: ids.tester01, send_type: 1, message_type: 3, message: 'x' }))
        .statusCode,
    ).toBe(403);
    expect(
      (await post('checker02', { tester_id: ids.tester01, send_type: 0, message_type: 3, message: 'x' }))
        .statusCode,
    ).toBe(403);
    expect(
      (await post('checker01', { tester_id: ids.tester02, send_type: 0, message_type: 3, message: 'x' }))
        .statusCode,
    ).toBe(403);
    expect(
      (await post('sysadmin01', { tester_id: ids.tester01, send_type: 0, message_type: 3, message: 'x' }))
        .statusCode,
    ).toBe(403);
  });

  it('accepts the client commands and refuses unknown, server-only and parameterised ones', async () => {
    for (const c of ['MESSAGE_RECEIVED', 'BEFORE_CLOSE', 'BEFORE_CLOSE_OK', 'AUTHENTICATING']) {
      const r = await post('tester01', {
        tester_id: ids.tester01,
        send_type: 1,
        message_type: 1,
        kind: 'command',
        message: c,
      });
      expect(r.statusCode).toBe(200);
      expect(envelope<WebrtcMessageList>(r).result.messages[0]).toMatchObject({
        kind: 'command',
        message: c,
      });
    }
    const base = { tester_id: ids.tester01, send_type: 0, message_type: 3, kind: 'command' };
    const unknown = await post('checker01', { ...base, message: 'FOO' });
    expect(unknown.statusCode).toBe(400);
    expect(envelope(unknown).code).toBe('validation');
    for (const c of ['KICK_OUT', 'ACCEPTED', 'REJECTED', 'MARKING_ALERT:hi']) {
      expect((await post('checker01', { ...base, message: c })).statusCode).toBe(403);
    }
    expect((await post('checker01', { ...base, message: 'BEFORE_CLOSE:x' })).statusCode).toBe(400);
    expect((await post('checker01', { ...base, kind: 'other', message: 'x' })).statusCode).toBe(400);
  });

  it('validates the message body', async () => {
    const base = { tester_id: ids.tester01, send_type: 1, message_type: 1 };
    expect((await post('tester01', { ...base, message: 'a'.repeat(1000) })).statusCode).toBe(200);
    const long = await post('tester01', { ...base, message: 'a'.repeat(1001) });
    expect(long.statusCode).toBe(400);
    expect(envelope(long)).toMatchObject({ status: 400, result: null });
    expect((await post('tester01', { ...base, message: '' })).statusCode).toBe(400);
    expect((await post('tester01', { ...base, message: '   ' })).statusCode).toBe(400);
    // Only invisible characters (an ideographic space and zero-width ones) is empty too.
    expect((await post('tester01', { ...base, message: '\u3000\u200b\u200d\ufeff' })).statusCode).toBe(400);
    expect((await post('tester01', { ...base, message_type: 4, message: 'x' })).statusCode).toBe(400);
    expect((await post('tester01', { send_type: 1, message_type: 1, message: 'x' })).statusCode).toBe(400);
    expect((await post('tester01', { ...base, tester_id: 'abc', message: 'x' })).statusCode).toBe(400);
    const anon = await s.app.inject({
      method: 'POST',
      url: '/api/v1/webrtc_message.php',
      payload: { ...base, message: 'x' },
    });
    expect(anon.statusCode).toBe(401);
  });
});

describe('webrtc_message.php GET', () => {
  it('lists the sitting’s messages newest first, after since_id, to permitted readers', async () => {
    const all = envelope<WebrtcMessageList>(
      await get('tester01', `/webrtc_message.php?tester_id=${ids.tester01}`),
    ).result.messages;
    expect(all.length).toBeGreaterThan(3);
    const idsDesc = all.map((m) => m.id);
    expect(idsDesc).toEqual([...idsDesc].sort((a, b) => b - a));
    expect(Object.keys(all[0]!).sort()).toEqual([
      'created_at',
      'id',
      'kind',
      'message',
      'message_type',
      'send_type',
    ]);
    const since = all[2]!.id;
    const newer = envelope<WebrtcMessageList>(
      await get('tester01', `/webrtc_message.php?tester_id=${ids.tester01}&since_id=${since}`),
    ).result.messages;
    expect(newer.map((m) => m.id)).toEqual(idsDesc.slice(0, 2));
    // Both sides see the same conversation.
    const checker = envelope<WebrtcMessageList>(
      await get('checker01', `/webrtc_message.php?tester_id=${ids.tester01}`),
    ).result.messages;
    expect(checker.map((m) => m.id)).toEqual(idsDesc);
    expect((await get('manager01', `/webrtc_message.php?tester_id=${ids.tester01}`)).statusCode).toBe(200);

    expect((await get('tester02', `/webrtc_message.php?tester_id=${ids.tester01}`)).statusCode).toBe(403);
    expect((await get('checker02', `/webrtc_message.php?tester_id=${ids.tester01}`)).statusCode).toBe(403);
    const empty = envelope<WebrtcMessageList>(
      await get('tester02', `/webrtc_message.php?tester_id=${ids.tester02}`),
    ).result;
    expect(empty.messages).toEqual([]);
    expect((await get('checker01', '/webrtc_message.php')).statusCode).toBe(400);
    expect(
      (await get('checker01', `/webrtc_message.php?tester_id=${ids.tester01}&since_id=-1`)).statusCode,
    ).toBe(400);
  });
  it('answers reads that arrive together each with its own conversation and refusal, as when alone', async () => {
    const posted = envelope<WebrtcMessageList>(
      await post('checker01', {
        tester_id: ids.tester01,
        send_type: 0,
        message_type: 1,
        message: 'together',
      }),
    ).result.messages[0]!;
    const reads: [string, string][] = [
      ['tester01', `/webrtc_message.php?tester_id=${ids.tester01}`],
      ['checker01', `/webrtc_message.php?tester_id=${ids.tester01}&limit=2`],
      ['tester02', `/webrtc_message.php?tester_id=${ids.tester02}`],
      ['checker02', `/webrtc_message.php?tester_id=${ids.tester01}`],
      ['checker01', `/webrtc_message.php?tester_id=${ids.checker02}`],
      ['checker01', '/webrtc_message.php?tester_id=987654321'],
      ['tester01', `/webrtc_message.php?tester_id=${ids.tester01}&since_id=${posted.id}`],
      ['manager01', `/webrtc_message.php?tester_id=${ids.tester01}&limit=1`],
    ];
    for (const [who] of reads) await token(who);
    const alone = [];
    for (const [who, url] of reads) alone.push(await get(who, url));
    const together = await Promise.all(reads.map(([who, url]) => get(who, url)));
    expect(together.map((r) => r.statusCode)).toEqual([200, 200, 200, 403, 404, 404, 200, 200]);
    expect(together.map((r) => r.json() as unknown)).toEqual(alone.map((r) => r.json() as unknown));
    const [own, checkerTwo] = together.map((r) => (r.json() as { result: WebrtcMessageList | null }).result);
    // The newest is the one just posted, with the same time text the post answered.
    expect(own!.messages[0]).toEqual(posted);
    expect(checkerTwo!.messages.map((m) => m.id)).toEqual(own!.messages.slice(0, 2).map((m) => m.id));
  });
});

describe('fixed_notifications.php and marks.php', () => {
  it('lists fixed notifications for checkers and managers in order', async () => {
    for (const who of ['checker01', 'manager01', 'sysadmin01', 'supervisor01']) {
      const res = await get(who, '/fixed_notifications.php');
      expect(res.statusCode).toBe(200);
      const list = envelope<FixedNotificationList>(res).result.list;
      expect(list).toHaveLength(6);
      expect(list.map((n) => n.order_id)).toEqual([1, 2, 3, 4, 5, 6]);
      expect(Object.keys(list[0]!).sort()).toEqual(['id', 'message', 'order_id']);
    }
    expect((await get('tester01', '/fixed_notifications.php')).statusCode).toBe(403);
  });

  it('lists marks with label, display and score', async () => {
    const res = await get('checker01', '/marks.php');
    expect(res.statusCode).toBe(200);
    const list = envelope<MarkList>(res).result.list;
    expect(list).toHaveLength(15);
    expect(list[0]).toMatchObject({ label: 'CAMERA_FAILURE', order_id: 1, display: 1, score: 1 });
    expect(list.find((m) => m.label === 'PERSONALITY_MISMATCH')!.score).toBe(10);
    expect((await get('manager01', '/marks.php')).statusCode).toBe(200);
    expect((await get('tester01', '/marks.php')).statusCode).toBe(403);
    expect((await s.app.inject({ method: 'GET', url: '/api/v1/marks.php' })).statusCode).toBe(401);
  });
});
