import type { RawData, WebSocket } from 'ws';
import type { KvsSettings, KvsTimeouts } from './settings';

/** A signaling connection's role, spelled as the SDK's `Role` enum. */
export type KvsRole = 'MASTER' | 'VIEWER';

/** The message types a client may send (media-stack.md §1.4). */
export const RELAYED_TYPES = ['SDP_OFFER', 'SDP_ANSWER', 'ICE_CANDIDATE'] as const;
type RelayedType = (typeof RELAYED_TYPES)[number];

/** Pattern of viewer ClientIds, recipientClientIds and correlationIds (media-stack.md §1.1, §1.4). */
export const CLIENT_ID_PATTERN = /^[a-zA-Z0-9_.-]{1,256}$/;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;
/** messagePayload length limit (§6: 10K, hard). */
export const MAX_PAYLOAD_CHARS = 10_000;

/** Counters per channel, for tests and logs. */
export interface KvsChannelCounters {
  /** Messages delivered to a recipient, by type (a queued message counts when it is delivered). */
  relayed: Record<RelayedType, number>;
  /** Messages that waited for their recipient to connect. */
  queued: number;
  /** Queued messages dropped because their TTL passed (or the queue was full). */
  expired: number;
  /** Messages rejected as invalid (answered with STATUS_RESPONSE only when they carried a correlationId). */
  rejected: number;
  /**
   * Valid messages not relayed: for a ClientId that was not connected within the message TTL, over a
   * connection's send rate, or over the queue bounds (settings.ts).
   */
  dropped: number;
  statusResponses: number;
  goAways: number;
}

/** What the test hooks and `app.kvs.state()` show for one channel. */
export interface KvsConnectionState {
  master: { connectedAt: string } | null;
  viewers: { clientId: string; connectedAt: string }[];
  /** Messages waiting for a recipient, by recipient: 'master' or 'viewer:<ClientId>'. */
  pending: Record<string, number>;
  counters: KvsChannelCounters;
}

/** A token bucket per message type: what a connection may still send now. */
type SendBudget = Record<RelayedType, { tokens: number; at: number }>;

interface Connection {
  socket: WebSocket;
  /** The access key id the connection was admitted with, so revoking it closes the connection. */
  accessKeyId: string | null;
  budget: SendBudget;
  channelName: string;
  role: KvsRole;
  clientId: string | null;
  connectedAt: Date;
  idleTimeoutMs: number;
  idleTimer: NodeJS.Timeout | null;
  maxTimer: NodeJS.Timeout | null;
}

interface Pending {
  frame: string;
  type: RelayedType;
  expiresAt: number;
}

interface Session {
  master: Connection | null;
  viewers: Map<string, Connection>;
  /** Queued frames by recipient key, in insertion order (the first key holds the oldest queue). */
  pending: Map<string, Pending[]>;
  /** Bytes of the frames in `pending`. */
  pendingBytes: number;
  /**
   * Viewer ClientIds that may receive queued messages: connected now (Infinity) or until the time their
   * disconnect plus the message TTL reaches. A master message for any other ClientId is dropped, so made-up
   * recipients cannot make the stand-in hold anything.
   */
  known: Map<string, number>;
  counters: KvsChannelCounters;
}

const MASTER_KEY = 'master';
const VIEWER_PREFIX = 'viewer:';
const viewerKey = (clientId: string): string => `${VIEWER_PREFIX}${clientId}`;
const bytesOf = (list: readonly Pending[]): number => list.reduce((n, p) => n + p.frame.length, 0);

function newCounters(): KvsChannelCounters {
  return {
    relayed: { SDP_OFFER: 0, SDP_ANSWER: 0, ICE_CANDIDATE: 0 },
    queued: 0,
    expired: 0,
    rejected: 0,
    dropped: 0,
    statusResponses: 0,
    goAways: 0,
  };
}

function toText(data: RawData): string {
  if (Buffer.isBuffer(data)) return data.toString('utf8');
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data).toString('utf8');
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The WebSocket side of the stand-in: who is connected to which channel, and the per-message relay rules of
 * the real service (media-stack.md §7.1): viewer → master with `senderClientId` added, master → viewer by
 * `recipientClientId` with no sender, never viewer → viewer; undelivered messages wait `messageTtlMs`; every
 * frame sent is a text frame.
 *
 * Memory stays bounded whatever a client sends (what AWS bounds by its per-connection TPS limits): each
 * connection's send rate is limited per message type, messages wait only for the master or a viewer ClientId
 * seen within the TTL, queues are capped per recipient, per channel (recipients and bytes) and in total, and
 * expired messages are swept on a timer rather than only when their key is written again.
 */
