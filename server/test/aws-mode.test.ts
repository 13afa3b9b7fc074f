import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { AddressInfo } from 'node:net';
import {
  DescribeSignalingChannelCommand,
  GetSignalingChannelEndpointCommand,
  KinesisVideoClient,
} from '@aws-sdk/client-kinesis-video';
import { WebSocket } from 'ws';
import type { Matching, MatchingResult, SignalingChannel } from '../../contract/matching';
import { buildApp } from '../src/app';
import type { Db } from '../src/db/db';
import { sweepChannels } from '../src/lib/aws/channel-sweep';
import type { TemporaryCredentials } from '../src/lib/credentials';
import type { KvsChannels } from '../src/standins/kvs/channels';
import { build, envelope, injectAs, loginAs, testConfig, type TestServer } from './helper';
import { rawConnect, signedUrl } from './standins/kvs-helpers';
import { policyOf, scopeFromPolicy, startStsServer, type StsTestServer } from './sts-server';

/**
 * AWS mode end to end with the real SDKs: app A runs the local stand-ins (its KVS stand-in plays AWS KVS,
 * its credential registry plays IAM), app B runs in AWS mode with KVS_ENDPOINT = A's /kvs and STS_ENDPOINT
 * = a test STS server that issues A-registered credentials for the scope it reads from the session policy.
 * B's own credentials come from the SDK's default provider chain (the environment here) and are A's KVS
 * server key pair.
 */

const REGION = 'ap-northeast-1';
const ROLE = 'arn:aws:iam::123456789012:role/proctor-browser';

let a: TestServer;
let b: TestServer;
let sts: StsTestServer;
let aBase: string;
const savedEnv = { ...process.env };
const tokens = new Map<string, string>();

function aKvs(): KvsChannels {
  if (!a.app.kvs) throw new Error('A has no KVS stand-in');
  return a.app.kvs;
}

async function token(loginId: string): Promise<string> {
  let t = tokens.get(loginId);
  if (!t) {
    t = await loginAs(b.app, loginId);
    tokens.set(loginId, t);
  }
  return t;
}

async function pollRaw(loginId: string, payload: Record<string, unknown> = {}) {
  return injectAs(b.app, await token(loginId), { method: 'POST', url: '/api/v1/matching.php', payload });
}

async function poll(loginId: string, payload: Record<string, unknown> = {}): Promise<MatchingResult> {
  const res = await pollRaw(loginId, payload);
  expect(res.statusCode, res.body).toBe(200);
  return envelope<MatchingResult>(res).result;
}

async function testerPoll(loginId: string): Promise<Matching> {
  const r = await poll(loginId, { channel_status: 'close' });
  expect(r.matchings).toHaveLength(1);
  return r.matchings[0]!;
}

function credsOf(ch: SignalingChannel): TemporaryCredentials {
  return {
    accessKeyId: ch.access_key_id,
    secretAccessKey: ch.secret_access_key,
    sessionToken: ch.session_token,
    expiration: new Date(ch.expiration),
  };
}

/** The control-plane client as the SPA builds it; the SPA would use the AWS default endpoint, here A's. */
function browserClient(ch: SignalingChannel): KinesisVideoClient {
  return new KinesisVideoClient({
    region: ch.region,
    endpoint: `${aBase}/kvs`,
    credentials: credsOf(ch),
    maxAttempts: 1,
  });
}

async function testIdOf(loginId: string): Promise<number> {
  const { rows } = await b.db.query<{ id: number }>(
    `SELECT t.id FROM tests t JOIN users u ON u.id = t.user_id WHERE u.login_id = $1 ORDER BY t.id DESC LIMIT 1`,
    [loginId],
  );
  return rows[0]!.id;
}

beforeAll(async () => {
  (globalThis as { WebSocket?: unknown }).WebSocket = WebSocket;
  a = await build();
  await a.app.listen({ host: '127.0.0.1', port: 0 });
  aBase = `http://127.0.0.1:${(a.app.server.address() as AddressInfo).port}`;
  const serverKey = aKvs().settings.serverCredentials;
  // B's own credentials through the SDK's default provider chain: the environment comes first.
  process.env.AWS_ACCESS_KEY_ID = serverKey.accessKeyId;
  process.env.AWS_SECRET_ACCESS_KEY = serverKey.secretAccessKey;
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  process.env.AWS_EC2_METADATA_DISABLED = 'true';
  sts = await startStsServer({
    keys: { [serverKey.accessKeyId]: serverKey.secretAccessKey },
    region: REGION,
    answer: async (call) => ({
      credentials: await a.app.localCredentials!.issue(
        scopeFromPolicy(policyOf(call)),
        Number(call.params.DurationSeconds),
      ),
    }),
  });
  b = await build({
    aws: {
      kvsEndpoint: `${aBase}/kvs`,
      kvsPublicEndpoint: undefined,
      s3Endpoint: undefined,
      kvsRegion: REGION,
      roleArn: ROLE,
      stsRegion: REGION,
      stsEndpoint: sts.url,
    },
  });
});

