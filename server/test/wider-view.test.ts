import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordingCredentials } from '../../contract/recording';
import type { TesterDetail } from '../../contract/tester';
import type { RoomScan, WiderViewState } from '../../contract/wider-view';
import { build, envelope, injectAs, loginAs, type TestServer } from './helper';

/**
 * The wider view's server side (README "The wider view"): the examinee's screen share and room scans as its page
 * reports them, the checker's request for a scan, what the examinee log and the chat markers say, and the exam
 * system waiting for both.
 */
// The server completes recordings whose page went away; the tick is short here.
process.env.RECORDING_FINALIZE_TICK_MS = '50';

let s: TestServer;
const tokens = new Map<string, string>();
const ids: Record<string, number> = {};

async function token(loginId: string): Promise<string> {
  let t = tokens.get(loginId);
  if (!t) tokens.set(loginId, (t = await loginAs(s.app, loginId)));
  return t;
}

async function api(loginId: string, method: 'GET' | 'POST', url: string, payload?: object) {
  return injectAs(s.app, await token(loginId), { method, url: `/api/v1${url}`, payload });
}

async function openTestId(loginId: string): Promise<number> {
  await token(loginId);
  const { rows } = await s.db.query<{ id: number }>(
    `SELECT t.id FROM tests t JOIN users u ON u.id = t.user_id WHERE u.login_id = $1 AND t.status < 7
      ORDER BY t.id DESC LIMIT 1`,
    [loginId],
  );
  return Number(rows[0]!.id);
}

/** The examinee's open sitting with these start-up parameters, at state 4 (the exam system may open). */
async function sitting(loginId: string, startup: object): Promise<number> {
  const testId = await openTestId(loginId);
  await s.db.query(`UPDATE tests SET startup_parameters = $2, status = 4 WHERE id = $1`, [
    testId,
    JSON.stringify({ exam_url: 'https://exam.example.org/start', ...startup }),
  ]);
  return testId;
}

async function events(testId: number): Promise<string[]> {
  const { rows } = await s.db.query<{ event: string; detail: string }>(
    `SELECT event, detail FROM examinee_logs WHERE test_id = $1 AND event LIKE ANY (ARRAY['screen_%', 'room_scan_%'])
      ORDER BY id`,
    [testId],
  );
  return rows.map((r) => (r.detail ? `${r.event} ${r.detail}` : r.event));
}

async function markers(testId: number): Promise<string[]> {
  const { rows } = await s.db.query<{ send_type: number; message: string }>(
    `SELECT send_type, message FROM messages WHERE test_id = $1 AND kind = 'command' ORDER BY id`,
    [testId],
  );
  return rows.map((r) => `${r.send_type === 0 ? 'checker' : 'examinee'}:${r.message}`);
}

const mcToken = (loginId: string) => api(loginId, 'POST', '/get_mc_token.php', { mode: 1 });

beforeAll(async () => {
  s = await build();
  // Recordings go to the S3 stand-in over real HTTP.
  await s.app.listen({ host: '127.0.0.1', port: 0 });
  s.app.config.publicOrigin = `http://127.0.0.1:${(s.app.server.address() as AddressInfo).port}`;
  const { rows } = await s.db.query<{ id: number; login_id: string }>(
    `SELECT id, login_id FROM users WHERE login_id IN ('tester01', 'tester02', 'tester03', 'tester04', 'checker01', 'checker02')`,
  );
  for (const r of rows) ids[r.login_id] = Number(r.id);
});
afterAll(async () => s.close());