export class SignalingHub {
  private readonly sessions = new Map<string, Session>();
  /** Applies to connections opened from now on (the test hook changes it). */
  timeouts: KvsTimeouts;
  /** Bytes queued over every channel. */
  private totalPendingBytes = 0;
  private readonly sweeper: NodeJS.Timeout;

  constructor(private readonly settings: KvsSettings) {
    this.timeouts = { ...settings.timeouts };
    this.sweeper = setInterval(() => this.sweep(), settings.sweepIntervalMs);
    this.sweeper.unref();
  }

  /** Bytes of undelivered messages held now, over every channel (tests, the benchmark). */
  pendingBytes(): number {
    return this.totalPendingBytes;
  }

  /**
   * The limit check made before the upgrade, so an 11th viewer gets ClientLimitExceededException in the
   * handshake (§7.1). A viewer reconnecting with its own ClientId replaces itself and does not count.
   */
  canAdmit(channelName: string, role: KvsRole, clientId: string | null): boolean {
    if (role === 'MASTER' || clientId === null) return true;
    const s = this.sessions.get(channelName);
    if (!s || s.viewers.has(clientId)) return true;
    return s.viewers.size < this.settings.maxViewers;
  }

  /**
   * Takes over an upgraded socket. The newest master and a same-ClientId viewer replace the old socket.
   * `accessKeyId` is the credential it was admitted with (see `closeCredential`).
   */
  attach(
    socket: WebSocket,
    channelName: string,
    role: KvsRole,
    clientId: string | null,
    accessKeyId: string | null = null,
  ): void {
    const s = this.session(channelName);
    if (!this.canAdmit(channelName, role, clientId)) {
      // Two handshakes raced past the pre-upgrade check; the later one loses, as the 11th viewer would.
      socket.close(1008, 'ClientLimitExceededException');
      return;
    }
    const now = Date.now();
    const full = (type: RelayedType) => ({ tokens: 2 * this.settings.sendRatePerSecond[type], at: now });
    const conn: Connection = {
      socket,
      accessKeyId,
      budget: {
        SDP_OFFER: full('SDP_OFFER'),
        SDP_ANSWER: full('SDP_ANSWER'),
        ICE_CANDIDATE: full('ICE_CANDIDATE'),
      },
      channelName,
      role,
      clientId,
      connectedAt: new Date(),
      idleTimeoutMs: this.timeouts.idleTimeoutMs,
      idleTimer: null,
      maxTimer: null,
    };
    const previous = role === 'MASTER' ? s.master : s.viewers.get(clientId ?? '');
    if (role === 'MASTER') s.master = conn;
    else {
      s.viewers.set(clientId ?? '', conn);
      this.remember(s, clientId ?? '', Infinity);
    }
    // §6: one master per channel, the newest wins; the old socket's fate is undocumented, closing it is safe.
    if (previous) this.close(previous, 1000, 'Replaced by a newer connection');

    socket.on('message', (data) => this.onMessage(conn, toText(data)));
    socket.on('close', () => this.detach(conn));
    this.touch(conn);
    conn.maxTimer = setTimeout(
      () => this.goAway(conn, 'Maximum connection duration reached'),
      this.timeouts.maxDurationMs,
    );
    conn.maxTimer.unref();
    this.flushPending(s, role === 'MASTER' ? MASTER_KEY : viewerKey(clientId ?? ''), conn);
  }

  /** Closes the master (no clientId) or the given viewer of a channel; returns how many sockets were closed. */
  kick(channelName: string, role: KvsRole, clientId?: string): number {
    const s = this.sessions.get(channelName);
    if (!s) return 0;
    const targets =
      role === 'MASTER'
        ? s.master
          ? [s.master]
          : []
        : [...s.viewers.values()].filter((c) => clientId === undefined || c.clientId === clientId);
    for (const c of targets) this.close(c, 1000, 'Closed by test hook');
    return targets.length;
  }

