import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CreateSignalingChannelCommand,
  DeleteSignalingChannelCommand,
  DescribeMediaStorageConfigurationCommand,
  DescribeSignalingChannelCommand,
  GetSignalingChannelEndpointCommand,
  ListSignalingChannelsCommand,
} from '@aws-sdk/client-kinesis-video';
import { GetIceServerConfigCommand } from '@aws-sdk/client-kinesis-video-signaling';
import { WebSocket } from 'ws';
import { SignatureV4 } from '@smithy/signature-v4';
import { NodeSha256 } from '../../src/lib/aws/sigv4-verify';
import type { TemporaryCredentials } from '../../src/lib/credentials';
import type { KvsChannelRef } from '../../src/standins/kvs/channels';
import { loadKvsSettings } from '../../src/standins/kvs/settings';
import {
  REGION,
  b64,
  controlClient,
  dataClient,
  eventsOf,
  openClient,
  rawConnect,
  signalingClient,
  signedUrl,
  startKvsServer,
  waitFor,
  type KvsTestServer,
  type Recorded,
} from './kvs-helpers';

let srv: KvsTestServer;
const open: Recorded[] = [];

function kvs() {
  const k = srv.app.kvs;
  if (!k) throw new Error('stand-in is off');
  return k;
}

/** A channel on the stand-in with a master credential (`creds`) and a viewer credential for it. */
type TestChannel = KvsChannelRef & { creds: TemporaryCredentials; viewerCreds: TemporaryCredentials };

async function channel(name: string): Promise<TestChannel> {
  const ref = kvs().ensureChannel(name);
  return {
    ...ref,
    creds: await srv.issuer.issue({ kind: 'kvs', channelName: name, role: 'master' }, 900),
    viewerCreds: await srv.issuer.issue({ kind: 'kvs', channelName: name, role: 'viewer' }, 900),
  };
}

/** Connects as the MASTER (no clientId, master credential) or as a VIEWER (viewer credential). */
async function connect(ch: TestChannel, clientId?: string): Promise<Recorded> {
  const creds = clientId === undefined ? ch.creds : ch.viewerCreds;
  const rec = await openClient(signalingClient(srv.base, ch.channelArn, creds, clientId));
  open.push(rec);
  return rec;
}

/** The control-plane client with the stand-in's server key pair (what a server in AWS mode signs with). */
function serverClient() {
  return controlClient(srv.base, kvs().settings.serverCredentials);
}

/** The AWS error a rejected SDK call threw, or null when it succeeded. */
async function sdkError(
  p: Promise<unknown>,
): Promise<{ name: string; status: number; message: string } | null> {
  return p.then(
    () => null,
    (e: unknown) => {
      const err = e as { name: string; message: string; $metadata?: { httpStatusCode?: number } };
      return { name: err.name, status: err.$metadata?.httpStatusCode ?? 0, message: err.message };
    },
  );
}

function state(name: string) {
  const s = kvs()
    .state()
    .find((c) => c.channelName === name);
  if (!s) throw new Error(`no channel ${name}`);
  return s;
}

