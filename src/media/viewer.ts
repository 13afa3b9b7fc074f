import { logger } from '../lib/logger';
import type * as ViewerSdkModule from './viewer-sdk';
import { getRuntimeConfig } from '../lib/runtime-config';
import { isResourceNotFound } from './kvs-errors';
import { inboundVideoProgress, watchVideoStall, type VideoStallWatch } from './video-stall';

/**
 * A KVS WebRTC VIEWER for one examinee's signaling channel (spec §4: only the tester publishes; checkers are
 * viewers), with the real SDK loaded on demand. Library events are turned into plain callbacks here; the
 * caller turns them into store events (STYLE habit 7).
 */

/** Connection states the caller sees (RTCPeerConnection's, with new/connecting folded into connecting). */
export type ViewerConnectionState = 'connecting' | 'connected' | 'disconnected' | 'failed' | 'closed';

/** Channel credentials (spec §3 signaling_channel, camelCase). */
export interface ViewerCredentials {
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken: string;
  channelName: string;
  /** KVS endpoint override (local stand-in); null for AWS. */
  endpoint: string | null;
}

export interface ViewerOptions {
  credentials: ViewerCredentials;
  /** Credentials to sign the next signaling open with (default: `credentials`). */
  getCredentials?: () => Promise<ViewerCredentials>;
  /** The client id to use; default: a fresh one (media-stack.md §8.4: never reuse one across connects). */
  clientId?: string;
  onStateChange: (state: ViewerConnectionState) => void;
  /** The publisher's camera and microphone. */
  onStream: (stream: MediaStream) => void;
  /**
   * Further video views the publisher may send on the same connection, in order (e.g. `['screen']`): one more
   * receive-only video transceiver each, after the camera's. A publisher without them leaves them inactive.
   */
  extraViews?: readonly string[];
  /** A track arrived for one of `extraViews` (its own stream, video only). */
  onViewStream?: (view: string, stream: MediaStream, receiver?: RTCRtpReceiver) => void;
  /**
   * While connected, whether the camera's video has stopped: true once no new frame was decoded for
   * VIDEO_STALL_MS (video-stall.ts; the connection stays 'connected' meanwhile), false when frames come again.
   * Not called where the receiver has no statistics.
   */
  onVideoStalled?: (stalled: boolean) => void;
}

/** An open viewer. */
export interface ViewerConnection {
  readonly clientId: string;
  readonly channelName: string;
  /** Closes signaling and the peer connection; no more callbacks afterwards. */
  close(): void;
}

interface ChannelEndpoints {
  channelArn: string;
  wss: string;
  https: string;
  systemClockOffset: number;
}

type ViewerSdk = typeof ViewerSdkModule;

/**
 * The EventEmitter side of the SDK's SignalingClient. The SDK extends Node's `events` EventEmitter, whose
 * types the browser build does not load, so the few methods used are declared here.
 */
interface SignalingEvents {
  on(event: 'open' | 'close', fn: () => void): unknown;
  on(event: 'sdpAnswer', fn: (answer: RTCSessionDescriptionInit) => void): unknown;
  on(event: 'iceCandidate', fn: (candidate: RTCIceCandidateInit) => void): unknown;
  on(event: 'error', fn: (e: unknown) => void): unknown;
  removeAllListeners(): unknown;
}
let sdkPromise: Promise<ViewerSdk> | null = null;

/** Loads the SDK chunk once. */
export function loadViewerSdk(): Promise<ViewerSdk> {
  sdkPromise ??= import('./viewer-sdk').catch((e: unknown) => {
    sdkPromise = null;
    throw e;
  });
  return sdkPromise;
}

/**
 * Endpoints per channel (KVS DescribeSignalingChannel is limited to 5 TPS per channel: media-stack.md §8.18).
 * A channel's are forgotten when KVS says it does not know them (ResourceNotFoundException: the channel was
 * deleted or made again with a new ARN) or signaling fails on them, so the next attempt describes it again.
 */
const endpointCache = new Map<string, Promise<ChannelEndpoints>>();

