import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../src/lib/api-error';
import { CHANNEL_MESSAGE_TTL_SECONDS, KvsControl, PRODUCT_TAG } from '../src/lib/aws/kvs-control';
import type { AwsLog } from '../src/lib/aws/sts-issuer';
import type { KvsChannels } from '../src/standins/kvs/channels';
import { REGION, startKvsServer, type KvsTestServer } from './standins/kvs-helpers';

/** KvsControl with the real SDK against a bare KVS stand-in, signed with the stand-in's server key pair. */
let srv: KvsTestServer;
let now = Date.now();
const logged: { level: string; obj: Record<string, unknown> }[] = [];
const log: AwsLog = {
  warn: (obj) => logged.push({ level: 'warn', obj: obj as Record<string, unknown> }),
  error: (obj) => logged.push({ level: 'error', obj: obj as Record<string, unknown> }),
};

function kvs(): KvsChannels {
  if (!srv.app.kvs) throw new Error('stand-in off');
  return srv.app.kvs;
}

function control(over: Partial<ConstructorParameters<typeof KvsControl>[0]> = {}): KvsControl {
  return new KvsControl({
    region: REGION,
    endpoint: `${srv.base}/kvs`,
    credentials: kvs().settings.serverCredentials,
    maxAttempts: 1,
    log,
    now: () => now,
    ...over,
  });
}

beforeEach(async () => {
  srv = await startKvsServer();
  now = Date.now();
  logged.length = 0;
});
afterEach(async () => {
  await srv.close();
});

