import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import type { WebSocket } from 'ws';
import { loadKvsSettings, type KvsSettings } from '../../src/standins/kvs/settings';
import { MAX_PAYLOAD_CHARS, SignalingHub } from '../../src/standins/kvs/signaling-hub';

/** A socket as the hub uses it: frames in through 'message', frames out recorded. */
class FakeSocket extends EventEmitter {
  readonly OPEN = 1;
  readyState = 1;
  readonly sent: string[] = [];
  send(frame: string): void {
    this.sent.push(frame);
  }
  close(): void {
    if (this.readyState !== 1) return;
    this.readyState = 3;
    this.emit('close');
  }
  /** The client sends one frame. */
  frame(msg: Record<string, unknown>): void {
    this.emit('message', Buffer.from(JSON.stringify(msg)));
  }
}

/** A payload as big as the service accepts (≈ 10 KB), valid base64. */
const BIG = 'A'.repeat(MAX_PAYLOAD_CHARS - (MAX_PAYLOAD_CHARS % 4));

function hubWith(overrides: Partial<KvsSettings> = {}): SignalingHub {
  return new SignalingHub({ ...loadKvsSettings({}), ...overrides });
}

function attach(
  hub: SignalingHub,
  channel: string,
  clientId: string | null,
  accessKeyId = 'AKID',
): FakeSocket {
  const s = new FakeSocket();
  hub.attach(
    s as unknown as WebSocket,
    channel,
    clientId === null ? 'MASTER' : 'VIEWER',
    clientId,
    accessKeyId,
  );
  return s;
}

/** No per-connection rate limit, so the queue bounds themselves are what is tested. */
const UNTHROTTLED = { sendRatePerSecond: { SDP_OFFER: 1e9, SDP_ANSWER: 1e9, ICE_CANDIDATE: 1e9 } };

describe('signaling flood (an examinee sends messages to viewers that are not there)', () => {
  it('holds nothing for 20,000 made-up recipientClientIds', () => {
    const hub = hubWith(UNTHROTTLED);
    try {
      const master = attach(hub, 'exam-1-aaaaaaaaaaaa', null);
      for (let i = 0; i < 20_000; i++)
        master.frame({ action: 'SDP_ANSWER', messagePayload: BIG, recipientClientId: `made-up-${i}` });
      expect(hub.pendingBytes()).toBe(0);
      const st = hub.state('exam-1-aaaaaaaaaaaa');
      expect(st.pending).toEqual({});
      expect(st.counters).toMatchObject({ queued: 0, dropped: 20_000 });
    } finally {
      hub.closeAll();
    }
  });

  it('bounds what waits for viewers that left: per recipient, per channel and in total', () => {
    const settings = loadKvsSettings({});
    const hub = hubWith(UNTHROTTLED);
    try {
      // Many channels, each with the maximum of remembered viewers that have just left.
      for (let c = 0; c < 40; c++) {
        const name = `exam-${c + 1}-bbbbbbbbbbbb`;
        const master = attach(hub, name, null);
        for (let v = 0; v < 80; v++) attach(hub, name, `gone-${v}`).close();
        for (let i = 0; i < 500; i++)
          master.frame({ action: 'SDP_ANSWER', messagePayload: BIG, recipientClientId: `gone-${i % 80}` });
        const st = hub.state(name);
        expect(Object.keys(st.pending).length).toBeLessThanOrEqual(settings.maxPendingRecipientsPerChannel);
        for (const n of Object.values(st.pending))
          expect(n).toBeLessThanOrEqual(settings.maxPendingPerRecipient);
      }
      expect(hub.pendingBytes()).toBeLessThanOrEqual(settings.maxPendingBytesTotal);
      expect(hub.pendingBytes()).toBeGreaterThan(0);
    } finally {
      hub.closeAll();
    }
  });

  it('limits each connection to the service’s message rates (5 offers, 5 answers, 20 ICE per second)', () => {
    const hub = hubWith();
    try {
      const master = attach(hub, 'exam-2-cccccccccccc', null);
      const viewer = attach(hub, 'exam-2-cccccccccccc', 'proctor-1');
      for (let i = 0; i < 1000; i++)
        master.frame({
          action: 'SDP_ANSWER',
          messagePayload: 'eyJ4IjoxfQ==',
          recipientClientId: 'proctor-1',
          correlationId: `c-${i}`,
        });
      // A burst of twice the rate gets through at once; the rest is refused, with a status response.
      const relayed = viewer.sent.length;
      expect(relayed).toBeGreaterThanOrEqual(10);
      expect(relayed).toBeLessThanOrEqual(12);
      const refused = master.sent.map((f) => JSON.parse(f) as { statusResponse?: { errorType: string } });
      expect(refused.length).toBe(1000 - relayed);
      expect(refused[0]?.statusResponse?.errorType).toBe('ClientLimitExceededException');
    } finally {
      hub.closeAll();
    }
  });

  it('sweeps expired messages on a timer, not only when their recipient key is written again', () => {
    const hub = hubWith(UNTHROTTLED);
    try {
      const master = attach(hub, 'exam-3-dddddddddddd', null);
      attach(hub, 'exam-3-dddddddddddd', 'left-1').close();
      master.frame({ action: 'SDP_ANSWER', messagePayload: BIG, recipientClientId: 'left-1' });
      expect(hub.pendingBytes()).toBeGreaterThan(0);
      hub.sweep(Date.now() + 61_000);
      expect(hub.pendingBytes()).toBe(0);
      expect(hub.state('exam-3-dddddddddddd').counters.expired).toBe(1);
    } finally {
      hub.closeAll();
    }
  });

  it('closes the sockets a revoked credential opened', () => {
    const hub = hubWith();
    try {
      const keep = attach(hub, 'exam-4-eeeeeeeeeeee', 'proctor-now', 'AKID-NOW');
      const gone = attach(hub, 'exam-4-eeeeeeeeeeee', 'proctor-before', 'AKID-BEFORE');
      expect(hub.closeCredential('AKID-BEFORE')).toBe(1);
      expect(gone.readyState).toBe(3);
      expect(keep.readyState).toBe(1);
      expect(hub.state('exam-4-eeeeeeeeeeee').viewers.map((v) => v.clientId)).toEqual(['proctor-now']);
    } finally {
      hub.closeAll();
    }
  });
});
