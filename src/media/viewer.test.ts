import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

const sdk = vi.hoisted(() => {
  const signalers: FakeSignaling[] = [];
  const sent: Record<string, unknown>[] = [];
  /** KVS's channels: a channel made again has a new ARN (`arn:<name>` then `arn:<name>@2`), the old one is gone. */
  const kvs = { generation: 1 };
  const arnOf = (name: unknown) => `arn:${String(name)}${kvs.generation > 1 ? `@${kvs.generation}` : ''}`;
  const check = (cmd: Cmd) => {
    const arn = cmd.input.ChannelARN;
    if (arn !== undefined && arn !== arnOf(String(arn).replace(/^arn:|@\d+$/g, '')))
      throw Object.assign(new Error('The requested channel is not found or not active.'), {
        name: 'ResourceNotFoundException',
      });
  };
  class FakeSignaling {
    handlers = new Map<string, ((...a: unknown[]) => void)[]>();
    offers: unknown[] = [];
    candidates: unknown[] = [];
    closed = false;
    constructor(public config: Record<string, unknown>) {
      signalers.push(this);
    }
    on(ev: string, fn: (...a: unknown[]) => void) {
      this.handlers.set(ev, [...(this.handlers.get(ev) ?? []), fn]);
      return this;
    }
    emit(ev: string, ...a: unknown[]) {
      for (const fn of this.handlers.get(ev) ?? []) fn(...a);
    }
    removeAllListeners() {
      this.handlers.clear();
    }
    open() {
      queueMicrotask(() => this.emit('open'));
    }
    close() {
      this.closed = true;
    }
    sendSdpOffer(o: unknown) {
      this.offers.push(o);
    }
    sendIceCandidate(c: unknown) {
      this.candidates.push(c);
    }
  }
  class Cmd {
    constructor(public input: Record<string, unknown>) {}
  }
  class DescribeSignalingChannelCommand extends Cmd {}
  class GetSignalingChannelEndpointCommand extends Cmd {}
  class GetIceServerConfigCommand extends Cmd {}
  class KinesisVideoClient {
    config = { systemClockOffset: 0 };
    constructor(public cfg: Record<string, unknown>) {}
    send(cmd: Cmd) {
      sent.push({ name: cmd.constructor.name, ...cmd.input });
      if (cmd instanceof DescribeSignalingChannelCommand)
        return Promise.resolve({ ChannelInfo: { ChannelARN: arnOf(cmd.input.ChannelName) } });
      try {
        check(cmd);
      } catch (e) {
        return Promise.reject(e);
      }
      return Promise.resolve({
        ResourceEndpointList: [
          { Protocol: 'WSS', ResourceEndpoint: 'ws://127.0.0.1/kvs-ws' },
          { Protocol: 'HTTPS', ResourceEndpoint: 'http://127.0.0.1/kvs-data' },
        ],
      });
    }
  }
  class KinesisVideoSignalingClient {
    constructor(public cfg: Record<string, unknown>) {}
    send(cmd: Cmd) {
      sent.push({ name: cmd.constructor.name, ...cmd.input });
      try {
        check(cmd);
      } catch (e) {
        return Promise.reject(e);
      }
      return Promise.resolve({
        IceServerList: [{ Uris: ['turn:127.0.0.1:3478'], Username: 'u', Password: 'p' }],
      });
    }
  }
  return {
    signalers,
    sent,
    kvs,
    module: {
      Role: { MASTER: 'MASTER', VIEWER: 'VIEWER' },
      SignalingClient: FakeSignaling,
      KinesisVideoClient,
      DescribeSignalingChannelCommand,
      GetSignalingChannelEndpointCommand,
      KinesisVideoSignalingClient,
      GetIceServerConfigCommand,
      createKvsRequestSigner: () => ({ getSignedURL: () => Promise.resolve('ws://signed') }),
    },
  };
});

vi.mock('./viewer-sdk', () => sdk.module);