const endpointKey = (c: ViewerCredentials) => `${c.region}|${c.endpoint ?? ''}|${c.channelName}`;

/** Forgets the endpoints `used` came from, unless another attempt resolved them anew meanwhile. */
function forgetEndpoints(c: ViewerCredentials, used: Promise<ChannelEndpoints>): void {
  const key = endpointKey(c);
  if (endpointCache.get(key) === used) endpointCache.delete(key);
}

/** Forgets the cached endpoints (all, or one channel's, e.g. after the channel was re-created). */
export function clearViewerEndpointCache(channelName?: string): void {
  if (channelName === undefined) endpointCache.clear();
  else for (const k of [...endpointCache.keys()]) if (k.endsWith(`|${channelName}`)) endpointCache.delete(k);
}

let clientSeq = 0;

/** A fresh viewer client id: `[a-zA-Z0-9_.-]`, not starting with AWS_, unique per connect. */
export function newViewerClientId(): string {
  clientSeq += 1;
  const rnd =
    typeof crypto !== 'undefined' && 'randomUUID' in crypto
      ? crypto.randomUUID().replace(/-/g, '').slice(0, 12)
      : Math.random().toString(36).slice(2, 14);
  return `checker-${Date.now().toString(36)}-${clientSeq}-${rnd}`;
}

function awsCredentials(c: ViewerCredentials) {
  return { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey, sessionToken: c.sessionToken };
}

function resolveEndpoints(sdk: ViewerSdk, c: ViewerCredentials): Promise<ChannelEndpoints> {
  const key = endpointKey(c);
  let p = endpointCache.get(key);
  if (!p) {
    p = (async () => {
      const client = new sdk.KinesisVideoClient({
        region: c.region,
        credentials: awsCredentials(c),
        ...(c.endpoint ? { endpoint: c.endpoint } : {}),
      });
      const described = await client.send(
        new sdk.DescribeSignalingChannelCommand({ ChannelName: c.channelName }),
      );
      const channelArn = described.ChannelInfo?.ChannelARN;
      if (!channelArn) throw new Error(`No ARN for signaling channel ${c.channelName}`);
      const ep = await client.send(
        new sdk.GetSignalingChannelEndpointCommand({
          ChannelARN: channelArn,
          SingleMasterChannelEndpointConfiguration: { Protocols: ['WSS', 'HTTPS'], Role: sdk.Role.VIEWER },
        }),
      );
      const list = ep.ResourceEndpointList ?? [];
      const wss = list.find((e) => e.Protocol === 'WSS')?.ResourceEndpoint;
      const https = list.find((e) => e.Protocol === 'HTTPS')?.ResourceEndpoint;
      if (!wss || !https) throw new Error(`No endpoints for signaling channel ${c.channelName}`);
      return { channelArn, wss, https, systemClockOffset: client.config.systemClockOffset ?? 0 };
    })();
    endpointCache.set(key, p);
    p.catch(() => endpointCache.delete(key));
  }
  return p;
}

async function iceServers(
  sdk: ViewerSdk,
  c: ViewerCredentials,
  ep: ChannelEndpoints,
  clientId: string,
): Promise<RTCIceServer[]> {
  // media-stack.md §8.7: ICE servers come only from GetIceServerConfig (no hard-coded STUN host).
  const client = new sdk.KinesisVideoSignalingClient({
    region: c.region,
    credentials: awsCredentials(c),
    endpoint: ep.https,
  });
  const r = await client.send(
    new sdk.GetIceServerConfigCommand({ ChannelARN: ep.channelArn, ClientId: clientId }),
  );
  return (r.IceServerList ?? [])
    .filter((s) => (s.Uris ?? []).length > 0)
    .map((s) => ({ urls: s.Uris ?? [], username: s.Username, credential: s.Password }));
}

