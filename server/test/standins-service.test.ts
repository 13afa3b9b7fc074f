import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createHmac, randomBytes } from 'node:crypto';
import { UploadPartCommand } from '@aws-sdk/client-s3';
import { AssumeRoleCommand, STSClient } from '@aws-sdk/client-sts';
import {
  GetIceServerConfigCommand,
  KinesisVideoSignalingClient,
} from '@aws-sdk/client-kinesis-video-signaling';
import { DescribeSignalingChannelCommand, KinesisVideoClient } from '@aws-sdk/client-kinesis-video';
import type { FastifyInstance } from 'fastify';
import { WebSocket } from 'ws';
import type { Matching, MatchingResult, SignalingChannel } from '../../contract/matching';
import type { OnetimeUriResult, RecordingCredentials, RecordingEndResult } from '../../contract/recording';
import type { HeadShotResult, TesterDetail } from '../../contract/tester';
import { sessionPolicy } from '../src/lib/aws/session-policy';
import type { TemporaryCredentials } from '../src/lib/credentials';
import { buildStandinsApp, loadStandinsSettings, type StandinsSettings } from '../src/standins/service';
import { build, envelope, injectAs, loginAs, type TestServer } from './helper';
import { b64, rawConnect, signedUrl, waitFor } from './standins/kvs-helpers';
import { browserS3Client } from './browser-s3';

/**
 * The stand-ins as a service of their own (`npm run standins`) with two app instances on one database, each
 * reaching it exactly as it would reach AWS (KVS_ENDPOINT, S3_ENDPOINT, STS_ENDPOINT, the server key pair as
 * its AWS credentials): an examinee on instance A and a checker on instance B meet on one signaling channel,
 * get TURN servers from GetIceServerConfig, and an image or a recording stored through one instance is
 * served by the other.
 */

const REGION = 'ap-northeast-1';
const ROLE = 'arn:aws:iam::000000000000:role/proctor-browser';
const TURN_SECRET = 'turn-shared-secret';
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC',
  'base64',
);

let standins: FastifyInstance;
let settings: StandinsSettings;
let base: string;
let dataDir: string;
let a: TestServer;
let b: TestServer;
const savedEnv = { ...process.env };
const tokens = new Map<string, string>();

async function token(s: TestServer, loginId: string): Promise<string> {
  const k = `${s === a ? 'a' : 'b'}:${loginId}`;
  let t = tokens.get(k);
  if (!t) {
    t = await loginAs(s.app, loginId);
    tokens.set(k, t);
  }
  return t;
}

async function call<T>(
  s: TestServer,
  loginId: string,
  method: 'GET' | 'POST',
  url: string,
  payload?: object,
) {
  const res = await injectAs(s.app, await token(s, loginId), {
    method,
    url: `/api/v1${url}`,
    ...(payload ? { payload } : {}),
  });
  expect(res.statusCode, res.body).toBe(200);
  return envelope<T>(res).result;
}

function credsOf(ch: SignalingChannel): TemporaryCredentials {
  return {
    accessKeyId: ch.access_key_id,
    secretAccessKey: ch.secret_access_key,
    sessionToken: ch.session_token,
    expiration: new Date(ch.expiration),
  };
}