async function hook(path: string, body?: unknown): Promise<Response> {
  return fetch(`${srv.base}/__kvs/${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** Sends a message through the master and a viewer and waits for both to arrive: proves earlier frames are through. */
async function roundTrip(master: Recorded, viewer: Recorded, viewerId: string): Promise<void> {
  const offers = eventsOf(master, 'sdpOffer').length;
  const answers = eventsOf(viewer, 'sdpAnswer').length;
  viewer.client.sendSdpOffer({ type: 'offer', sdp: 'sync' });
  master.client.sendSdpAnswer({ type: 'answer', sdp: 'sync' }, viewerId);
  await waitFor(
    () => eventsOf(master, 'sdpOffer').length > offers && eventsOf(viewer, 'sdpAnswer').length > answers,
    3000,
    'sync',
  );
}

beforeAll(async () => {
  (globalThis as { WebSocket?: unknown }).WebSocket = WebSocket; // §1.5: Node 20 has no global WebSocket.
  srv = await startKvsServer();
});

afterAll(async () => {
  for (const r of open) r.client.close();
  await srv.close();
});

describe('control plane and HTTPS data plane, through the real AWS SDK clients', () => {
  it('describes a channel by name and ARN, returns only the requested endpoints, and no ICE servers', async () => {
    const ch = await channel('exam-cp');
    const client = controlClient(srv.base, ch.creds);

    const byName = await client.send(new DescribeSignalingChannelCommand({ ChannelName: 'exam-cp' }));
    expect(byName.ChannelInfo).toMatchObject({
      ChannelName: 'exam-cp',
      ChannelARN: ch.channelArn,
      ChannelType: 'SINGLE_MASTER',
      ChannelStatus: 'ACTIVE',
      SingleMasterConfiguration: { MessageTtlSeconds: 60 },
    });
    expect(ch.channelArn).toMatch(/^arn:aws:kinesisvideo:us-east-1:000000000000:channel\/exam-cp\/\d{13}$/);
    expect(byName.ChannelInfo?.CreationTime).toBeInstanceOf(Date);
    const byArn = await client.send(new DescribeSignalingChannelCommand({ ChannelARN: ch.channelArn }));
    expect(byArn.ChannelInfo?.ChannelName).toBe('exam-cp');

    const master = await client.send(
      new GetSignalingChannelEndpointCommand({
        ChannelARN: ch.channelArn,
        SingleMasterChannelEndpointConfiguration: { Protocols: ['WSS', 'HTTPS'], Role: 'MASTER' },
      }),
    );
    const host = srv.base.slice('http://'.length);
    expect(master.ResourceEndpointList).toEqual([
      { Protocol: 'WSS', ResourceEndpoint: `ws://${host}/kvs-ws/master` },
      { Protocol: 'HTTPS', ResourceEndpoint: `http://${host}/kvs-data` },
    ]);
    const viewer = await client.send(
      new GetSignalingChannelEndpointCommand({
        ChannelARN: ch.channelArn,
        SingleMasterChannelEndpointConfiguration: { Protocols: ['WSS'], Role: 'VIEWER' },
      }),
    );
    expect(viewer.ResourceEndpointList).toEqual([
      { Protocol: 'WSS', ResourceEndpoint: `ws://${host}/kvs-ws/viewer` },
    ]);

    // Not in the browser's session policy: only the server key may ask.
    const denied = await client
      .send(new DescribeMediaStorageConfigurationCommand({ ChannelARN: ch.channelArn }))
      .then(
        () => null,
        (e: unknown) => e as { name: string; $metadata: { httpStatusCode: number } },
      );
    expect(denied?.name).toBe('AccessDeniedException');
    expect(denied?.$metadata.httpStatusCode).toBe(401);
    const storage = await serverClient().send(
      new DescribeMediaStorageConfigurationCommand({ ChannelARN: ch.channelArn }),
    );
    expect(storage.MediaStorageConfiguration?.Status).toBe('DISABLED');

    const ice = await dataClient(`http://${host}/kvs-data`, ch.creds).send(
      new GetIceServerConfigCommand({ ChannelARN: ch.channelArn, ClientId: 'proctor-1' }),
    );
    expect(ice.IceServerList).toEqual([]);
  });

  it('answers AWS-shaped errors: unknown channel 404, expired / foreign / S3 credentials 401', async () => {
    const ch = await channel('exam-err');
    const ghostCreds = await srv.issuer.issue(
      { kind: 'kvs', channelName: 'exam-ghost', role: 'viewer' },
      900,
    );
    const expect4xx = async (
      creds: TemporaryCredentials,
      input: { ChannelName?: string; ChannelARN?: string },
      name: string,
      status: number,
    ) => {
      const err = (await controlClient(srv.base, creds)
        .send(new DescribeSignalingChannelCommand(input))
        .then(
          () => null,
          (e: unknown) => e,
        )) as { name: string; $metadata: { httpStatusCode: number }; message: string } | null;
      expect(err?.name, JSON.stringify(input)).toBe(name);
      expect(err?.$metadata.httpStatusCode).toBe(status);
    };
    await expect4xx(ghostCreds, { ChannelName: 'exam-ghost' }, 'ResourceNotFoundException', 404);
    // A stale ARN (same name, other creation time) is not the channel either.
    await expect4xx(
      ch.creds,
      { ChannelARN: ch.channelArn.replace(/\/\d+$/, '/1') },
      'ResourceNotFoundException',
      404,
    );
    await expect4xx(ghostCreds, { ChannelName: 'exam-err' }, 'NotAuthorizedException', 401);
    const s3Creds = await srv.issuer.issue({ kind: 's3', bucket: 'b', key: 'k' }, 900);
    await expect4xx(s3Creds, { ChannelName: 'exam-err' }, 'NotAuthorizedException', 401);
    await expect4xx(
      { ...ch.creds, sessionToken: 'forged' },
      { ChannelName: 'exam-err' },
      'NotAuthorizedException',
      401,
    );
    await expect4xx(ch.creds, {}, 'InvalidArgumentException', 400);

    const expiring = await srv.issuer.issue({ kind: 'kvs', channelName: 'exam-err', role: 'master' }, 900);
    await controlClient(srv.base, expiring).send(
      new DescribeSignalingChannelCommand({ ChannelName: 'exam-err' }),
    );
    const res = await hook('expire', { accessKeyId: expiring.accessKeyId });
    expect(await res.json()).toEqual({ expired: true });
    await expect4xx(expiring, { ChannelName: 'exam-err' }, 'NotAuthorizedException', 401);

    // Raw responses carry the header and body the SDK parsed above.
    const raw = await fetch(`${srv.base}/kvs/describeSignalingChannel`, {
      method: 'POST',
      body: '{"ChannelName":"exam-err"}',
    });
    expect(raw.status).toBe(401);
    expect(raw.headers.get('x-amzn-errortype')).toBe('NotAuthorizedException');
    expect(raw.headers.get('x-amzn-requestid')).toBeTruthy();
    expect(await raw.json()).toHaveProperty('Message');
  });

  it('accepts a signed body with no or another content type, and refuses a wrong secret, unsigned token or old date', async () => {
    const ch = await channel('exam-ctype');
    const host = new URL(srv.base).host;
    /** Headers of a describeSignalingChannel call signed with `creds` (what the SDK sends, any content type). */
    const signed = async (
      body: string,
      creds: TemporaryCredentials,
      contentType?: string,
      date = new Date(),
    ): Promise<Record<string, string>> => {
      const signer = new SignatureV4({
        credentials: creds,
        region: REGION,
        service: 'kinesisvideo',
        sha256: NodeSha256,
      });
      const headers: Record<string, string> = { host };
      if (contentType) headers['content-type'] = contentType;
      const r = await signer.sign(
        {
          method: 'POST',
          protocol: 'http:',
          hostname: host.split(':')[0]!,
          port: Number(host.split(':')[1]),
          path: '/kvs/describeSignalingChannel',
          headers,
          body,
        },
        { signingDate: date },
      );
      const out: Record<string, string> = {};
      for (const [k, v] of Object.entries(r.headers)) if (k !== 'host') out[k] = String(v);
      return out;
    };
    const call = (headers: Record<string, string>, body: string) =>
      fetch(`${srv.base}/kvs/describeSignalingChannel`, { method: 'POST', headers, body });
    const body = JSON.stringify({ ChannelName: 'exam-ctype' });
    for (const contentType of [undefined, 'text/plain', 'application/x-amz-json-1.1']) {
      const res = await call(await signed(body, ch.creds, contentType), body);
      expect(res.status, String(contentType)).toBe(200);
      expect(((await res.json()) as { ChannelInfo: { ChannelARN: string } }).ChannelInfo.ChannelARN).toBe(
        ch.channelArn,
      );
    }
    const bad = await call(await signed('{not json', ch.creds), '{not json');
    expect(bad.status).toBe(400);
    expect(bad.headers.get('x-amzn-errortype')).toBe('InvalidArgumentException');
    // The key id and session token without the secret (e.g. read from a log) are not enough.
    const forged = await call(await signed(body, { ...ch.creds, secretAccessKey: 'not-the-secret' }), body);
    expect(forged.status).toBe(401);
    expect(forged.headers.get('x-amzn-errortype')).toBe('NotAuthorizedException');
    const zero = await signed(body, ch.creds);
    zero.authorization = zero.authorization!.replace(/Signature=[0-9a-f]{64}/, `Signature=${'0'.repeat(64)}`);
    expect((await call(zero, body)).status).toBe(401);
    // A changed body no longer matches its signature.
    expect((await call(await signed(body, ch.creds), body.replace('ctype', 'other'))).status).toBe(401);
    // A date outside ±15 min is refused.
    const stale = await call(
      await signed(body, ch.creds, undefined, new Date(Date.now() - 20 * 60_000)),
      body,
    );
    expect(stale.headers.get('x-amzn-errortype')).toBe('NotAuthorizedException');
    // Through the SDK too: a wrong secret is NotAuthorizedException.
    const sdk = await controlClient(srv.base, { ...ch.creds, secretAccessKey: 'wrong' })
      .send(new DescribeSignalingChannelCommand({ ChannelName: 'exam-ctype' }))
      .then(
        () => 'ok',
        (e: unknown) => (e as { name: string }).name,
      );
    expect(sdk).toBe('NotAuthorizedException');
  });

  it('answers CORS preflights by reflecting the requested headers', async () => {
    const res = await fetch(`${srv.base}/kvs/describeSignalingChannel`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers':
          'authorization,content-type,x-amz-date,x-amz-security-token,x-amz-user-agent,amz-sdk-invocation-id',
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:5173');
    expect(res.headers.get('access-control-allow-methods')).toContain('POST');
    expect(res.headers.get('access-control-allow-headers')).toBe(
      'authorization,content-type,x-amz-date,x-amz-security-token,x-amz-user-agent,amz-sdk-invocation-id',
    );
    const post = await fetch(`${srv.base}/kvs-data/v1/get-ice-server-config`, {
      method: 'POST',
      headers: { origin: 'http://localhost:5173' },
    });
    expect(post.headers.get('access-control-expose-headers')).toBe('x-amzn-requestid, x-amzn-errortype');
  });
});