  /**
   * Closes every connection admitted with the access key id (a revoked credential): on AWS an open
   * connection outlives its credentials, here revocation also ends what it opened. Returns how many.
   */
  closeCredential(accessKeyId: string): number {
    let n = 0;
    for (const s of this.sessions.values()) {
      for (const c of [s.master, ...s.viewers.values()]) {
        if (c && c.accessKeyId === accessKeyId) {
          this.close(c, 1008, 'Credentials revoked');
          n++;
        }
      }
    }
    return n;
  }

  /** Closes every socket of a channel and forgets its queued messages. */
  closeChannel(channelName: string): void {
    const s = this.sessions.get(channelName);
    if (!s) return;
    if (s.master) this.close(s.master, 1000, 'Channel deleted');
    for (const c of s.viewers.values()) this.close(c, 1000, 'Channel deleted');
    this.totalPendingBytes -= s.pendingBytes;
    this.sessions.delete(channelName);
  }

  /** Closes everything (server shutdown). */
  closeAll(): void {
    clearInterval(this.sweeper);
    for (const name of [...this.sessions.keys()]) this.closeChannel(name);
  }

  /** Drops expired queued messages and forgets viewers gone for longer than the TTL, on every channel. */
  sweep(now = Date.now()): void {
    for (const s of this.sessions.values()) {
      for (const [key, list] of s.pending) {
        const live = list.filter((p) => p.expiresAt > now);
        if (live.length === list.length) continue;
        this.release(s, bytesOf(list) - bytesOf(live));
        s.counters.expired += list.length - live.length;
        if (live.length) s.pending.set(key, live);
        else s.pending.delete(key);
      }
      for (const [id, until] of s.known) if (until <= now) s.known.delete(id);
    }
  }

  /** Connections, pending messages and counters of one channel. */
  state(channelName: string): KvsConnectionState {
    const s = this.sessions.get(channelName);
    if (!s) return { master: null, viewers: [], pending: {}, counters: newCounters() };
    const now = Date.now();
    const pending: Record<string, number> = {};
    for (const [k, list] of s.pending) {
      const live = list.filter((p) => p.expiresAt > now).length;
      if (live > 0) pending[k] = live;
    }
    return {
      master: s.master ? { connectedAt: s.master.connectedAt.toISOString() } : null,
      viewers: [...s.viewers.values()].map((c) => ({
        clientId: c.clientId ?? '',
        connectedAt: c.connectedAt.toISOString(),
      })),
      pending,
      counters: structuredClone(s.counters),
    };
  }

  private session(channelName: string): Session {
    let s = this.sessions.get(channelName);
    if (!s) {
      s = {
        master: null,
        viewers: new Map(),
        pending: new Map(),
        pendingBytes: 0,
        known: new Map(),
        counters: newCounters(),
      };
      this.sessions.set(channelName, s);
    }
    return s;
  }

  private detach(conn: Connection): void {
    if (conn.idleTimer) clearTimeout(conn.idleTimer);
    if (conn.maxTimer) clearTimeout(conn.maxTimer);
    const s = this.sessions.get(conn.channelName);
    if (!s) return;
    // A replaced socket closes after its successor registered: only remove the entry if it is still ours.
    if (conn.role === 'MASTER' && s.master === conn) s.master = null;
    if (conn.role === 'VIEWER' && conn.clientId !== null && s.viewers.get(conn.clientId) === conn) {
      s.viewers.delete(conn.clientId);
      // Messages for it may still wait the TTL, in case it reconnects (a network blip).
      this.remember(s, conn.clientId, Date.now() + this.timeouts.messageTtlMs);
    }
  }

  /** Marks a viewer ClientId as a possible recipient until `until`, within the per-channel bound. */
  private remember(s: Session, clientId: string, until: number): void {
    s.known.delete(clientId);
    s.known.set(clientId, until);
    if (s.known.size <= this.settings.maxKnownViewersPerChannel) return;
    // Forget the oldest disconnected one; connected viewers (at most maxViewers) are never forgotten.
    for (const [id, t] of s.known) {
      if (t !== Infinity) {
        s.known.delete(id);
        this.dropQueue(s, viewerKey(id));
        return;
      }
    }
  }

  /** Forgets the queue of one recipient key. */
  private dropQueue(s: Session, key: string): void {
    const list = s.pending.get(key);
    if (!list) return;
    s.pending.delete(key);
    this.release(s, bytesOf(list));
    s.counters.dropped += list.length;
  }

