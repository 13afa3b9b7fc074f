import type { SignalingClient } from 'amazon-kinesis-video-streams-webrtc';
import type {
  ExtraStream,
  KvsChannel,
  MasterHandle,
  MasterOptions,
  MasterStatus,
  VideoLimits,
} from './master-types';
import { isResourceNotFound } from './kvs-errors';
import { getStream, onStreamChange } from './stream-registry';
import { getRuntimeConfig } from '../lib/runtime-config';

export type {
  ExtraStream,
  KvsChannel,
  MasterCallbacks,
  MasterHandle,
  MasterOptions,
  MasterStatus,
  VideoLimits,
} from './master-types';

/** Spec §4: signaling start-up is retried 3 times. */
export const SIGNALING_RETRIES = 3;
/** Offers held for a viewer the matching does not name yet: how many, how long, and candidates per offer. */
const HELD_MAX = 4;
const HELD_MS = 60_000;
const HELD_CANDIDATES = 50;
/** Just under the service's 1 h maximum connection time (media-stack.md §6). */
export const MAX_CONNECTION_MS = 55 * 60_000;

interface Endpoints {
  channelARN: string;
  wss: string;
  https: string;
}

/**
 * DescribeSignalingChannel is 5 TPS per channel (media-stack.md §8.18): endpoints are cached per channel, and
 * a channel's are forgotten when an attempt on them fails in a way that says they may be stale
 * (`staleEndpoints`).
 */
const endpointCache = new Map<string, Endpoints>();

const endpointKey = (c: KvsChannel) => `${c.endpoint ?? ''}|${c.region}|${c.channelName}`;

/** Forgets cached endpoints (tests). */
export function clearEndpointCache(): void {
  endpointCache.clear();
}

/** The signaling socket could not be opened (refused, closed or timed out while opening). */
class SignalingOpenError extends Error {}

/**
 * Whether a failed attempt says the cached endpoints may be stale: KVS does not know the channel or its ARN
 * (ResourceNotFoundException), or the signaling socket would not open on them. The next attempt then
 * describes the channel again instead of failing on an old ARN for good.
 */
function staleEndpoints(e: unknown): boolean {
  return e instanceof SignalingOpenError || isResourceNotFound(e);
}

/** The KVS/AWS code, loaded on first use so the login route never downloads it. */
async function loadSdk() {
  const [kvs, cp, dp, signer] = await Promise.all([
    import('amazon-kinesis-video-streams-webrtc'),
    import('@aws-sdk/client-kinesis-video'),
    import('@aws-sdk/client-kinesis-video-signaling'),
    import('./kvs-signer'),
  ]);
  return { kvs, cp, dp, signer };
}
type Sdk = Awaited<ReturnType<typeof loadSdk>>;

function credsOf(c: KvsChannel) {
  return { accessKeyId: c.accessKeyId, secretAccessKey: c.secretAccessKey, sessionToken: c.sessionToken };
}

async function resolveEndpoints(sdk: Sdk, c: KvsChannel): Promise<Endpoints> {
  const key = endpointKey(c);
  const hit = endpointCache.get(key);
  if (hit) return hit;
  const client = new sdk.cp.KinesisVideoClient({
    region: c.region,
    credentials: credsOf(c),
    ...(c.endpoint ? { endpoint: c.endpoint } : {}),
    maxAttempts: 1,
  });
  const described = await client.send(
    new sdk.cp.DescribeSignalingChannelCommand({ ChannelName: c.channelName }),
  );
  const channelARN = described.ChannelInfo?.ChannelARN;
  if (!channelARN) throw new Error('DescribeSignalingChannel returned no ChannelARN');
  const ep = await client.send(
    new sdk.cp.GetSignalingChannelEndpointCommand({
      ChannelARN: channelARN,
      SingleMasterChannelEndpointConfiguration: { Protocols: ['WSS', 'HTTPS'], Role: 'MASTER' },
    }),
  );
  const list = ep.ResourceEndpointList ?? [];
  const wss = list.find((e) => e.Protocol === 'WSS')?.ResourceEndpoint;
  const https = list.find((e) => e.Protocol === 'HTTPS')?.ResourceEndpoint;
  if (!wss || !https) throw new Error('GetSignalingChannelEndpoint returned no WSS/HTTPS endpoint');
  const out = { channelARN, wss, https };
  endpointCache.set(key, out);
  return out;
}