describe('signaling WebSocket, through the real SignalingClient', () => {
  const offer = { type: 'offer', sdp: 'v=0\r\no=- 1 2 IN IP4 127.0.0.1\r\n' };
  const answer = { type: 'answer', sdp: 'v=0\r\no=- 3 4 IN IP4 127.0.0.1\r\n' };
  const candidate = (n: number) => ({
    candidate: `candidate:${n} 1 udp 2122260223 127.0.0.1 4141${n} typ host`,
    sdpMid: '0',
    sdpMLineIndex: 0,
  });

  it('relays offer, answer and ICE with the sender rules, and never viewer to viewer', async () => {
    const ch = await channel('exam-relay');
    const master = await connect(ch);
    const v1 = await connect(ch, 'proctor-1');
    const v2 = await connect(ch, 'proctor-2');

    v1.client.sendSdpOffer(offer);
    v1.client.sendIceCandidate(candidate(1));
    await waitFor(() => eventsOf(master, 'iceCandidate').length === 1, 3000, 'viewer ICE at master');
    expect(eventsOf(master, 'sdpOffer')).toEqual([[offer, 'proctor-1']]);
    expect(eventsOf(master, 'iceCandidate')).toEqual([[candidate(1), 'proctor-1']]);

    master.client.sendSdpAnswer(answer, 'proctor-1');
    master.client.sendIceCandidate(candidate(2), 'proctor-1');
    await waitFor(() => eventsOf(v1, 'iceCandidate').length === 1, 3000, 'master ICE at viewer');
    // The master is the sender when senderClientId is absent (§1.2).
    expect(eventsOf(v1, 'sdpAnswer')).toEqual([[answer, undefined]]);
    expect(eventsOf(v1, 'iceCandidate')).toEqual([[candidate(2), undefined]]);

    await roundTrip(master, v2, 'proctor-2');
    expect(eventsOf(v2, 'sdpOffer')).toEqual([]);
    expect(eventsOf(v2, 'iceCandidate')).toEqual([]);
    expect(eventsOf(v2, 'sdpAnswer')).toHaveLength(1); // only its own round trip
    expect(state('exam-relay')).toMatchObject({
      master: expect.any(Object),
      viewers: [{ clientId: 'proctor-1' }, { clientId: 'proctor-2' }],
      counters: { relayed: { SDP_OFFER: 2, SDP_ANSWER: 2, ICE_CANDIDATE: 2 }, rejected: 0 },
    });
    const res = await hook('state');
    const body = (await res.json()) as { channels: { channelName: string; viewers: unknown[] }[] };
    expect(body.channels.find((c) => c.channelName === 'exam-relay')?.viewers).toHaveLength(2);
  });

  it('answers STATUS_RESPONSE for a bad message with a correlationId, drops it silently without one, and rejects payloads > 10K', async () => {
    const ch = await channel('exam-status');
    const master = await connect(ch);
    const viewer = await connect(ch, 'proctor-1');

    // The SDK does not check that a master names a recipient; the service does.
    master.client.sendSdpAnswer(answer, undefined, 'c-1');
    const [[status]] = (await waitFor(
      () => eventsOf(master, 'statusResponse').length && eventsOf(master, 'statusResponse'),
    )) as [[unknown]];
    expect(status).toEqual({
      correlationId: 'c-1',
      errorType: 'InvalidArgumentException',
      statusCode: '400',
      success: false,
      description: expect.any(String),
    });

    master.client.sendSdpAnswer(answer); // no correlationId: silent
    viewer.client.sendSdpOffer({ type: 'offer', sdp: 'x'.repeat(8000) }, undefined, 'big-1');
    await waitFor(() => eventsOf(viewer, 'statusResponse').length === 1, 3000, 'status for big payload');
    expect(eventsOf(viewer, 'statusResponse')[0]?.[0]).toMatchObject({
      correlationId: 'big-1',
      success: false,
      statusCode: '400',
    });
    // 10,000 characters exactly still pass.
    const exact = { type: 'offer', sdp: '' };
    exact.sdp = 'y'.repeat((10_000 / 4) * 3 - JSON.stringify(exact).length);
    expect(b64(exact)).toHaveLength(10_000);
    viewer.client.sendSdpOffer(exact, undefined, 'exact-1');

    await roundTrip(master, viewer, 'proctor-1');
    expect(eventsOf(master, 'statusResponse')).toHaveLength(1);
    expect(eventsOf(master, 'sdpOffer').map((a) => (a[0] as { sdp: string }).sdp.length)).toEqual([
      exact.sdp.length,
      4,
    ]);
    expect(state('exam-status').counters).toMatchObject({ rejected: 3, statusResponses: 2 });
  });

  it('sends text frames only, ignores garbage and unknown actions without a correlationId', async () => {
    const ch = await channel('exam-raw');
    const master = await connect(ch);
    const hs = await rawConnect(await signedUrl(srv.base, 'viewer', ch.channelArn, ch.viewerCreds, 'raw-1'));
    if (!hs.ok) throw new Error(`handshake refused: ${hs.status}`);
    hs.socket.send('not json');
    hs.socket.send(JSON.stringify({ action: 'SEND_ALEXA', messagePayload: b64({}) }));
    hs.socket.send(
      JSON.stringify({ action: 'SDP_OFFER', messagePayload: 'not base64!', correlationId: 'c-2' }),
    );
    hs.socket.send(Buffer.from(JSON.stringify({ action: 'SDP_OFFER', messagePayload: b64(offer) })), {
      binary: true,
    });
    await waitFor(() => eventsOf(master, 'sdpOffer').length === 1, 3000, 'binary-sent offer relayed');
    master.client.sendSdpAnswer(answer, 'raw-1');
    await waitFor(() => hs.frames.length === 2, 3000, 'two frames at raw viewer');
    expect(hs.frames.every((f) => !f.binary)).toBe(true);
    expect(JSON.parse(hs.frames[0]?.text ?? '')).toMatchObject({
      messageType: 'STATUS_RESPONSE',
      statusResponse: { correlationId: 'c-2' },
    });
    expect(JSON.parse(hs.frames[1]?.text ?? '')).toEqual({
      messageType: 'SDP_ANSWER',
      messagePayload: b64(answer),
    });
    hs.socket.close();
  });

  it('keeps one master (the newest) and closes the old socket', async () => {
    const ch = await channel('exam-masters');
    const m1 = await connect(ch);
    const m2 = await connect(ch);
    await waitFor(() => m1.closed, 3000, 'old master closed');
    expect(m2.closed).toBe(false);
    const viewer = await connect(ch, 'proctor-1');
    viewer.client.sendSdpOffer(offer);
    await waitFor(() => eventsOf(m2, 'sdpOffer').length === 1, 3000, 'offer at new master');
    expect(eventsOf(m1, 'sdpOffer')).toEqual([]);
  });

  it('admits 10 viewers, refuses the 11th in the handshake, and lets a same-id viewer replace itself', async () => {
    const ch = await channel('exam-viewers');
    const viewers = await Promise.all(Array.from({ length: 10 }, (_, i) => connect(ch, `proctor-${i}`)));
    const eleventh = signalingClient(srv.base, ch.channelArn, ch.viewerCreds, 'proctor-10');
    await expect(openClient(eleventh)).rejects.toThrow(/400/);
    const raw = await rawConnect(
      await signedUrl(srv.base, 'viewer', ch.channelArn, ch.viewerCreds, 'proctor-10'),
    );
    expect(raw).toMatchObject({ ok: false, status: 400, errorType: 'ClientLimitExceededException' });

    const again = await connect(ch, 'proctor-3');
    await waitFor(() => viewers[3]?.closed, 3000, 'replaced viewer closed');
    expect(state('exam-viewers').viewers).toHaveLength(10);
    const master = await connect(ch);
    await roundTrip(master, again, 'proctor-3');
    expect(eventsOf(viewers[3] as Recorded, 'sdpAnswer')).toEqual([]);
  });

  it('keeps an offer sent before the master connects for the TTL, then drops late ones', async () => {
    const ch = await channel('exam-ttl');
    const viewer = await connect(ch, 'proctor-1');
    viewer.client.sendSdpOffer(offer);
    viewer.client.sendIceCandidate(candidate(1));
    await waitFor(() => state('exam-ttl').pending.master === 2, 3000, 'queued');
    const master = await connect(ch);
    await waitFor(() => eventsOf(master, 'iceCandidate').length === 1, 3000, 'queued ICE delivered');
    expect(eventsOf(master, 'sdpOffer')).toEqual([[offer, 'proctor-1']]);
    // Master → a viewer that left a moment ago waits too (it may be reconnecting after a network blip).
    const late = await connect(ch, 'proctor-late');
    late.client.close();
    await waitFor(() => !state('exam-ttl').viewers.some((v) => v.clientId === 'proctor-late'), 3000, 'left');
    master.client.sendSdpAnswer(answer, 'proctor-late');
    await waitFor(
      () => state('exam-ttl').pending['viewer:proctor-late'] === 1,
      3000,
      'queued for late viewer',
    );
    const back = await connect(ch, 'proctor-late');
    await waitFor(() => eventsOf(back, 'sdpAnswer').length === 1, 3000, 'late viewer got answer');
    // A ClientId never seen on the channel cannot make the stand-in hold anything.
    master.client.sendSdpAnswer(answer, 'made-up-recipient');
    await roundTrip(master, back, 'proctor-late');
    expect(state('exam-ttl').pending['viewer:made-up-recipient']).toBeUndefined();
    expect(state('exam-ttl').counters.dropped).toBe(1);

    const later = await connect(ch, 'proctor-later');
    later.client.close();
    await waitFor(() => !state('exam-ttl').viewers.some((v) => v.clientId === 'proctor-later'), 3000, 'left');
    await hook('timeouts', { messageTtlMs: 50 });
    try {
      master.client.sendSdpAnswer(answer, 'proctor-later');
      await waitFor(() => state('exam-ttl').counters.queued === 4, 3000, 'queued again');
      await new Promise((r) => setTimeout(r, 80));
      const again = await connect(ch, 'proctor-later');
      await roundTrip(master, again, 'proctor-later');
      expect(eventsOf(again, 'sdpAnswer')).toHaveLength(1); // only the round trip's
      expect(state('exam-ttl').counters.expired).toBe(1);
    } finally {
      await hook('timeouts', { reset: true });
    }
  });

  it('closes idle connections and connections past the maximum duration, with GO_AWAY first', async () => {
    const ch = await channel('exam-timeouts');
    const set = await hook('timeouts', { idleTimeoutMs: 150 });
    expect(((await set.json()) as { timeouts: { idleTimeoutMs: number } }).timeouts.idleTimeoutMs).toBe(150);
    try {
      const hs = await rawConnect(await signedUrl(srv.base, 'master', ch.channelArn, ch.creds));
      if (!hs.ok) throw new Error('refused');
      const sdkViewer = await connect(ch, 'proctor-idle');
      expect(await hs.closed).toBe(1000);
      expect(hs.frames).toEqual([{ text: '{"messageType":"GO_AWAY"}', binary: false }]);
      await waitFor(() => sdkViewer.closed, 3000, 'SDK sees close');

      await hook('timeouts', { idleTimeoutMs: 10_000, maxDurationMs: 250 });
      const busy = await rawConnect(await signedUrl(srv.base, 'master', ch.channelArn, ch.creds));
      if (!busy.ok) throw new Error('refused');
      const started = Date.now();
      const keepBusy = setInterval(() => busy.socket.send('{}'), 30);
      await busy.closed;
      clearInterval(keepBusy);
      expect(Date.now() - started).toBeGreaterThanOrEqual(200);
      expect(busy.frames.map((f) => f.text)).toEqual(['{"messageType":"GO_AWAY"}']);
      expect(state('exam-timeouts').counters.goAways).toBe(3);
    } finally {
      await hook('timeouts', { reset: true });
    }
  });

  it('refuses handshakes for unknown channels, bad credentials, bad signatures and bad ClientIds', async () => {
    const ch = await channel('exam-ws-auth');
    const ghost = 'arn:aws:kinesisvideo:us-east-1:000000000000:channel/exam-ws-ghost/1700000000000';
    const ghostCreds = await srv.issuer.issue(
      { kind: 'kvs', channelName: 'exam-ws-ghost', role: 'master' },
      900,
    );
    const refused = async (url: Promise<string> | string) => {
      const hs = await rawConnect(await url);
      if (hs.ok) {
        hs.socket.close();
        return { ok: true };
      }
      return { status: hs.status, errorType: hs.errorType };
    };

    expect(await refused(signedUrl(srv.base, 'master', ghost, ghostCreds))).toEqual({
      status: 404,
      errorType: 'ResourceNotFoundException',
    });
    expect(await refused(signedUrl(srv.base, 'viewer', ch.channelArn, ghostCreds, 'p'))).toEqual({
      status: 401,
      errorType: 'NotAuthorizedException',
    });
    const signed = await signedUrl(srv.base, 'master', ch.channelArn, ch.creds);
    const sig = /X-Amz-Signature=([0-9a-f]+)/.exec(signed)?.[1] ?? '';
    const tampered = signed.replace(
      sig,
      sig.replace(/^./, (c) => (c === '0' ? '1' : '0')),
    );
    expect(await refused(tampered)).toEqual({ status: 401, errorType: 'NotAuthorizedException' });
    // Signed for another path (role) than the one it is used on.
    expect(await refused(signed.replace('/kvs-ws/master', '/kvs-ws/viewer'))).toMatchObject({ status: 400 }); // no ClientId
    expect(
      await refused(signedUrl(srv.base, 'viewer', ch.channelArn, ch.viewerCreds, 'AWS_proctor')),
    ).toEqual({
      status: 400,
      errorType: 'InvalidArgumentException',
    });
    expect(
      await refused(signedUrl(srv.base, 'viewer', ch.channelArn, ch.viewerCreds, 'bad id')),
    ).toMatchObject({
      status: 400,
    });

    const expiring = await srv.issuer.issue(
      { kind: 'kvs', channelName: 'exam-ws-auth', role: 'viewer' },
      900,
    );
    const viewer = await openClient(signalingClient(srv.base, ch.channelArn, expiring, 'proctor-1'));
    open.push(viewer);
    await hook('expire', { accessKeyId: expiring.accessKeyId });
    expect(await refused(signedUrl(srv.base, 'viewer', ch.channelArn, expiring, 'proctor-2'))).toEqual({
      status: 401,
      errorType: 'NotAuthorizedException',
    });
    // The SDK sees a failed open as error + close.
    const sdk = signalingClient(srv.base, ch.channelArn, expiring, 'proctor-3');
    await expect(openClient(sdk)).rejects.toThrow(/401/);
    expect(viewer.closed).toBe(false); // like AWS, an open socket outlives its credential
    expect(await refused(signedUrl(srv.base, 'master', ch.channelArn, ch.creds))).toEqual({ ok: true });
  });

  it('kicks a master or a viewer and creates channels through the test hooks', async () => {
    const ch = await channel('exam-kick');
    const master = await connect(ch);
    const viewer = await connect(ch, 'proctor-1');
    const kickViewer = await hook('kick', {
      channelName: 'exam-kick',
      role: 'VIEWER',
      clientId: 'proctor-1',
    });
    expect(await kickViewer.json()).toEqual({ closed: 1 });
    await waitFor(() => viewer.closed, 3000, 'viewer kicked');
    expect(master.closed).toBe(false);
    await hook('kick', { channelName: 'exam-kick', role: 'MASTER' });
    await waitFor(() => master.closed, 3000, 'master kicked');
    expect(state('exam-kick')).toMatchObject({ master: null, viewers: [] });
    const bad = await hook('kick', { channelName: 'exam-kick', role: 'BOSS' });
    expect(bad.status).toBe(400);
    const created = await hook('channels', { channelName: 'exam-hook' });
    expect(await created.json()).toEqual(kvs().ensureChannel('exam-hook'));
    const badName = await hook('channels', { channelName: 'no spaces' });
    expect(badName.headers.get('x-amzn-errortype')).toBe('InvalidArgumentException');
  });
});

