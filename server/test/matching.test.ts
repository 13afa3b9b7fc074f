import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Actor } from '../../contract/common';
import type {
  CheckersMonitoringResult,
  DeleteMatchingResult,
  Matching,
  MatchingHistoriesResult,
  MatchingResult,
  MonitorActivateListResult,
} from '../../contract/matching';
import { build, DEMO_LOGIN, envelope, injectAs, loginAs, type TestServer } from './helper';
import { MASS_SILENCE_HOLD_SECONDS, massSilenceHold, NO_ROOM_REUSE_MS } from '../src/lib/matching-engine';
import { POLL_SNAPSHOT_SQL } from '../src/lib/matching-rows';

// Sweep on every poll, so a backdated checker is released by the very next request.
process.env.MATCHING_SWEEP_INTERVAL_MS = '0';

const TESTERS = Array.from({ length: 12 }, (_, i) => `tester${String(i + 1).padStart(2, '0')}`);
const CHECKERS = ['checker01', 'checker02', 'checker03'];

let s: TestServer;
const tokens = new Map<string, string>();
const ids = new Map<string, number>();

beforeEach(async () => {
  s = await build();
  tokens.clear();
  const { rows } = await s.db.query<{ id: number; login_id: string }>(`SELECT id, login_id FROM users`);
  ids.clear();
  for (const r of rows) ids.set(r.login_id, r.id);
});
afterEach(async () => {
  await s.close();
});

async function token(loginId: string): Promise<string> {
  let t = tokens.get(loginId);
  if (!t) {
    t = await loginAs(s.app, loginId);
    tokens.set(loginId, t);
  }
  return t;
}

function id(loginId: string): number {
  const v = ids.get(loginId);
  if (v === undefined) throw new Error(`no user ${loginId}`);
  return v;
}

async function pollRaw(loginId: string, payload: Record<string, unknown> = {}) {
  return injectAs(s.app, await token(loginId), { method: 'POST', url: '/api/v1/matching.php', payload });
}

async function poll(loginId: string, payload: Record<string, unknown> = {}): Promise<MatchingResult> {
  const res = await pollRaw(loginId, payload);
  expect(res.statusCode, res.body).toBe(200);
  return envelope<MatchingResult>(res).result;
}

async function testerPoll(loginId: string, payload: Record<string, unknown> = {}): Promise<Matching> {
  const r = await poll(loginId, { channel_status: 'close', ...payload });
  expect(r.matchings).toHaveLength(1);
  return r.matchings[0]!;
}

async function get(loginId: string, url: string) {
  return injectAs(s.app, await token(loginId), { method: 'GET', url });
}

async function post(loginId: string, url: string, payload: Record<string, unknown>) {
  return injectAs(s.app, await token(loginId), { method: 'POST', url, payload });
}

/** Active matchings per checker login id (and 'waiting'), straight from the database. */
async function loads(): Promise<Record<string, number>> {
  const { rows } = await s.db.query<{ who: string | null; n: number }>(
    `SELECT u.login_id AS who, count(*)::int AS n FROM matchings m LEFT JOIN users u ON u.id = m.checker_id
      WHERE m.deleted_at IS NULL GROUP BY u.login_id`,
  );
  const out: Record<string, number> = {};
  for (const r of rows) out[r.who ?? 'waiting'] = r.n;
  return out;
}

async function setStartup(loginId: string, params: Record<string, unknown>): Promise<void> {
  await token(loginId); // the login opens the sitting
  await s.db.query(
    `UPDATE tests SET startup_parameters = startup_parameters || $2::jsonb
      WHERE id = (SELECT id FROM tests WHERE user_id = $1 AND status < 7 ORDER BY id DESC LIMIT 1)`,
    [id(loginId), JSON.stringify(params)],
  );
}

