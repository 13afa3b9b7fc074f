import type { AddressInfo } from 'node:net';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DescribeSignalingChannelCommand, KinesisVideoClient } from '@aws-sdk/client-kinesis-video';
import { SigV4RequestSigner } from 'amazon-kinesis-video-streams-webrtc';
import { WebSocket } from 'ws';
import type { Matching, MatchingResult, SignalingChannel } from '../../../contract/matching';
import { build, envelope, injectAs, loginAs, type TestServer } from '../helper';
import { rawConnect, type Handshake } from '../standins/kvs-helpers';

/**
 * A checker removed from a matching (released, replaced, logged out, its examinee kicked) must stop seeing the
 * examinee at once: the viewer credentials it still holds are refused by the stand-in on HTTP and on the
 * WebSocket, its open signaling socket is closed, and the ClientId the examinee answers is another one.
 */
let s: TestServer;
let base: string;
const tokens = new Map<string, string>();

async function token(loginId: string): Promise<string> {
  let t = tokens.get(loginId);
  if (!t) {
    t = await loginAs(s.app, loginId);
    tokens.set(loginId, t);
  }
  return t;
}

async function post<T>(loginId: string, url: string, payload: Record<string, unknown> = {}): Promise<T> {
  const res = await injectAs(s.app, await token(loginId), { method: 'POST', url, payload });
  expect(res.statusCode, res.body).toBe(200);
  return envelope<T>(res).result;
}

const poll = (loginId: string, payload: Record<string, unknown> = {}) =>
  post<MatchingResult>(loginId, '/api/v1/matching.php', payload);

/**
 * Matches the examinee to the checker and returns both sides' matchings. The checker polls first, so a
 * checker never assigned before is the examinee's first choice (longest idle).
 */
async function match(tester: string, checker: string): Promise<{ tester: Matching; checker: Matching }> {
  await poll(checker);
  await poll(tester, { channel_status: 'open' });
  const c = (await poll(checker)).matchings.find((m) => m.login_id === tester);
  expect(c, `${checker} was given ${tester}`).toBeDefined();
  const t = (await poll(tester, { channel_status: 'open' })).matchings[0]!;
  return { tester: t, checker: c! };
}

function creds(ch: SignalingChannel) {
  return {
    accessKeyId: ch.access_key_id,
    secretAccessKey: ch.secret_access_key,
    sessionToken: ch.session_token,
  };
}

/** DescribeSignalingChannel with the credentials, through the real SDK: the error name, or 'ok'. */
async function describeWith(ch: SignalingChannel): Promise<string> {
  const client = new KinesisVideoClient({
    region: ch.region,
    endpoint: `${base}/kvs`,
    credentials: creds(ch),
    maxAttempts: 1,
  });
  return client.send(new DescribeSignalingChannelCommand({ ChannelName: ch.channel_name })).then(
    () => 'ok',
    (e: unknown) => (e as { name: string }).name,
  );
}

/** A raw viewer handshake with the credentials and ClientId (signed as the SPA signs it). */
async function connectViewer(ch: SignalingChannel, clientId: string): Promise<Handshake> {
  const ref = s.app.kvs!.find({ name: ch.channel_name })!;
  const signer = new SigV4RequestSigner(ch.region, creds(ch));
  const url = await signer.getSignedURL(
    `wss://127.0.0.1:${base.split(':')[2]}/kvs-ws/viewer`,
    { 'X-Amz-ChannelARN': ref.channelArn, 'X-Amz-ClientId': clientId },
    new Date(),
  );
  return rawConnect('ws://' + url.slice(6));
}

/** The open socket of an accepted handshake (fails the test otherwise). */
function opened(h: Handshake): Extract<Handshake, { ok: true }> {
  if (!h.ok) throw new Error(`handshake refused: ${h.status} ${h.errorType ?? ''}`);
  return h;
}

beforeAll(() => {
  (globalThis as { WebSocket?: unknown }).WebSocket = WebSocket;
});

async function start(): Promise<void> {
  tokens.clear();
  s = await build();
  await s.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(s.app.server.address() as AddressInfo).port}`;
}

afterEach(async () => {
  await s?.close();
});

describe('a removed checker keeps watching with its old viewer credentials', () => {
  it('is cut off when the checker releases the examinee, and a new checker gets another ClientId', async () => {
    await start();
    const { tester, checker } = await match('tester01', 'checker01');
    const viewer = checker.signaling_channel!;
    expect(checker.viewer_client_id).toMatch(/^viewer-[0-9a-f-]{36}$/);
    expect(tester.viewer_client_id).toBe(checker.viewer_client_id);
    expect(await describeWith(viewer)).toBe('ok');
    const open = opened(await connectViewer(viewer, checker.viewer_client_id!));

    await post('checker01', '/api/v1/delete_matching.php', { tester_id: checker.tester_id });

    expect(await open.closed).toBe(1008); // the open signaling socket is closed at once
    expect(await describeWith(viewer)).toBe('NotAuthorizedException');
    const again = await connectViewer(viewer, checker.viewer_client_id!);
    expect(again).toMatchObject({ ok: false, status: 401, errorType: 'NotAuthorizedException' });

    // The examinee is matched again, to checker02 (checker01 takes a break: a returning examinee would
    // otherwise go back to the checker who watched it): another ClientId, which checker01 never saw.
    const me = await s.db.query<{ id: number }>(`SELECT id FROM users WHERE login_id = 'checker01'`);
    await post('checker01', '/api/v1/tester/monitor_activate.php', {
      monitor_id: me.rows[0]!.id,
      activation: 0,
    });
    const next = await match('tester01', 'checker02');
    expect(next.tester.viewer_client_id).toBe(next.checker.viewer_client_id);
    expect(next.tester.viewer_client_id).not.toBe(checker.viewer_client_id);
    expect(await describeWith(next.checker.signaling_channel!)).toBe('ok');
    // The examinee's own master credentials were not touched by the checker's removal.
    expect(await describeWith(tester.signaling_channel!)).toBe('ok');
  });

  it('is cut off when the checker logs out', async () => {
    await start();
    const { checker } = await match('tester02', 'checker02');
    const viewer = checker.signaling_channel!;
    const open = opened(await connectViewer(viewer, checker.viewer_client_id!));

    await post('checker02', '/api/v1/logout.php?p=self');

    expect(await open.closed).toBe(1008);
    expect(await describeWith(viewer)).toBe('NotAuthorizedException');
  });

  it('is cut off when the examinee is kicked out, and the kicked examinee loses its master credentials', async () => {
    await start();
    const { tester, checker } = await match('tester03', 'checker03');
    const viewer = checker.signaling_channel!;
    const master = tester.signaling_channel!;
    expect(await describeWith(master)).toBe('ok');

    await post('checker03', '/api/v1/tester/kick_out.php', { tester_id: checker.tester_id, method: 'PUT' });

    expect(await describeWith(viewer)).toBe('NotAuthorizedException');
    expect(await describeWith(master)).toBe('NotAuthorizedException');
  });

  it('hands a matched checker credentials that live at most 15 minutes', async () => {
    await start();
    const { checker } = await match('tester04', 'checker01');
    const ms = Date.parse(checker.signaling_channel!.expiration) - Date.now();
    expect(ms).toBeLessThanOrEqual(900_000);
    expect(ms).toBeGreaterThan(800_000);
  });
});