describe('the screen share', () => {
  it('counts only the entire screen, logs and announces each change, and holds the exam system until it is shared', async () => {
    const testId = await sitting('tester01', { is_screen_record: 1 });
    let state = envelope<WiderViewState>(await api('tester01', 'GET', '/tester/wider_view.php')).result;
    expect(state.screen).toEqual({ required: true, state: null, changed_at: null });

    // Not shared yet: no exam system.
    const early = await mcToken('tester01');
    expect(early.statusCode).toBe(409);
    expect(envelope(early).code).toBe('screen_share_required');

    // A window or a tab is not the screen.
    for (const surface of ['window', 'browser']) {
      const res = await api('tester01', 'POST', '/tester/screen_share.php', { state: 'shared', surface });
      expect(res.statusCode).toBe(400);
      expect(envelope(res).code).toBe('validation');
    }
    // A reloaded page that never shared says "ended": stored, nothing to announce.
    await api('tester01', 'POST', '/tester/screen_share.php', { state: 'ended' });
    expect(await events(testId)).toEqual([]);

    const shared = await api('tester01', 'POST', '/tester/screen_share.php', {
      state: 'shared',
      surface: 'monitor',
    });
    expect(shared.statusCode, shared.body).toBe(200);
    expect(envelope<WiderViewState>(shared).result.screen.state).toBe('shared');
    // Said twice, counted once.
    await api('tester01', 'POST', '/tester/screen_share.php', { state: 'shared', surface: 'monitor' });
    expect((await mcToken('tester01')).statusCode).toBe(200);

    await api('tester01', 'POST', '/tester/screen_share.php', { state: 'ended' });
    state = envelope<WiderViewState>(await api('tester01', 'GET', '/tester/wider_view.php')).result;
    expect(state.screen.state).toBe('ended');
    expect(state.screen.changed_at).not.toBeNull();
    expect(envelope(await mcToken('tester01')).code).toBe('screen_share_required');

    expect(await events(testId)).toEqual(['screen_share_started', 'screen_share_ended']);
    expect(await markers(testId)).toEqual(['examinee:SCREEN_SHARED', 'examinee:SCREEN_SHARE_ENDED']);
  });

  it('is refused for a sitting without it, and a kicked examinee cannot start one', async () => {
    await sitting('tester02', { is_record: 1 });
    const res = await api('tester02', 'POST', '/tester/screen_share.php', {
      state: 'shared',
      surface: 'monitor',
    });
    expect(res.statusCode).toBe(409);
    expect(envelope(res).code).toBe('wider_view_off');
    // Nothing holds the exam system of a sitting without the wider view.
    expect((await mcToken('tester02')).statusCode).toBe(200);

    const testId = await sitting('tester02', { is_screen_record: 1 });
    await s.db.query(`UPDATE tests SET kicked = 1 WHERE id = $1`, [testId]);
    const kicked = await api('tester02', 'POST', '/tester/screen_share.php', {
      state: 'shared',
      surface: 'monitor',
    });
    expect(envelope(kicked).code).toBe('kicked');
    await s.db.query(`UPDATE tests SET kicked = 0 WHERE id = $1`, [testId]);
  });
});