/** ICE servers only from GetIceServerConfig (media-stack.md §8.7; the stand-in answers []). */
async function iceServers(sdk: Sdk, c: KvsChannel, ep: Endpoints): Promise<RTCIceServer[]> {
  const client = new sdk.dp.KinesisVideoSignalingClient({
    region: c.region,
    endpoint: ep.https,
    credentials: credsOf(c),
    maxAttempts: 1,
  });
  const r = await client.send(new sdk.dp.GetIceServerConfigCommand({ ChannelARN: ep.channelARN }));
  return (r.IceServerList ?? [])
    .filter((s) => (s.Uris ?? []).length > 0)
    .map((s) => ({ urls: s.Uris ?? [], username: s.Username, credential: s.Password }));
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The SDK's client is an EventEmitter from the `events` package, which ships no types here. */
type Emitting = SignalingClient & {
  on(event: string, fn: (...args: never[]) => void): unknown;
  removeAllListeners(): unknown;
};

interface Peer {
  pc: RTCPeerConnection;
  /** Resolves once the remote description is set (early candidates wait for it). */
  ready: Promise<void>;
  /** The transceivers of the extra video streams, in MasterOptions.extraStreams order (once answered). */
  extras: (RTCRtpTransceiver | undefined)[];
}

/** The mids of an offer's video m-sections, in the order of the SDP. */
export function videoMids(sdp: string | undefined): string[] {
  const mids: string[] = [];
  for (const section of (sdp ?? '').split(/\r?\nm=/).slice(1)) {
    const mid = /^a=mid:(\S+)/m.exec(section)?.[1];
    if (section.startsWith('video') && mid !== undefined) mids.push(mid);
  }
  return mids;
}

/**
 * Puts a live video's encoder limits on its sender (once negotiated: before that it has no encodings). They
 * stay with the sender when its track is replaced.
 */
async function applyLimits(sender: RTCRtpSender, limits: VideoLimits | undefined): Promise<void> {
  if (!limits || (limits.maxBitrate === undefined && limits.maxFramerate === undefined)) return;
  const params = sender.getParameters();
  if (!params.encodings?.length) return;
  for (const e of params.encodings) {
    if (limits.maxBitrate !== undefined) e.maxBitrate = limits.maxBitrate;
    if (limits.maxFramerate !== undefined) e.maxFramerate = limits.maxFramerate;
  }
  await sender.setParameters(params).catch(() => undefined);
}

/** Sends the extra stream's current video track (or nothing) on its transceiver, within its live limits. */
async function sendExtra(t: RTCRtpTransceiver, extra: ExtraStream): Promise<void> {
  const stream = getStream(extra.streamId);
  const track = stream?.getVideoTracks().find((x) => x.readyState !== 'ended') ?? null;
  if (t.sender.track === track) return;
  await t.sender.replaceTrack(track);
  if (track && stream) t.sender.setStreams?.(stream);
  if (track) await applyLimits(t.sender, extra);
}

/**
 * Starts publishing the local camera+microphone as the MASTER of a KVS signaling channel, with the real
 * SDK: DescribeSignalingChannel + GetSignalingChannelEndpoint (cached), GetIceServerConfig, then a
 * SignalingClient signed by {@link createKvsRequestSigner}. One RTCPeerConnection per viewer clientId;
 * an offer is answered only from the matched checker's clientId (`allowedViewer`); ICE trickles both ways. On a close (idle, GO_AWAY, the 1 h cap, a
 * kick) it reopens with fresh credentials; start-up is tried `retries` times (spec §4: 3).
 *
 * @returns the running master once signaling is open; rejects when every attempt failed.
 */
export async function startMaster(opts: MasterOptions): Promise<MasterHandle> {
  const sdk = await loadSdk();
  const retries = opts.retries ?? SIGNALING_RETRIES;
  const retryDelayMs = opts.retryDelayMs ?? 1000;
  const openTimeoutMs = opts.openTimeoutMs ?? 10_000;
  const cb = opts.callbacks;
  let channel = opts.channel;
  let status: MasterStatus = 'connecting';
  let stopping = false;
  let signaling: Emitting | null = null;
  /** The endpoints `signaling` was made for (a channel made again has a new ARN: a new client then). */
  let signalingEndpoints: Endpoints | null = null;
  let ice: RTCIceServer[] = [];
  let capTimer: ReturnType<typeof setTimeout> | null = null;
  let reconnecting: Promise<void> | null = null;
  const peers = new Map<string, Peer>();
  let onOpen: (() => void) | null = null;
  let onCloseDuringOpen: (() => void) | null = null;
  let closedWaiters: (() => void)[] = [];

  const setStatus = (s: MasterStatus) => {
    if (status === s) return;
    status = s;
    cb.onStatus(s);
  };
  const emitViewers = () => cb.onViewers([...peers.keys()]);

  const closePeer = (id: string) => {
    const p = peers.get(id);
    if (!p) return;
    peers.delete(id);
    p.pc.onicecandidate = null;
    p.pc.onconnectionstatechange = null;
    p.pc.close();
    // 2.9.0: a viewer that reconnects with the same clientId must not get stale early candidates.
    signaling?.resetIceCandidateState?.(id);
    emitViewers();
  };

  /** Whether the matched checker is this viewer (every viewer when the API names no ClientId). */
  const allowed = (viewerId: string) => {
    const id = opts.allowedViewer?.();
    return id === undefined || id === viewerId;
  };

  /**
   * Offers (and their early candidates) from viewers not allowed yet: a newly matched checker's viewer may
   * offer before this examinee's next poll names it. Kept briefly and answered once the matching names that
   * ClientId; a removed checker's never is (ClientIds are random per matching).
   */
  const held = new Map<
    string,
    { offer: RTCSessionDescriptionInit; at: number; candidates: RTCIceCandidateInit[] }
  >();

  const hold = (offer: RTCSessionDescriptionInit, viewerId: string) => {
    held.delete(viewerId);
    held.set(viewerId, { offer, at: Date.now(), candidates: [] });
    while (held.size > HELD_MAX) held.delete(held.keys().next().value as string);
  };

  const onSdpOffer = (offer: RTCSessionDescriptionInit, viewerId: string) => {
    // Anyone holding viewer credentials for the channel can send an offer (a checker removed from the
    // matching keeps them until they expire on AWS): only the matched checker's ClientId is answered.
    if (!allowed(viewerId)) {
      hold(offer, viewerId);
      return;
    }
    held.delete(viewerId);
    closePeer(viewerId);
    const stream = getStream(opts.streamId);
    // config.json `iceTransportPolicy: 'relay'`: only through the TURN servers (no direct path, no host address).
    const pc = new RTCPeerConnection({
      iceServers: ice,
      iceTransportPolicy: getRuntimeConfig().iceTransportPolicy,
    });
    const videoTracks = new Set<MediaStreamTrack>(stream?.getVideoTracks() ?? []);
    const videoSenders: RTCRtpSender[] = [];
    stream?.getTracks().forEach((t) => {
      const sender = pc.addTrack(t, stream);
      if (videoTracks.has(t)) videoSenders.push(sender);
    });
    const extraStreams = opts.extraStreams ?? [];
    const extras: (RTCRtpTransceiver | undefined)[] = [];
    pc.onicecandidate = (e) => {
      if (e.candidate && signaling) signaling.sendIceCandidate(e.candidate, viewerId);
    };
    pc.onconnectionstatechange = () => {
      if (pc.connectionState === 'failed' || pc.connectionState === 'closed') closePeer(viewerId);
    };
    const ready = (async () => {
      await pc.setRemoteDescription(offer);
      // The viewer's video m-lines after the camera's carry the extra streams: answered sendonly whether or not
      // there is a track yet, so a stream that starts later needs no renegotiation (replaceTrack).
      const mids = videoMids(offer.sdp).slice(1);
      extraStreams.forEach((_, i) => {
        const t = pc.getTransceivers?.().find((x) => x.mid === mids[i]);
        if (t) t.direction = 'sendonly';
        extras[i] = t;
      });
      const answer = await pc.createAnswer();
      await pc.setLocalDescription(answer);
      if (pc.localDescription && signaling) signaling.sendSdpAnswer(pc.localDescription, viewerId);
      await Promise.all(videoSenders.map((sender) => applyLimits(sender, opts.videoLimits)));
      await Promise.all(extras.map((t, i) => (t ? sendExtra(t, extraStreams[i]!) : undefined)));
    })();
    ready.catch(() => closePeer(viewerId));
    peers.set(viewerId, { pc, ready, extras });
    emitViewers();
  };

  const onIceCandidate = (candidate: RTCIceCandidateInit, viewerId: string) => {
    const p = peers.get(viewerId);
    if (!p) {
      const h = held.get(viewerId);
      if (h && h.candidates.length < HELD_CANDIDATES) h.candidates.push(candidate);
      return;
    }
    void p.ready.then(() => p.pc.addIceCandidate(candidate)).catch(() => undefined);
  };

  const onClose = () => {
    const wasOpening = onCloseDuringOpen;
    onCloseDuringOpen = null;
    const waiters = closedWaiters;
    closedWaiters = [];
    waiters.forEach((w) => w());
    if (wasOpening) {
      wasOpening();
      return;
    }
    if (stopping || reconnecting) return;
    // The service closed us (idle, GO_AWAY, the 1 h cap, a kick): reopen with fresh credentials.
    void doReconnect();
  };

  const build = async () => {
    const ep = await resolveEndpoints(sdk, channel);
    ice = await iceServers(sdk, channel, ep);
    if (signaling && signalingEndpoints?.channelARN === ep.channelARN && signalingEndpoints.wss === ep.wss)
      return;
    if (signaling) {
      // Made for endpoints KVS no longer knows (closed already: the attempt that found out failed).
      const stale = signaling;
      signaling = null;
      stale.removeAllListeners();
      stale.close();
    }
    const client = new sdk.kvs.SignalingClient({
      role: sdk.kvs.Role.MASTER,
      channelARN: ep.channelARN,
      channelEndpoint: ep.wss,
      region: channel.region,
      requestSigner: sdk.signer.createKvsRequestSigner(channel.region, async () => credsOf(channel)),
    });
    const emitter = client as Emitting;
    emitter.on('open', () => onOpen?.());
    // GO_AWAY: the SDK (2.x) surfaces no event for it — its message handler only dispatches SDP_OFFER,
    // SDP_ANSWER, ICE_CANDIDATE and STATUS_RESPONSE and drops other types. The service closes the socket
    // right after GO_AWAY, so the 'close' handler below (reopen with fresh credentials) covers it.
    emitter.on('close', onClose);
    emitter.on('error', () => undefined);
    emitter.on('sdpOffer', onSdpOffer);
    emitter.on('iceCandidate', onIceCandidate);
    signaling = emitter;
    signalingEndpoints = ep;
  };

  const openOnce = () =>
    new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        onOpen = null;
        // The close this causes belongs to the failed attempt, not to a live connection.
        onCloseDuringOpen = () => undefined;
        signaling?.close();
        reject(new SignalingOpenError('signaling open timed out'));
      }, openTimeoutMs);
      onOpen = () => {
        clearTimeout(timer);
        onOpen = null;
        onCloseDuringOpen = null;
        resolve();
      };
      onCloseDuringOpen = () => {
        clearTimeout(timer);
        onOpen = null;
        reject(new SignalingOpenError('signaling closed while opening'));
      };
      signaling!.open();
    });

  const armCap = () => {
    if (capTimer) clearTimeout(capTimer);
    capTimer = setTimeout(() => void doReconnect(), opts.maxConnectionMs ?? MAX_CONNECTION_MS);
  };

  /** Opens signaling, `retries` attempts; throws the last error. */
  const connect = async () => {
    let last: unknown = null;
    for (let attempt = 1; attempt <= retries; attempt += 1) {
      if (stopping) throw new Error('stopped');
      try {
        await build();
        await openOnce();
        setStatus('live');
        armCap();
        return;
      } catch (e) {
        last = e;
        if (staleEndpoints(e)) endpointCache.delete(endpointKey(channel));
        if (attempt < retries) await sleep(retryDelayMs);
      }
    }
    throw last instanceof Error ? last : new Error(String(last));
  };

  const doReconnect = (): Promise<void> => {
    if (reconnecting) return reconnecting;
    reconnecting = (async () => {
      setStatus('reconnecting');
      if (signaling) {
        const closed = new Promise<void>((r) => closedWaiters.push(r));
        signaling.close();
        await Promise.race([closed, sleep(2000)]);
      }
      try {
        const fresh = await opts.refreshCredentials().catch(() => null);
        if (fresh) channel = fresh;
        await connect();
      } catch (e) {
        if (!stopping) {
          setStatus('lost');
          cb.onLost(e instanceof Error ? e.message : String(e));
        }
      } finally {
        reconnecting = null;
      }
    })();
    return reconnecting;
  };

  // An extra stream started, was replaced or ended: every peer sends the new track (or nothing) at once.
  const offExtras = onStreamChange((id) => {
    const i = (opts.extraStreams ?? []).findIndex((x) => x.streamId === id);
    if (i < 0) return;
    for (const p of peers.values()) {
      const t = p.extras[i];
      if (t) void p.ready.then(() => sendExtra(t, opts.extraStreams![i]!)).catch(() => undefined);
    }
  });

  cb.onStatus('connecting');
  try {
    await connect();
  } catch (e) {
    stopping = true;
    offExtras();
    const failed = signaling as Emitting | null;
    failed?.removeAllListeners();
    failed?.close();
    setStatus('lost');
    throw e;
  }

  return {
    channelName: channel.channelName,
    reconnect: doReconnect,
    matchedViewerChanged() {
      for (const id of [...peers.keys()]) if (!allowed(id)) closePeer(id);
      const now = Date.now();
      for (const [id, h] of [...held]) {
        if (allowed(id)) {
          held.delete(id);
          onSdpOffer(h.offer, id);
          for (const c of h.candidates) onIceCandidate(c, id);
        } else if (now - h.at > HELD_MS) held.delete(id);
      }
    },
    async stop(graceMs: number) {
      stopping = true;
      offExtras();
      if (capTimer) clearTimeout(capTimer);
      for (const id of [...peers.keys()]) closePeer(id);
      if (signaling) {
        const closed = new Promise<void>((r) => closedWaiters.push(r));
        signaling.close();
        await Promise.race([closed, sleep(graceMs)]);
        signaling.removeAllListeners();
      }
      setStatus('stopped');
    },
    async replaceVideoTrack(track: MediaStreamTrack) {
      await Promise.all(
        [...peers.values()].map(async ({ pc }) => {
          const sender = pc.getSenders().find((s) => s.track?.kind === 'video');
          await sender?.replaceTrack(track).catch(() => undefined);
        }),
      );
    },
    stats() {
      const pcs: Record<string, string> = {};
      peers.forEach((p, id) => (pcs[id] = p.pc.connectionState));
      return { status, viewers: peers.size, peers: pcs };
    },
  };
}