beforeAll(async () => {
  (globalThis as { WebSocket?: unknown }).WebSocket = WebSocket;
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'standins-service-'));
  const env = {
    STANDINS_DATA_DIR: dataDir,
    STANDINS_PORT: '0',
    KVS_REGION: REGION,
    TURN_URLS: 'turn:127.0.0.1:3478?transport=udp',
    TURN_SECRET,
    LOG_LEVEL: 'silent',
  };
  settings = loadStandinsSettings(env);
  standins = await buildStandinsApp(settings, env);
  await standins.listen({ host: '127.0.0.1', port: 0 });
  base = `http://127.0.0.1:${(standins.server.address() as AddressInfo).port}`;
  settings.publicOrigin = base;
  standins.config.publicOrigin = base;
  // The app instances' AWS credentials (the SDK's default chain reads the environment first) and S3 settings.
  Object.assign(process.env, {
    AWS_ACCESS_KEY_ID: settings.server.accessKeyId,
    AWS_SECRET_ACCESS_KEY: settings.server.secretAccessKey,
    AWS_EC2_METADATA_DISABLED: 'true',
    S3_ENDPOINT: `${base}/s3`,
    S3_PUBLIC_ENDPOINT: `${base}/s3`,
    S3_FORCE_PATH_STYLE: '1',
    // Both instances look for recordings to complete every 100 ms, so they race for the same one below.
    RECORDING_FINALIZE_TICK_MS: '100',
  });
  delete process.env.AWS_SESSION_TOKEN;
  delete process.env.AWS_PROFILE;
  const aws = {
    kvsEndpoint: `${base}/kvs`,
    kvsPublicEndpoint: `${base}/kvs`,
    s3Endpoint: `${base}/s3`,
    kvsRegion: REGION,
    roleArn: ROLE,
    stsRegion: REGION,
    stsEndpoint: `${base}/sts`,
  };
  a = await build({ aws });
  b = await build({ aws }, { sameDatabaseAs: a });
});

afterAll(async () => {
  await b?.close();
  await a?.close();
  await standins?.close();
  process.env = savedEnv;
  await rm(dataDir, { recursive: true, force: true });
});

