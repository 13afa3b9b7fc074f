import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Matching, MatchingResult } from '../../contract/matching';
import type { PhonePairingResult, PhonePairResult, PhonePollResult } from '../../contract/phone';
import { build, envelope, injectAs, loginAs, type TestServer } from './helper';

// Sweep on every poll, so a phone backdated past its stale time is lost at the very next request.
process.env.MATCHING_SWEEP_INTERVAL_MS = '0';

let s: TestServer;
let tester: string;
let testerId: number;
let testId: number;

beforeEach(async () => {
  s = await build();
  tester = await loginAs(s.app, 'tester01');
  const { rows } = await s.db.query<{ user_id: number; id: number }>(
    `SELECT t.user_id, t.id FROM tests t JOIN users u ON u.id = t.user_id
      WHERE u.login_id = 'tester01' AND t.status < 7 ORDER BY t.id DESC LIMIT 1`,
  );
  testerId = Number(rows[0]!.user_id);
  testId = Number(rows[0]!.id);
});
afterEach(async () => {
  await s.close();
});

async function setStartup(params: Record<string, unknown>): Promise<void> {
  await s.db.query(`UPDATE tests SET startup_parameters = startup_parameters || $2::jsonb WHERE id = $1`, [
    testId,
    JSON.stringify(params),
  ]);
}

const post = (token: string, url: string, payload: Record<string, unknown> = {}) =>
  injectAs(s.app, token, { method: 'POST', url, payload });

async function newCode(): Promise<string> {
  const res = await post(tester, '/api/v1/tester/phone_pairing.php');
  expect(res.statusCode, res.body).toBe(200);
  return envelope<PhonePairingResult>(res).result.code;
}

const pair = (code: string) =>
  s.app.inject({ method: 'POST', url: '/api/v1/phone/pair.php', payload: { code } });

async function pairedPhone(): Promise<string> {
  const res = await pair(await newCode());
  expect(res.statusCode, res.body).toBe(200);
  return envelope<PhonePairResult>(res).result.access_token;
}

async function phonePoll(phone: string, payload: Record<string, unknown> = {}): Promise<PhonePollResult> {
  const res = await post(phone, '/api/v1/phone/poll.php', payload);
  expect(res.statusCode, res.body).toBe(200);
  return envelope<PhonePollResult>(res).result;
}

async function matchingPoll(token: string, payload: Record<string, unknown> = {}): Promise<Matching[]> {
  const res = await post(token, '/api/v1/matching.php', payload);
  expect(res.statusCode, res.body).toBe(200);
  return envelope<MatchingResult>(res).result.matchings;
}

async function logEvents(): Promise<string[]> {
  const { rows } = await s.db.query<{ event: string; detail: string }>(
    `SELECT event, detail FROM examinee_logs WHERE test_id = $1 AND event LIKE 'phone%' ORDER BY id`,
    [testId],
  );
  return rows.map((r) => (r.detail ? `${r.event}:${r.detail}` : r.event));
}

/** Makes the sitting's phone stale now, as if it stopped polling a while ago. */
async function silencePhone(): Promise<void> {
  await s.db.query(`UPDATE phone_links SET stale_at = now() - interval '1 second' WHERE test_id = $1`, [
    testId,
  ]);
}

describe('pairing codes', () => {
  it('are refused for a sitting without the phone camera', async () => {
    const res = await post(tester, '/api/v1/tester/phone_pairing.php');
    expect(res.statusCode).toBe(409);
    expect(envelope(res).code).toBe('phone_off');
  });

  it('are spent once, by one phone, and the phone gets a session for that sitting only', async () => {
    await setStartup({ is_phone_camera: 1 });
    const issued = envelope<PhonePairingResult>(
      await post(tester, '/api/v1/tester/phone_pairing.php'),
    ).result;
    expect(issued.ttl_seconds).toBe(120);
    expect(Date.parse(issued.expires_at) - Date.now()).toBeGreaterThan(100_000);
    const first = await pair(issued.code);
    expect(first.statusCode, first.body).toBe(200);
    const r = envelope<PhonePairResult>(first).result;
    expect(r).toMatchObject({ login_id: 'tester01', lang: 'ja', matching_timeout: 5 });
    expect(first.headers['cache-control']).toBe('no-store');
    // Scanned again (a photo of the screen, a second phone): refused, and it opens nothing.
    const again = await pair(issued.code);
    expect(again.statusCode).toBe(410);
    expect(envelope(again).code).toBe('phone_pairing_invalid');
    expect(await logEvents()).toEqual(['phone_paired']);
  });

  it('stop working when they expire, when a newer one is made, and when the sitting is over', async () => {
    await setStartup({ is_phone_camera: 1 });
    const old = await newCode();
    const newer = await newCode();
    expect((await pair(old)).statusCode).toBe(410);
    await s.db.query(
      `UPDATE phone_pairings SET expires_at = now() - interval '1 second' WHERE test_id = $1`,
      [testId],
    );
    expect((await pair(newer)).statusCode).toBe(410);
    const late = await newCode();
    await s.db.query(`UPDATE tests SET status = 7 WHERE id = $1`, [testId]);
    expect((await pair(late)).statusCode).toBe(410);
    // And no code for a finished sitting.
    expect((await post(tester, '/api/v1/tester/phone_pairing.php')).statusCode).toBe(409);
    // Malformed codes are refused the same way, without a database error.
    expect((await pair('not a code')).statusCode).toBe(410);
    expect((await pair('x'.repeat(401))).statusCode).toBe(400);
  });

  it('are limited per address', async () => {
    let limited = false;
    for (let i = 0; i < 40 && !limited; i++) limited = (await pair('f'.repeat(43))).statusCode === 429;
    expect(limited).toBe(true);
  });
});