  private release(s: Session, bytes: number): void {
    s.pendingBytes -= bytes;
    this.totalPendingBytes -= bytes;
  }

  /** Takes one message of `type` from the connection's budget; false when it has none left now. */
  private spend(conn: Connection, type: RelayedType, now: number): boolean {
    const rate = this.settings.sendRatePerSecond[type];
    const b = conn.budget[type];
    b.tokens = Math.min(2 * rate, b.tokens + ((now - b.at) / 1000) * rate);
    b.at = now;
    if (b.tokens < 1) return false;
    b.tokens -= 1;
    return true;
  }

  private close(conn: Connection, code: number, reason: string): void {
    this.detach(conn);
    conn.socket.close(code, reason);
  }

  /** §6: the service may announce a close with GO_AWAY; the JS SDK ignores it, but a raw client can react. */
  private goAway(conn: Connection, reason: string): void {
    const s = this.sessions.get(conn.channelName);
    if (s) s.counters.goAways++;
    this.sendFrame(conn, JSON.stringify({ messageType: 'GO_AWAY' }), false);
    this.close(conn, 1000, reason);
  }

  private touch(conn: Connection): void {
    if (conn.idleTimer) clearTimeout(conn.idleTimer);
    conn.idleTimer = setTimeout(() => this.goAway(conn, 'Idle timeout'), conn.idleTimeoutMs);
    conn.idleTimer.unref();
  }

  private sendFrame(conn: Connection, frame: string, countsAsActivity = true): void {
    if (conn.socket.readyState !== conn.socket.OPEN) return;
    // A string makes ws send a text frame; a Buffer would arrive in the browser as a Blob (§7.1).
    conn.socket.send(frame);
    if (countsAsActivity) this.touch(conn);
  }

  private isCurrent(conn: Connection): boolean {
    const s = this.sessions.get(conn.channelName);
    if (!s) return false;
    return conn.role === 'MASTER' ? s.master === conn : s.viewers.get(conn.clientId ?? '') === conn;
  }

  private onMessage(conn: Connection, text: string): void {
    // A replaced or timed-out socket may still deliver frames while it closes; they go nowhere.
    if (!this.isCurrent(conn)) return;
    this.touch(conn);
    const s = this.session(conn.channelName);
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch {
      return; // §1.4: frames that are not JSON are dropped silently.
    }
    if (!isRecord(msg)) return;
    const correlationId =
      typeof msg.correlationId === 'string' && CLIENT_ID_PATTERN.test(msg.correlationId)
        ? msg.correlationId
        : undefined;
    const reject = (description: string): void => {
      s.counters.rejected++;
      if (correlationId === undefined) return; // §1.4: without a correlationId errors are silent.
      s.counters.statusResponses++;
      this.sendFrame(
        conn,
        JSON.stringify({
          messageType: 'STATUS_RESPONSE',
          statusResponse: {
            correlationId,
            errorType: 'InvalidArgumentException',
            statusCode: '400',
            success: false,
            description,
          },
        }),
      );
    };

    const action = msg.action;
    if (typeof action !== 'string' || !(RELAYED_TYPES as readonly string[]).includes(action)) {
      return reject(`Unsupported action: ${String(action).slice(0, 64)}`);
    }
    if (msg.correlationId !== undefined && correlationId === undefined)
      return reject('Invalid correlationId.');
    const payload = msg.messagePayload;
    if (
      typeof payload !== 'string' ||
      payload.length === 0 ||
      payload.length % 4 !== 0 ||
      !BASE64.test(payload)
    ) {
      return reject('messagePayload must be a non-empty base64 string.');
    }
    if (payload.length > MAX_PAYLOAD_CHARS) {
      return reject(`messagePayload exceeds ${MAX_PAYLOAD_CHARS} characters.`);
    }
    const type = action as RelayedType;
    if (!this.spend(conn, type, Date.now())) {
      s.counters.dropped++;
      if (correlationId === undefined) return;
      s.counters.statusResponses++;
      this.sendFrame(
        conn,
        JSON.stringify({
          messageType: 'STATUS_RESPONSE',
          statusResponse: {
            correlationId,
            errorType: 'ClientLimitExceededException',
            statusCode: '400',
            success: false,
            description: `More than ${this.settings.sendRatePerSecond[type]} ${type} messages per second.`,
          },
        }),
      );
      return;
    }

    if (conn.role === 'VIEWER') {
      // Viewer → master only; a recipientClientId from a viewer is ignored, so viewer → viewer never happens.
      const frame = JSON.stringify({
        messageType: type,
        messagePayload: payload,
        senderClientId: conn.clientId,
      });
      this.deliver(s, MASTER_KEY, s.master, frame, type);
      return;
    }
    const recipient = msg.recipientClientId;
    if (typeof recipient !== 'string' || !CLIENT_ID_PATTERN.test(recipient)) {
      return reject('recipientClientId is required for messages from the master.');
    }
    // Master → viewer: no senderClientId (the viewer SDK treats an absent sender as the master, §1.2).
    const frame = JSON.stringify({ messageType: type, messagePayload: payload });
    this.deliver(s, viewerKey(recipient), s.viewers.get(recipient) ?? null, frame, type);
  }