class FakePc {
  static all: FakePc[] = [];
  connectionState: RTCPeerConnectionState = 'new';
  transceivers: unknown[] = [];
  localDescription: RTCSessionDescriptionInit | null = null;
  remote: unknown = null;
  ontrack:
    | ((ev: {
        streams: MediaStream[];
        track: MediaStreamTrack;
        transceiver?: unknown;
        receiver?: unknown;
      }) => void)
    | null = null;
  onicecandidate: ((ev: { candidate: unknown }) => void) | null = null;
  onconnectionstatechange: (() => void) | null = null;
  closed = false;
  constructor(public config: RTCConfiguration) {
    FakePc.all.push(this);
  }
  addTransceiver(kind: string, init: unknown) {
    const t = { kind, init, receiver: { track: { kind, id: `r${this.transceivers.length}` } } };
    this.transceivers.push(t);
    return t;
  }
  createOffer() {
    return Promise.resolve({ type: 'offer', sdp: 'v=0' });
  }
  setLocalDescription(d: RTCSessionDescriptionInit) {
    this.localDescription = d;
    return Promise.resolve();
  }
  setRemoteDescription(d: unknown) {
    this.remote = d;
    return Promise.resolve();
  }
  addIceCandidate() {
    return Promise.resolve();
  }
  close() {
    this.closed = true;
  }
  setState(s: RTCPeerConnectionState) {
    this.connectionState = s;
    this.onconnectionstatechange?.();
  }
}

import { clearViewerEndpointCache, liveVideoCodecs, openViewer, type ViewerConnectionState } from './viewer';
import { setRuntimeConfig } from '../lib/runtime-config';

const CREDS = {
  region: 'ap-northeast-1',
  accessKeyId: 'AK',
  secretAccessKey: 'SK',
  sessionToken: 'ST',
  channelName: 'exam-1',
  endpoint: 'http://127.0.0.1/kvs',
};

describe('liveVideoCodecs', () => {
  it('keeps VP8, VP9 profile 0, constrained-baseline H.264 and the repair codecs of Chrome’s list, in order', () => {
    const c = (mimeType: string, sdpFmtpLine?: string) => ({
      mimeType,
      clockRate: 90000,
      ...(sdpFmtpLine ? { sdpFmtpLine } : {}),
    });
    // Debian Chromium 156's receive capabilities (abridged).
    const chrome = [
      c('video/VP8'),
      c('video/rtx'),
      c('video/VP9', 'profile-id=0'),
      c('video/VP9', 'profile-id=2'),
      c('video/H264', 'level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f'),
      c('video/H264', 'level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f'),
      c('video/H264', 'level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f'),
      c('video/H264', 'level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f'),
      c('video/AV1', 'level-idx=5;profile=0;tier=0'),
      c('video/red'),
      c('video/ulpfec'),
      c('video/flexfec-03', 'repair-window=10000000'),
    ];
    expect(liveVideoCodecs(chrome).map((x) => `${x.mimeType} ${x.sdpFmtpLine ?? ''}`.trim())).toEqual([
      'video/VP8',
      'video/rtx',
      'video/VP9 profile-id=0',
      'video/H264 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f',
      'video/red',
      'video/ulpfec',
    ]);
  });
});