describe('the phone session', () => {
  beforeEach(async () => {
    await setStartup({ is_phone_camera: 1 });
  });

  it('does the phone’s job and nothing else', async () => {
    const phone = await pairedPhone();
    for (const [method, url] of [
      ['GET', '/api/v1/tester/detail.php'],
      ['POST', '/api/v1/matching.php'],
      ['POST', '/api/v1/logout.php'],
      ['POST', '/api/v1/tester/phone_pairing.php'],
      ['GET', '/api/v1/webrtc_message.php'],
    ] as const) {
      const res = await injectAs(s.app, phone, { method, url, payload: method === 'POST' ? {} : undefined });
      expect(res.statusCode, `${method} ${url}`).toBe(403);
    }
    // The examinee's own session may not act as the phone.
    expect((await post(tester, '/api/v1/phone/poll.php')).statusCode).toBe(403);
    expect((await phonePoll(phone)).sitting).toBe('open');
  });

  it('outlives the examinee logging in again elsewhere, and ends when another phone is paired', async () => {
    const phone = await pairedPhone();
    const again = await loginAs(s.app, 'tester01');
    expect((await post(tester, '/api/v1/matching.php')).statusCode).toBe(401);
    expect((await phonePoll(phone)).sitting).toBe('open');
    tester = again;
    const second = await pairedPhone();
    const replaced = await post(phone, '/api/v1/phone/poll.php');
    expect(replaced.statusCode).toBe(401);
    expect(envelope(replaced).code).toBe('phone_replaced');
    expect((await phonePoll(second)).sitting).toBe('open');
    expect(await logEvents()).toEqual(['phone_paired', 'phone_paired:replaced']);
  });

  it('learns that the sitting ended (finished, kicked, logged out) and gets no channel then', async () => {
    const phone = await pairedPhone();
    await matchingPoll(tester);
    expect((await phonePoll(phone)).signaling_channel).not.toBeNull();
    const logout = await post(tester, '/api/v1/logout.php?p=self');
    expect(logout.statusCode, logout.body).toBe(200);
    const r = await phonePoll(phone);
    expect(r).toMatchObject({ sitting: 'ended', signaling_channel: null, viewer_client_id: null });
  });
});

