import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { UploadPartCommand } from '@aws-sdk/client-s3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import type { MatchingResult } from '../../contract/matching';
import type { OnetimeUriResult, RecordingCredentials } from '../../contract/recording';
import type { McTokenRedeemResult, McTokenResult, TesterDetail } from '../../contract/tester';
import { build, DEMO_PASSWORD, envelope, injectAs, loginAs, type TestServer } from './helper';
import { browserS3Client } from './browser-s3';

// How a live sitting behaves off the happy path (README "How a sitting behaves"): re-login, one live session
// per sitting, logout, kick-out, finish, the recording-time limit and the exam-system token.

process.env.MATCHING_SWEEP_INTERVAL_MS = '0';
process.env.RECORDING_PART_SIZE = '4096';
process.env.RECORDING_FINALIZE_TICK_MS = '50';

let s: TestServer;
let dataDir: string;
let base: string;
const tokens = new Map<string, string>();
const ids = new Map<string, number>();

beforeEach(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'live-sitting-'));
  s = await build({ dataDir });
  // The S3 stand-in is reached over real HTTP by the browser-side client and the server's own.
  await s.app.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(s.app.server.address() as AddressInfo).port}`;
  s.app.config.publicOrigin = base;
  tokens.clear();
  ids.clear();
  const { rows } = await s.db.query<{ id: number; login_id: string }>(`SELECT id, login_id FROM users`);
  for (const r of rows) ids.set(r.login_id, r.id);
});
afterEach(async () => {
  await s.close();
  await rm(dataDir, { recursive: true, force: true });
});

const id = (loginId: string) => ids.get(loginId)!;

async function login(loginId: string, urlKey?: string): Promise<string> {
  const res = await s.app.inject({
    method: 'POST',
    url: '/api/v1/login.php',
    payload: { login_id: loginId, password: DEMO_PASSWORD, ...(urlKey ? { url_key: urlKey } : {}) },
  });
  expect(res.statusCode, res.body).toBe(200);
  const t = envelope<{ access_token: string }>(res).result.access_token;
  tokens.set(loginId, t);
  return t;
}
async function token(loginId: string): Promise<string> {
  return tokens.get(loginId) ?? login(loginId);
}
async function call(
  loginId: string,
  method: 'GET' | 'POST',
  url: string,
  payload?: object,
): Promise<LightMyRequestResponse> {
  return injectAs(s.app, await token(loginId), {
    method,
    url: `/api/v1${url}`,
    ...(payload ? { payload } : {}),
  });
}
async function ok<T>(res: Promise<LightMyRequestResponse>): Promise<T> {
  const r = await res;
  expect(r.statusCode, r.body).toBe(200);
  return envelope<T>(r).result;
}
const poll = (loginId: string, payload: object = {}) =>
  ok<MatchingResult>(call(loginId, 'POST', '/matching.php', payload));
const detail = (loginId: string) => ok<TesterDetail>(call(loginId, 'GET', '/tester/detail.php'));
const setStatus = (loginId: string, status: number, testerId?: number) =>
  call(loginId, 'POST', '/tester/status.php', testerId ? { tester_id: testerId, status } : { status });

async function sitting(loginId: string) {
  const { rows } = await s.db.query<{
    id: number;
    status: number;
    kicked: number;
    startup_parameters: object;
  }>(`SELECT id, status, kicked, startup_parameters FROM tests WHERE user_id = $1 ORDER BY id DESC LIMIT 1`, [
    id(loginId),
  ]);
  return rows[0]!;
}

/** The tester polls with its channel open until a polling checker takes it; returns the matching. */
async function matchTo(tester: string, checker: string) {
  await poll(checker);
  const r = await poll(tester, { channel_status: 'open' });
  expect(r.matchings[0]?.checker_id).toBe(id(checker));
  return r.matchings[0]!;
}

/** Walks a matched tester to 5 (examing): accepted by its checker, before exam, examing. */
async function toExaming(tester: string, checker: string) {
  await matchTo(tester, checker);
  expect((await setStatus(tester, 2)).statusCode).toBe(200);
  expect((await setStatus(checker, 3, id(tester))).statusCode).toBe(200);
  expect((await setStatus(tester, 4)).statusCode).toBe(200);
  expect((await setStatus(tester, 5)).statusCode).toBe(200);
}

describe('logging in again while a sitting is open', () => {
  it('continues the sitting where it was: the same state, the same matching, the same checker', async () => {
    await toExaming('tester01', 'checker01');
    const before = (await poll('tester01', { channel_status: 'open' })).matchings[0]!;
    const old = await token('tester01');

    await login('tester01');
    expect((await sitting('tester01')).status).toBe(5);
    expect((await detail('tester01')).status).toBe(5);
    const after = (await poll('tester01', { channel_status: 'open' })).matchings[0]!;
    expect(after.monitor_id).toBe(before.monitor_id);
    expect(after.checker_id).toBe(id('checker01'));
    expect(after.tester_status).toBe(5);
    // One live session per sitting: the older window is told, in its error code, why it ended.
    const stale = await injectAs(s.app, old, { method: 'GET', url: '/api/v1/tester/detail.php' });
    expect(stale.statusCode).toBe(401);
    expect(envelope(stale).code).toBe('session_superseded');
    const log = await s.db.query<{ event: string; detail: string }>(
      `SELECT event, detail FROM examinee_logs WHERE test_id = $1 AND event IN ('login', 'relogin') ORDER BY id`,
      [(await sitting('tester01')).id],
    );
    expect(log.rows).toEqual([
      { event: 'login', detail: '' },
      { event: 'relogin', detail: 'state 5' },
    ]);
  });

  it("keeps the checker's identity acceptance working for an examinee who logged in again while waiting", async () => {
    await matchTo('tester02', 'checker01');
    expect((await setStatus('tester02', 2)).statusCode).toBe(200);
    await login('tester02');
    await poll('tester02', { channel_status: 'open' });
    const accept = await setStatus('checker01', 3, id('tester02'));
    expect(accept.statusCode, accept.body).toBe(200);
    expect((await sitting('tester02')).status).toBe(3);
  });

  it('never rebinds the open sitting to another short URL (proctoring, recording, identity stay)', async () => {
    const admin = await loginAs(s.app, 'sysadmin01');
    const ins = await injectAs(s.app, admin, {
      method: 'POST',
      url: '/api/v1/shorten_url/insert.php',
      payload: { url_key: 'lax-practice', actor: 1, param: { is_proctor: 0, is_record: 0, is_auth: 0 } },
    });
    expect(ins.statusCode, ins.body).toBe(200);
    await login('tester03', 'demo-tester');
    const bound = (await sitting('tester03')).startup_parameters;
    expect(bound).toMatchObject({ is_proctor: 1, is_record: 1, is_auth: 1 });

    await login('tester03', 'lax-practice');
    expect((await sitting('tester03')).startup_parameters).toEqual(bound);
    expect((await detail('tester03')).startup_parameters.is_proctor).toBe(1);
    // Identity checking is still required, and recording still on.
    expect((await setStatus('tester03', 4)).statusCode).toBe(409);
    const audit = await s.db.query<{ details: string }>(
      `SELECT details FROM logs WHERE source = 'audit' AND type = 'tester.startup_rebind_refused' ORDER BY id DESC LIMIT 1`,
    );
    expect(audit.rows[0]?.details).toBe('url_key lax-practice');
    // A new sitting (after the exam finished) is bound to the URL it starts from.
    await s.db.query(`UPDATE tests SET status = 7 WHERE user_id = $1`, [id('tester03')]);
    await login('tester03', 'lax-practice');
    expect((await sitting('tester03')).startup_parameters).toMatchObject({ is_proctor: 0 });
  });
});

describe('a tester URL bound to an exam group', () => {
  it("starts sittings only for that group's examinees (a new sitting through another group's URL is refused)", async () => {
    const admin = await loginAs(s.app, 'sysadmin01');
    const create = (key: string, group: string) =>
      injectAs(s.app, admin, {
        method: 'POST',
        url: '/api/v1/shorten_url/insert.php',
        payload: { url_key: key, actor: 1, param: { group, is_proctor: 0, is_record: 0, is_auth: 0 } },
      });
    const unknown = await create('nobody-group', 'NOPE');
    expect(unknown.statusCode).toBe(400);
    await s.db.query(`INSERT INTO exam_groups (code, name) VALUES ('OTHER', 'Other University')`);
    expect((await create('other-practice', 'OTHER')).statusCode).toBe(200);
    expect((await create('demo-practice', 'DEMO')).statusCode).toBe(200);

    const refused = await s.app.inject({
      method: 'POST',
      url: '/api/v1/login.php',
      payload: { login_id: 'tester05', password: DEMO_PASSWORD, url_key: 'other-practice' },
    });
    expect(refused.statusCode).toBe(403);
    expect(envelope(refused).code).toBe('startup_group_mismatch');
    const none = await s.db.query(`SELECT 1 FROM tests WHERE user_id = $1`, [id('tester05')]);
    expect(none.rows).toHaveLength(0);
    // Its own group's URL (or an unbound one) works.
    await login('tester05', 'demo-practice');
    expect((await sitting('tester05')).startup_parameters).toMatchObject({ group: 'DEMO', is_proctor: 0 });
  });
});

describe('every way a sitting ends reaches the checker at once', () => {
  it('logout ends the matching, every window of the examinee, and shows "logout" on the next checker poll', async () => {
    await matchTo('tester04', 'checker02');
    const other = await loginAs(s.app, 'tester04');
    // The other window is the live one now; it logs out.
    tokens.set('tester04', other);
    expect((await call('tester04', 'POST', '/logout.php?p=self', {})).statusCode).toBe(200);
    const c = await poll('checker02');
    expect(c.matchings).toEqual([]);
    expect(c.ended).toEqual([
      expect.objectContaining({ tester_id: id('tester04'), login_id: 'tester04', reason: 'logout' }),
    ]);
    // No window of the logged-out examinee can queue the sitting again.
    const again = await call('tester04', 'POST', '/matching.php', { channel_status: 'open' });
    expect(again.statusCode).toBe(401);
    const rows = await s.db.query(`SELECT 1 FROM matchings WHERE tester_id = $1 AND deleted_at IS NULL`, [
      id('tester04'),
    ]);
    expect(rows.rows).toHaveLength(0);
  });

  it('finishing the exam ends the matching as "finished"; a checker release is not reported', async () => {
    await toExaming('tester05', 'checker01');
    expect((await setStatus('tester05', 7)).statusCode).toBe(200);
    expect((await poll('checker01')).ended).toEqual([
      expect.objectContaining({ tester_id: id('tester05'), reason: 'finished' }),
    ]);

    await matchTo('tester06', 'checker01');
    await call('checker01', 'POST', '/delete_matching.php', { tester_id: id('tester06') });
    const afterRelease = await poll('checker01');
    expect(afterRelease.ended?.map((e) => e.tester_id)).not.toContain(id('tester06'));
    // A checker whose video connection was lost says so: shown as "connection lost" until re-matched.
    await poll('tester06', { channel_status: 'open' });
    const m = (await poll('checker01')).matchings.find((x) => x.tester_id === id('tester06'))!;
    await call('checker01', 'POST', '/delete_matching.php', {
      tester_id: id('tester06'),
      monitor_id: m.monitor_id,
      reason: 'connection_lost',
    });
    expect((await poll('checker01')).ended).toContainEqual(
      expect.objectContaining({ tester_id: id('tester06'), reason: 'connection_lost' }),
    );
    // Back with the same checker (it watched this sitting): no longer listed as ended.
    const back = await poll('tester06', { channel_status: 'open' });
    expect(back.matchings[0]!.checker_id).toBe(id('checker01'));
    expect((await poll('checker01')).ended?.map((e) => e.tester_id)).not.toContain(id('tester06'));
  });

  it('a closed window (DISCONNECT) is shown at once, and the examinee who comes back goes to the same checker', async () => {
    // Only checker01 polls: it takes both examinees. Then checker02 arrives with nobody.
    await matchTo('tester07', 'checker01');
    const m8 = await matchTo('tester08', 'checker01');
    await poll('checker02');
    expect(
      (await call('tester08', 'POST', '/tester/kick_out.php', { method: 'DISCONNECT' })).statusCode,
    ).toBe(200);
    expect((await poll('checker01')).ended).toContainEqual(
      expect.objectContaining({ tester_id: id('tester08'), reason: 'window_closed' }),
    );
    // The reloaded page polls again: checker02 is less loaded (0 against 1), but the examinee goes back to the
    // checker who watched it.
    const back = (await poll('tester08', { channel_status: 'open' })).matchings[0]!;
    expect(back.checker_id).toBe(id('checker01'));
    expect(back.monitor_id).not.toBe(m8.monitor_id);
    expect((await poll('checker01')).ended?.map((e) => e.tester_id)).not.toContain(id('tester08'));
    // Someone new still goes to the least loaded checker.
    expect((await poll('tester09', { channel_status: 'open' })).matchings[0]!.checker_id).toBe(
      id('checker02'),
    );
  });

  it("a logout right behind the page's own DISCONNECT (both sent as the page went) is what the checker sees", async () => {
    await toExaming('tester07', 'checker01');
    expect(
      (await call('tester07', 'POST', '/tester/kick_out.php', { method: 'DISCONNECT' })).statusCode,
    ).toBe(200);
    expect((await poll('checker01')).ended).toContainEqual(
      expect.objectContaining({ tester_id: id('tester07'), reason: 'window_closed' }),
    );
    expect((await call('tester07', 'POST', '/logout.php?p=self', {})).statusCode).toBe(200);
    const ended = (await poll('checker01')).ended ?? [];
    const mine = ended.filter((e) => e.tester_id === id('tester07'));
    expect(mine).toEqual([expect.objectContaining({ reason: 'logout' })]);
    // Logged out: not an examinee left unwatched in a running exam.
    expect(mine[0]!.unwatched).toBeFalsy();

    // The same with a self kick-out; and a DISCONNECT older than the checker's notice is left as it was.
    await toExaming('tester08', 'checker01');
    await call('tester08', 'POST', '/tester/kick_out.php', { method: 'DISCONNECT' });
    await call('tester08', 'POST', '/tester/kick_out.php', { method: 'PUT_MYSELF' });
    expect((await poll('checker01')).ended).toContainEqual(
      expect.objectContaining({ tester_id: id('tester08'), reason: 'logout' }),
    );
    await toExaming('tester09', 'checker01');
    await call('tester09', 'POST', '/tester/kick_out.php', { method: 'DISCONNECT' });
    await s.db.query(
      `UPDATE matchings SET deleted_at = now() - interval '10 minutes' WHERE tester_id = $1 AND delete_reason = 'window_closed'`,
      [id('tester09')],
    );
    await call('tester09', 'POST', '/logout.php?p=self', {});
    const old = await s.db.query<{ delete_reason: string }>(
      `SELECT delete_reason FROM matchings WHERE tester_id = $1 ORDER BY id DESC LIMIT 1`,
      [id('tester09')],
    );
    expect(old.rows[0]!.delete_reason).toBe('window_closed');
  });

  it('an examinee whose window went away mid-exam stays in sight as unwatched until watched again', async () => {
    await toExaming('tester03', 'checker02');
    await s.db.query(
      `UPDATE tests SET startup_parameters = startup_parameters || '{"is_record":1}' WHERE user_id = $1`,
      [id('tester03')],
    );
    const rec = await ok<RecordingCredentials>(
      call('tester03', 'POST', '/tester/recording.php', { method: 'PUT', mime_type: 'video/webm' }),
    );
    expect(
      (await call('tester03', 'POST', '/tester/kick_out.php', { method: 'DISCONNECT' })).statusCode,
    ).toBe(200);
    // Long after the usual 2 minutes, the checker is still told; so is the system manager's overview.
    await s.db.query(
      `UPDATE matchings SET deleted_at = now() - interval '20 minutes' WHERE tester_id = $1 AND delete_reason = 'window_closed'`,
      [id('tester03')],
    );
    expect((await poll('checker02')).ended).toContainEqual(
      expect.objectContaining({ tester_id: id('tester03'), reason: 'window_closed', unwatched: true }),
    );
    const overview = await ok<{ not_matchings: { login_id: string; unwatched_since?: string }[] }>(
      call('sysadmin01', 'GET', '/checkers/monitoring.php'),
    );
    expect(overview.not_matchings.find((t) => t.login_id === 'tester03')?.unwatched_since).toEqual(
      expect.any(String),
    );
    // The recording is completed later if nobody comes back; coming back calls that off.
    const scheduled = await s.db.query<{ finalize_reason: string | null; due: boolean }>(
      `SELECT finalize_reason, finalize_at > now() + interval '10 minutes' AS due FROM records WHERE id = $1`,
      [rec.record_id],
    );
    expect(scheduled.rows[0]).toEqual({ finalize_reason: 'abandoned', due: true });
    await poll('tester03', { channel_status: 'open' });
    const cancelled = await s.db.query<{ finalize_at: Date | null }>(
      `SELECT finalize_at FROM records WHERE id = $1`,
      [rec.record_id],
    );
    expect(cancelled.rows[0]!.finalize_at).toBeNull();
    expect((await poll('checker02')).ended?.map((e) => e.tester_id)).not.toContain(id('tester03'));

    // An examinee's own delete_matching (signaling given up) is shown as a lost connection, not hidden.
    expect((await call('tester03', 'POST', '/delete_matching.php', {})).statusCode).toBe(200);
    expect((await poll('checker02')).ended).toContainEqual(
      expect.objectContaining({ tester_id: id('tester03'), reason: 'connection_lost', unwatched: true }),
    );
    // A finished exam is not "unwatched".
    expect((await setStatus('tester03', 7)).statusCode).toBe(200);
    await s.db.query(`UPDATE matchings SET deleted_at = now() - interval '20 minutes' WHERE tester_id = $1`, [
      id('tester03'),
    ]);
    expect((await poll('checker02')).ended?.map((e) => e.tester_id)).not.toContain(id('tester03'));
  });

  it('kick-out: no matching row from the kicked examinee’s polls, the checker sees "kicked"', async () => {
    await matchTo('tester09', 'checker03');
    const kick = await call('checker03', 'POST', '/tester/kick_out.php', {
      tester_id: id('tester09'),
      method: 'PUT',
    });
    expect(kick.statusCode).toBe(200);
    expect((await poll('checker03')).ended).toContainEqual(
      expect.objectContaining({ tester_id: id('tester09'), reason: 'kicked' }),
    );
    for (let i = 0; i < 3; i++)
      expect((await poll('tester09', { channel_status: 'open' })).matchings).toEqual([]);
    const rows = await s.db.query(`SELECT 1 FROM matchings WHERE tester_id = $1 AND deleted_at IS NULL`, [
      id('tester09'),
    ]);
    expect(rows.rows).toHaveLength(0);
  });
});

async function recordParts(tester: string, parts: Uint8Array[]): Promise<RecordingCredentials> {
  const c = await ok<RecordingCredentials>(
    call(tester, 'POST', '/tester/recording.php', { method: 'PUT', mime_type: 'video/webm;codecs=vp8' }),
  );
  let n = 1;
  for (const body of parts) {
    await browserS3Client(c).send(
      new UploadPartCommand({
        Bucket: c.bucket,
        Key: c.key,
        UploadId: c.uploadId,
        PartNumber: n++,
        Body: body,
      }),
    );
  }
  return c;
}

async function waitCompleted(recordId: number) {
  // The finalizer runs every 50 ms here; a few seconds is ample even on a loaded machine.
  const until = Date.now() + 15_000;
  for (;;) {
    const { rows } = await s.db.query<{
      stop_at: Date | null;
      movie_status: string;
      detail: string;
      part_count: number;
    }>(`SELECT stop_at, movie_status, detail, part_count FROM records WHERE id = $1`, [recordId]);
    if (rows[0]!.stop_at !== null || Date.now() > until)
      return { ...rows[0]!, movie_status: rows[0]!.movie_status.trim() };
    await new Promise((r) => setTimeout(r, 50));
  }
}

const FIXTURE = '/usr/share/sounds/alsa/Front_Center.wav';

describe('the recording when a sitting ends without the page completing it', () => {
  it('a kick-out leaves a recording a manager can play up to the kick (completed from the stored parts)', async () => {
    await s.app.inject({ method: 'POST', url: '/__s3/config', payload: { minPartSize: 4096 } });
    await toExaming('tester10', 'checker02');
    await s.db.query(
      `UPDATE tests SET startup_parameters = startup_parameters || '{"is_record":1}' WHERE id = $1`,
      [(await sitting('tester10')).id],
    );
    const bytes = existsSync(FIXTURE)
      ? new Uint8Array(await readFile(FIXTURE)).subarray(0, 12_288)
      : new Uint8Array(12_288).fill(7);
    const parts = [bytes.subarray(0, 4096), bytes.subarray(4096, 8192), bytes.subarray(8192)];
    const c = await recordParts('tester10', parts);
    expect(
      (await call('checker02', 'POST', '/tester/kick_out.php', { tester_id: id('tester10'), method: 'PUT' }))
        .statusCode,
    ).toBe(200);
    // The page is gone (never completes it): the grace period is over at once here.
    await s.db.query(`UPDATE records SET finalize_at = now() - interval '1 second' WHERE id = $1`, [
      c.record_id,
    ]);
    const rec = await waitCompleted(c.record_id);
    expect(rec.stop_at).not.toBeNull();
    expect(rec.part_count).toBe(3);
    const uri = await ok<OnetimeUriResult>(
      call('manager01', 'GET', `/get_onetime_uri.php?record_id=${c.record_id}`),
    );
    const played = new Uint8Array(
      await (await fetch(uri.url.startsWith('http') ? uri.url : base + uri.url)).arrayBuffer(),
    );
    expect(Buffer.from(played).equals(Buffer.from(bytes))).toBe(true);
  });

  it('keeps only the run of parts without a gap, and says which parts were left out', async () => {
    await s.app.inject({ method: 'POST', url: '/__s3/config', payload: { minPartSize: 4096 } });
    await toExaming('tester11', 'checker03');
    await s.db.query(
      `UPDATE tests SET startup_parameters = startup_parameters || '{"is_record":1}' WHERE id = $1`,
      [(await sitting('tester11')).id],
    );
    const c = await ok<RecordingCredentials>(
      call('tester11', 'POST', '/tester/recording.php', { method: 'PUT', mime_type: 'video/webm' }),
    );
    for (const n of [1, 2, 4])
      await browserS3Client(c).send(
        new UploadPartCommand({
          Bucket: c.bucket,
          Key: c.key,
          UploadId: c.uploadId,
          PartNumber: n,
          Body: new Uint8Array(4096).fill(n),
        }),
      );
    expect((await setStatus('tester11', 7)).statusCode).toBe(200);
    await s.db.query(`UPDATE records SET finalize_at = now() - interval '1 second' WHERE id = $1`, [
      c.record_id,
    ]);
    const rec = await waitCompleted(c.record_id);
    expect(rec.part_count).toBe(2);
    const log = await s.db.query<{ detail: string }>(
      `SELECT detail FROM record_status_logs WHERE record_id = $1 AND detail LIKE 'completed by the server%'`,
      [c.record_id],
    );
    expect(log.rows[0]!.detail).toMatch(/parts after a gap left out: 4/);
  });

  it('closes a recording with nothing stored, saying so, instead of leaving it open for ever', async () => {
    await toExaming('tester12', 'checker01');
    await s.db.query(
      `UPDATE tests SET startup_parameters = startup_parameters || '{"is_record":1}' WHERE id = $1`,
      [(await sitting('tester12')).id],
    );
    const c = await ok<RecordingCredentials>(
      call('tester12', 'POST', '/tester/recording.php', { method: 'PUT', mime_type: 'video/webm' }),
    );
    expect((await call('tester12', 'POST', '/logout.php?p=self', {})).statusCode).toBe(200);
    await s.db.query(`UPDATE records SET finalize_at = now() - interval '1 second' WHERE id = $1`, [
      c.record_id,
    ]);
    const rec = await waitCompleted(c.record_id);
    expect(rec.movie_status).toBe('08');
    expect(rec.detail).toMatch(/No recorded data/);
  });
});

describe('recording-time limit', () => {
  it('counts from the first recording start on the server; a page that stays past it is logged out', async () => {
    await toExaming('tester01', 'checker01');
    const t = await sitting('tester01');
    await s.db.query(
      `UPDATE tests SET startup_parameters = startup_parameters || '{"is_record":1,"max_rectime":60}' WHERE id = $1`,
      [t.id],
    );
    await ok<RecordingCredentials>(
      call('tester01', 'POST', '/tester/recording.php', { method: 'PUT', mime_type: 'video/webm' }),
    );
    const d = await detail('tester01');
    expect(d.recording_started_at).toEqual(expect.any(String));
    expect(Date.parse(d.server_time!)).toBeGreaterThanOrEqual(Date.parse(d.recording_started_at!));
    // A new login does not reset it.
    await login('tester01');
    expect((await detail('tester01')).recording_started_at).toBe(d.recording_started_at);
    // Within the limit and its grace, the poll goes on.
    expect((await poll('tester01', { channel_status: 'open' })).matchings).toHaveLength(1);
    // The first recording started 3 minutes ago: past 60 s + the grace the page has to log itself out.
    await s.db.query(`UPDATE records SET start_at = now() - interval '3 minutes' WHERE test_id = $1`, [t.id]);
    expect((await poll('tester01', { channel_status: 'open' })).matchings).toEqual([]);
    const after = await call('tester01', 'GET', '/tester/detail.php');
    expect(after.statusCode).toBe(401);
    expect(envelope(after).code).toBe('session_ended');
    expect((await poll('checker01')).ended).toContainEqual(
      expect.objectContaining({ tester_id: id('tester01'), reason: 'recording_time_exceeded' }),
    );
  });
});

describe('the exam-system token (get_mc_token)', () => {
  it('opens only for a sitting ready for the exam; mode 1 proctor token, mode 2 MC+ start-up; each link once', async () => {
    await matchTo('tester02', 'checker02');
    // Matched, identity not checked yet: no exam system.
    const early = await call('tester02', 'POST', '/get_mc_token.php', { mode: 2 });
    expect(early.statusCode).toBe(409);
    expect((await setStatus('tester02', 2)).statusCode).toBe(200);
    expect((await setStatus('checker02', 3, id('tester02'))).statusCode).toBe(200);
    expect((await setStatus('tester02', 4)).statusCode).toBe(200);

    const redeem = (t: string) =>
      s.app.inject({ method: 'POST', url: '/api/v1/redeem_mc_token.php', payload: { token: t } });
    const one = await ok<McTokenResult>(call('tester02', 'POST', '/get_mc_token.php', { mode: 1 }));
    expect(new URL(one.window_open_url, base).searchParams.get('proctor_token')).toBe(one.access_token);
    expect(envelope<McTokenRedeemResult>(await redeem(one.access_token)).result.mode).toBe(1);

    const two = await ok<McTokenResult>(call('tester02', 'POST', '/get_mc_token.php', { mode: 2 }));
    expect(new URL(two.window_open_url, base).searchParams.get('mc_token')).toBe(two.access_token);
    // A newer link makes an unused older one stop working: one exam-system link at a time.
    const three = await ok<McTokenResult>(call('tester02', 'POST', '/get_mc_token.php', { mode: 2 }));
    expect((await redeem(two.access_token)).statusCode).toBe(410);
    const first = await redeem(three.access_token);
    expect(first.statusCode, first.body).toBe(200);
    expect(envelope<McTokenRedeemResult>(first).result).toMatchObject({
      mode: 2,
      login_id: 'tester02',
      tester_status: 4,
      lang: 'ja',
      test_id: (await sitting('tester02')).id,
      proctoring: { matched: true, connected: true },
    });
    const second = await redeem(three.access_token);
    expect(second.statusCode).toBe(410);
    expect(envelope(second).code).toBe('mc_token_invalid');
    // Unknown, malformed and expired tokens are refused the same way; a client mistake is never a 5xx.
    expect((await redeem('x'.repeat(43))).statusCode).toBe(410);
    expect((await redeem('')).statusCode).toBe(400);
    const late = await ok<McTokenResult>(call('tester02', 'POST', '/get_mc_token.php', { mode: 2 }));
    await s.db.query(`UPDATE mc_tokens SET expires_at = now() - interval '1 second'`);
    expect((await redeem(late.access_token)).statusCode).toBe(410);
  });

  it('the demo exam opens in the sitting language and gets its questions only by redeeming the token, never the answers', async () => {
    await matchTo('tester02', 'checker02');
    expect((await setStatus('tester02', 2)).statusCode).toBe(200);
    expect((await setStatus('checker02', 3, id('tester02'))).statusCode).toBe(200);
    expect((await setStatus('tester02', 4)).statusCode).toBe(200);
    const t = (await sitting('tester02')).id;
    await s.db.query(
      `UPDATE tests SET startup_parameters = startup_parameters || '{"lang":"en"}' WHERE id = $1`,
      [t],
    );
    const link = await ok<McTokenResult>(call('tester02', 'POST', '/get_mc_token.php', { mode: 2 }));
    const url = new URL(link.window_open_url, base);
    expect(url.pathname).toBe('/demo-exam/');
    expect(url.searchParams.get('lang')).toBe('en');
    // The page itself holds no question (view-source shows none).
    const page = await s.app.inject({ method: 'GET', url: `${url.pathname}${url.search}` });
    expect(page.body).toContain('<html lang="en">');
    expect(page.body).not.toContain('capital of Japan');
    expect(page.body).not.toMatch(/<fieldset|data-answer/);
    // Without a valid token: no questions.
    const session = (token: string, lang?: string) =>
      s.app.inject({
        method: 'POST',
        url: '/demo-exam/session',
        payload: { token, ...(lang ? { lang } : {}) },
      });
    const bad = await session('y'.repeat(43));
    expect(bad.statusCode).toBe(410);
    expect(bad.body).not.toContain('capital of Japan');
    // With the token once: who is signed in, and the questions in the page's language, without answers.
    const opened = await session(link.access_token, 'en');
    expect(opened.statusCode, opened.body).toBe(200);
    const got = envelope<{ login_id: string; questions: { text: string; choices: string[] }[] }>(
      opened,
    ).result;
    expect(got.login_id).toBe('tester02');
    expect(got.questions).toHaveLength(3);
    expect(got.questions[0]).toEqual({
      text: 'What is the capital of Japan?',
      choices: ['Osaka', 'Tokyo', 'Kyoto'],
    });
    expect(opened.body).not.toMatch(/answer/i);
    expect((await session(link.access_token, 'en')).statusCode).toBe(410);
    // Redemption is on the examinee's record, as with redeem_mc_token.php.
    const { rows } = await s.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM examinee_logs WHERE test_id = $1 AND event = 'exam_system_login'`,
      [t],
    );
    expect(rows[0]!.n).toBe(1);
  });
});
