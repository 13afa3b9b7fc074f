import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { KvsChannel, MasterCallbacks } from './master-types';
import type * as StreamRegistry from './stream-registry';

/** Fakes of the SDK modules master.ts imports dynamically, and of RTCPeerConnection. */
const fake = vi.hoisted(() => {
  type Fn = (...args: unknown[]) => void;
  class FakeSignalingClient {
    static instances: FakeSignalingClient[] = [];
    /** How the next opens go: 'open' succeeds, 'close' fails (the socket closes while opening). */
    static outcomes: ('open' | 'close')[] = [];
    handlers = new Map<string, Fn[]>();
    sentAnswers: { sdp: unknown; to: string }[] = [];
    sentCandidates: { candidate: unknown; to: string }[] = [];
    closed = 0;
    constructor(readonly config: Record<string, unknown>) {
      FakeSignalingClient.instances.push(this);
    }
    on(event: string, fn: Fn) {
      this.handlers.set(event, [...(this.handlers.get(event) ?? []), fn]);
      return this;
    }
    removeAllListeners() {
      this.handlers.clear();
      return this;
    }
    emit(event: string, ...args: unknown[]) {
      (this.handlers.get(event) ?? []).forEach((h) => h(...args));
    }
    open() {
      const outcome = FakeSignalingClient.outcomes.shift() ?? 'open';
      queueMicrotask(() => this.emit(outcome));
    }
    close() {
      this.closed += 1;
      queueMicrotask(() => this.emit('close'));
    }
    sendSdpAnswer(sdp: unknown, to: string) {
      this.sentAnswers.push({ sdp, to });
    }
    sendIceCandidate(candidate: unknown, to: string) {
      this.sentCandidates.push({ candidate, to });
    }
    resetIceCandidateState() {}
  }
  class Cmd {
    constructor(readonly input: Record<string, unknown>) {}
  }
  class DescribeSignalingChannelCommand extends Cmd {}
  class GetSignalingChannelEndpointCommand extends Cmd {}
  class GetIceServerConfigCommand extends Cmd {}
  const controlCalls: { region: unknown; credentials: unknown }[] = [];
  /**
   * The channels as KVS knows them: `generation` is in each ARN (a channel made again gets a new ARN), and
   * ARNs of an older generation are not found.
   */
  const kvs = { generation: 1, described: 0 };
  const arnOf = (name: unknown, generation = kvs.generation) => `arn:${String(name)}/${generation}`;
  const notFound = () =>
    Object.assign(new Error('The requested channel is not found or not active.'), {
      name: 'ResourceNotFoundException',
    });
  class KinesisVideoClient {
    constructor(readonly config: { region: unknown; credentials: unknown }) {
      controlCalls.push(config);
    }
    async send(cmd: Cmd) {
      if (cmd instanceof DescribeSignalingChannelCommand) {
        kvs.described += 1;
        return { ChannelInfo: { ChannelARN: arnOf(cmd.input.ChannelName) } };
      }
      if (!String(cmd.input.ChannelARN).endsWith(`/${kvs.generation}`)) throw notFound();
      return {
        ResourceEndpointList: [
          { Protocol: 'WSS', ResourceEndpoint: 'ws://127.0.0.1/kvs-ws' },
          { Protocol: 'HTTPS', ResourceEndpoint: 'http://127.0.0.1/kvs' },
        ],
      };
    }
  }
  class KinesisVideoSignalingClient {
    async send(cmd: Cmd) {
      if (!String(cmd.input.ChannelARN).endsWith(`/${kvs.generation}`)) throw notFound();
      return { IceServerList: [{ Uris: ['turn:turn.example:443'], Username: 'u', Password: 'p' }] };
    }
  }
  const peers: FakePc[] = [];
  /** A transceiver as setRemoteDescription creates it for one m-section of the offer. */
  class FakeTransceiver {
    direction = 'recvonly';
    streams: unknown[] = [];
    params: { encodings: Record<string, unknown>[] } = { encodings: [{}] };
    sender = {
      track: null as unknown,
      replaceTrack: async (t: unknown) => {
        this.sender.track = t;
      },
      setStreams: (...s: unknown[]) => {
        this.streams = s;
      },
      getParameters: () => this.params,
      setParameters: async (p: { encodings: Record<string, unknown>[] }) => {
        this.params = p;
      },
    };
    constructor(readonly mid: string) {}
  }
  class FakePc {
    onicecandidate: ((e: { candidate: unknown }) => void) | null = null;
    onconnectionstatechange: (() => void) | null = null;
    connectionState = 'new';
    localDescription: unknown = null;
    remote: unknown = null;
    added: unknown[] = [];
    tracks: unknown[] = [];
    transceivers: FakeTransceiver[] = [];
    closed = false;
    constructor(readonly config: unknown) {
      peers.push(this);
    }
    /** The senders addTrack made, one per track, in order. */
    senders: { track: unknown; params: { encodings: Record<string, unknown>[] } }[] = [];
    addTrack(t: unknown) {
      this.tracks.push(t);
      const sender = {
        track: t,
        params: { encodings: [{}] as Record<string, unknown>[] },
        getParameters: () => sender.params,
        setParameters: async (p: { encodings: Record<string, unknown>[] }) => {
          sender.params = p;
        },
      };
      this.senders.push(sender);
      return sender;
    }
    async setRemoteDescription(d: { sdp?: string }) {
      this.remote = d;
      for (const m of (d.sdp ?? '').matchAll(/a=mid:(\S+)/g))
        this.transceivers.push(new FakeTransceiver(m[1]!));
    }
    getTransceivers() {
      return this.transceivers;
    }
    async createAnswer() {
      return { type: 'answer', sdp: 'answer-sdp' };
    }
    async setLocalDescription(d: unknown) {
      this.localDescription = d;
    }
    async addIceCandidate(c: unknown) {
      this.added.push(c);
    }
    close() {
      this.closed = true;
    }
  }
  /** The stream registry as master.ts sees it: streams by id, and who listens for changes. */
  const registry = {
    streams: new Map<string, { getTracks: () => unknown[]; getVideoTracks: () => unknown[] }>([
      ['local', { getTracks: () => ['video-track', 'audio-track'], getVideoTracks: () => ['video-track'] }],
    ]),
    listeners: new Set<(id: string) => void>(),
    set(id: string, tracks: unknown[] | null) {
      if (tracks) registry.streams.set(id, { getTracks: () => tracks, getVideoTracks: () => tracks });
      else registry.streams.delete(id);
      registry.listeners.forEach((l) => l(id));
    },
  };
  return {
    registry,
    FakeSignalingClient,
    KinesisVideoClient,
    KinesisVideoSignalingClient,
    DescribeSignalingChannelCommand,
    GetSignalingChannelEndpointCommand,
    GetIceServerConfigCommand,
    FakePc,
    peers,
    controlCalls,
    kvs,
    arnOf,
    signerCreds: [] as (() => Promise<unknown>)[],
  };
});

