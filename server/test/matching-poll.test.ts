import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Matching, MatchingResult } from '../../contract/matching';
import { BatchQueue, gatherFor } from '../src/lib/batch-queue';
import { testerPollStep, type TesterMatchingState } from '../src/lib/matching-step';
import { build, envelope, injectAs, loginAs, type TestServer } from './helper';

/**
 * The examinee poll's two paths: a poll that changes nothing but the examinee's liveness is answered from one
 * read shared with the polls arriving at the same time and its liveness is written by group commit; anything
 * else goes through the poll's transaction. Both must answer the same, and a steady poll's liveness must be
 * stored by the time it is answered.
 */

const limits = { retryLimit: 3, failuresBeforeReset: 2 };
const waiting: TesterMatchingState = {
  checker_id: null,
  matching_status: 1,
  matching_command: 0,
  checker_command: 0,
  tester_retry: 0,
};
const connected: TesterMatchingState = { ...waiting, checker_id: 7, matching_status: 2 };

describe('testerPollStep (the matching rules of an examinee report)', () => {
  it('changes nothing for a report that repeats the state', () => {
    expect(testerPollStep(waiting, { channel_status: 'close' }, limits).changed).toBe(false);
    expect(testerPollStep(waiting, { channel_status: 'open' }, limits).changed).toBe(false);
    expect(testerPollStep(waiting, {}, limits).changed).toBe(false);
    expect(testerPollStep(connected, { channel_status: 'open' }, limits).changed).toBe(false);
  });

  it('connects on open with a checker assigned, disconnects on close', () => {
    const open = testerPollStep({ ...connected, matching_status: 1 }, { channel_status: 'open' }, limits);
    expect(open).toMatchObject({ status: 2, opening: true, changed: true });
    const close = testerPollStep(connected, { channel_status: 'close' }, limits);
    expect(close).toMatchObject({ status: 1, closing: true, changed: true });
  });

  it('counts failures: a reset for both sides from the second, invalid past the limit', () => {
    const first = testerPollStep(connected, { channel_status: 'failed' }, limits);
    expect(first).toMatchObject({ retry: 1, command: 0, checkerCommand: 0, closing: true, changed: true });
    const second = testerPollStep({ ...connected, tester_retry: 1 }, { channel_status: 'error' }, limits);
    expect(second).toMatchObject({ retry: 2, command: 1, checkerCommand: 1 });
    const past = testerPollStep({ ...waiting, tester_retry: 3 }, { channel_status: 'failed' }, limits);
    expect(past).toMatchObject({ retry: 4, status: -1, invalid: true, command: 0 });
    expect(testerPollStep({ ...waiting, tester_retry: 2 }, { channel_status: 'open' }, limits)).toMatchObject(
      {
        retry: 0,
        changed: true,
      },
    );
  });

  it('delivers a pending command once, unless the poll acknowledges the reset it has done', () => {
    const pending = { ...connected, matching_command: 1 };
    expect(testerPollStep(pending, { channel_status: 'open' }, limits)).toMatchObject({
      command: 1,
      changed: true,
    });
    expect(testerPollStep(pending, { channel_status: 'open', matching_command: 1 }, limits)).toMatchObject({
      command: 0,
      changed: true,
    });
  });
});

describe('BatchQueue (group commit)', () => {
  it('answers each item with its own result, several items per batch under load', async () => {
    const batches: number[][] = [];
    const q = new BatchQueue<number, number>(async (items) => {
      batches.push(items);
      await new Promise((r) => setTimeout(r, 5));
      return items.map((i) => i * 10);
    });
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => q.submit(i)));
    expect(results).toEqual(Array.from({ length: 20 }, (_, i) => i * 10));
    // The first goes alone at once; the 19 that came while it ran go together.
    expect(batches).toEqual([[0], Array.from({ length: 19 }, (_, i) => i + 1)]);
  });

  it('keeps at most maxInFlight batches under way and at most maxBatch items in one', async () => {
    let running = 0;
    let most = 0;
    const sizes: number[] = [];
    const q = new BatchQueue<number, number>(
      async (items) => {
        running++;
        most = Math.max(most, running);
        sizes.push(items.length);
        await new Promise((r) => setTimeout(r, 5));
        running--;
        return items;
      },
      2,
      4,
    );
    await Promise.all(Array.from({ length: 30 }, (_, i) => q.submit(i)));
    expect(most).toBe(2);
    expect(Math.max(...sizes)).toBe(4);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(30);
  });

  it('fails every item of a failed batch, and the next batch still runs', async () => {
    let calls = 0;
    const q = new BatchQueue<number, number>(async (items) => {
      calls++;
      await new Promise((r) => setTimeout(r, 5));
      if (calls === 1) throw new Error('database gone');
      return items;
    });
    const first = q.submit(1);
    const later = [q.submit(2), q.submit(3)];
    await expect(first).rejects.toThrow('database gone');
    await expect(Promise.all(later)).resolves.toEqual([2, 3]);
  });

  it('fails a batch answered with the wrong number of results rather than mixing answers', async () => {
    const q = new BatchQueue<number, number>(async () => {
      await new Promise((r) => setTimeout(r, 5));
      return [1];
    });
    const settled = await Promise.allSettled([q.submit(1), q.submit(2), q.submit(3)]);
    expect(settled.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'rejected']);
  });
});