describe('credential roles (the STS session policy, enforced locally)', () => {
  it('refuses a viewer credential as MASTER and a master credential as VIEWER, in the handshake', async () => {
    (globalThis as { WebSocket?: unknown }).WebSocket = WebSocket;
    const ch = await channel('exam-roles');
    const asMaster = await rawConnect(await signedUrl(srv.base, 'master', ch.channelArn, ch.viewerCreds));
    expect(asMaster).toMatchObject({ ok: false, status: 401, errorType: 'AccessDeniedException' });
    if (!asMaster.ok) expect(asMaster.body).toContain('ConnectAsMaster');
    const asViewer = await rawConnect(
      await signedUrl(srv.base, 'viewer', ch.channelArn, ch.creds, 'proctor-1'),
    );
    expect(asViewer).toMatchObject({ ok: false, status: 401, errorType: 'AccessDeniedException' });
    // The real SignalingClient sees the refusal as a failed open.
    await expect(openClient(signalingClient(srv.base, ch.channelArn, ch.viewerCreds))).rejects.toThrow(/401/);
    // Each in its own role is fine.
    await connect(ch);
    await connect(ch, 'proctor-1');
    expect(state('exam-roles')).toMatchObject({
      master: expect.any(Object),
      viewers: [{ clientId: 'proctor-1' }],
    });
  });

  it('lets browser credentials describe, get endpoints and ICE servers, but not manage channels', async () => {
    const ch = await channel('exam-roles-cp');
    for (const creds of [ch.creds, ch.viewerCreds]) {
      const client = controlClient(srv.base, creds);
      await client.send(new DescribeSignalingChannelCommand({ ChannelName: ch.channelName }));
      expect(
        await sdkError(client.send(new CreateSignalingChannelCommand({ ChannelName: ch.channelName }))),
      ).toMatchObject({ name: 'AccessDeniedException', status: 401 });
      expect(
        await sdkError(client.send(new DeleteSignalingChannelCommand({ ChannelARN: ch.channelArn }))),
      ).toMatchObject({ name: 'AccessDeniedException', status: 401 });
      expect(await sdkError(client.send(new ListSignalingChannelsCommand({})))).toMatchObject({
        name: 'AccessDeniedException',
        status: 401,
      });
      // Another channel's name is not theirs at all.
      expect(
        await sdkError(client.send(new CreateSignalingChannelCommand({ ChannelName: 'exam-other' }))),
      ).toMatchObject({ name: 'NotAuthorizedException', status: 401 });
    }
    expect(kvs().find({ name: ch.channelName })).not.toBeNull();
    expect(kvs().find({ name: 'exam-other' })).toBeNull();
  });
});