afterAll(async () => {
  await b?.close();
  await a?.close();
  await sts?.close();
  process.env = savedEnv;
});

describe('AWS mode against the stand-ins', () => {
  it('creates the channel through the KVS API and hands out STS credentials the real SDK can use', async () => {
    expect(b.app.kvs).toBeNull(); // B mounts no KVS stand-in
    expect(b.app.kvsControl).not.toBeNull();
    const create = vi.spyOn(aKvs(), 'createChannel');
    await poll('checker01');
    const m = await testerPoll('tester01');
    const ch = m.signaling_channel!;
    expect(ch).toMatchObject({
      region: REGION,
      channel_name: expect.stringMatching(/^exam-\d+-[0-9a-f]{12}$/),
    });
    expect(ch).not.toHaveProperty('endpoint'); // the SPA uses the AWS default endpoint
    expect(create).toHaveBeenCalledTimes(1);
    expect(aKvs().find({ name: ch.channel_name })).toMatchObject({
      messageTtlSeconds: 60,
      tags: [{ Key: 'product', Value: 'proctor-exam' }],
    });

    // STS was asked, signed with the server's key, for exactly this channel as master.
    expect(sts.calls).toHaveLength(1);
    const call = sts.calls[0]!;
    expect(call.accessKeyId).toBe(aKvs().settings.serverCredentials.accessKeyId);
    expect(call.params).toMatchObject({
      RoleArn: ROLE,
      RoleSessionName: `kvs-master-${ch.channel_name}`,
      DurationSeconds: '3600',
    });
    expect(scopeFromPolicy(policyOf(call))).toEqual({
      kind: 'kvs',
      channelName: ch.channel_name,
      role: 'master',
    });

    // The browser's calls succeed with those credentials.
    const client = browserClient(ch);
    const described = await client.send(
      new DescribeSignalingChannelCommand({ ChannelName: ch.channel_name }),
    );
    const arn = described.ChannelInfo?.ChannelARN ?? '';
    expect(arn).toBe(aKvs().find({ name: ch.channel_name })?.channelArn);
    const ep = await client.send(
      new GetSignalingChannelEndpointCommand({
        ChannelARN: arn,
        SingleMasterChannelEndpointConfiguration: { Protocols: ['WSS', 'HTTPS'], Role: 'MASTER' },
      }),
    );
    expect(ep.ResourceEndpointList).toHaveLength(2);

    // Polls reuse channel and credentials: no AWS call.
    expect((await testerPoll('tester01')).signaling_channel?.access_key_id).toBe(ch.access_key_id);
    expect(create).toHaveBeenCalledTimes(1);
    expect(sts.calls).toHaveLength(1);

    // The checker gets viewer credentials: fine as VIEWER, refused as MASTER.
    const viewer = (await poll('checker01')).matchings[0]!.signaling_channel!;
    expect(viewer.channel_name).toBe(ch.channel_name);
    expect(scopeFromPolicy(policyOf(sts.calls[1]!))).toMatchObject({ role: 'viewer' });
    await browserClient(viewer).send(new DescribeSignalingChannelCommand({ ChannelName: ch.channel_name }));
    const asMaster = await rawConnect(
      await signedUrl(aBase, 'master', arn, credsOf(viewer), undefined, REGION),
    );
    expect(asMaster).toMatchObject({ ok: false, status: 401, errorType: 'AccessDeniedException' });
    const asViewer = await rawConnect(
      await signedUrl(aBase, 'viewer', arn, credsOf(viewer), 'proctor-1', REGION),
    );
    expect(asViewer.ok).toBe(true);
    if (asViewer.ok) asViewer.socket.close();
    const master = await rawConnect(await signedUrl(aBase, 'master', arn, credsOf(ch), undefined, REGION));
    expect(master.ok).toBe(true);
    if (master.ok) master.socket.close();

    // kvs_reconnect: what the poll was handed out for this matching is still good (not near expiry, the
    // channel not deleted since): the same credentials again, without asking STS or KVS.
    const reconnect = async (server: TestServer = b) =>
      envelope<Matching>(
        await injectAs(server.app, await token('tester01'), {
          method: 'GET',
          url: '/api/v1/kvs_reconnect.php',
        }),
      ).result.signaling_channel!;
    const stsBefore = sts.calls.length;
    const again = await reconnect();
    expect(again).toMatchObject({
      access_key_id: ch.access_key_id,
      secret_access_key: ch.secret_access_key,
      session_token: ch.session_token,
      expiration: ch.expiration,
    });
    expect(sts.calls).toHaveLength(stsBefore);
    expect(create).toHaveBeenCalledTimes(1);
    // Stored sealed: neither the secret nor the session token is in the database in the clear.
    const stored = await b.db.query<{ sealed: Buffer; access_key_id: string }>(
      `SELECT sealed, access_key_id FROM signaling_credentials WHERE channel_name = $1 AND role = 'master'`,
      [ch.channel_name],
    );
    expect(stored.rows).toHaveLength(1);
    expect(stored.rows[0]!.access_key_id).toBe(ch.access_key_id);
    const sealed = Buffer.from(stored.rows[0]!.sealed);
    expect(sealed.includes(Buffer.from(ch.secret_access_key))).toBe(false);
    expect(sealed.includes(Buffer.from(ch.session_token.slice(0, 40)))).toBe(false);

    // Another instance on the same database (the same CREDENTIALS_CACHE_KEY) hands out the same.
    const b2 = await build(
      { aws: b.config.aws, credentialsCacheKey: b.config.credentialsCacheKey },
      { sameDatabaseAs: b },
    );
    try {
      expect((await reconnect(b2)).access_key_id).toBe(ch.access_key_id);
      expect(sts.calls).toHaveLength(stsBefore);
      expect(create).toHaveBeenCalledTimes(1);
    } finally {
      await b2.close();
    }
    // One without it cannot open them: it has new ones issued, and the channel checked.
    const b3 = await build({ aws: b.config.aws, credentialsCacheKey: null }, { sameDatabaseAs: b });
    try {
      expect((await reconnect(b3)).access_key_id).not.toBe(ch.access_key_id);
      expect(sts.calls).toHaveLength(stsBefore + 1);
      expect(create).toHaveBeenCalledTimes(2);
    } finally {
      await b3.close();
    }
    // b3's row is sealed under b3's key: b has its own issued (and checks the channel) once, then reuses them.
    const current = (await reconnect()).access_key_id;
    expect(sts.calls).toHaveLength(stsBefore + 2);
    expect(create).toHaveBeenCalledTimes(3);
    expect((await reconnect()).access_key_id).toBe(current);
    expect(sts.calls).toHaveLength(stsBefore + 2);

    // The sweep deleted a channel of this name (on any instance) after it was last checked: the reconnect
    // checks it on KVS again (it exists: ResourceInUse), and the credentials are still reused.
    await b.db.query(`INSERT INTO kvs_channel_deletions (channel_name, deleted_at) VALUES ($1, now())`, [
      ch.channel_name,
    ]);
    expect((await reconnect()).access_key_id).toBe(current);
    expect(create).toHaveBeenCalledTimes(4);
    expect((await reconnect()).access_key_id).toBe(current);
    expect(create).toHaveBeenCalledTimes(4);
    expect(sts.calls).toHaveLength(stsBefore + 2);
    expect(aKvs().find({ name: ch.channel_name })?.channelArn).toBe(arn);
    create.mockRestore();
  });

  it('keeps recordings on the local S3 stand-in when only KVS is on AWS', async () => {
    const before = sts.calls.length;
    const creds = await b.app.credentialIssuer.issue(
      { kind: 's3', bucket: 'recordings', key: 'k.webm' },
      600,
    );
    expect(sts.calls).toHaveLength(before);
    expect(b.app.localCredentials?.lookup(creds.accessKeyId, creds.sessionToken)?.scope).toEqual({
      kind: 's3',
      bucket: 'recordings',
      key: 'k.webm',
    });
  });

  it('answers 503 without AWS detail when STS refuses, and serves again once it works', async () => {
    sts.answer(() => ({ error: { status: 403, code: 'AccessDenied', message: 'secret-detail-1234' } }));
    try {
      const res = await pollRaw('tester02', { channel_status: 'close' });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      const body = envelope(res);
      expect(body).toMatchObject({ status: 503, code: 'internal' });
      expect(body.message).toBe('Signaling credentials could not be issued; retry later.');
      expect(res.body).not.toContain('secret-detail');
    } finally {
      sts.answer(async (call) => ({
        credentials: await a.app.localCredentials!.issue(
          scopeFromPolicy(policyOf(call)),
          Number(call.params.DurationSeconds),
        ),
      }));
    }
    expect((await testerPoll('tester02')).signaling_channel?.access_key_id).toMatch(/^ASIALOCAL/);
  });

  it('deletes the channels no sitting needs, and only those', async () => {
    const control = b.app.kvsControl!;
    const log = { warn: vi.fn(), info: vi.fn() };
    const settings = { intervalMs: 0, graceMs: 0, idleMs: 3600_000 };
    // Every tester polls first (a poll may run the matching sweep, which would close backdated matchings now).
    const names: string[] = [];
    for (const t of ['tester01', 'tester02', 'tester03', 'tester04', 'tester05'])
      names.push((await testerPoll(t)).signaling_channel!.channel_name);
    const [c1, c2, c3, c4, c5] = names as [string, string, string, string, string];
    const ended = (loginId: string, ago: string) =>
      testIdOf(loginId).then((id) =>
        b.db.query(
          `UPDATE matchings SET deleted_at = now() - $2::interval WHERE test_id = $1 AND deleted_at IS NULL`,
          [id, ago],
        ),
      );
    // tester01: finished (status 7), its matching ended 10 minutes ago → deleted.
    await b.db.query(`UPDATE tests SET status = 7 WHERE id = $1`, [await testIdOf('tester01')]);
    await ended('tester01', '10 minutes');
    // tester02: still polling (live matching) → kept.
    // tester03: open sitting, matching closed 2 h ago (left and never came back) → deleted.
    await ended('tester03', '2 hours');
    // tester04: open matching, but its tester went silent 2 h ago and no sweep closed it → deleted.
    await b.db.query(
      `UPDATE matchings SET tester_stale_at = now() - interval '2 hours' WHERE test_id = $1 AND deleted_at IS NULL`,
      [await testIdOf('tester04')],
    );
    // tester05: open sitting, matching closed 10 min ago (within the idle period) → kept.
    await ended('tester05', '10 minutes');
    // Not this deployment's: unknown to B's database, or not named like ours.
    aKvs().ensureChannel('exam-999999-0123456789ab');
    aKvs().ensureChannel('exam-manual');
    aKvs().ensureChannel('other-app-1');

    const report = await sweepChannels(b.db, control, settings, log);
    expect(report.deleted.sort()).toEqual([c1, c3, c4].sort());
    expect(report.failed).toEqual([]);
    expect(report.unknown).toBe(2);
    for (const gone of [c1, c3, c4]) {
      expect(aKvs().find({ name: gone }), gone).toBeNull();
      expect(control.isEnsured(gone)).toBe(false);
    }
    // Recorded for every instance: a reconnect re-checks (re-creates) these before handing them out again.
    const recorded = await b.db.query<{ channel_name: string }>(
      `SELECT channel_name FROM kvs_channel_deletions`,
    );
    expect(recorded.rows.map((r) => r.channel_name).sort()).toEqual(
      expect.arrayContaining([c1, c3, c4].sort()),
    );
    expect(recorded.rows.map((r) => r.channel_name)).not.toContain(c2);
    for (const kept of [c2, c5, 'exam-999999-0123456789ab', 'exam-manual', 'other-app-1'])
      expect(aKvs().find({ name: kept }), kept).not.toBeNull();
    expect(log.info).toHaveBeenCalledTimes(1);

    // tester03 comes back: its sitting's channel is created again under the same name.
    await b.db.query(
      `UPDATE matchings SET tester_stale_at = now() + interval '1 minute' WHERE deleted_at IS NULL`,
    );
    expect((await testerPoll('tester03')).signaling_channel?.channel_name).toBe(c3);
    expect(aKvs().find({ name: c3 })).not.toBeNull();

    // The scheduled sweeper uses the default grace period: fresh channels stay.
    const scheduled = await b.app.kvsChannelSweeper!.runNow();
    expect(scheduled?.deleted).toEqual([]);
  });
});

describe('start-up checks', () => {
  it('refuses AWS mode without a valid AWS_ROLE_ARN', async () => {
    const base = testConfig();
    const aws = { ...base.aws, kvsEndpoint: 'https://kinesisvideo.ap-northeast-1.amazonaws.com' };
    const db = {} as Db; // never reached
    await expect(buildApp({ config: { ...base, aws }, db, logger: false })).rejects.toThrow(
      /needs AWS_ROLE_ARN/,
    );
    await expect(
      buildApp({ config: { ...base, aws: { ...aws, roleArn: 'arn:aws:iam::1:user/x' } }, db, logger: false }),
    ).rejects.toThrow(/AWS_ROLE_ARN must be an IAM role ARN/);
    await expect(
      buildApp({
        config: { ...base, aws: { ...base.aws, s3Endpoint: 'https://s3.ap-northeast-1.amazonaws.com' } },
        db,
        logger: false,
      }),
    ).rejects.toThrow(/needs AWS_ROLE_ARN/);
  });
});