describe('room scans', () => {
  it('holds the exam system until the scan before the exam is done, with its recording', async () => {
    const testId = await sitting('tester03', { is_room_scan: 1, is_record: 1 });
    expect(envelope(await mcToken('tester03')).code).toBe('room_scan_required');

    const started = envelope<RoomScan>(
      await api('tester03', 'POST', '/tester/room_scan.php', { action: 'start' }),
    ).result;
    expect(started).toMatchObject({ status: 'scanning', requested_by_checker: false, record_id: null });
    // Starting again while it runs is the same scan.
    const again = envelope<RoomScan>(
      await api('tester03', 'POST', '/tester/room_scan.php', { action: 'start' }),
    );
    expect(again.result.id).toBe(started.id);

    const startRec = async (stream: string) =>
      envelope<RecordingCredentials>(
        await api('tester03', 'POST', '/tester/recording.php', {
          method: 'PUT',
          stream,
          mime_type: 'video/webm',
        }),
      ).result.record_id;
    // A camera recording is not a scan's.
    const camera = await startRec('camera');
    const wrong = await api('tester03', 'POST', '/tester/room_scan.php', {
      action: 'done',
      scan_id: started.id,
      record_id: camera,
    });
    expect(wrong.statusCode).toBe(400);
    const scanRec = await startRec('room_scan');
    const done = await api('tester03', 'POST', '/tester/room_scan.php', {
      action: 'done',
      scan_id: started.id,
      record_id: scanRec,
    });
    expect(done.statusCode, done.body).toBe(200);
    expect(envelope<RoomScan>(done).result).toMatchObject({ status: 'done', record_id: scanRec });
    expect(envelope<RoomScan>(done).result.completed_at).not.toBeNull();

    const state = envelope<WiderViewState>(await api('tester03', 'GET', '/tester/wider_view.php')).result;
    expect(state.room_scan).toEqual({ required: true, done: 1, current: null });
    expect((await mcToken('tester03')).statusCode).toBe(200);
    expect(await events(testId)).toEqual(['room_scan_started', `room_scan_completed record ${scanRec}`]);
    expect(await markers(testId)).toEqual(['examinee:ROOM_SCAN_STARTED', 'examinee:ROOM_SCAN_DONE']);
  });

  it('a checker asks for a scan during the exam: only the matched checker, logged, shown to the examinee, completed', async () => {
    const testId = await sitting('tester04', { is_room_scan: 1, is_screen_record: 1 });
    await s.db.query(`UPDATE matchings SET deleted_at = now() WHERE tester_id = $1 AND deleted_at IS NULL`, [
      ids.tester04,
    ]);
    await s.db.query(
      `INSERT INTO matchings (test_id, tester_id, checker_id, matching_status, channel_name)
       VALUES ($1, $2, $3, 2, 'ch-scan')`,
      [testId, ids.tester04, ids.checker01],
    );
    const ask = (checker: string) =>
      api(checker, 'POST', '/tester/room_scan_request.php', { tester_id: ids.tester04 });

    // Another checker is not matched to the examinee.
    const other = await ask('checker02');
    expect(other.statusCode).toBe(403);
    expect(envelope(other).code).toBe('not_matched');

    const asked = await ask('checker01');
    expect(asked.statusCode, asked.body).toBe(200);
    const scan = envelope<RoomScan>(asked).result;
    expect(scan).toMatchObject({ status: 'requested', requested_by_checker: true, started_at: null });
    // Asking again while it is open is the same request.
    expect(envelope<RoomScan>(await ask('checker01')).result.id).toBe(scan.id);

    // The examinee's page, reloaded, finds the request; starting takes it.
    const state = envelope<WiderViewState>(await api('tester04', 'GET', '/tester/wider_view.php')).result;
    expect(state.room_scan.current).toMatchObject({ id: scan.id, status: 'requested' });
    const started = envelope<RoomScan>(
      await api('tester04', 'POST', '/tester/room_scan.php', { action: 'start' }),
    );
    expect(started.result).toMatchObject({ id: scan.id, status: 'scanning' });
    const done = await api('tester04', 'POST', '/tester/room_scan.php', { action: 'done', scan_id: scan.id });
    expect(envelope<RoomScan>(done).result).toMatchObject({ id: scan.id, status: 'done', record_id: null });

    expect(await events(testId)).toEqual([
      'room_scan_requested by checker01',
      'room_scan_started',
      'room_scan_completed',
    ]);
    expect(await markers(testId)).toEqual([
      'checker:ROOM_SCAN_REQUESTED',
      'examinee:ROOM_SCAN_STARTED',
      'examinee:ROOM_SCAN_DONE',
    ]);
    // The examinee reads the markers through webrtc_message like any other.
    const list = envelope<{ messages: { message: string }[] }>(
      await api('tester04', 'GET', `/webrtc_message.php?tester_id=${ids.tester04}`),
    ).result.messages.map((m) => m.message);
    expect(list).toContain('ROOM_SCAN_REQUESTED');
  });

  it('a page reloaded during a scan: the scan is logged as interrupted, the new one as started, and the recordings it cut off are completed by the server and marked', async () => {
    const testId = await sitting('tester01', { is_room_scan: 1, is_screen_record: 1, is_record: 1 });
    const startRec = async (stream: string) =>
      envelope<RecordingCredentials>(
        await api('tester01', 'POST', '/tester/recording.php', {
          method: 'PUT',
          stream,
          mime_type: 'video/webm',
        }),
      ).result.record_id;
    const start = (attempt: string) =>
      api('tester01', 'POST', '/tester/room_scan.php', { action: 'start', attempt });

    // The first page shares the screen, records it, and starts a scan with its recording.
    await api('tester01', 'POST', '/tester/screen_share.php', { state: 'shared', surface: 'monitor' });
    const screenRec = await startRec('screen');
    const first = envelope<RoomScan>(await start('page-1')).result;
    const firstRec = await startRec('room_scan');
    // Its own retry of the same press is the same scan, and logs nothing.
    expect(envelope<RoomScan>(await start('page-1')).result.id).toBe(first.id);

    // A share that ended in the page (its recording the page completes itself) leaves the recording alone.
    await api('tester01', 'POST', '/tester/screen_share.php', { state: 'ended' });
    const kept = await s.db.query<{ finalize_at: Date | null }>(
      `SELECT finalize_at FROM records WHERE id = $1`,
      [screenRec],
    );
    expect(kept.rows[0]!.finalize_at).toBeNull();
    // Reloaded: the new page no longer has the share (it says so) and starts the scan again with its own press.
    await api('tester01', 'POST', '/tester/screen_share.php', { state: 'ended', reloaded: true });
    const second = envelope<RoomScan>(await start('page-2')).result;
    expect(second.id).not.toBe(first.id);
    expect(second.status).toBe('scanning');
    // The old scan cannot be completed any more; the new one can.
    const stale = await api('tester01', 'POST', '/tester/room_scan.php', {
      action: 'done',
      scan_id: first.id,
    });
    expect(envelope(stale).code).toBe('invalid_transition');
    const secondRec = await startRec('room_scan');
    expect(
      envelope<RoomScan>(
        await api('tester01', 'POST', '/tester/room_scan.php', {
          action: 'done',
          scan_id: second.id,
          record_id: secondRec,
        }),
      ).result.status,
    ).toBe('done');

    // (tester01's sitting shared its screen in the tests above: its last six events are this test's.)
    expect((await events(testId)).slice(-6)).toEqual([
      'screen_share_started',
      'room_scan_started',
      'screen_share_ended',
      'room_scan_interrupted restarted',
      'room_scan_started',
      `room_scan_completed record ${secondRec}`,
    ]);
    expect((await markers(testId)).slice(-5)).toEqual([
      'examinee:SCREEN_SHARED',
      'examinee:ROOM_SCAN_STARTED',
      'examinee:SCREEN_SHARE_ENDED',
      'examinee:ROOM_SCAN_STARTED',
      'examinee:ROOM_SCAN_DONE',
    ]);
    const state = envelope<WiderViewState>(await api('tester01', 'GET', '/tester/wider_view.php')).result;
    expect(state.room_scan).toEqual({ required: true, done: 1, current: null });

    // The cut-off recordings are due after the usual grace, not at the end of the sitting; the new one is not.
    const due = await s.db.query<{ id: string; finalize_reason: string | null; soon: boolean | null }>(
      `SELECT id, finalize_reason, finalize_at <= now() + interval '31 seconds' AS soon FROM records
        WHERE test_id = $1 ORDER BY id`,
      [testId],
    );
    expect(due.rows.map((r) => [Number(r.id), r.finalize_reason, r.soon])).toEqual([
      [screenRec, 'interrupted', true],
      [firstRec, 'interrupted', true],
      [secondRec, null, null],
    ]);
    // The grace is over at once here: the server completes them (nothing reached the storage: closed empty).
    await s.db.query(
      `UPDATE records SET finalize_at = now() - interval '1 second' WHERE id = ANY($1::bigint[])`,
      [[screenRec, firstRec]],
    );
    for (let i = 0; i < 100; i++) {
      const open = await s.db.query(
        `SELECT 1 FROM records WHERE id = ANY($1::bigint[]) AND stop_at IS NULL`,
        [[screenRec, firstRec]],
      );
      if (open.rows.length === 0) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const detail = envelope<TesterDetail>(
      await api('manager01', 'GET', `/tester/detail.php?test_id=${testId}`),
    ).result;
    const byId = new Map(detail.records.map((r) => [r.id, r]));
    expect(byId.get(screenRec)).toMatchObject({ stream: 'screen', interrupted: true, movie_status: '08' });
    expect(byId.get(screenRec)!.stop_at).not.toBeNull();
    expect(byId.get(firstRec)).toMatchObject({ stream: 'room_scan', interrupted: true, movie_status: '08' });
    expect(byId.get(secondRec)).toMatchObject({ stream: 'room_scan', interrupted: false });
    expect(detail.examinee_logs.map((l) => l.event)).toContain('room_scan_interrupted');
  });

  it('marks the recordings a reload cut off even when the old page completed them as it unloaded', async () => {
    const testId = await sitting('tester02', { is_room_scan: 1, is_screen_record: 1, is_record: 1 });
    const startRec = async (stream: string) =>
      envelope<RecordingCredentials>(
        await api('tester02', 'POST', '/tester/recording.php', {
          method: 'PUT',
          stream,
          mime_type: 'video/webm',
        }),
      ).result.record_id;
    await api('tester02', 'POST', '/tester/screen_share.php', { state: 'shared', surface: 'monitor' });
    const screenRec = await startRec('screen');
    const first = envelope<RoomScan>(
      await api('tester02', 'POST', '/tester/room_scan.php', { action: 'start', attempt: 'a' }),
    ).result;
    const scanRec = await startRec('room_scan');
    // The old page completed both as it unloaded (what it had sent by then).
    await s.db.query(
      `UPDATE records SET stop_at = now(), size_bytes = 1000, movie_status = '02' WHERE id = ANY($1::bigint[])`,
      [[screenRec, scanRec]],
    );
    await api('tester02', 'POST', '/tester/screen_share.php', { state: 'ended', reloaded: true });
    const second = envelope<RoomScan>(
      await api('tester02', 'POST', '/tester/room_scan.php', { action: 'start', attempt: 'b' }),
    ).result;
    expect(second.id).not.toBe(first.id);
    const detail = envelope<TesterDetail>(
      await api('manager01', 'GET', `/tester/detail.php?test_id=${testId}`),
    ).result;
    const byId = new Map(detail.records.map((r) => [r.id, r]));
    expect(byId.get(screenRec)).toMatchObject({ interrupted: true, movie_status: '02' });
    expect(byId.get(scanRec)).toMatchObject({ interrupted: true, movie_status: '02' });
  });

  it('refuses a scan for a sitting without it and after the exam ended, and a client cannot forge the markers', async () => {
    const testId = await sitting('tester02', { is_record: 1 });
    const res = await api('tester02', 'POST', '/tester/room_scan.php', { action: 'start' });
    expect(envelope(res).code).toBe('wider_view_off');
    await sitting('tester02', { is_room_scan: 1 });
    await s.db.query(`UPDATE tests SET status = 7 WHERE id = $1`, [testId]);
    // A finished sitting is not open any more: nothing to scan.
    expect((await api('tester02', 'POST', '/tester/room_scan.php', { action: 'start' })).statusCode).toBe(
      409,
    );
    const forged = await injectAs(s.app, await token('tester01'), {
      method: 'POST',
      url: '/api/v1/webrtc_message.php',
      payload: {
        tester_id: ids.tester01,
        send_type: 1,
        message_type: 3,
        kind: 'command',
        message: 'ROOM_SCAN_DONE',
      },
    });
    expect(forged.statusCode).toBe(403);
  });
});