describe('channel management with the server key pair, through the real SDK', () => {
  it('creates, lists, describes and deletes channels as the AWS API does', async () => {
    const client = serverClient();
    const created = await client.send(
      new CreateSignalingChannelCommand({
        ChannelName: 'mgmt-a',
        ChannelType: 'SINGLE_MASTER',
        SingleMasterConfiguration: { MessageTtlSeconds: 30 },
        Tags: [{ Key: 'product', Value: 'proctor-exam' }],
      }),
    );
    expect(created.ChannelARN).toMatch(/^arn:aws:kinesisvideo:us-east-1:000000000000:channel\/mgmt-a\/\d+$/);
    expect(kvs().find({ name: 'mgmt-a' })).toMatchObject({
      messageTtlSeconds: 30,
      tags: [{ Key: 'product', Value: 'proctor-exam' }],
    });
    expect(
      await sdkError(client.send(new CreateSignalingChannelCommand({ ChannelName: 'mgmt-a' }))),
    ).toMatchObject({
      name: 'ResourceInUseException',
      status: 400,
    });
    for (const [input, why] of [
      [{ ChannelName: 'bad name' }, 'name'],
      [{ ChannelName: 'mgmt-x', ChannelType: 'FULL_MESH' }, 'type'],
      [{ ChannelName: 'mgmt-x', SingleMasterConfiguration: { MessageTtlSeconds: 121 } }, 'ttl'],
    ] as const) {
      expect(await sdkError(client.send(new CreateSignalingChannelCommand(input))), why).toMatchObject({
        name: 'InvalidArgumentException',
      });
    }
    await client.send(new CreateSignalingChannelCommand({ ChannelName: 'mgmt-b' }));
    await client.send(new CreateSignalingChannelCommand({ ChannelName: 'mgmt-c' }));

    const described = await client.send(new DescribeSignalingChannelCommand({ ChannelName: 'mgmt-a' }));
    expect(described.ChannelInfo).toMatchObject({
      ChannelARN: created.ChannelARN,
      SingleMasterConfiguration: { MessageTtlSeconds: 30 },
      Version: expect.stringMatching(/^[0-9a-f]{20}$/),
    });

    // Pages of two, by name, only the prefix asked for.
    const names: string[] = [];
    let token: string | undefined;
    let pages = 0;
    do {
      const page = await client.send(
        new ListSignalingChannelsCommand({
          MaxResults: 2,
          NextToken: token,
          ChannelNameCondition: { ComparisonOperator: 'BEGINS_WITH', ComparisonValue: 'mgmt-' },
        }),
      );
      names.push(...(page.ChannelInfoList ?? []).map((c) => c.ChannelName ?? ''));
      token = page.NextToken;
      pages += 1;
    } while (token);
    expect(names).toEqual(['mgmt-a', 'mgmt-b', 'mgmt-c']);
    expect(pages).toBe(2);

    // A master connected to the channel is closed when the channel goes.
    const creds = await srv.issuer.issue({ kind: 'kvs', channelName: 'mgmt-a', role: 'master' }, 900);
    const master = await openClient(signalingClient(srv.base, created.ChannelARN ?? '', creds));
    open.push(master);
    const version = described.ChannelInfo?.Version ?? '';
    expect(
      await sdkError(
        client.send(
          new DeleteSignalingChannelCommand({ ChannelARN: created.ChannelARN, CurrentVersion: 'stale' }),
        ),
      ),
    ).toMatchObject({ name: 'VersionMismatchException', status: 400 });
    await client.send(
      new DeleteSignalingChannelCommand({ ChannelARN: created.ChannelARN, CurrentVersion: version }),
    );
    await waitFor(() => master.closed, 3000, 'master closed by the deletion');
    expect(kvs().find({ name: 'mgmt-a' })).toBeNull();
    expect(
      await sdkError(client.send(new DeleteSignalingChannelCommand({ ChannelARN: created.ChannelARN }))),
    ).toMatchObject({ name: 'ResourceNotFoundException', status: 404 });
    // Recreated under the same name: a new ARN, and the old one no longer finds it.
    const again = await client.send(new CreateSignalingChannelCommand({ ChannelName: 'mgmt-a' }));
    expect(
      await sdkError(client.send(new DescribeSignalingChannelCommand({ ChannelARN: created.ChannelARN }))),
    ).toMatchObject({ name: 'ResourceNotFoundException' });
    expect(again.ChannelARN).toBeTruthy();
  });

  it('checks the server key pair’s signature: a wrong secret or a changed body is refused', async () => {
    const { accessKeyId } = kvs().settings.serverCredentials;
    const wrong = controlClient(srv.base, { accessKeyId, secretAccessKey: 'not-the-secret' });
    expect(
      await sdkError(wrong.send(new CreateSignalingChannelCommand({ ChannelName: 'mgmt-forged' }))),
    ).toMatchObject({ name: 'NotAuthorizedException', status: 401 });
    expect(kvs().find({ name: 'mgmt-forged' })).toBeNull();

    // Replay a correctly signed request with another body.
    let captured: { headers: Record<string, string>; body: string } | null = null;
    const client = serverClient();
    client.middlewareStack.add(
      (next) => async (args) => {
        const req = args.request as { headers: Record<string, string>; body: string | Uint8Array };
        const body = typeof req.body === 'string' ? req.body : Buffer.from(req.body).toString('utf8');
        captured = { headers: { ...req.headers }, body };
        return next(args);
      },
      { step: 'finalizeRequest', priority: 'low', name: 'capture' },
    );
    await client.send(new CreateSignalingChannelCommand({ ChannelName: 'mgmt-signed' }));
    const c = captured as { headers: Record<string, string>; body: string } | null;
    if (!c) throw new Error('request not captured');
    const replay = (body: string) =>
      fetch(`${srv.base}/kvs/createSignalingChannel`, { method: 'POST', headers: c.headers, body });
    const tampered = await replay(c.body.replace('mgmt-signed', 'mgmt-evil01'));
    expect(tampered.status).toBe(401);
    expect(tampered.headers.get('x-amzn-errortype')).toBe('NotAuthorizedException');
    expect(kvs().find({ name: 'mgmt-evil01' })).toBeNull();
    // The untouched replay passes authentication (and finds the name taken).
    const same = await replay(c.body);
    expect(same.headers.get('x-amzn-errortype')).toBe('ResourceInUseException');
  });

  it('reads the server key pair from KVS_LOCAL_ACCESS_KEY_ID / KVS_LOCAL_SECRET_ACCESS_KEY, else makes one', () => {
    expect(
      loadKvsSettings({ KVS_LOCAL_ACCESS_KEY_ID: 'AKIAKVS', KVS_LOCAL_SECRET_ACCESS_KEY: 's3cret' })
        .serverCredentials,
    ).toEqual({ accessKeyId: 'AKIAKVS', secretAccessKey: 's3cret' });
    const a = loadKvsSettings({}).serverCredentials;
    const b = loadKvsSettings({}).serverCredentials;
    expect(a.accessKeyId).toMatch(/^AKIALOCALKVS[0-9A-F]{12}$/);
    expect(a.secretAccessKey).not.toBe(b.secretAccessKey);
    expect(() => loadKvsSettings({ KVS_LOCAL_ACCESS_KEY_ID: 'AKIAKVS' })).toThrow(/both/);
  });
});