/**
 * The video codecs a viewer offers: VP8 (what the examinee's browser sends today: first in Chrome's list), VP9
 * profile 0, H.264 constrained baseline (packetization mode 1), and the repair codecs (rtx, red, ulpfec), in the
 * browser's order. A signaling message holds at most 10,000 base64 characters (KVS's hard limit, enforced by the
 * stand-in too): Chrome's full list (some 20 video codecs) on three video m-lines makes an offer of ~11 KB of
 * SDP, over it; trimmed, the camera, its microphone and the screen fit in ~8 K.
 */
export function liveVideoCodecs(codecs: readonly RTCRtpCodec[]): RTCRtpCodec[] {
  const fmtp = (c: RTCRtpCodec) => c.sdpFmtpLine ?? '';
  return codecs.filter((c) => {
    const type = c.mimeType.toLowerCase();
    if (type === 'video/vp8' || /^video\/(rtx|red|ulpfec)$/.test(type)) return true;
    if (type === 'video/vp9') return !/profile-id=[1-9]/.test(fmtp(c));
    if (type === 'video/h264')
      return /packetization-mode=1/.test(fmtp(c)) && /profile-level-id=42e01f/i.test(fmtp(c));
    return false;
  });
}

/** Offers `liveVideoCodecs` on every video transceiver, where the browser lets a page choose. */
function trimVideoCodecs(transceivers: RTCRtpTransceiver[]): void {
  const all =
    typeof RTCRtpReceiver !== 'undefined' ? RTCRtpReceiver.getCapabilities?.('video')?.codecs : null;
  if (!all) return;
  const keep = liveVideoCodecs(all);
  if (!keep.some((c) => c.mimeType.toLowerCase() !== 'video/rtx')) return;
  for (const t of transceivers) {
    try {
      t.setCodecPreferences?.(keep);
    } catch (e) {
      logger.error('viewer', `setCodecPreferences: ${String(e)}`);
    }
  }
}

function mapState(s: RTCPeerConnectionState): ViewerConnectionState {
  if (s === 'connected') return 'connected';
  if (s === 'disconnected' || s === 'failed' || s === 'closed') return s;
  return 'connecting';
}

/**
 * Connects as a VIEWER: resolves the channel's endpoints (cached per channel), takes ICE servers from
 * GetIceServerConfig, opens signaling with a fresh client id, sends a recvonly audio+video offer (plus one
 * recvonly video per extra view) and trickles ICE. Received camera tracks arrive through `onStream`, an extra
 * view's through `onViewStream`; RTCPeerConnection state changes through `onStateChange`.
 * Rejects when the channel cannot be resolved or signaling cannot be set up.
 */