describe('openViewer (KVS VIEWER with the SDK mocked)', () => {
  beforeEach(() => {
    vi.stubGlobal('RTCPeerConnection', FakePc);
    FakePc.all = [];
    sdk.signalers.length = 0;
    sdk.sent.length = 0;
    sdk.kvs.generation = 1;
    clearViewerEndpointCache();
  });
  afterEach(() => vi.unstubAllGlobals());

  it('relays through TURN only when config.json says iceTransportPolicy relay', async () => {
    setRuntimeConfig({ iceTransportPolicy: 'relay' });
    try {
      const conn = await openViewer({
        credentials: CREDS,
        onStateChange: () => undefined,
        onStream: vi.fn(),
      });
      expect(FakePc.all[0]!.config.iceTransportPolicy).toBe('relay');
      conn.close();
    } finally {
      setRuntimeConfig({});
    }
  });

  it('connects as VIEWER with ICE servers from GetIceServerConfig and sends a recvonly offer', async () => {
    const states: ViewerConnectionState[] = [];
    const onStream = vi.fn();
    const conn = await openViewer({ credentials: CREDS, onStateChange: (s) => states.push(s), onStream });
    const sig = sdk.signalers[0]!;
    expect(sig.config).toMatchObject({
      role: 'VIEWER',
      channelARN: 'arn:exam-1',
      channelEndpoint: 'ws://127.0.0.1/kvs-ws',
      clientId: conn.clientId,
    });
    const pc = FakePc.all[0]!;
    expect(pc.config.iceServers).toEqual([{ urls: ['turn:127.0.0.1:3478'], username: 'u', credential: 'p' }]);
    expect(pc.config.iceTransportPolicy).toBe('all');
    expect(pc.transceivers).toMatchObject([
      { kind: 'video', init: { direction: 'recvonly' } },
      { kind: 'audio', init: { direction: 'recvonly' } },
    ]);
    expect(pc.transceivers).toHaveLength(2);
    expect(sdk.sent.find((c) => c.name === 'GetSignalingChannelEndpointCommand')).toMatchObject({
      SingleMasterChannelEndpointConfiguration: { Role: 'VIEWER' },
    });
    await vi.waitFor(() => expect(sig.offers).toHaveLength(1));
    // Trickle ICE and the answer.
    pc.onicecandidate?.({ candidate: { candidate: 'c1' } });
    expect(sig.candidates).toEqual([{ candidate: 'c1' }]);
    sig.emit('sdpAnswer', { type: 'answer', sdp: 'v=0' });
    expect(pc.remote).toEqual({ type: 'answer', sdp: 'v=0' });
    // Tracks → onStream; state changes → onStateChange.
    const stream = {} as MediaStream;
    pc.ontrack?.({ streams: [stream], track: {} as MediaStreamTrack });
    expect(onStream).toHaveBeenCalledWith(stream);
    pc.setState('connecting');
    pc.setState('connected');
    pc.setState('disconnected');
    expect(states).toEqual(['connecting', 'connected', 'disconnected']);
    conn.close();
    expect(pc.closed).toBe(true);
    expect(sig.closed).toBe(true);
  });

  it('asks for each extra view after the camera and hands its track on as its own stream', async () => {
    vi.stubGlobal(
      'MediaStream',
      class {
        constructor(readonly tracks: unknown[]) {}
      },
    );
    const onStream = vi.fn();
    const onViewStream = vi.fn();
    const conn = await openViewer({
      credentials: CREDS,
      onStateChange: () => undefined,
      onStream,
      extraViews: ['screen'],
      onViewStream,
    });
    const pc = FakePc.all[0]!;
    expect(pc.transceivers.map((t) => (t as { kind: string }).kind)).toEqual(['video', 'audio', 'video']);
    const [camera, , screen] = pc.transceivers as { receiver: { track: MediaStreamTrack } }[];
    const cameraStream = {} as MediaStream;
    pc.ontrack?.({ streams: [cameraStream], track: camera!.receiver.track, transceiver: camera });
    pc.ontrack?.({
      streams: [],
      track: screen!.receiver.track,
      transceiver: screen,
      receiver: screen!.receiver,
    });
    expect(onStream).toHaveBeenCalledTimes(1);
    expect(onStream).toHaveBeenCalledWith(cameraStream);
    // With its receiver, whose statistics tell whether frames come.
    expect(onViewStream).toHaveBeenCalledWith(
      'screen',
      { tracks: [screen!.receiver.track] },
      screen!.receiver,
    );
    conn.close();
  });

  it('uses a fresh clientId on every connect and caches the channel endpoints', async () => {
    const a = await openViewer({
      credentials: CREDS,
      onStateChange: () => undefined,
      onStream: () => undefined,
    });
    a.close();
    const b = await openViewer({
      credentials: CREDS,
      onStateChange: () => undefined,
      onStream: () => undefined,
    });
    expect(a.clientId).not.toBe(b.clientId);
    expect(sdk.signalers.map((s) => s.config.clientId)).toEqual([a.clientId, b.clientId]);
    expect(sdk.sent.filter((c) => c.name === 'DescribeSignalingChannelCommand')).toHaveLength(1);
    // GetIceServerConfig is asked per connect, with that connect's client id.
    expect(sdk.sent.filter((c) => c.name === 'GetIceServerConfigCommand').map((c) => c.ClientId)).toEqual([
      a.clientId,
      b.clientId,
    ]);
  });

  it('reports failed when signaling closes before media flows, and nothing after close()', async () => {
    const states: ViewerConnectionState[] = [];
    const conn = await openViewer({
      credentials: CREDS,
      onStateChange: (s) => states.push(s),
      onStream: () => undefined,
    });
    sdk.signalers[0]!.emit('close');
    expect(states).toEqual(['connecting', 'failed']);
    conn.close();
    FakePc.all[0]!.setState('connected');
    expect(states).toEqual(['connecting', 'failed']);
  });

  it('watches the camera’s frames while connected: stalled when they stop, not stalled when they come again', async () => {
    const stalls: boolean[] = [];
    const conn = await openViewer({
      credentials: CREDS,
      onStateChange: () => undefined,
      onStream: () => undefined,
      onVideoStalled: (s) => stalls.push(s),
    });
    const pc = FakePc.all[0]!;
    let frames = 0;
    let moving = true;
    const getStats = vi.fn(async () => {
      if (moving) frames += 30;
      return new Map([
        ['v', { type: 'inbound-rtp', kind: 'video', framesDecoded: frames }],
        // The microphone goes on: it must not keep a frozen picture "live".
        ['a', { type: 'inbound-rtp', kind: 'audio', packetsReceived: frames * 2 }],
      ]);
    });
    // Only the camera's receiver (the first video transceiver) is read.
    (pc.transceivers[0] as { receiver: Record<string, unknown> }).receiver.getStats = getStats;
    vi.useFakeTimers();
    try {
      pc.setState('connecting');
      await vi.advanceTimersByTimeAsync(5000);
      expect(getStats).not.toHaveBeenCalled();
      pc.setState('connected');
      await vi.advanceTimersByTimeAsync(5000);
      expect(stalls).toEqual([]);
      moving = false;
      await vi.advanceTimersByTimeAsync(3000);
      expect(stalls).toEqual([true]);
      moving = true;
      await vi.advanceTimersByTimeAsync(1000);
      expect(stalls).toEqual([true, false]);
      // Not connected any more (the lost path takes over), and nothing after close().
      pc.setState('disconnected');
      const reads = getStats.mock.calls.length;
      await vi.advanceTimersByTimeAsync(5000);
      expect(getStats).toHaveBeenCalledTimes(reads);
      pc.setState('connected');
      conn.close();
      await vi.advanceTimersByTimeAsync(5000);
      expect(getStats).toHaveBeenCalledTimes(reads + 1);
      expect(stalls).toEqual([true, false]);
    } finally {
      vi.useRealTimers();
    }
  });

  const describes = () => sdk.sent.filter((c) => c.name === 'DescribeSignalingChannelCommand').length;
  const open = () =>
    openViewer({ credentials: CREDS, onStateChange: () => undefined, onStream: () => undefined });

  it('describes the channel again once KVS says its cached ARN is not found (the channel was made again)', async () => {
    (await open()).close();
    // The channel is deleted and made again under its name (the AWS sweep; a stand-in that lost it).
    sdk.kvs.generation = 2;
    await expect(open()).rejects.toMatchObject({ name: 'ResourceNotFoundException' });
    expect(describes()).toBe(1);
    // The next attempt (the pane's retry) finds the new ARN.
    const conn = await open();
    expect(describes()).toBe(2);
    expect(sdk.signalers.at(-1)!.config).toMatchObject({ channelARN: 'arn:exam-1@2' });
    conn.close();
  });

  it('describes the channel again after signaling failed on the cached endpoints', async () => {
    const states: ViewerConnectionState[] = [];
    (await open()).close();
    const failing = await openViewer({
      credentials: CREDS,
      onStateChange: (s) => states.push(s),
      onStream: () => undefined,
    });
    // The socket is refused (e.g. for an ARN the channel no longer has) before any media flowed.
    sdk.signalers.at(-1)!.emit('close');
    expect(states.at(-1)).toBe('failed');
    failing.close();
    expect(describes()).toBe(1);
    (await open()).close();
    expect(describes()).toBe(2);
  });
});