describe('assignment', () => {
  it('spreads 12 testers over 3 polling checkers 4/4/4, round robin', async () => {
    // Logins first: on a busy machine twelve of them can outlast a checker's 15 s of liveness.
    for (const t of TESTERS) await token(t);
    for (const c of CHECKERS) await poll(c);
    const got: (number | null)[] = [];
    for (const t of TESTERS) got.push((await testerPoll(t)).checker_id);
    expect(got.slice(0, 6)).toEqual([
      id('checker01'),
      id('checker02'),
      id('checker03'),
      id('checker01'),
      id('checker02'),
      id('checker03'),
    ]);
    expect(await loads()).toEqual({ checker01: 4, checker02: 4, checker03: 4 });

    const list = envelope<MonitorActivateListResult>(
      await get('sysadmin01', '/api/v1/tester/monitor_activate_list.php'),
    ).result;
    expect(list.monitors.map((m) => [m.login_id, m.matching_count, m.activation, m.online])).toEqual([
      ['checker01', 4, true, true],
      ['checker02', 4, true, true],
      ['checker03', 4, true, true],
    ]);
    // Each checker's own poll lists exactly its four.
    const c2 = await poll('checker02');
    expect(c2.matchings.map((m) => m.login_id).sort()).toEqual([
      'tester02',
      'tester05',
      'tester08',
      'tester11',
    ]);
    expect(c2.matchings.every((m) => m.checker_id === id('checker02') && m.matching_status === 1)).toBe(true);
  });

  it('gives the next tester to the least loaded checker, ties to the longest idle', async () => {
    await poll('checker02');
    expect((await testerPoll('tester01')).checker_id).toBe(id('checker02'));
    expect((await testerPoll('tester02')).checker_id).toBe(id('checker02'));
    await poll('checker01');
    expect((await testerPoll('tester03')).checker_id).toBe(id('checker01'));
    expect((await testerPoll('tester04')).checker_id).toBe(id('checker01'));
    // 2/2: checker02 has waited longer since its last tester.
    expect((await testerPoll('tester05')).checker_id).toBe(id('checker02'));
  });

  it('lets a checker that polls after the testers take only its fair share', async () => {
    for (const t of TESTERS.slice(0, 4)) expect((await testerPoll(t)).checker_id).toBeNull();
    await poll('checker01');
    await poll('checker02');
    // checker01 was alone when it polled: it took all four; checker02's fair share is then 0.
    expect(await loads()).toEqual({ checker01: 4 });
    for (const t of TESTERS.slice(4, 6)) await testerPoll(t);
    expect(await loads()).toEqual({ checker01: 4, checker02: 2 });
  });

  it('never gives a checker more than five, even under concurrent polls', async () => {
    await poll('checker01');
    await poll('checker02');
    await Promise.all(TESTERS.map((t) => token(t)));
    for (let round = 0; round < 3; round++) {
      await Promise.all([
        ...TESTERS.map((t) => testerPoll(t)),
        poll('checker01'),
        poll('checker02'),
        poll('checker01'),
        poll('checker02'),
      ]);
      const l = await loads();
      expect(l.checker01).toBeLessThanOrEqual(5);
      expect(l.checker02).toBeLessThanOrEqual(5);
    }
    // A poll that found every checker with room being given someone else at that moment passes over them (SKIP
    // LOCKED) and is matched on a later poll: one at a time, the rest fill up and two are left waiting.
    for (const t of TESTERS) await testerPoll(t);
    expect(await loads()).toMatchObject({ checker01: 5, checker02: 5, waiting: 2 });
    const { rows } = await s.db.query<{ n: number }>(
      `SELECT max(n)::int AS n FROM (SELECT count(*) AS n FROM matchings WHERE deleted_at IS NULL AND checker_id IS NOT NULL GROUP BY checker_id) x`,
    );
    expect(rows[0]!.n).toBe(5);
  });

  it('queues a start storm without a transaction per examinee, and deals everyone waiting at once', async () => {
    for (const t of TESTERS) await token(t);
    const transaction = s.db.transaction.bind(s.db);
    let transactions = 0;
    s.db.transaction = (fn) => (transactions++, transaction(fn));
    try {
      // Every examinee's first poll at once, before any checker: each is only queued as waiting.
      await Promise.all(TESTERS.map((t) => testerPoll(t)));
      expect(transactions).toBe(0);
      expect(await loads()).toEqual({ waiting: 12 });
      // Three checkers come (as their polls on another instance would record them); once this instance asks about
      // room again (the polls above found none), the next poll that finds room deals all twelve, evenly, in one
      // dealing.
      await s.db.query(
        `INSERT INTO checker_presence (checker_id, stale_at) SELECT id, now() + interval '15 seconds'
           FROM users WHERE login_id = ANY($1)`,
        [CHECKERS],
      );
      const now = Date.now();
      vi.spyOn(Date, 'now').mockReturnValue(now + NO_ROOM_REUSE_MS);
      expect((await testerPoll('tester01')).checker_id).not.toBeNull();
      expect(transactions).toBe(1);
    } finally {
      s.db.transaction = transaction;
      vi.restoreAllMocks();
    }
    expect(await loads()).toEqual({ checker01: 4, checker02: 4, checker03: 4 });
  });

  it('asks whether a checker has room at most once a second while none has, and again once one has', async () => {
    // Two checkers for twelve examinees: both full, two examinees waiting.
    await poll('checker01');
    await poll('checker02');
    for (const t of TESTERS) await testerPoll(t);
    expect(await loads()).toEqual({ checker01: 5, checker02: 5, waiting: 2 });
    const { rows } = await s.db.query<{ login_id: string }>(
      `SELECT u.login_id FROM matchings m JOIN users u ON u.id = m.tester_id
        WHERE m.deleted_at IS NULL AND m.checker_id IS NULL ORDER BY u.login_id`,
    );
    const [w1, w2] = rows.map((r) => r.login_id) as [string, string];
    const asked: boolean[] = [];
    const query = s.db.query.bind(s.db);
    s.db.query = ((sql: string, params?: unknown[]) => {
      if (sql === POLL_SNAPSHOT_SQL) asked.push(params![2] as boolean);
      return query(sql, params as never);
    }) as typeof s.db.query;
    try {
      // Past the polls above (the last of which found no room): the first waiting poll asks, and finds none; the
      // polls within the next second do not ask; the checkers' polls, full, change nothing.
      const t0 = Date.now() + NO_ROOM_REUSE_MS;
      const clock = vi.spyOn(Date, 'now').mockReturnValue(t0);
      await testerPoll(w1);
      await poll('checker01');
      await poll('checker02');
      clock.mockReturnValue(t0 + NO_ROOM_REUSE_MS - 1);
      await testerPoll(w2);
      await testerPoll(w1);
      expect(asked).toEqual([true, false, false]);
      // A second later it asks again.
      clock.mockReturnValue(t0 + NO_ROOM_REUSE_MS);
      await testerPoll(w2);
      expect(asked).toEqual([true, false, false, true]);
      expect((await loads()).waiting).toBe(2);
      // An examinee of checker01 leaves. Within the second, checker01's poll finds room (it deals a waiting
      // examinee to itself), and the examinees' polls on this instance ask about room again at once.
      const mine = await s.db.query<{ login_id: string }>(
        `SELECT u.login_id FROM matchings m JOIN users u ON u.id = m.tester_id
          WHERE m.deleted_at IS NULL AND m.checker_id = $1 LIMIT 1`,
        [id('checker01')],
      );
      const gone = await post(mine.rows[0]!.login_id, '/api/v1/delete_matching.php', {});
      expect(gone.statusCode, gone.body).toBe(200);
      await poll('checker01');
      expect(await loads()).toEqual({ checker01: 5, checker02: 5, waiting: 1 });
      const { rows: still } = await s.db.query<{ login_id: string }>(
        `SELECT u.login_id FROM matchings m JOIN users u ON u.id = m.tester_id
          WHERE m.deleted_at IS NULL AND m.checker_id IS NULL`,
      );
      asked.length = 0;
      await testerPoll(still[0]!.login_id);
      expect(asked).toEqual([true]);
    } finally {
      s.db.query = query;
      vi.restoreAllMocks();
    }
  });

  it('gives an examinee who comes back to the checker who watched the sitting, before the least loaded', async () => {
    await poll('checker01');
    await poll('checker02');
    expect((await testerPoll('tester01')).checker_id).toBe(id('checker01'));
    expect((await testerPoll('tester02')).checker_id).toBe(id('checker02'));
    expect((await testerPoll('tester03')).checker_id).toBe(id('checker01'));
    // tester01's page loses its connection and gives its matching up; checker02 is now the least loaded.
    const gone = await post('tester01', '/api/v1/delete_matching.php', {});
    expect(gone.statusCode, gone.body).toBe(200);
    expect((await testerPoll('tester04')).checker_id).toBe(id('checker02'));
    // Back: to checker01 (1 examinee, assigned last) rather than checker02 (2), the rule's usual pick after a tie.
    expect((await testerPoll('tester01')).checker_id).toBe(id('checker01'));
    expect(await loads()).toEqual({ checker01: 2, checker02: 2 });
  });

  it('gives nobody to an inactive checker; an active one takes the waiting tester on its poll', async () => {
    const res = await post('checker01', '/api/v1/tester/monitor_activate.php', {
      monitor_id: id('checker01'),
      activation: false,
    });
    expect(res.statusCode, res.body).toBe(200);
    await poll('checker01');
    expect((await testerPoll('tester01')).checker_id).toBeNull();
    expect((await poll('checker01')).matchings).toEqual([]);
    const c2 = await poll('checker02');
    expect(c2.matchings.map((m) => m.tester_id)).toEqual([id('tester01')]);
  });

  it('releases the testers of a checker that stopped polling back to waiting', async () => {
    await poll('checker01');
    const first = await testerPoll('tester01', { channel_status: 'open' });
    expect(first).toMatchObject({ checker_id: id('checker01'), matching_status: 2 });
    // checker01 went silent longer than 3 × matching_timeout.
    await s.db.query(
      `UPDATE checker_presence SET stale_at = now() - interval '1 second', last_poll_at = now() - interval '16 seconds'`,
    );
    const again = await testerPoll('tester01');
    expect(again.checker_id).toBeNull();
    expect(again.matching_status).toBe(1);
    expect(again.monitor_id).not.toBe(first.monitor_id);
    const old = await s.db.query<{ delete_reason: string; connected_seconds: number }>(
      `SELECT delete_reason, connected_seconds FROM matchings WHERE id = $1`,
      [first.monitor_id],
    );
    expect(old.rows[0]!.delete_reason).toBe('checker_timeout');
    const list = envelope<MonitorActivateListResult>(
      await get('checker02', '/api/v1/tester/monitor_activate_list.php'),
    ).result;
    expect(list.monitors.find((m) => m.login_id === 'checker01')).toMatchObject({
      online: false,
      matching_count: 0,
    });
    expect((await poll('checker02')).matchings.map((m) => m.tester_id)).toEqual([id('tester01')]);
  });

  it('closes the matching of a tester that stopped polling, freeing its place, not counting time the servers were behind', async () => {
    await poll('checker01');
    const m = await testerPoll('tester01');
    expect(m.checker_id).toBe(id('checker01'));
    // Silent 10 s past the limit, while another instance answers polls 5 s late: 6 × 5 s of it is the servers'.
    await s.db.query(`UPDATE matchings SET tester_stale_at = now() - interval '10 seconds' WHERE id = $1`, [
      m.monitor_id,
    ]);
    await s.db.query(
      `INSERT INTO matching_lag (owner, lag_ms, noted_at) VALUES ('other-instance', 5000, now())`,
    );
    expect((await poll('checker01')).matchings.map((x) => x.monitor_id)).toEqual([m.monitor_id]);
    // That instance caught up (or went away) a while ago: the silence is the examinee's again.
    await s.db.query(
      `UPDATE matching_lag SET noted_at = now() - interval '2 minutes' WHERE owner = 'other-instance'`,
    );
    expect((await poll('checker01')).matchings).toEqual([]);
  });

  it('holds examinees in a mass silence (the server was away) instead of counting them all gone', async () => {
    for (const t of TESTERS) await token(t);
    for (const t of TESTERS) await testerPoll(t);
    const live = async () =>
      Number(
        (await s.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM matchings WHERE deleted_at IS NULL`))
          .rows[0]!.n,
      );
    expect(await live()).toBe(12);
    // One examinee silent past the limit is that examinee gone.
    await s.db.query(
      `UPDATE matchings SET tester_stale_at = now() - interval '1 second' WHERE tester_id = $1`,
      [id('tester01')],
    );
    await poll('checker01');
    expect(await live()).toBe(11);
    // Then every examinee at once (a restart, a failover, a server that fell behind): held.
    await s.db.query(
      `UPDATE matchings SET tester_stale_at = now() - interval '1 second' WHERE deleted_at IS NULL`,
    );
    await poll('checker01');
    expect(await live()).toBe(11);
    // Whoever polls again is simply back, on the steady path.
    expect((await testerPoll('tester02')).matching_status).toBe(1);
    // A silence that outlasts the hold still ends: they count as gone then.
    await s.db.query(
      `UPDATE matchings SET tester_stale_at = now() - make_interval(secs => $1 + 1)
        WHERE deleted_at IS NULL AND tester_id <> $2`,
      [MASS_SILENCE_HOLD_SECONDS, id('tester02')],
    );
    await poll('checker01');
    expect(await live()).toBe(1);
  });

  it('judges a mass silence by share, and only with enough people present', () => {
    expect(massSilenceHold(5, 10)).toBe(MASS_SILENCE_HOLD_SECONDS);
    expect(massSilenceHold(4, 10)).toBe(0);
    expect(massSilenceHold(9, 9)).toBe(0);
    expect(massSilenceHold(0, 0)).toBe(0);
    expect(massSilenceHold(600, 1000)).toBe(MASS_SILENCE_HOLD_SECONDS);
  });

  it('does not match a tester whose proctoring is off, or a kicked or rejected tester', async () => {
    await poll('checker01');
    await setStartup('tester01', { is_proctor: 0 });
    const off = await testerPoll('tester01');
    expect(off.checker_id).toBeNull();
    expect(off.signaling_channel).toBeNull();
    await token('tester02');
    await s.db.query(`UPDATE tests SET kicked = 1 WHERE user_id = $1`, [id('tester02')]);
    // A kicked examinee's poll answers no matching and leaves no matching row behind.
    expect((await poll('tester02')).matchings).toEqual([]);
    const rows = await s.db.query(`SELECT 1 FROM matchings WHERE tester_id = $1 AND deleted_at IS NULL`, [
      id('tester02'),
    ]);
    expect(rows.rows).toHaveLength(0);
    await token('tester03');
    await s.db.query(`UPDATE tests SET rejected = 1 WHERE user_id = $1`, [id('tester03')]);
    expect((await testerPoll('tester03')).checker_id).toBeNull();
    expect((await poll('checker01')).matchings).toEqual([]);
  });
});

describe('matching state', () => {
  it('becomes connected when the tester reports open with a checker, and marks the sitting matched', async () => {
    await poll('checker01');
    // Not yet open: assigned, still waiting for the channel.
    const waiting = await testerPoll('tester01', { channel_status: 'close' });
    expect(waiting).toMatchObject({ checker_id: id('checker01'), matching_status: 1, tester_status: 1 });
    const connected = await testerPoll('tester01', { channel_status: 'open', stats: { rtt: 12 } });
    expect(connected.matching_status).toBe(2);
    expect(connected.tester_status).toBe(2);
    const t = await s.db.query<{ status: number; matched_at: Date | null }>(
      `SELECT status, matched_at FROM tests WHERE user_id = $1`,
      [id('tester01')],
    );
    expect(t.rows[0]).toMatchObject({ status: 2, matched_at: expect.any(Date) });
    const logs = await s.db.query<{ event: string }>(
      `SELECT event FROM examinee_logs l JOIN tests t ON t.id = l.test_id WHERE t.user_id = $1 ORDER BY l.id`,
      [id('tester01')],
    );
    expect(logs.rows.map((r) => r.event)).toEqual(['login', 'matched']);
    // The page that reports 'matched' itself once assigned, before its channel opens, is logged once, not twice.
    await poll('checker01');
    expect((await testerPoll('tester04', { channel_status: 'close' })).checker_id).not.toBeNull();
    const me = await get('tester04', '/api/v1/tester/detail.php');
    const testerId = (me.json() as { result: { tester_id: number } }).result.tester_id;
    expect(
      (await post('tester04', '/api/v1/tester/status.php', { tester_id: testerId, status: 2 })).statusCode,
    ).toBe(200);
    expect((await testerPoll('tester04', { channel_status: 'open' })).matching_status).toBe(2);
    const once = await s.db.query<{ event: string }>(
      `SELECT event FROM examinee_logs l JOIN tests t ON t.id = l.test_id WHERE t.user_id = $1 ORDER BY l.id`,
      [id('tester04')],
    );
    expect(once.rows.map((r) => r.event)).toEqual(['login', 'matched']);
    // Back to 1 when the channel closes.
    expect((await testerPoll('tester01', { channel_status: 'close' })).matching_status).toBe(1);
    // A tester whose channel is already open is connected by the poll that assigns it.
    const first = await testerPoll('tester02', { channel_status: 'open' });
    expect(first).toMatchObject({ checker_id: id('checker01'), matching_status: 2, tester_status: 2 });
  });

  it('serves the sitting matching_timeout, bounded, and 5 by default', async () => {
    expect((await poll('tester01', { channel_status: 'close' })).matching_timeout).toBe(5);
    await setStartup('tester02', { matching_timeout: '10' });
    expect((await poll('tester02', { channel_status: 'close' })).matching_timeout).toBe(10);
    await setStartup('tester03', { matching_timeout: 0 });
    expect((await poll('tester03', { channel_status: 'close' })).matching_timeout).toBe(5);
    expect((await poll('checker01')).matching_timeout).toBe(5);
  });

  it('answers no matching once the sitting is finished', async () => {
    await testerPoll('tester01');
    await s.db.query(`UPDATE tests SET status = 7 WHERE user_id = $1`, [id('tester01')]);
    expect((await poll('tester01', { channel_status: 'close' })).matchings).toEqual([]);
    const { rows } = await s.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM matchings WHERE deleted_at IS NULL`,
    );
    expect(rows[0]!.n).toBe(0);
  });

  it('hands out signaling channels: the tester its own (master), the checker each tester’s (viewer)', async () => {
    await poll('checker01');
    const m = await testerPoll('tester01');
    const ch = m.signaling_channel!;
    expect(ch).toMatchObject({
      region: 'ap-northeast-1',
      access_key_id: expect.stringMatching(/^ASIA/),
      secret_access_key: expect.any(String),
      session_token: expect.any(String),
      channel_name: expect.stringMatching(new RegExp(`^exam-${m.test_id}-[0-9a-f]{12}$`)),
      expiration: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
    });
    const kvs = (s.app as unknown as { kvs?: { find(ref: { name: string }): unknown } | null }).kvs;
    if (kvs) {
      // The stand-in is on: the channel exists there and the SDK is pointed at it.
      expect(ch.endpoint).toMatch(/^http:\/\/[^/]+\/kvs$/);
      expect(kvs.find({ name: ch.channel_name })).toMatchObject({ channelName: ch.channel_name });
    } else {
      expect(ch.endpoint).toBeUndefined();
    }
    const entry = s.app.localCredentials!.lookup(ch.access_key_id, ch.session_token);
    expect(entry?.scope).toEqual({
      kind: 'kvs',
      channelName: ch.channel_name,
      role: 'master',
      holder: id('tester01'),
    });
    // Cached between polls.
    expect((await testerPoll('tester01')).signaling_channel!.access_key_id).toBe(ch.access_key_id);

    const viewer = (await poll('checker01')).matchings[0]!.signaling_channel!;
    expect(viewer.channel_name).toBe(ch.channel_name);
    expect(viewer.access_key_id).not.toBe(ch.access_key_id);
    expect(s.app.localCredentials!.lookup(viewer.access_key_id, viewer.session_token)?.scope).toEqual({
      kind: 'kvs',
      channelName: ch.channel_name,
      role: 'viewer',
      holder: id('checker01'),
    });

    // kvs_reconnect in the same matching: the credentials handed out are still good, so they are handed out
    // again (shared through the database, sealed), not issued anew.
    const same = envelope<Matching>(await get('tester01', '/api/v1/kvs_reconnect.php')).result;
    expect(same.signaling_channel).toMatchObject({
      access_key_id: ch.access_key_id,
      secret_access_key: ch.secret_access_key,
      session_token: ch.session_token,
    });
    // Once the issuer revoked them, never again: the reconnect has new ones issued, and shares those.
    expect(s.app.localCredentials!.revoke(ch.access_key_id)).toBe(true);
    const renewed = envelope<Matching>(await get('tester01', '/api/v1/kvs_reconnect.php')).result;
    expect(renewed.signaling_channel!.access_key_id).not.toBe(ch.access_key_id);
    expect(
      envelope<Matching>(await get('tester01', '/api/v1/kvs_reconnect.php')).result.signaling_channel!
        .access_key_id,
    ).toBe(renewed.signaling_channel!.access_key_id);

    // The channel stays the sitting's across matchings.
    await post('tester01', '/api/v1/delete_matching.php', {});
    const next = await testerPoll('tester01');
    expect(next.monitor_id).not.toBe(m.monitor_id);
    expect(next.signaling_channel!.channel_name).toBe(ch.channel_name);

    // kvs_reconnect in the new matching: not what was handed out for the ended one.
    const r = envelope<Matching>(await get('tester01', '/api/v1/kvs_reconnect.php'));
    expect(r.result.signaling_channel!.access_key_id).not.toBe(ch.access_key_id);
    expect(r.result.signaling_channel!.access_key_id).not.toBe(renewed.signaling_channel!.access_key_id);
    // Another reconnect moments later (a page in a reconnect loop) gets those same new ones, not another issue.
    const again = envelope<Matching>(await get('tester01', '/api/v1/kvs_reconnect.php'));
    expect(again.result.signaling_channel!.access_key_id).toBe(r.result.signaling_channel!.access_key_id);
    // Secrets never leave in the start-up parameters.
    await setStartup('tester01', { password: 'x', exam_url: '/demo-exam/' });
    const sp = (await testerPoll('tester01')).startup_parameters;
    expect(sp).toMatchObject({ exam_url: '/demo-exam/' });
    expect(sp).not.toHaveProperty('password');
  });
});

describe('commands and retries', () => {
  it('delivers a checker’s reconnect to the tester once', async () => {
    await poll('checker01');
    await testerPoll('tester01');
    const r = await get('checker01', `/api/v1/kvs_reconnect.php?tester_id=${id('tester01')}`);
    expect(r.statusCode, r.body).toBe(200);
    const m = envelope<Matching>(r).result;
    expect(m.tester_id).toBe(id('tester01'));
    expect(m.signaling_channel?.channel_name).toMatch(/^exam-/);
    expect((await testerPoll('tester01')).matching_command).toBe(1);
    expect((await testerPoll('tester01')).matching_command).toBe(0);
    // A checker may also ask through its poll.
    await poll('checker01', { tester_id: id('tester01'), matching_command: 1 });
    expect((await testerPoll('tester01')).matching_command).toBe(1);
  });

  it('tells both sides to reset after repeated failures, then invalidates past tester_retry', async () => {
    await setStartup('tester01', { tester_retry: 2 });
    await poll('checker01');
    const first = await testerPoll('tester01');
    expect((await testerPoll('tester01', { channel_status: 'failed' })).matching_command).toBe(0);
    expect((await testerPoll('tester01', { channel_status: 'error' })).matching_command).toBe(1);
    const c = await poll('checker01');
    expect(c.matchings[0]!.matching_command).toBe(1);
    expect((await poll('checker01')).matchings[0]!.matching_command).toBe(0);
    const invalid = await testerPoll('tester01', { channel_status: 'failed' });
    expect(invalid).toMatchObject({
      monitor_id: first.monitor_id,
      matching_status: -1,
      signaling_channel: null,
    });
    expect((await poll('checker01')).matchings).toEqual([]);
    // The next poll queues the tester afresh (and checker01, now free, takes it).
    const fresh = await testerPoll('tester01');
    expect(fresh.monitor_id).not.toBe(first.monitor_id);
    expect(fresh.matching_status).toBe(1);
  });

  it('resets the count on open', async () => {
    await setStartup('tester01', { tester_retry: 1 });
    const first = await testerPoll('tester01', { channel_status: 'failed' });
    await testerPoll('tester01', { channel_status: 'open' });
    expect((await testerPoll('tester01', { channel_status: 'failed' })).monitor_id).toBe(first.monitor_id);
  });

  it('invalidates after checker_retry failures reported by the checker', async () => {
    await setStartup('tester01', { checker_retry: 1 });
    await poll('checker01');
    const m = await testerPoll('tester01');
    await poll('checker01', { tester_id: id('tester01'), channel_status: 'failed' });
    expect((await poll('checker01')).matchings).toHaveLength(1);
    expect(
      (await poll('checker01', { tester_id: id('tester01'), channel_status: 'failed' })).matchings,
    ).toEqual([]);
    const row = await s.db.query<{ matching_status: number; delete_reason: string }>(
      `SELECT matching_status, delete_reason FROM matchings WHERE id = $1`,
      [m.monitor_id],
    );
    expect(row.rows[0]).toEqual({ matching_status: -1, delete_reason: 'checker_retry' });
  });
});

describe('permissions', () => {
  it('keeps a tester to its own matching', async () => {
    await testerPoll('tester02');
    const other = id('tester02');
    for (const res of [
      await pollRaw('tester01', { tester_id: other, channel_status: 'open' }),
      await get('tester01', `/api/v1/kvs_reconnect.php?tester_id=${other}`),
      await post('tester01', '/api/v1/delete_matching.php', { tester_id: other }),
    ]) {
      expect(res.statusCode).toBe(403);
      expect(envelope(res)).toMatchObject({ status: 403, result: null, code: 'forbidden' });
    }
    // Its own, by id or implicitly.
    expect(
      (await pollRaw('tester01', { tester_id: String(id('tester01')), channel_status: 'close' })).statusCode,
    ).toBe(200);
    const del = envelope<DeleteMatchingResult>(
      await post('tester01', '/api/v1/delete_matching.php', { tester_id: id('tester01') }),
    );
    expect(del.result.deleted).toBe(true);
    expect(
      envelope<DeleteMatchingResult>(await post('tester01', '/api/v1/delete_matching.php', {})).result
        .deleted,
    ).toBe(false);
    expect(envelope(await get('tester01', '/api/v1/kvs_reconnect.php')).result).toBeNull();
  });

  it('lets a checker delete or reconnect only a matching assigned to it', async () => {
    await poll('checker01');
    const m = await testerPoll('tester01');
    await poll('checker02');
    expect(
      (await post('checker02', '/api/v1/delete_matching.php', { tester_id: id('tester01') })).statusCode,
    ).toBe(403);
    expect((await get('checker02', `/api/v1/kvs_reconnect.php?tester_id=${id('tester01')}`)).statusCode).toBe(
      403,
    );
    // The refused reconnect told nobody to reset; the examinee's own tells its checker (and only it).
    const commands = async () =>
      (
        await s.db.query<{ matching_command: number; checker_command: number }>(
          `SELECT matching_command, checker_command FROM matchings WHERE id = $1`,
          [m.monitor_id],
        )
      ).rows[0];
    expect(await commands()).toEqual({ matching_command: 0, checker_command: 0 });
    expect((await get('tester01', '/api/v1/kvs_reconnect.php')).statusCode).toBe(200);
    expect(await commands()).toEqual({ matching_command: 0, checker_command: 1 });
    // A waiting (unassigned) tester is nobody's to delete either.
    await setStartup('tester02', { is_proctor: 0 });
    await testerPoll('tester02');
    expect(
      (await post('checker01', '/api/v1/delete_matching.php', { tester_id: id('tester02') })).statusCode,
    ).toBe(403);
    // Only the same matching when monitor_id is given.
    const stale = envelope<DeleteMatchingResult>(
      await post('checker01', '/api/v1/delete_matching.php', {
        tester_id: id('tester01'),
        monitor_id: m.monitor_id + 1000,
      }),
    );
    expect(stale.result).toEqual({ deleted: false, monitor_id: m.monitor_id });
    const ok = envelope<DeleteMatchingResult>(
      await post('checker01', '/api/v1/delete_matching.php', {
        tester_id: id('tester01'),
        monitor_id: m.monitor_id,
      }),
    );
    expect(ok.result).toEqual({ deleted: true, monitor_id: m.monitor_id });
    // Soft delete: the row stays for the history; the tester waits again on its next poll.
    const row = await s.db.query<{ deleted_at: Date | null }>(
      `SELECT deleted_at FROM matchings WHERE id = $1`,
      [m.monitor_id],
    );
    expect(row.rows[0]!.deleted_at).toBeInstanceOf(Date);
    const again = await testerPoll('tester01');
    expect(again.monitor_id).not.toBe(m.monitor_id);
  });

  it('answers each endpoint per actor', async () => {
    const cases: {
      method: 'GET' | 'POST';
      url: string;
      payload?: Record<string, unknown>;
      allowed: Actor[];
    }[] = [
      { method: 'GET', url: '/api/v1/checkers/monitoring.php', allowed: [4, 5] },
      { method: 'GET', url: '/api/v1/tester/monitor_activate_list.php', allowed: [2, 4, 5] },
      { method: 'GET', url: '/api/v1/checkers/matching_histories.php', allowed: [2, 4, 5] },
      { method: 'POST', url: '/api/v1/matching.php', payload: {}, allowed: [1, 2] },
      {
        method: 'POST',
        url: '/api/v1/delete_matching.php',
        payload: { tester_id: id('tester05') },
        allowed: [1, 2],
      },
    ];
    for (const c of cases) {
      const anon = await s.app.inject({
        method: c.method,
        url: c.url,
        ...(c.payload ? { payload: c.payload } : {}),
      });
      expect(anon.statusCode).toBe(401);
      for (const actor of [1, 2, 3, 4, 5] as Actor[]) {
        const opts = { method: c.method, url: c.url, ...(c.payload ? { payload: c.payload } : {}) };
        const res = await injectAs(s.app, await token(DEMO_LOGIN[actor]), opts);
        const expected = c.allowed.includes(actor)
          ? actor === 1 && c.url.includes('delete')
            ? 403
            : 200
          : 403;
        expect(res.statusCode, `${c.url} as actor ${actor}: ${res.body}`).toBe(expected);
      }
    }
  });
});

describe('monitor activation', () => {
  it('lets a checker set only its own; managers anyone’s', async () => {
    const url = '/api/v1/tester/monitor_activate.php';
    expect(
      (await post('checker01', url, { monitor_id: id('checker02'), activation: false })).statusCode,
    ).toBe(403);
    const own = await post('checker01', url, { monitor_id: String(id('checker01')), activation: 'false' });
    expect(envelope(own).result).toEqual({ monitor_id: id('checker01'), activation: false });
    expect(
      envelope(await post('supervisor01', url, { monitor_id: id('checker02'), activation: 0 })).result,
    ).toEqual({
      monitor_id: id('checker02'),
      activation: false,
    });
    expect(
      envelope(await post('sysadmin01', url, { monitor_id: id('checker02'), activation: true })).result,
    ).toEqual({
      monitor_id: id('checker02'),
      activation: true,
    });
    expect((await post('sysadmin01', url, { monitor_id: id('tester01'), activation: true })).statusCode).toBe(
      404,
    );
    expect((await post('manager01', url, { monitor_id: id('checker01'), activation: true })).statusCode).toBe(
      403,
    );
    const list = envelope<MonitorActivateListResult>(
      await get('checker03', '/api/v1/tester/monitor_activate_list.php'),
    ).result;
    expect(list.monitors.map((m) => [m.login_id, m.activation, m.last_poll_at])).toEqual([
      ['checker01', false, null],
      ['checker02', true, null],
      ['checker03', true, null],
    ]);
  });
});

describe('checkers/monitoring', () => {
  it('lists checkers with their testers, the unassigned (wait / on hold) and the kicked', async () => {
    await poll('checker01');
    await setStartup('tester01', {
      memo: '"hello"',
      is_auth: 1,
      is_record: '1',
      is_summary: 0,
      exam_url: '/demo-exam/',
    });
    await testerPoll('tester01');
    await poll('checker01');
    await s.db.query(`UPDATE monitor_activations SET activation = false`);
    await s.db.query(
      `INSERT INTO monitor_activations (checker_id, activation) VALUES ($1, false) ON CONFLICT (checker_id) DO UPDATE SET activation = false`,
      [id('checker01')],
    );
    await setStartup('tester02', { memo: '""' });
    await testerPoll('tester02');
    await setStartup('tester03', { is_proctor: 0 });
    await testerPoll('tester03');
    await token('tester04');
    await s.db.query(`UPDATE tests SET kicked = 1 WHERE user_id = $1`, [id('tester04')]);

    const res = await get('supervisor01', '/api/v1/checkers/monitoring.php');
    expect(res.statusCode, res.body).toBe(200);
    const r = envelope<CheckersMonitoringResult>(res).result;
    expect(r.matchings).toHaveLength(1);
    expect(r.matchings[0]!.checker).toEqual({
      id: id('checker01'),
      login_id: 'checker01',
      ex_login_id: 'checker01',
      target: '',
      admin_name: expect.any(String),
    });
    expect(r.matchings[0]!.testers).toEqual([
      {
        id: id('tester01'),
        test_id: expect.any(Number),
        monitor_id: expect.any(Number),
        login_id: 'tester01',
        ex_login_id: 'tester01',
        is_mc_startup: expect.any(Number),
        target: '',
        exam_name: expect.any(String),
        status: 1,
        rejected: 0,
        kicked: 0,
        exam_url: '/demo-exam/',
        startup_parameters: { is_auth: 1, is_proctor: 1, is_record: 1, is_summary: 0, memo: 'hello' },
        matching_status: 1,
        on_hold: 0,
      },
    ]);
    expect(r.not_matchings.map((t) => [t.login_id, t.on_hold, t.startup_parameters.memo])).toEqual([
      ['tester02', 0, ''],
      ['tester03', 1, ''],
    ]);
    expect(r.kicked_users.map((t) => [t.login_id, t.kicked, t.matching_status])).toEqual([
      ['tester04', 1, 0],
    ]);
  });
});

describe('checkers/matching_histories', () => {
  it('lists the testers a checker was matched with, newest first', async () => {
    await poll('checker01');
    await testerPoll('tester01');
    await testerPoll('tester01', { channel_status: 'open' });
    await testerPoll('tester02');
    await poll('checker02');
    await testerPoll('tester03');

    const mine = await get('checker01', '/api/v1/checkers/matching_histories.php');
    expect(mine.statusCode, mine.body).toBe(200);
    const users = envelope<MatchingHistoriesResult>(mine).result.users;
    expect(users.map((u) => u.login_id)).toEqual(['tester02', 'tester01']);
    expect(users[1]).toMatchObject({
      exam_user_id: id('tester01'),
      ex_login_id: 'tester01',
      status: 2,
      status_string: 'MATCHED',
      matched_at: expect.stringMatching(/^\d{4}-/),
      updated_at: expect.stringMatching(/^\d{4}-/),
    });
    expect(users[0]!.matched_at).toBeNull();

    expect(
      (await get('checker01', `/api/v1/checkers/matching_histories.php?checker_id=${id('checker02')}`))
        .statusCode,
    ).toBe(403);
    const other = envelope<MatchingHistoriesResult>(
      await get('sysadmin01', `/api/v1/checkers/matching_histories.php?checker_id=${id('checker02')}`),
    ).result.users;
    expect(other.map((u) => u.login_id)).toEqual(['tester03']);
    const all = envelope<MatchingHistoriesResult>(
      await get('supervisor01', '/api/v1/checkers/matching_histories.php?limit=2'),
    ).result.users;
    expect(all).toHaveLength(2);
  });
});

describe('bad input', () => {
  it('answers 4xx envelopes, never 500', async () => {
    // One login each before the calls run together: parallel first logins of one examinee would supersede
    // each other's sessions (one live session per sitting).
    for (const l of ['tester01', 'checker01', 'sysadmin01']) await token(l);
    const bad: [string, Promise<{ statusCode: number; body: string }>][] = [
      ['channel_status', pollRaw('tester01', { channel_status: 'bogus' })],
      ['tester_id text', pollRaw('tester01', { tester_id: 'abc' })],
      ['tester_id zero', pollRaw('checker01', { tester_id: 0 })],
      ['matching_command', pollRaw('tester01', { matching_command: 5 })],
      ['stats type', pollRaw('tester01', { stats: 'x' })],
      ['stats NUL', pollRaw('tester01', { stats: { a: 'x\u0000y' } })],
      ['command without tester', pollRaw('checker01', { matching_command: 1 })],
      ['activation missing', post('checker01', '/api/v1/tester/monitor_activate.php', { monitor_id: 1 })],
      [
        'activation value',
        post('checker01', '/api/v1/tester/monitor_activate.php', { monitor_id: 1, activation: 'maybe' }),
      ],
      [
        'monitor_id',
        post('sysadmin01', '/api/v1/tester/monitor_activate.php', { monitor_id: 'x', activation: true }),
      ],
      ['reconnect id', get('checker01', '/api/v1/kvs_reconnect.php?tester_id=-1')],
      ['reconnect missing', get('checker01', '/api/v1/kvs_reconnect.php')],
      ['delete missing', post('checker01', '/api/v1/delete_matching.php', {})],
      ['delete id', post('checker01', '/api/v1/delete_matching.php', { tester_id: '12a' })],
      ['history limit', get('checker01', '/api/v1/checkers/matching_histories.php?limit=0')],
      ['history limit big', get('checker01', '/api/v1/checkers/matching_histories.php?limit=900')],
      ['history checker', get('sysadmin01', '/api/v1/checkers/matching_histories.php?checker_id=abc')],
    ];
    for (const [name, p] of bad) {
      const res = await p;
      expect(res.statusCode, `${name}: ${res.body}`).toBe(400);
      expect(JSON.parse(res.body), name).toMatchObject({ status: 400, result: null });
    }
    const huge = await pollRaw('tester01', { stats: { blob: 'x'.repeat(9000) } });
    expect(huge.statusCode).toBe(413);
    expect(envelope(huge)).toMatchObject({ status: 413, code: 'payload_too_large' });
    // A form-encoded poll works too.
    const form = await injectAs(s.app, await token('tester01'), {
      method: 'POST',
      url: '/api/v1/matching.php',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: `tester_id=${id('tester01')}&channel_status=open&matching_command=0`,
    });
    expect(form.statusCode, form.body).toBe(200);
    // So does a bare POST (a checker's plain poll).
    const bare = await injectAs(s.app, await token('checker01'), {
      method: 'POST',
      url: '/api/v1/matching.php',
    });
    expect(bare.statusCode, bare.body).toBe(200);
    expect(envelope<MatchingResult>(bare).result.matching_timeout).toBe(5);
  });
});