export async function openViewer(opts: ViewerOptions): Promise<ViewerConnection> {
  const creds = opts.credentials;
  const clientId = opts.clientId ?? newViewerClientId();
  let closed = false;
  let last: ViewerConnectionState | null = null;
  const emit = (s: ViewerConnectionState) => {
    if (closed && s !== 'closed') return;
    if (s === last) return;
    last = s;
    opts.onStateChange(s);
  };
  emit('connecting');

  const sdk = await loadViewerSdk();
  const endpoints = resolveEndpoints(sdk, creds);
  const ep = await endpoints;
  const servers = await iceServers(sdk, creds, ep, clientId).catch((e: unknown) => {
    if (isResourceNotFound(e)) forgetEndpoints(creds, endpoints);
    throw e;
  });

  const pc = new RTCPeerConnection({
    iceServers: servers,
    // config.json `iceTransportPolicy: 'relay'`: only through the TURN servers (no direct path).
    iceTransportPolicy: getRuntimeConfig().iceTransportPolicy,
  });
  const getCreds = opts.getCredentials ?? (() => Promise.resolve(creds));
  const signaling = new sdk.SignalingClient({
    channelARN: ep.channelArn,
    channelEndpoint: ep.wss,
    clientId,
    role: sdk.Role.VIEWER,
    region: creds.region,
    requestSigner: sdk.createKvsRequestSigner(creds.region, async () => awsCredentials(await getCreds())),
    systemClockOffset: ep.systemClockOffset,
  });
  const events = signaling as unknown as SignalingEvents;

  let remote: MediaStream | null = null;
  const camera = pc.addTransceiver('video', { direction: 'recvonly' });
  pc.addTransceiver('audio', { direction: 'recvonly' });
  // The camera's m-lines come first, so a publisher that knows nothing of extra views still finds its camera.
  const extras = (opts.extraViews ?? []).map(
    (view) => [view, pc.addTransceiver('video', { direction: 'recvonly' })] as const,
  );
  trimVideoCodecs([camera, ...extras.map(([, t]) => t)].filter(Boolean));

  pc.ontrack = (ev) => {
    if (closed) return;
    const extra = extras.find(([, t]) => t === ev.transceiver || t.receiver.track === ev.track);
    if (extra) {
      opts.onViewStream?.(extra[0], new MediaStream([ev.track]), ev.receiver);
      return;
    }
    const s = ev.streams[0];
    if (s) remote = s;
    else {
      remote ??= new MediaStream();
      remote.addTrack(ev.track);
    }
    opts.onStream(remote);
  };
  pc.onicecandidate = (ev) => {
    if (closed || !ev.candidate) return;
    try {
      signaling.sendIceCandidate(ev.candidate);
    } catch (e) {
      logger.error('viewer', `sendIceCandidate failed: ${String(e)}`);
    }
  };
  // The camera's frames are watched while connected (one getStats of its receiver a second).
  let stallWatch: VideoStallWatch | null = null;
  const watchCamera = (connected: boolean) => {
    stallWatch?.stop();
    stallWatch = null;
    const receiver = camera.receiver as RTCRtpReceiver | undefined;
    if (!connected || !opts.onVideoStalled || typeof receiver?.getStats !== 'function') return;
    stallWatch = watchVideoStall(
      () => inboundVideoProgress(receiver),
      (stalled) => {
        if (!closed) opts.onVideoStalled?.(stalled);
      },
    );
  };
  pc.onconnectionstatechange = () => {
    const state = mapState(pc.connectionState);
    if (state !== last) watchCamera(state === 'connected');
    emit(state);
  };

  events.on('open', () => {
    if (closed) return;
    void (async () => {
      try {
        const offer = await pc.createOffer({ offerToReceiveAudio: true, offerToReceiveVideo: true });
        await pc.setLocalDescription(offer);
        if (!closed && pc.localDescription) signaling.sendSdpOffer(pc.localDescription);
      } catch (e) {
        logger.error('viewer', `offer failed: ${String(e)}`);
        emit('failed');
      }
    })();
  });
  events.on('sdpAnswer', (answer: RTCSessionDescriptionInit) => {
    if (closed) return;
    pc.setRemoteDescription(answer).catch((e: unknown) => {
      logger.error('viewer', `setRemoteDescription failed: ${String(e)}`);
      emit('failed');
    });
  });
  events.on('iceCandidate', (candidate: RTCIceCandidateInit) => {
    if (closed) return;
    pc.addIceCandidate(candidate).catch((e: unknown) =>
      logger.error('viewer', `addIceCandidate: ${String(e)}`),
    );
  });
  events.on('close', () => {
    // The SDK never reconnects (media-stack.md §8.3). Once media flows the peer connection survives a closed
    // socket; before that, the attempt has failed and the caller decides (spec §4 lifecycle). The socket may
    // have been refused for an ARN KVS no longer knows: the next attempt describes the channel again.
    if (!closed && pc.connectionState !== 'connected') {
      forgetEndpoints(creds, endpoints);
      emit('failed');
    }
  });
  events.on('error', (e: unknown) => logger.error('viewer', `signaling error: ${String(e)}`));

  const conn: ViewerConnection = {
    clientId,
    channelName: creds.channelName,
    close() {
      if (closed) return;
      closed = true;
      watchCamera(false);
      pc.ontrack = null;
      pc.onicecandidate = null;
      pc.onconnectionstatechange = null;
      try {
        events.removeAllListeners();
        signaling.close();
      } catch {
        /* already closed */
      }
      pc.close();
    },
  };
  signaling.open();
  return conn;
}