describe('the stand-ins as a service of their own', () => {
  it('mounts no stand-in in the app instances: they use it as AWS', () => {
    for (const s of [a, b]) {
      expect(s.app.kvs).toBeNull();
      expect(s.app.s3local).toBeNull();
      expect(s.app.localCredentials).toBeNull();
      expect(s.app.kvsControl).not.toBeNull();
    }
  });

  it("lets browsers reach the stand-ins' public endpoints under the Content-Security-Policy", async () => {
    const res = await a.app.inject({ method: 'GET', url: '/config.json' });
    const csp = String(res.headers['content-security-policy']);
    const directive = (name: string) => csp.split('; ').find((d) => d.startsWith(`${name} `)) ?? '';
    expect(directive('connect-src').split(' ')).toEqual(
      expect.arrayContaining(["'self'", base, base.replace(/^http/, 'ws')]),
    );
    expect(directive('img-src').split(' ')).toContain(base);
    expect(directive('media-src').split(' ')).toContain(base);
  });

  it('puts an examinee on A and its checker on B on one channel of the one signaling hub, with TURN', async () => {
    await call<MatchingResult>(b, 'checker01', 'POST', '/matching.php', {});
    const master = (
      await call<MatchingResult>(a, 'tester01', 'POST', '/matching.php', { channel_status: 'close' })
    ).matchings[0]!.signaling_channel!;
    // The browser is told where KVS is (not AWS's own endpoint).
    expect(master.endpoint).toBe(`${base}/kvs`);
    const viewerMatching = await waitFor(
      async () =>
        (await call<MatchingResult>(b, 'checker01', 'POST', '/matching.php', {})).matchings.find(
          (m: Matching) => m.signaling_channel?.channel_name === master.channel_name,
        ),
      5000,
      'the checker on B to be matched',
    );
    const viewer = viewerMatching.signaling_channel!;
    expect(viewer.access_key_id).not.toBe(master.access_key_id);

    const kvsClient = (ch: SignalingChannel) =>
      new KinesisVideoClient({
        region: REGION,
        endpoint: ch.endpoint,
        credentials: credsOf(ch),
        maxAttempts: 1,
      });
    const described = await kvsClient(master).send(
      new DescribeSignalingChannelCommand({ ChannelName: master.channel_name }),
    );
    const arn = described.ChannelInfo!.ChannelARN!;

    // Master on the examinee's credentials (issued through A), viewer on the checker's (through B).
    const m = await rawConnect(await signedUrl(base, 'master', arn, credsOf(master), undefined, REGION));
    const clientId = viewerMatching.viewer_client_id ?? 'checker-1';
    const v = await rawConnect(await signedUrl(base, 'viewer', arn, credsOf(viewer), clientId, REGION));
    expect(m.ok && v.ok).toBe(true);
    if (!m.ok || !v.ok) return;
    v.socket.send(
      JSON.stringify({ action: 'SDP_OFFER', messagePayload: b64({ type: 'offer', sdp: 'v=0' }) }),
    );
    await waitFor(() => m.frames.length > 0, 3000, 'the offer to reach the master');
    expect(JSON.parse(m.frames[0]!.text)).toMatchObject({
      messageType: 'SDP_OFFER',
      senderClientId: clientId,
    });
    m.socket.close();
    v.socket.close();

    // A viewer credential is no master credential, as its STS session policy says.
    const wrong = await rawConnect(await signedUrl(base, 'master', arn, credsOf(viewer), undefined, REGION));
    expect(wrong).toMatchObject({ ok: false, status: 401 });

    // GetIceServerConfig: the TURN server with credentials coturn checks (use-auth-secret).
    const ice = await new KinesisVideoSignalingClient({
      region: REGION,
      endpoint: `${base}/kvs-data`,
      credentials: credsOf(viewer),
      maxAttempts: 1,
    }).send(new GetIceServerConfigCommand({ ChannelARN: arn, ClientId: clientId }));
    const turn = ice.IceServerList![0]!;
    expect(turn.Uris).toEqual(['turn:127.0.0.1:3478?transport=udp']);
    expect(turn.Password).toBe(createHmac('sha1', TURN_SECRET).update(turn.Username!).digest('base64'));
  });

  it('serves an image stored through A from B, by a presigned URL of the shared store', async () => {
    const up = await call<{ url: string }>(a, 'tester02', 'POST', '/tester/head_shot.php', {
      image: PNG.toString('base64'),
      content_type: 'image/png',
    });
    expect(up.url.startsWith(`${base}/s3/recordings/images/head_shot/`)).toBe(true);
    const fromB = await call<HeadShotResult>(
      b,
      'sysadmin01',
      'GET',
      `/tester/head_shot.php?tester_id=${await testerId('tester02')}`,
    );
    expect(fromB.url).not.toBeNull();
    const res = await fetch(fromB.url!);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);
    const detail = await call<TesterDetail>(
      b,
      'sysadmin01',
      'GET',
      `/tester/detail.php?tester_id=${await testerId('tester02')}`,
    );
    expect(detail.head_shot_uri).toMatch(new RegExp(`^${base}/s3/`));
  });

  it('records through A with STS credentials and completes and plays the recording through B', async () => {
    const c = await call<RecordingCredentials>(a, 'tester03', 'POST', '/tester/recording.php', {
      method: 'PUT',
      mime_type: 'video/webm',
    });
    expect(c.endpoint).toBe(`${base}/s3`);
    const body = randomBytes(64 * 1024);
    const s3 = browserS3Client(c);
    const part = await s3.send(
      new UploadPartCommand({
        Bucket: c.bucket,
        Key: c.key,
        UploadId: c.uploadId,
        PartNumber: 1,
        Body: body,
      }),
    );
    // Scoped to its one key: another key is refused.
    await expect(
      s3.send(
        new UploadPartCommand({
          Bucket: c.bucket,
          Key: `${c.key}x`,
          UploadId: c.uploadId,
          PartNumber: 1,
          Body: body,
        }),
      ),
    ).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });
    const end = await call<RecordingEndResult>(b, 'tester03', 'POST', '/tester/recording.php', {
      method: 'DELETE',
      record_id: c.record_id,
      parts: [{ PartNumber: 1, ETag: part.ETag }],
    });
    expect(end).toMatchObject({ completed: true, part_count: 1, size: body.length });
    const play = await call<OnetimeUriResult>(
      b,
      'sysadmin01',
      'GET',
      `/get_onetime_uri.php?record_id=${c.record_id}`,
    );
    const got = await fetch(play.url, { headers: { range: 'bytes=0-15' } });
    expect(got.status).toBe(206);
    expect(Buffer.from(await got.arrayBuffer()).equals(body.subarray(0, 16))).toBe(true);
  });

  it('completes a recording whose sitting ended without its page once, though both instances try', async () => {
    const c = await call<RecordingCredentials>(a, 'tester04', 'POST', '/tester/recording.php', {
      method: 'PUT',
      mime_type: 'video/webm',
    });
    const body = randomBytes(32 * 1024);
    const s3 = browserS3Client(c);
    await s3.send(
      new UploadPartCommand({
        Bucket: c.bucket,
        Key: c.key,
        UploadId: c.uploadId,
        PartNumber: 1,
        Body: body,
      }),
    );
    // The page never ends it (its window was closed): the server's completion is due now.
    await a.db.query(`UPDATE records SET finalize_at = now(), finalize_reason = 'abandoned' WHERE id = $1`, [
      c.record_id,
    ]);
    const done = await waitFor(
      async () =>
        (
          await a.db.query<{ stop_at: unknown; part_count: number; size_bytes: number }>(
            `SELECT stop_at, part_count, size_bytes FROM records WHERE id = $1 AND stop_at IS NOT NULL`,
            [c.record_id],
          )
        ).rows[0],
      10_000,
      'the server to complete the recording',
    );
    expect(done).toMatchObject({ part_count: 1, size_bytes: body.length });
    const logs = await a.db.query<{ detail: string }>(
      `SELECT detail FROM record_status_logs WHERE record_id = $1 AND detail LIKE 'completed by the server%'`,
      [c.record_id],
    );
    expect(logs.rows).toHaveLength(1);
  });

  it('sweeps signaling channels once per interval across instances', async () => {
    const reports = await Promise.all([a.app.kvsChannelSweeper!.runNow(), b.app.kvsChannelSweeper!.runNow()]);
    expect(reports.filter((r) => r !== null)).toHaveLength(1);
    const runs = await a.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM scheduler_runs WHERE job = 'kvs_channel_sweep' AND finished_at IS NOT NULL`,
    );
    expect(runs.rows[0]!.n).toBe(1);
  });

  it("refuses AssumeRole to anyone but the servers' key, for another role, or for more than one resource", async () => {
    const sts = (creds: { accessKeyId: string; secretAccessKey: string }) =>
      new STSClient({ region: REGION, endpoint: `${base}/sts`, credentials: { ...creds }, maxAttempts: 1 });
    const policy = sessionPolicy({ kind: 'kvs', channelName: 'exam-1-abc', role: 'viewer' }, REGION, {
      partition: 'aws',
      account: '000000000000',
    });
    const ok = await sts(settings.server).send(
      new AssumeRoleCommand({ RoleArn: ROLE, RoleSessionName: 'kvs-viewer-exam-1-abc', Policy: policy }),
    );
    expect(ok.Credentials?.AccessKeyId).toMatch(/^ASIALOCAL/);
    expect(ok.AssumedRoleUser?.Arn).toBe(
      'arn:aws:sts::000000000000:assumed-role/proctor-browser/kvs-viewer-exam-1-abc',
    );
    const refused = (p: Promise<unknown>) =>
      p.then(
        () => 'accepted',
        (e: { name?: string }) => e.name,
      );
    expect(
      await refused(
        sts({ accessKeyId: settings.server.accessKeyId, secretAccessKey: 'wrong' }).send(
          new AssumeRoleCommand({ RoleArn: ROLE, RoleSessionName: 'x1', Policy: policy }),
        ),
      ),
    ).toBe('SignatureDoesNotMatch');
    expect(
      await refused(
        sts({ accessKeyId: 'AKIAOTHER', secretAccessKey: 'x' }).send(
          new AssumeRoleCommand({ RoleArn: ROLE, RoleSessionName: 'x1', Policy: policy }),
        ),
      ),
    ).toBe('InvalidClientTokenId');
    expect(
      await refused(
        sts(settings.server).send(
          new AssumeRoleCommand({
            RoleArn: 'arn:aws:iam::000000000000:role/admin',
            RoleSessionName: 'x1',
            Policy: policy,
          }),
        ),
      ),
    ).toBe('AccessDenied');
    const broad = JSON.stringify({
      Version: '2012-10-17',
      Statement: [{ Effect: 'Allow', Action: ['s3:PutObject'], Resource: 'arn:aws:s3:::recordings/*' }],
    });
    for (const Policy of [broad, undefined]) {
      expect(
        await refused(
          sts(settings.server).send(new AssumeRoleCommand({ RoleArn: ROLE, RoleSessionName: 'x1', Policy })),
        ),
      ).toMatch(/^MalformedPolicyDocument/);
    }
  });

  it('honours the credentials and channels it issued before a restart, and still refuses forged ones', async () => {
    const master = (
      await call<MatchingResult>(a, 'tester07', 'POST', '/matching.php', { channel_status: 'close' })
    ).matchings[0]!.signaling_channel!;
    const describe = (creds: TemporaryCredentials) =>
      new KinesisVideoClient({
        region: REGION,
        endpoint: master.endpoint,
        credentials: creds,
        maxAttempts: 1,
      }).send(new DescribeSignalingChannelCommand({ ChannelName: master.channel_name }));
    const arn = (await describe(credsOf(master))).ChannelInfo!.ChannelARN!;

    // The service restarts on its data directory (same port: the instances and browsers know only that).
    const port = (standins.server.address() as AddressInfo).port;
    await standins.close();
    const env = { STANDINS_DATA_DIR: dataDir, KVS_REGION: REGION, LOG_LEVEL: 'silent' };
    standins = await buildStandinsApp({ ...loadStandinsSettings(env), publicOrigin: base }, env);
    await standins.listen({ host: '127.0.0.1', port });

    // The browser's credentials from before work on the channel from before: HTTP and the WebSocket.
    expect((await describe(credsOf(master))).ChannelInfo!.ChannelARN).toBe(arn);
    const m = await rawConnect(await signedUrl(base, 'master', arn, credsOf(master), undefined, REGION));
    expect(m.ok).toBe(true);
    if (m.ok) m.socket.close();
    // A reconnect through the other instance hands out those same credentials (shared, still good).
    const res = await injectAs(b.app, await token(a, 'tester07'), {
      method: 'GET',
      url: '/api/v1/kvs_reconnect.php',
    });
    const again = envelope<Matching>(res).result.signaling_channel!;
    expect(again.access_key_id).toBe(master.access_key_id);

    // Forged: a wrong secret, a session token with its scope changed, another credential's token.
    await expect(
      describe({
        ...credsOf(master),
        secretAccessKey: master.secret_access_key.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')),
      }),
    ).rejects.toThrow();
    const [version, payload, mac] = master.session_token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as {
      s: { role: string };
    };
    claims.s.role = 'viewer';
    const forged = `${version}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${mac}`;
    await expect(describe({ ...credsOf(master), sessionToken: forged })).rejects.toThrow();
    const viewerWs = await rawConnect(
      await signedUrl(base, 'viewer', arn, { ...credsOf(master), sessionToken: forged }, 'x-1', REGION),
    );
    expect(viewerWs).toMatchObject({ ok: false, status: 401 });
  });

  it('keeps its key pair across restarts (generated once into its data directory)', () => {
    const again = loadStandinsSettings({ STANDINS_DATA_DIR: dataDir });
    expect(again.server).toEqual(settings.server);
    expect(again.secretsFile).toBe(path.join(dataDir, 'secrets.json'));
  });
});

async function testerId(loginId: string): Promise<number> {
  const { rows } = await a.db.query<{ id: number }>(`SELECT id FROM users WHERE login_id = $1`, [loginId]);
  return Number(rows[0]!.id);
}