describe('switching off', () => {
  it('mounts nothing when KVS_ENDPOINT points at AWS', async () => {
    const off = await startKvsServer({ KVS_ENDPOINT: 'https://kinesisvideo.ap-northeast-1.amazonaws.com' });
    try {
      expect(off.app.kvs).toBeNull();
      const res = await fetch(`${off.base}/kvs/describeSignalingChannel`, { method: 'POST', body: '{}' });
      expect(res.status).toBe(404);
      expect((await fetch(`${off.base}/__kvs/state`)).status).toBe(404);
    } finally {
      await off.close();
    }
  });

  it('defaults to ap-northeast-1 and reads the timeouts from the environment', async () => {
    const other = await startKvsServer({
      KVS_IDLE_TIMEOUT_MS: '1234',
      KVS_MAX_DURATION_MS: '5678',
      KVS_MESSAGE_TTL_MS: '9000',
    });
    try {
      expect(other.app.kvs?.ensureChannel('x').channelArn).toMatch(/^arn:aws:kinesisvideo:ap-northeast-1:/);
      const s = (await (await fetch(`${other.base}/__kvs/state`)).json()) as { timeouts: unknown };
      expect(s.timeouts).toEqual({ idleTimeoutMs: 1234, maxDurationMs: 5678, messageTtlMs: 9000 });
    } finally {
      await other.close();
    }
  });
});