it("gathers the requests of one event-loop turn into one batch for a database on this thread ('turn')", async () => {
  // A statement of a database on this thread (PGlite) is over within the callback that asked for it, so the
  // requests read in one turn (one callback each, like sockets read in one poll phase) each ran alone.
  const arrive = (q: BatchQueue<number, number>) =>
    Promise.all(
      Array.from({ length: 20 }, (_, i) => new Promise<number>((r) => setImmediate(() => r(q.submit(i))))),
    );
  const sizes = (gather: 'at-once' | 'turn') => {
    const seen: number[] = [];
    const q = new BatchQueue<number, number>(
      (items) => {
        seen.push(items.length);
        return Promise.resolve(items.map((i) => i * 10));
      },
      1,
      500,
      gather,
    );
    return { q, seen };
  };
  const atOnce = sizes('at-once');
  expect(await arrive(atOnce.q)).toEqual(Array.from({ length: 20 }, (_, i) => i * 10));
  expect(atOnce.seen).toEqual(Array.from({ length: 20 }, () => 1));
  const turn = sizes('turn');
  expect(await arrive(turn.q)).toEqual(Array.from({ length: 20 }, (_, i) => i * 10));
  expect(turn.seen).toEqual([20]);
});

it('says which way a batch gathers for each database', () => {
  expect(gatherFor({ kind: 'pglite' })).toBe('turn');
  expect(gatherFor({ kind: 'postgres' })).toBe('at-once');
});

