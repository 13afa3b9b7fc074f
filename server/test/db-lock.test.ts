import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../src/lib/api-error';
import { DbKeyedLock } from '../src/lib/db-lock';
import { build, type TestServer } from './helper';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('DbKeyedLock (one recording start/end at a time across server instances)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await build();
  });
  afterAll(async () => s.close());

  it('two instances on one database never run the same key at once, and both finish', async () => {
    const a = new DbKeyedLock(s.db, { pollMs: 5 });
    const b = new DbKeyedLock(s.db, { pollMs: 5 });
    const events: string[] = [];
    let inside = 0;
    let maxInside = 0;
    const job = (lock: DbKeyedLock, name: string) =>
      lock.run('record:1', async () => {
        inside++;
        maxInside = Math.max(maxInside, inside);
        events.push(`${name} in`);
        await sleep(30);
        events.push(`${name} out`);
        inside--;
        return name;
      });
    const results = await Promise.all([job(a, 'a1'), job(b, 'b1'), job(a, 'a2'), job(b, 'b2')]);
    expect(results).toEqual(['a1', 'b1', 'a2', 'b2']);
    expect(maxInside).toBe(1);
    expect(events).toHaveLength(8);
    for (let i = 0; i < 8; i += 2)
      expect(events[i]!.replace(' in', '')).toBe(events[i + 1]!.replace(' out', ''));
    const left = await s.db.query(`SELECT * FROM request_locks WHERE lock_key = 'record:1'`);
    expect(left.rows).toHaveLength(0);
  });

  it('different keys do not wait for each other', async () => {
    const a = new DbKeyedLock(s.db);
    const b = new DbKeyedLock(s.db, { waitMs: 50 });
    let release!: () => void;
    const held = a.run('record:2', () => new Promise<void>((r) => (release = r)));
    await sleep(20);
    await expect(b.run('record:3', async () => 'free')).resolves.toBe('free');
    release();
    await held;
  });

  it('a busy key answers 503 with Retry-After once the wait runs out, and the holder keeps it', async () => {
    const a = new DbKeyedLock(s.db);
    const b = new DbKeyedLock(s.db, { waitMs: 60, pollMs: 10 });
    let release!: () => void;
    const held = a.run('record:4', () => new Promise<void>((r) => (release = r)));
    await sleep(20);
    const err = await b.run('record:4', async () => 'never').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(503);
    expect((err as ApiError).headers['Retry-After']).toBe('1');
    const row = await s.db.query<{ owner: string }>(
      `SELECT owner FROM request_locks WHERE lock_key = 'record:4'`,
    );
    expect(row.rows[0]?.owner).toBe(a.owner);
    release();
    await held;
  });

  it("a crashed holder's lease runs out and the key is taken over; the old owner cannot renew it", async () => {
    const crashed = new DbKeyedLock(s.db, { leaseMs: 100 });
    expect(await crashed.tryAcquire('record:5')).toBe(true); // acquired, then the instance "dies"
    const b = new DbKeyedLock(s.db, { leaseMs: 100, pollMs: 10, waitMs: 5000 });
    expect(await b.tryAcquire('record:5')).toBe(false);
    await expect(b.run('record:5', async () => 'taken over')).resolves.toBe('taken over');
    expect(await crashed.renew('record:5')).toBe(false);
  });

  it('a failing critical section releases the key and passes its error on', async () => {
    const a = new DbKeyedLock(s.db);
    await expect(
      a.run('record:6', async () => {
        throw new Error('boom');
      }),
    ).rejects.toThrow('boom');
    const b = new DbKeyedLock(s.db, { waitMs: 50 });
    await expect(b.run('record:6', async () => 'next')).resolves.toBe('next');
  });
});