vi.mock('amazon-kinesis-video-streams-webrtc', () => ({
  SignalingClient: fake.FakeSignalingClient,
  Role: { MASTER: 'MASTER', VIEWER: 'VIEWER' },
}));
vi.mock('@aws-sdk/client-kinesis-video', () => ({
  KinesisVideoClient: fake.KinesisVideoClient,
  DescribeSignalingChannelCommand: fake.DescribeSignalingChannelCommand,
  GetSignalingChannelEndpointCommand: fake.GetSignalingChannelEndpointCommand,
}));
vi.mock('@aws-sdk/client-kinesis-video-signaling', () => ({
  KinesisVideoSignalingClient: fake.KinesisVideoSignalingClient,
  GetIceServerConfigCommand: fake.GetIceServerConfigCommand,
}));
vi.mock('./kvs-signer', () => ({
  createKvsRequestSigner: (_region: string, creds: () => Promise<unknown>) => {
    fake.signerCreds.push(creds);
    return { getSignedURL: vi.fn() };
  },
}));
// The registry's other exports (the stream ids the features import when the test setup registers them) stay real.
vi.mock('./stream-registry', async (importOriginal) => ({
  ...(await importOriginal<typeof StreamRegistry>()),
  getStream: (id: string) => fake.registry.streams.get(id) ?? null,
  onStreamChange: (fn: (id: string) => void) => {
    fake.registry.listeners.add(fn);
    return () => fake.registry.listeners.delete(fn);
  },
}));

import { clearEndpointCache, startMaster } from './master';
import { setRuntimeConfig } from '../lib/runtime-config';

const channel = (over: Partial<KvsChannel> = {}): KvsChannel => ({
  region: 'ap-northeast-1',
  accessKeyId: 'AK1',
  secretAccessKey: 'SK1',
  sessionToken: 'ST1',
  channelName: 'exam-7',
  endpoint: 'http://127.0.0.1/kvs',
  expiration: '2099-01-01T00:00:00Z',
  ...over,
});