describe('KvsControl.ensure', () => {
  it('creates a SINGLE_MASTER channel with a 60 s message TTL and the product tag, once per name', async () => {
    const c = control();
    const create = vi.spyOn(kvs(), 'createChannel');
    await Promise.all([c.ensure('exam-1-aaaaaaaaaaaa'), c.ensure('exam-1-aaaaaaaaaaaa')]);
    await c.ensure('exam-1-aaaaaaaaaaaa');
    expect(create).toHaveBeenCalledTimes(1);
    expect(kvs().find({ name: 'exam-1-aaaaaaaaaaaa' })).toMatchObject({
      messageTtlSeconds: CHANNEL_MESSAGE_TTL_SECONDS,
      tags: [PRODUCT_TAG],
    });
    expect(c.isEnsured('exam-1-aaaaaaaaaaaa')).toBe(true);
  });

  it('treats ResourceInUseException as "exists", and asks again when fresh or after the revalidation window', async () => {
    kvs().ensureChannel('exam-2-bbbbbbbbbbbb'); // made by someone else (another instance, before a restart)
    const c = control({ revalidateMs: 60_000 });
    const create = vi.spyOn(kvs(), 'createChannel');
    await c.ensure('exam-2-bbbbbbbbbbbb');
    expect(c.isEnsured('exam-2-bbbbbbbbbbbb')).toBe(true);
    await c.ensure('exam-2-bbbbbbbbbbbb', { fresh: true });
    now += 61_000;
    await c.ensure('exam-2-bbbbbbbbbbbb');
    await c.ensure('exam-2-bbbbbbbbbbbb');
    expect(create).toHaveBeenCalledTimes(3);
    // Deleted behind its back: the next check re-creates it.
    kvs().deleteChannel('exam-2-bbbbbbbbbbbb');
    await c.ensure('exam-2-bbbbbbbbbbbb', { fresh: true });
    expect(kvs().find({ name: 'exam-2-bbbbbbbbbbbb' })).not.toBeNull();
  });

  it('re-checks on the first reconnect after a failure, not on every reconnect of a loop or a storm', async () => {
    const c = control();
    const create = vi.spyOn(kvs(), 'createChannel');
    await c.ensure('exam-5-eeeeeeeeeeee'); // the poll that made the channel
    // The first reconnect asks AWS even right after the poll's check; the reconnects that follow within the
    // window do not, and one after the window asks again.
    await c.ensure('exam-5-eeeeeeeeeeee', { fresh: true, reuseMs: 15_000 });
    now += 14_000;
    await c.ensure('exam-5-eeeeeeeeeeee', { fresh: true, reuseMs: 15_000 });
    await Promise.all([
      c.ensure('exam-5-eeeeeeeeeeee', { fresh: true, reuseMs: 15_000 }),
      c.ensure('exam-5-eeeeeeeeeeee', { fresh: true, reuseMs: 15_000 }),
    ]);
    expect(create).toHaveBeenCalledTimes(2);
    now += 1_000;
    kvs().deleteChannel('exam-5-eeeeeeeeeeee'); // gone behind its back (a restarted stand-in)
    await c.ensure('exam-5-eeeeeeeeeeee', { fresh: true, reuseMs: 15_000 });
    expect(create).toHaveBeenCalledTimes(3);
    expect(kvs().find({ name: 'exam-5-eeeeeeeeeeee' })).not.toBeNull();
    // Without a window (the default) every fresh ensure asks.
    await c.ensure('exam-5-eeeeeeeeeeee', { fresh: true });
    expect(create).toHaveBeenCalledTimes(4);
  });

  it('remembers a bounded number of names, forgetting the oldest', async () => {
    const c = control({ cacheSize: 2 });
    for (const n of ['exam-3-000000000001', 'exam-3-000000000002', 'exam-3-000000000003']) await c.ensure(n);
    expect(
      ['exam-3-000000000001', 'exam-3-000000000002', 'exam-3-000000000003'].map((n) => c.isEnsured(n)),
    ).toEqual([false, true, true]);
  });

  it('serves a channel ensured before when KVS cannot be reached, and is a 503 for a new one', async () => {
    const c = control({ revalidateMs: 60_000, retryMs: 10_000 });
    await c.ensure('exam-4-cccccccccccc');
    await srv.close(); // KVS unreachable from here on
    now += 61_000;
    await expect(c.ensure('exam-4-cccccccccccc')).resolves.toBeUndefined();
    await expect(c.ensure('exam-4-cccccccccccc', { fresh: true })).resolves.toBeUndefined();
    expect(logged.filter((l) => l.level === 'warn')).toHaveLength(2);
    // Within the retry delay it does not even ask.
    await c.ensure('exam-4-cccccccccccc');
    expect(logged).toHaveLength(2);

    const err = await c.ensure('exam-4-dddddddddddd').then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({
      status: 503,
      message: 'The signaling channel is not available yet; retry later.',
    });
    expect(logged.at(-1)).toMatchObject({ level: 'error', obj: { channel: 'exam-4-dddddddddddd' } });
    srv = await startKvsServer(); // for afterEach
  });

  it('refuses a wrong server secret like AWS (NotAuthorizedException), as a 503 to the caller', async () => {
    const { accessKeyId } = kvs().settings.serverCredentials;
    const c = control({ credentials: { accessKeyId, secretAccessKey: 'wrong' } });
    await expect(c.ensure('exam-5-eeeeeeeeeeee')).rejects.toMatchObject({ status: 503 });
    expect(logged[0]?.obj).toMatchObject({ awsError: 'NotAuthorizedException', httpStatus: 401 });
    expect(kvs().find({ name: 'exam-5-eeeeeeeeeeee' })).toBeNull();
  });
});

describe('KvsControl.listChannels / deleteChannel', () => {
  it('lists every page of a prefix and deletes with the listed version', async () => {
    const c = control();
    const names = Array.from({ length: 503 }, (_, i) => `exam-9-${String(i).padStart(12, '0')}`);
    for (const n of names) kvs().ensureChannel(n);
    kvs().ensureChannel('other-1');
    const listed = await c.listChannels('exam-');
    expect(listed.map((l) => l.name)).toEqual(names);
    expect(listed[0]).toMatchObject({
      arn: kvs().find({ name: names[0] })?.channelArn,
      version: kvs().find({ name: names[0] })?.version,
      status: 'ACTIVE',
      creationTime: expect.any(Date),
    });
    expect(await c.deleteChannel(listed[0]!)).toBe('deleted');
    expect(kvs().find({ name: names[0] })).toBeNull();
    expect(await c.deleteChannel(listed[0]!)).toBe('gone');
    await expect(c.deleteChannel({ ...listed[1]!, version: 'stale' })).rejects.toMatchObject({
      name: 'VersionMismatchException',
    });
    expect(kvs().find({ name: names[1] })).not.toBeNull();
  });
});
