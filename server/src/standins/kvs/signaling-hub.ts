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

interface Connection {
  socket: WebSocket;
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
  pending: Map<string, Pending[]>;
  counters: KvsChannelCounters;
}

const MASTER_KEY = 'master';
const viewerKey = (clientId: string): string => `viewer:${clientId}`;

function newCounters(): KvsChannelCounters {
  return {
    relayed: { SDP_OFFER: 0, SDP_ANSWER: 0, ICE_CANDIDATE: 0 },
    queued: 0,
    expired: 0,
    rejected: 0,
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
 */
export class SignalingHub {
  private readonly sessions = new Map<string, Session>();
  /** Applies to connections opened from now on (the test hook changes it). */
  timeouts: KvsTimeouts;

  constructor(private readonly settings: KvsSettings) {
    this.timeouts = { ...settings.timeouts };
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

  /** Takes over an upgraded socket. The newest master and a same-ClientId viewer replace the old socket. */
  attach(socket: WebSocket, channelName: string, role: KvsRole, clientId: string | null): void {
    const s = this.session(channelName);
    if (!this.canAdmit(channelName, role, clientId)) {
      // Two handshakes raced past the pre-upgrade check; the later one loses, as the 11th viewer would.
      socket.close(1008, 'ClientLimitExceededException');
      return;
    }
    const conn: Connection = {
      socket,
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
    else s.viewers.set(clientId ?? '', conn);
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

  /** Closes every socket of a channel and forgets its queued messages. */
  closeChannel(channelName: string): void {
    const s = this.sessions.get(channelName);
    if (!s) return;
    if (s.master) this.close(s.master, 1000, 'Channel deleted');
    for (const c of s.viewers.values()) this.close(c, 1000, 'Channel deleted');
    this.sessions.delete(channelName);
  }

  /** Closes everything (server shutdown). */
  closeAll(): void {
    for (const name of [...this.sessions.keys()]) this.closeChannel(name);
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
      s = { master: null, viewers: new Map(), pending: new Map(), counters: newCounters() };
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
    if (conn.role === 'VIEWER' && conn.clientId !== null && s.viewers.get(conn.clientId) === conn)
      s.viewers.delete(conn.clientId);
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
    const list = (s.pending.get(key) ?? []).filter((p) => p.expiresAt > now);
    s.counters.expired += (s.pending.get(key)?.length ?? 0) - list.length;
    if (list.length >= this.settings.maxPendingPerRecipient) {
      list.shift();
      s.counters.expired++;
    }
    list.push({ frame, type, expiresAt: now + ttl });
    s.pending.set(key, list);
    s.counters.queued++;
  }

  private flushPending(s: Session, key: string, to: Connection): void {
    const list = s.pending.get(key);
    if (!list) return;
    s.pending.delete(key);
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