describe('ICE servers (GetIceServerConfig)', () => {
  it('hands out ICE_SERVERS as they are and TURN with TURN REST API credentials coturn accepts', async () => {
    const env = {
      KVS_REGION: REGION,
      ICE_SERVERS: '[{"urls":"stun:stun.example.org:3478"}]',
      TURN_URLS: 'turn:127.0.0.1:3478?transport=udp,turn:127.0.0.1:3478?transport=tcp',
      TURN_SECRET: 'coturn-static-auth-secret',
      TURN_TTL_SECONDS: '600',
    };
    const turn = await startKvsServer(env);
    try {
      const ch = turn.app.kvs!.ensureChannel('exam-turn-1');
      const creds = await turn.issuer.issue({ kind: 'kvs', channelName: 'exam-turn-1', role: 'viewer' }, 900);
      const before = Math.floor(Date.now() / 1000);
      const ice = await dataClient(`${turn.base}/kvs-data`, creds).send(
        new GetIceServerConfigCommand({ ChannelARN: ch.channelArn, ClientId: 'proctor-1' }),
      );
      const [stun, relay, ...more] = ice.IceServerList ?? [];
      expect(more).toEqual([]);
      expect(stun).toEqual({ Uris: ['stun:stun.example.org:3478'] });
      expect(relay?.Uris).toEqual(env.TURN_URLS.split(','));
      expect(relay?.Ttl).toBe(600);
      // Username `<expiry>:<user>`, password base64(HMAC-SHA1(secret, username)): coturn's use-auth-secret.
      const [expiry, user] = (relay?.Username ?? '').split(':');
      expect(Number(expiry)).toBeGreaterThanOrEqual(before + 600);
      expect(Number(expiry)).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 600);
      expect(user).toBe('exam-turn-1.proctor-1');
      expect(relay?.Password).toBe(
        createHmac('sha1', env.TURN_SECRET)
          .update(relay?.Username ?? '')
          .digest('base64'),
      );
    } finally {
      await turn.close();
    }
  });

  it('refuses a TURN configuration it cannot use', () => {
    expect(() => loadKvsSettings({ TURN_URLS: 'turn:127.0.0.1:3478' })).toThrow(/TURN_SECRET/);
    expect(() => loadKvsSettings({ TURN_SECRET: 'x' })).toThrow(/TURN_URLS/);
    expect(() => loadKvsSettings({ TURN_URLS: 'http://x', TURN_SECRET: 'x' })).toThrow(/turn:/);
    expect(() => loadKvsSettings({ ICE_SERVERS: '{"urls":1}' })).toThrow(/list/);
    expect(() => loadKvsSettings({ ICE_SERVERS: 'nope' })).toThrow(/JSON/);
    expect(loadKvsSettings({}).ice).toEqual({ fixed: [], turn: null });
  });
});