describe('the phone channel, the checker and a lost phone', () => {
  beforeEach(async () => {
    await setStartup({ is_phone_camera: 1, is_record: 1 });
  });

  it('publishes as MASTER on the sitting’s phone channel; the matched checker views it with the matching’s ClientId', async () => {
    const checker = await loginAs(s.app, 'checker01');
    await matchingPoll(checker);
    const mine = (await matchingPoll(tester, { channel_status: 'open' }))[0]!;
    expect(mine.checker_id).not.toBeNull();
    // Before a phone is paired: waiting, for the examinee and the checker.
    expect(mine.phone).toMatchObject({ state: 'waiting', since: null, signaling_channel: null });
    const phone = await pairedPhone();
    const p = await phonePoll(phone, { camera: 'environment' });
    expect(p.recording).toEqual({ video_level: null, video_codec: null });
    expect(p.signaling_channel!.channel_name).toBe(`${mine.signaling_channel!.channel_name}-phone`);
    expect(p.viewer_client_id).toBe(mine.viewer_client_id);
    expect(p.state).toBe('connecting');
    const master = s.app.localCredentials!.lookup(p.signaling_channel!.access_key_id)!;
    expect(master.scope).toMatchObject({ kind: 'kvs', role: 'master', holder: testerId });

    const live = await phonePoll(phone, { channel_status: 'open' });
    expect(live.state).toBe('live');
    const seen = (await matchingPoll(checker)).find((m) => m.tester_id === testerId)!;
    expect(seen.phone).toMatchObject({ state: 'live', camera: 'environment' });
    const view = seen.phone!.signaling_channel!;
    expect(view.channel_name).toBe(p.signaling_channel!.channel_name);
    expect(s.app.localCredentials!.lookup(view.access_key_id)!.scope).toMatchObject({
      kind: 'kvs',
      role: 'viewer',
      channelName: view.channel_name,
    });
    // The examinee sees the state, never credentials of the phone's channel.
    const own = (await matchingPoll(tester))[0]!;
    expect(own.phone).toMatchObject({ state: 'live', signaling_channel: null });

    // The checker's viewer of the phone channel lives exactly as long as its matching.
    const released = await post(checker, '/api/v1/delete_matching.php', { tester_id: testerId });
    expect(released.statusCode, released.body).toBe(200);
    expect(s.app.localCredentials!.lookup(view.access_key_id)).toBeNull();
    // The phone's own credentials go on (the sitting is open).
    expect(s.app.localCredentials!.lookup(p.signaling_channel!.access_key_id)).not.toBeNull();
  });

  it('is lost when it stops polling: the checker sees it, the examinee log says it once, and it comes back', async () => {
    const checker = await loginAs(s.app, 'checker01');
    await matchingPoll(checker);
    await matchingPoll(tester, { channel_status: 'open' });
    const phone = await pairedPhone();
    await phonePoll(phone, { channel_status: 'open' });
    await silencePhone();
    const seen = (await matchingPoll(checker)).find((m) => m.tester_id === testerId)!;
    expect(seen.phone).toMatchObject({ state: 'lost', lost_reason: 'no_response', signaling_channel: null });
    expect(Date.parse(seen.phone!.since!)).toBeLessThanOrEqual(Date.now());
    // Polls of either side later do not log it again.
    await matchingPoll(checker);
    await matchingPoll(tester);
    expect(await logEvents()).toEqual(['phone_paired', 'phone_lost:no_response']);
    // The phone's network comes back: it is connecting again (then live), and the log says so.
    expect((await phonePoll(phone)).state).toBe('connecting');
    expect((await phonePoll(phone, { channel_status: 'open' })).state).toBe('live');
    expect(await logEvents()).toEqual(['phone_paired', 'phone_lost:no_response', 'phone_reconnected']);
  });

  it('is lost at once when its page leaves, and rescanning pairs it again', async () => {
    await matchingPoll(tester);
    const phone = await pairedPhone();
    await phonePoll(phone, { channel_status: 'open' });
    const left = await post(phone, '/api/v1/phone/leave.php');
    expect(envelope(left).result).toEqual({ left: true });
    expect((await matchingPoll(tester))[0]!.phone).toMatchObject({ state: 'lost', lost_reason: 'left' });
    const second = await pairedPhone();
    expect((await matchingPoll(tester))[0]!.phone).toMatchObject({ state: 'connecting' });
    await phonePoll(second, { channel_status: 'open' });
    expect((await matchingPoll(tester))[0]!.phone!.state).toBe('live');
    expect(await logEvents()).toEqual(['phone_paired', 'phone_lost:left', 'phone_paired:replaced']);
  });

  it('stays lost when a poll its page sent before leaving arrives after the leave; its reload comes back', async () => {
    const checker = await loginAs(s.app, 'checker01');
    await matchingPoll(checker);
    await matchingPoll(tester, { channel_status: 'open' });
    const phone = await pairedPhone();
    await phonePoll(phone, { run: 'run-1', channel_status: 'open' });
    const left = await post(phone, '/api/v1/phone/leave.php', { run: 'run-1' });
    expect(envelope(left).result).toEqual({ left: true });
    // The closed page's last poll, answered after its leave: no credentials, and the phone is still lost.
    const late = await phonePoll(phone, { run: 'run-1', channel_status: 'open' });
    expect(late).toMatchObject({ state: 'lost', signaling_channel: null, viewer_client_id: null });
    expect((await matchingPoll(tester))[0]!.phone).toMatchObject({ state: 'lost', lost_reason: 'left' });
    const seen = (await matchingPoll(checker)).find((m) => m.tester_id === testerId)!;
    expect(seen.phone).toMatchObject({ state: 'lost', lost_reason: 'left', signaling_channel: null });
    // The same phone's page reloaded: a new run, back as before.
    const back = await phonePoll(phone, { run: 'run-2', channel_status: 'open' });
    expect(back.state).toBe('live');
    expect(back.signaling_channel).not.toBeNull();
    expect((await matchingPoll(tester))[0]!.phone!.state).toBe('live');
    expect(await logEvents()).toEqual(['phone_paired', 'phone_lost:left', 'phone_reconnected']);
    // A run id too long for the contract is the client's mistake, told in the envelope.
    const bad = await post(phone, '/api/v1/phone/leave.php', { run: 'x'.repeat(65) });
    expect(bad.statusCode).toBe(400);
  });

  it('revokes a replaced phone’s signaling credentials on the local stand-in', async () => {
    await matchingPoll(tester);
    const phone = await pairedPhone();
    const first = (await phonePoll(phone)).signaling_channel!;
    expect(s.app.localCredentials!.lookup(first.access_key_id)).not.toBeNull();
    const second = await pairedPhone();
    expect(s.app.localCredentials!.lookup(first.access_key_id)).toBeNull();
    const fresh = (await phonePoll(second)).signaling_channel!;
    expect(fresh.access_key_id).not.toBe(first.access_key_id);
    expect(s.app.localCredentials!.lookup(fresh.access_key_id)).not.toBeNull();
  });

  it('kvs_reconnect carries the phone: the matched checker gets fresh viewer credentials of the phone’s channel', async () => {
    const checker = await loginAs(s.app, 'checker01');
    await matchingPoll(checker);
    await matchingPoll(tester, { channel_status: 'open' });
    const phone = await pairedPhone();
    await phonePoll(phone, { channel_status: 'open' });
    const polled = (await matchingPoll(checker)).find((m) => m.tester_id === testerId)!.phone!;
    const before = polled.signaling_channel!;

    const res = await injectAs(s.app, checker, {
      method: 'GET',
      url: `/api/v1/kvs_reconnect.php?tester_id=${testerId}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    const m = envelope<Matching>(res).result;
    expect(m.phone).toMatchObject({ state: 'live', camera: null });
    const fresh = m.phone!.signaling_channel!;
    expect(fresh.channel_name).toBe(before.channel_name);
    expect(fresh.access_key_id).not.toBe(before.access_key_id);
    expect(s.app.localCredentials!.lookup(fresh.access_key_id)!.scope).toMatchObject({
      kind: 'kvs',
      role: 'viewer',
      channelName: fresh.channel_name,
    });
    // The examinee's own reconnect shows the phone's state, never credentials of its channel.
    const own = await injectAs(s.app, tester, { method: 'GET', url: '/api/v1/kvs_reconnect.php' });
    expect(envelope<Matching>(own).result.phone).toMatchObject({ state: 'live', signaling_channel: null });
    // The phone itself cannot call kvs_reconnect: it reconnects through its own poll (next test).
    const asPhone = await injectAs(s.app, phone, { method: 'GET', url: '/api/v1/kvs_reconnect.php' });
    expect(asPhone.statusCode).toBe(403);
  });

  it('reconnects the phone through its poll: fresh_credentials after its credentials expired', async () => {
    await matchingPoll(tester, { channel_status: 'open' });
    const phone = await pairedPhone();
    const first = (await phonePoll(phone, { channel_status: 'open' })).signaling_channel!;
    s.app.localCredentials!.expire(first.access_key_id);
    expect(s.app.localCredentials!.lookup(first.access_key_id)).toBeNull();
    // The signaling socket closed (network, GO_AWAY): the phone's master asks for fresh credentials.
    const again = await phonePoll(phone, { channel_status: 'close', fresh_credentials: true });
    expect(again.sitting).toBe('open');
    const fresh = again.signaling_channel!;
    expect(fresh.channel_name).toBe(first.channel_name);
    expect(fresh.access_key_id).not.toBe(first.access_key_id);
    expect(s.app.localCredentials!.lookup(fresh.access_key_id)!.scope).toMatchObject({
      kind: 'kvs',
      role: 'master',
      channelName: fresh.channel_name,
    });
    // Its next plain poll keeps them (no new credentials per poll).
    expect((await phonePoll(phone, { channel_status: 'open' })).signaling_channel!.access_key_id).toBe(
      fresh.access_key_id,
    );
  });

  it('gets no channel for a sitting that is not proctored, and sittings without the phone carry no phone', async () => {
    await setStartup({ is_proctor: 0 });
    await matchingPoll(tester);
    const phone = await pairedPhone();
    expect((await phonePoll(phone)).signaling_channel).toBeNull();
    await setStartup({ is_phone_camera: 0, is_proctor: 1 });
    expect((await matchingPoll(tester))[0]!.phone).toBeUndefined();
  });
});