function callbacks(): MasterCallbacks & {
  statuses: string[];
  viewers: string[][];
  lost: string[];
} {
  const statuses: string[] = [];
  const viewers: string[][] = [];
  const lost: string[] = [];
  return {
    statuses,
    viewers,
    lost,
    onStatus: (s) => statuses.push(s),
    onViewers: (v) => viewers.push(v),
    onLost: (r) => lost.push(r),
  };
}

const flush = async () => {
  for (let i = 0; i < 10; i += 1) await Promise.resolve();
};

beforeEach(() => {
  fake.FakeSignalingClient.instances.length = 0;
  fake.FakeSignalingClient.outcomes = [];
  fake.peers.length = 0;
  fake.controlCalls.length = 0;
  fake.kvs.generation = 1;
  fake.kvs.described = 0;
  fake.signerCreds.length = 0;
  clearEndpointCache();
  vi.stubGlobal('RTCPeerConnection', fake.FakePc);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

describe('startMaster (mocked SDK)', () => {
  it('opens signaling as MASTER with the channel ARN, the WSS endpoint and ICE servers from GetIceServerConfig', async () => {
    const cb = callbacks();
    const m = await startMaster({
      channel: channel(),
      streamId: 'local',
      refreshCredentials: async () => null,
      callbacks: cb,
      retryDelayMs: 0,
    });
    const sc = fake.FakeSignalingClient.instances[0]!;
    expect(sc.config).toMatchObject({
      role: 'MASTER',
      channelARN: 'arn:exam-7/1',
      channelEndpoint: 'ws://127.0.0.1/kvs-ws',
      region: 'ap-northeast-1',
    });
    expect(cb.statuses).toEqual(['connecting', 'live']);
    expect(m.stats()).toEqual({ status: 'live', viewers: 0, peers: {} });
    await m.stop(100);
    expect(cb.statuses.at(-1)).toBe('stopped');
  });

  it('relays through TURN only when config.json says iceTransportPolicy relay', async () => {
    setRuntimeConfig({ iceTransportPolicy: 'relay' });
    try {
      const m = await startMaster({
        channel: channel(),
        streamId: 'local',
        refreshCredentials: async () => null,
        callbacks: callbacks(),
      });
      fake.FakeSignalingClient.instances[0]!.emit('sdpOffer', { type: 'offer', sdp: 'o' }, 'viewer-a');
      await flush();
      expect(fake.peers[0]!.config).toMatchObject({ iceTransportPolicy: 'relay' });
      await m.stop(100);
    } finally {
      setRuntimeConfig({});
    }
  });

  it('answers each viewer offer with one peer per clientId and trickles ICE both ways', async () => {
    const cb = callbacks();
    const m = await startMaster({
      channel: channel(),
      streamId: 'local',
      refreshCredentials: async () => null,
      callbacks: cb,
    });
    const sc = fake.FakeSignalingClient.instances[0]!;
    sc.emit('sdpOffer', { type: 'offer', sdp: 'offer-a' }, 'viewer-a');
    sc.emit('iceCandidate', { candidate: 'cand-a1' }, 'viewer-a');
    sc.emit('sdpOffer', { type: 'offer', sdp: 'offer-b' }, 'viewer-b');
    await flush();
    expect(fake.peers).toHaveLength(2);
    const [a, b] = fake.peers;
    expect(a!.config).toEqual({
      iceServers: [{ urls: ['turn:turn.example:443'], username: 'u', credential: 'p' }],
      iceTransportPolicy: 'all',
    });
    expect(a!.tracks).toEqual(['video-track', 'audio-track']);
    expect(a!.remote).toEqual({ type: 'offer', sdp: 'offer-a' });
    // A candidate that arrived before the remote description was applied after it.
    expect(a!.added).toEqual([{ candidate: 'cand-a1' }]);
    expect(b!.added).toEqual([]);
    expect(sc.sentAnswers.map((x) => x.to)).toEqual(['viewer-a', 'viewer-b']);
    // Local candidates go to the viewer that owns the peer.
    b!.onicecandidate?.({ candidate: { candidate: 'local-b' } });
    b!.onicecandidate?.({ candidate: null });
    expect(sc.sentCandidates).toEqual([{ candidate: { candidate: 'local-b' }, to: 'viewer-b' }]);
    expect(m.stats().viewers).toBe(2);
    expect(cb.viewers.at(-1)).toEqual(['viewer-a', 'viewer-b']);

    // The same viewer offering again replaces its peer (one peer per clientId).
    sc.emit('sdpOffer', { type: 'offer', sdp: 'offer-a2' }, 'viewer-a');
    await flush();
    expect(a!.closed).toBe(true);
    expect(fake.peers).toHaveLength(3);
    expect(m.stats().viewers).toBe(2);

    // A failed peer is dropped.
    b!.connectionState = 'failed';
    b!.onconnectionstatechange?.();
    expect(m.stats().viewers).toBe(1);
    await m.stop(100);
    expect(fake.peers[2]!.closed).toBe(true);
  });

  it('answers a removed checker’s offer no more: only the matched checker’s ClientId gets an answer', async () => {
    let matched: string | null = 'viewer-current';
    const m = await startMaster({
      channel: channel(),
      streamId: 'local',
      refreshCredentials: async () => null,
      callbacks: callbacks(),
      allowedViewer: () => matched,
    });
    const sc = fake.FakeSignalingClient.instances[0]!;
    sc.emit('sdpOffer', { type: 'offer', sdp: 'from-stale' }, 'viewer-removed');
    sc.emit('iceCandidate', { candidate: 'stale-cand' }, 'viewer-removed');
    sc.emit('sdpOffer', { type: 'offer', sdp: 'from-matched' }, 'viewer-current');
    await flush();
    expect(sc.sentAnswers.map((x) => x.to)).toEqual(['viewer-current']);
    expect(fake.peers).toHaveLength(1);

    // The matching ends (or another checker takes over): the current peer is closed at once.
    matched = null;
    m.matchedViewerChanged();
    expect(fake.peers[0]!.closed).toBe(true);
    expect(m.stats().viewers).toBe(0);
    sc.emit('sdpOffer', { type: 'offer', sdp: 'again' }, 'viewer-current');
    await flush();
    expect(sc.sentAnswers).toHaveLength(1);
    await m.stop(100);
  });

  it('answers a newly matched checker that offered before this examinee’s poll named it, with its candidates', async () => {
    let matched: string | null = null;
    const m = await startMaster({
      channel: channel(),
      streamId: 'local',
      refreshCredentials: async () => null,
      callbacks: callbacks(),
      allowedViewer: () => matched,
    });
    const sc = fake.FakeSignalingClient.instances[0]!;
    sc.emit('sdpOffer', { type: 'offer', sdp: 'early' }, 'viewer-new');
    sc.emit('iceCandidate', { candidate: 'early-cand' }, 'viewer-new');
    sc.emit('sdpOffer', { type: 'offer', sdp: 'stale' }, 'viewer-removed');
    await flush();
    expect(sc.sentAnswers).toEqual([]);

    matched = 'viewer-new';
    m.matchedViewerChanged();
    await flush();
    expect(sc.sentAnswers.map((x) => x.to)).toEqual(['viewer-new']);
    expect(fake.peers).toHaveLength(1);
    expect(fake.peers[0]!.remote).toEqual({ type: 'offer', sdp: 'early' });
    expect(fake.peers[0]!.added).toEqual([{ candidate: 'early-cand' }]);
    await m.stop(100);
  });

  it('sends the screen on the viewer’s second video m-line, following the stream without renegotiating', async () => {
    const screenTrack = { readyState: 'live', id: 'screen-1' };
    const m = await startMaster({
      channel: channel(),
      streamId: 'local',
      extraStreams: [{ streamId: 'screen', maxBitrate: 1_000_000, maxFramerate: 5 }],
      refreshCredentials: async () => null,
      callbacks: callbacks(),
    });
    const sc = fake.FakeSignalingClient.instances[0]!;
    const sdp = 'v=0\r\nm=video 9 UDP\r\na=mid:0\r\nm=audio 9 UDP\r\na=mid:1\r\nm=video 9 UDP\r\na=mid:2\r\n';
    sc.emit('sdpOffer', { type: 'offer', sdp }, 'viewer-a');
    await flush();
    const pc = fake.peers[0]!;
    const screen = pc.transceivers.find((t) => t.mid === '2')!;
    // Answered sendonly before there is anything to send.
    expect(screen.direction).toBe('sendonly');
    expect(screen.sender.track).toBeNull();
    expect(pc.transceivers.find((t) => t.mid === '0')!.direction).toBe('recvonly');
    // The screen is shared: sent at once, within its live limits.
    fake.registry.set('screen', [screenTrack]);
    await flush();
    expect(screen.sender.track).toBe(screenTrack);
    expect(screen.params.encodings[0]).toMatchObject({ maxBitrate: 1_000_000, maxFramerate: 5 });
    // The share ended (released): nothing is sent; shared again: the new track.
    fake.registry.set('screen', null);
    await flush();
    expect(screen.sender.track).toBeNull();
    const again = { readyState: 'live', id: 'screen-2' };
    fake.registry.set('screen', [again]);
    await flush();
    expect(screen.sender.track).toBe(again);
    // A viewer that offers no second video m-line (an older console) gets the camera only.
    sc.emit('sdpOffer', { type: 'offer', sdp: 'v=0\r\nm=video 9 UDP\r\na=mid:0\r\n' }, 'viewer-b');
    await flush();
    expect(fake.peers[1]!.transceivers.map((t) => t.direction)).toEqual(['recvonly']);
    await m.stop(100);
    fake.registry.set('screen', null);
    expect(fake.registry.listeners.size).toBe(0);
  });

  it('caps the published stream’s live video when asked (the phone), and only its video', async () => {
    const m = await startMaster({
      channel: channel(),
      streamId: 'local',
      videoLimits: { maxBitrate: 1_000_000 },
      refreshCredentials: async () => null,
      callbacks: callbacks(),
    });
    const sc = fake.FakeSignalingClient.instances[0]!;
    sc.emit('sdpOffer', { type: 'offer', sdp: 'v=0\r\nm=video 9 UDP\r\na=mid:0\r\n' }, 'viewer-a');
    await flush();
    const [video, audio] = fake.peers[0]!.senders;
    expect(video!.track).toBe('video-track');
    expect(video!.params.encodings[0]).toEqual({ maxBitrate: 1_000_000 });
    expect(audio!.params.encodings[0]).toEqual({});
    await m.stop(100);
  });

  it('leaves the published stream’s live video to the browser without limits (the examinee’s camera)', async () => {
    const m = await startMaster({
      channel: channel(),
      streamId: 'local',
      refreshCredentials: async () => null,
      callbacks: callbacks(),
    });
    const sc = fake.FakeSignalingClient.instances[0]!;
    sc.emit('sdpOffer', { type: 'offer', sdp: 'v=0\r\nm=video 9 UDP\r\na=mid:0\r\n' }, 'viewer-a');
    await flush();
    expect(fake.peers[0]!.senders.map((x) => x.params.encodings[0])).toEqual([{}, {}]);
    await m.stop(100);
  });

  it('reopens with fresh credentials after the service closes the socket (idle, GO_AWAY, kick)', async () => {
    const cb = callbacks();
    const refresh = vi.fn(async () => channel({ accessKeyId: 'AK2', sessionToken: 'ST2' }));
    const m = await startMaster({
      channel: channel(),
      streamId: 'local',
      refreshCredentials: refresh,
      callbacks: cb,
      retryDelayMs: 0,
    });
    const sc = fake.FakeSignalingClient.instances[0]!;
    expect(await fake.signerCreds[0]!()).toMatchObject({ accessKeyId: 'AK1' });
    sc.emit('close');
    await vi.waitFor(() => expect(cb.statuses.at(-1)).toBe('live'));
    expect(cb.statuses).toEqual(['connecting', 'live', 'reconnecting', 'live']);
    expect(refresh).toHaveBeenCalledTimes(1);
    // The signer now signs with the fresh credentials.
    expect(await fake.signerCreds[0]!()).toMatchObject({ accessKeyId: 'AK2', sessionToken: 'ST2' });
    expect(cb.lost).toEqual([]);
    await m.stop(100);
  });

  it('retries start-up 3 times, then rejects and reports lost', async () => {
    fake.FakeSignalingClient.outcomes = ['close', 'close', 'close'];
    const cb = callbacks();
    await expect(
      startMaster({
        channel: channel(),
        streamId: 'local',
        refreshCredentials: async () => null,
        callbacks: cb,
        retryDelayMs: 0,
      }),
    ).rejects.toThrow(/closed while opening/);
    expect(fake.FakeSignalingClient.outcomes).toEqual([]);
    expect(cb.statuses).toEqual(['connecting', 'lost']);
  });

  it('succeeds on the third attempt', async () => {
    fake.FakeSignalingClient.outcomes = ['close', 'close', 'open'];
    const cb = callbacks();
    const m = await startMaster({
      channel: channel(),
      streamId: 'local',
      refreshCredentials: async () => null,
      callbacks: cb,
      retryDelayMs: 0,
    });
    expect(cb.statuses.at(-1)).toBe('live');
    await m.stop(100);
  });

  it('a reconnect that fails every attempt reports lost (the caller deletes the matching)', async () => {
    const cb = callbacks();
    const m = await startMaster({
      channel: channel(),
      streamId: 'local',
      refreshCredentials: async () => null,
      callbacks: cb,
      retryDelayMs: 0,
    });
    fake.FakeSignalingClient.outcomes = ['close', 'close', 'close'];
    await m.reconnect();
    expect(cb.statuses.at(-1)).toBe('lost');
    expect(cb.lost).toHaveLength(1);
    await m.stop(100);
  });
});

describe('startMaster after signaling was lost', () => {
  it('keeps its peers while lost, and goes live again on the next reconnect (the server is back)', async () => {
    const cb = callbacks();
    const m = await startMaster({
      channel: channel(),
      streamId: 'local',
      refreshCredentials: async () => null,
      callbacks: cb,
      retryDelayMs: 0,
    });
    const sc = fake.FakeSignalingClient.instances[0]!;
    sc.emit('sdpOffer', { type: 'offer', sdp: 'o' }, 'viewer-a');
    await flush();
    fake.FakeSignalingClient.outcomes = ['close', 'close', 'close'];
    await m.reconnect();
    expect(cb.statuses.at(-1)).toBe('lost');
    // Media does not need signaling: the checker still receives while the server is away.
    expect(fake.peers[0]!.closed).toBe(false);
    expect(m.stats().viewers).toBe(1);
    await m.reconnect();
    expect(cb.statuses.slice(-2)).toEqual(['reconnecting', 'live']);
    expect(m.stats()).toMatchObject({ status: 'live', viewers: 1 });
    await m.stop(0);
    expect(fake.peers[0]!.closed).toBe(true);
  });
});

describe('startMaster when the channel was made again (a new ARN under the same name)', () => {
  const start = (cb = callbacks()) =>
    startMaster({
      channel: channel(),
      streamId: 'local',
      refreshCredentials: async () => null,
      callbacks: cb,
      retryDelayMs: 0,
    });

  it('starts: the cached ARN is not found, so the next attempt describes the channel again and signals on its new ARN', async () => {
    await (await start()).stop(0);
    expect(fake.kvs.described).toBe(1);
    // The channel is deleted and made again (the AWS sweep; a stand-in that lost it): the old ARN is gone.
    fake.kvs.generation = 2;
    const cb = callbacks();
    const m = await start(cb);
    expect(fake.kvs.described).toBe(2);
    expect(fake.FakeSignalingClient.instances.at(-1)!.config).toMatchObject({
      channelARN: fake.arnOf('exam-7', 2),
    });
    expect(cb.statuses).toEqual(['connecting', 'live']);
    await m.stop(0);
  });

  it('reconnects: after the socket closed, a new signaling client on the new ARN (not the old one reopened)', async () => {
    const cb = callbacks();
    const m = await start(cb);
    const first = fake.FakeSignalingClient.instances[0]!;
    fake.kvs.generation = 2;
    first.emit('close');
    await vi.waitFor(() => expect(cb.statuses.at(-1)).toBe('live'));
    expect(cb.statuses).toEqual(['connecting', 'live', 'reconnecting', 'live']);
    expect(cb.lost).toEqual([]);
    const second = fake.FakeSignalingClient.instances.at(-1)!;
    expect(second).not.toBe(first);
    expect(second.config).toMatchObject({ channelARN: fake.arnOf('exam-7', 2) });
    // The old client is let go: its events no longer reach the master.
    expect(first.handlers.size).toBe(0);
    // Offers arrive on the new client and are answered there.
    second.emit('sdpOffer', { type: 'offer', sdp: 'o' }, 'viewer-a');
    await flush();
    expect(second.sentAnswers).toHaveLength(1);
    await m.stop(0);
  });

  it('describes the channel again after signaling would not open on the cached endpoints', async () => {
    await (await start()).stop(0);
    fake.FakeSignalingClient.outcomes = ['close', 'open'];
    const m = await start();
    expect(fake.kvs.described).toBe(2);
    await m.stop(0);
  });

  it('keeps using the cached endpoints while the channel is there', async () => {
    await (await start()).stop(0);
    await (await start()).stop(0);
    expect(fake.kvs.described).toBe(1);
  });
});