  private deliver(s: Session, key: string, to: Connection | null, frame: string, type: RelayedType): void {
    if (to && to.socket.readyState === to.socket.OPEN) {
      this.sendFrame(to, frame);
      s.counters.relayed[type]++;
      return;
    }
    const ttl = this.timeouts.messageTtlMs;
    if (ttl <= 0) {
      s.counters.expired++;
      return;
    }
    const now = Date.now();
    // Only the master or a viewer seen within the TTL can ever collect a message: anything else would wait
    // for nobody (a made-up recipientClientId), so it is dropped at once.
    if (key !== MASTER_KEY && !((s.known.get(key.slice(VIEWER_PREFIX.length)) ?? 0) > now)) {
      s.counters.dropped++;
      return;
    }
    const list = s.pending.get(key) ?? [];
    if (!s.pending.has(key) && s.pending.size >= this.settings.maxPendingRecipientsPerChannel) {
      s.counters.dropped++;
      return;
    }
    const bytes = frame.length;
    if (list.length >= this.settings.maxPendingPerRecipient) this.shift(s, list);
    // The oldest messages of the channel, then of the whole stand-in, make room for the newest.
    while (s.pendingBytes + bytes > this.settings.maxPendingBytesPerChannel && this.shiftOldest(s)) {
      /* keep shifting */
    }
    while (this.totalPendingBytes + bytes > this.settings.maxPendingBytesTotal && this.shiftGlobal()) {
      /* keep shifting */
    }
    if (
      s.pendingBytes + bytes > this.settings.maxPendingBytesPerChannel ||
      this.totalPendingBytes + bytes > this.settings.maxPendingBytesTotal
    ) {
      s.counters.dropped++;
      return;
    }
    list.push({ frame, type, expiresAt: now + ttl });
    s.pending.set(key, list);
    s.pendingBytes += bytes;
    this.totalPendingBytes += bytes;
    s.counters.queued++;
  }

  /** Drops the oldest message of a queue (it is full). */
  private shift(s: Session, list: Pending[]): void {
    const p = list.shift();
    if (!p) return;
    this.release(s, p.frame.length);
    s.counters.expired++;
  }

  /** Drops the oldest message of the channel's oldest queue; false when the channel holds none. */
  private shiftOldest(s: Session): boolean {
    for (const [key, list] of s.pending) {
      this.shift(s, list);
      if (list.length === 0) s.pending.delete(key);
      return true;
    }
    return false;
  }

  /** Drops one message from the channel holding the most bytes; false when nothing is queued anywhere. */
  private shiftGlobal(): boolean {
    let biggest: Session | null = null;
    for (const s of this.sessions.values())
      if (s.pendingBytes > 0 && (!biggest || s.pendingBytes > biggest.pendingBytes)) biggest = s;
    return biggest ? this.shiftOldest(biggest) : false;
  }

  private flushPending(s: Session, key: string, to: Connection): void {
    const list = s.pending.get(key);
    if (!list) return;
    s.pending.delete(key);
    this.release(s, bytesOf(list));
    const now = Date.now();
    for (const p of list) {
      if (p.expiresAt <= now) {
        s.counters.expired++;
        continue;
      }
      this.sendFrame(to, p.frame);
      s.counters.relayed[p.type]++;
    }
  }
}