describe('steady examinee polls against the real server', () => {
  let s: TestServer;
  const tokens = new Map<string, string>();
  const TESTERS = ['tester01', 'tester02', 'tester03', 'tester04', 'tester05', 'tester06'];

  beforeAll(async () => {
    s = await build();
    for (const t of TESTERS) tokens.set(t, await loginAs(s.app, t));
  });
  afterAll(async () => {
    await s.close();
  });

  const poll = async (login: string, payload: Record<string, unknown>) => {
    const res = await injectAs(s.app, tokens.get(login)!, {
      method: 'POST',
      url: '/api/v1/matching.php',
      payload,
    });
    expect(res.statusCode, res.body).toBe(200);
    return envelope<MatchingResult>(res).result;
  };

  /** The same matching read in full (kvs_reconnect: MATCHING_ROW_SQL), without its fresh credentials. */
  const fullRead = async (login: string) => {
    const res = await injectAs(s.app, tokens.get(login)!, {
      method: 'GET',
      url: '/api/v1/kvs_reconnect.php',
    });
    return envelope<Matching>(res).result;
  };
  const comparable = (m: Matching) => ({
    ...m,
    signaling_channel: m.signaling_channel && {
      ...m.signaling_channel,
      access_key_id: '',
      secret_access_key: '',
      session_token: '',
      expiration: '',
    },
    matching_total_time: 0,
    matching_connected_time: 0,
  });

  it('answers a steady poll exactly as the full read of its matching, each examinee its own', async () => {
    // First polls create the matchings (the transactional path).
    for (const t of TESTERS) await poll(t, { channel_status: 'close' });
    // Concurrent steady polls share reads; each must get its own sitting and matching. None opens a transaction.
    const transaction = s.db.transaction.bind(s.db);
    let transactions = 0;
    s.db.transaction = (fn) => (transactions++, transaction(fn));
    const answers = await Promise.all(
      TESTERS.map((t) => poll(t, { channel_status: 'close', stats: { viewers: 0, master: t } })),
    ).finally(() => {
      s.db.transaction = transaction;
    });
    expect(transactions).toBe(0);
    for (const [i, t] of TESTERS.entries()) {
      const got = answers[i]!.matchings[0]!;
      expect(got.login_id).toBe(t);
      expect(comparable(got)).toEqual(comparable(await fullRead(t)));
    }
  });

  it('has stored the poll’s liveness (time, stats, channel status) by the time it answers', async () => {
    const { rows: before } = await s.db.query<{ at: Date }>(
      `SELECT m.last_tester_poll_at AS at FROM matchings m JOIN users u ON u.id = m.tester_id
        WHERE u.login_id = 'tester02' AND m.deleted_at IS NULL`,
    );
    await new Promise((r) => setTimeout(r, 20));
    await poll('tester02', { channel_status: 'close', stats: { viewers: 0, master: 'liveness-check' } });
    const { rows } = await s.db.query<{ at: Date; stale: boolean; stats: { master: string }; cs: string }>(
      `SELECT m.last_tester_poll_at AS at, m.tester_stale_at > now() + interval '20 seconds' AS stale,
              m.tester_stats AS stats, m.channel_status AS cs
         FROM matchings m JOIN users u ON u.id = m.tester_id
        WHERE u.login_id = 'tester02' AND m.deleted_at IS NULL`,
    );
    expect(new Date(rows[0]!.at).getTime()).toBeGreaterThan(new Date(before[0]!.at).getTime());
    expect(rows[0]!.stale).toBe(true); // 6 × the 5 s timeout from now
    expect(rows[0]!.stats.master).toBe('liveness-check');
    expect(rows[0]!.cs).toBe('close');
  });

  it('still refuses a steady poll that reports another examinee', async () => {
    const other = await s.db.query<{ id: number }>(`SELECT id FROM users WHERE login_id = 'tester03'`);
    const res = await injectAs(s.app, tokens.get('tester01')!, {
      method: 'POST',
      url: '/api/v1/matching.php',
      payload: { tester_id: other.rows[0]!.id, channel_status: 'close' },
    });
    expect(res.statusCode).toBe(403);
  });

  it('takes the transactional path when the report changes something, and the next steady poll sees it', async () => {
    const a = await poll('tester04', { channel_status: 'failed' });
    expect(a.matchings[0]!.matching_status).toBe(1);
    const { rows } = await s.db.query<{ n: number }>(
      `SELECT m.tester_retry AS n FROM matchings m JOIN users u ON u.id = m.tester_id
        WHERE u.login_id = 'tester04' AND m.deleted_at IS NULL`,
    );
    expect(rows[0]!.n).toBe(1);
    // A second failure asks for a reset (delivered once), then open resets the count.
    expect((await poll('tester04', { channel_status: 'failed' })).matchings[0]!.matching_command).toBe(1);
    expect(
      (await poll('tester04', { channel_status: 'open', matching_command: 1 })).matchings[0]!
        .matching_command,
    ).toBe(0);
    expect((await poll('tester04', { channel_status: 'open' })).matchings[0]!.matching_command).toBe(0);
  });

  it('gives a waiting examinee to a checker once one polls', async () => {
    const before = await poll('tester05', { channel_status: 'close' });
    expect(before.matchings[0]!.checker_id).toBeNull();
    const checker = await loginAs(s.app, 'checker01');
    await injectAs(s.app, checker, { method: 'POST', url: '/api/v1/matching.php', payload: {} });
    const after = await poll('tester05', { channel_status: 'close' });
    expect(after.matchings[0]!.checker_id).not.toBeNull();
  });

  it('answers the phone camera on a steady poll as on the transactional one, and reads no phone without it', async () => {
    // tester06's sitting has the phone camera and a paired phone publishing (README "Phone as a second camera").
    await s.db.query(
      `UPDATE tests SET startup_parameters = startup_parameters || '{"is_phone_camera": 1}'::jsonb
        WHERE user_id = (SELECT id FROM users WHERE login_id = 'tester06') AND status < 7`,
    );
    const code = await injectAs(s.app, tokens.get('tester06')!, {
      method: 'POST',
      url: '/api/v1/tester/phone_pairing.php',
      payload: {},
    });
    const paired = await s.app.inject({
      method: 'POST',
      url: '/api/v1/phone/pair.php',
      payload: { code: envelope<{ code: string }>(code).result.code },
    });
    const phone = envelope<{ access_token: string }>(paired).result.access_token;
    const phonePoll = await injectAs(s.app, phone, {
      method: 'POST',
      url: '/api/v1/phone/poll.php',
      payload: { camera: 'environment', channel_status: 'open' },
    });
    expect(phonePoll.statusCode, phonePoll.body).toBe(200);

    const report = { channel_status: 'failed' };
    const full = (await poll('tester06', report)).matchings[0]!;
    const transaction = s.db.transaction.bind(s.db);
    let transactions = 0;
    s.db.transaction = (fn) => (transactions++, transaction(fn));
    const steady = await poll('tester06', { channel_status: 'close' })
      .then(() => ((transactions = 0), poll('tester06', { channel_status: 'close' })))
      .finally(() => {
        s.db.transaction = transaction;
      });
    expect(transactions).toBe(0);
    expect(full.phone).toMatchObject({ state: 'live', camera: 'environment', signaling_channel: null });
    expect(steady.matchings[0]!.phone).toEqual(full.phone);

    // Sittings without the phone: their polls, steady or not, never read the phone's tables.
    const query = s.db.query.bind(s.db);
    const phoneReads: string[] = [];
    s.db.query = ((sql: string, params?: unknown[]) => {
      if (/phone_links|phone_pairings/.test(sql)) phoneReads.push(sql);
      return query(sql, params as never);
    }) as typeof s.db.query;
    try {
      for (const t of TESTERS.slice(0, 5)) {
        expect((await poll(t, { channel_status: 'close' })).matchings[0]!.phone).toBeUndefined();
        expect((await poll(t, { channel_status: 'failed' })).matchings[0]!.phone).toBeUndefined();
      }
    } finally {
      s.db.query = query;
    }
    expect(phoneReads).toEqual([]);
  });
});
