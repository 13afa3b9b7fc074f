import { TaskAbortError } from '@reduxjs/toolkit';
import type { AppStartListening } from '../../app/listener';
import { isApiError, NETWORK_ERROR_STATUS } from '../../api/api-error';
import { postCapture } from '../../api/capture';
import { captureLiveStill } from '../../media/frame-capture';
import { LOCAL_STREAM_ID, getStream } from '../../media/stream-registry';
import { logger } from '../../lib/logger';
import { loggedOut } from '../session/session-slice';
import { liveStartRequested, liveStopRequested, selectLive } from './live-slice';
import { selectTester } from '@/features/tester/tester-slice';

/** Stills the page keeps while they cannot be sent (a short network gap); the oldest goes first when full. */
export const CAPTURE_QUEUE_MAX = 3;

/** One still waiting to be sent. */
export interface QueuedStill {
  /** Names it on the server, so a resend after a lost answer stores nothing twice. */
  key: string;
  image: string;
  /** `performance.now()` when taken. */
  takenAt: number;
}

/** What sending one still came to: sent, keep it for later, drop it (the server refused it), or stop sending. */
export type SendOutcome = 'sent' | 'retry' | 'drop' | 'stop';

/**
 * The stills of one page that are not sent yet, oldest first, at most CAPTURE_QUEUE_MAX: a new still beyond
 * that pushes the oldest out (and `add` returns it, so the page can say so in its log).
 */
export class CaptureQueue {
  private items: QueuedStill[] = [];

  constructor(private readonly max = CAPTURE_QUEUE_MAX) {}

  get size(): number {
    return this.items.length;
  }

  /** Adds a still; returns the one dropped to make room, or null. */
  add(s: QueuedStill): QueuedStill | null {
    this.items.push(s);
    return this.items.length > this.max ? (this.items.shift() ?? null) : null;
  }

  /**
   * Sends the waiting stills oldest first until one has to wait ('retry': it stays first) or the server says
   * stills are off ('stop': the queue is emptied). Returns how many were sent.
   */
  async flush(send: (s: QueuedStill) => Promise<SendOutcome>): Promise<number> {
    let sent = 0;
    while (this.items.length) {
      const outcome = await send(this.items[0]!);
      if (outcome === 'retry') break;
      if (outcome === 'stop') {
        this.items = [];
        break;
      }
      this.items.shift();
      if (outcome === 'sent') sent += 1;
    }
    return sent;
  }
}

/** Tester states (spec §4) in which stills are taken: identity checked (3) until the exam is over (7). */
export function takesStills(testerState: number): boolean {
  return testerState >= 3 && testerState < 7;
}

function newKey(): string {
  const c = globalThis.crypto;
  if (typeof c?.randomUUID === 'function') return c.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;
}

/** Sends one still and classifies the answer. */
export async function sendStill(s: QueuedStill, now: () => number): Promise<SendOutcome> {
  try {
    await postCapture({
      image: s.image,
      contentType: 'image/jpeg',
      clientKey: s.key,
      ageMs: Math.max(0, Math.round(now() - s.takenAt)),
    });
    return 'sent';
  } catch (e) {
    if (!isApiError(e)) return 'retry';
    if (e.status === NETWORK_ERROR_STATUS || e.status >= 500 || e.status === 429 || e.status === 401)
      return 'retry';
    if (e.code === 'capture_off') return 'stop';
    logger.error('capture', `a still was refused (${e.status} ${e.code ?? ''}) and is dropped`);
    return 'drop';
  }
}

/**
 * Live stills while the examinee is monitored: every capture_interval seconds of the sitting (the matching
 * poll brings the server's value; 0 = off) a small JPEG of the camera is queued and the queue is sent. Through
 * a short network gap the queue keeps the newest CAPTURE_QUEUE_MAX; each still carries its age, so the server
 * knows it waited (and excuses what it shows).
 */
export function addLiveCaptureListeners(startListening: AppStartListening): void {
  startListening({
    actionCreator: liveStartRequested,
    effect: async (_action, api) => {
      if (selectLive(api.getOriginalState()).polling) return;
      const queue = new CaptureQueue();
      const now = () => performance.now();
      const loop = api.fork(async (task) => {
        for (;;) {
          const s = api.getState();
          const interval = selectLive(s).captureInterval;
          try {
            const stream = getStream(LOCAL_STREAM_ID);
            if (interval > 0 && stream && takesStills(selectTester(s).testerState)) {
              const still = await task.pause(captureLiveStill(stream, now));
              if (still) {
                const dropped = queue.add({ key: newKey(), image: still.image, takenAt: still.takenAt });
                if (dropped) {
                  logger.error(
                    'capture',
                    `the stills could not be sent for a while: dropped the oldest, taken ${Math.round(
                      (now() - dropped.takenAt) / 1000,
                    )} s ago (keeping ${CAPTURE_QUEUE_MAX})`,
                  );
                }
              }
            }
            if (queue.size) await task.pause(queue.flush((q) => sendStill(q, now)));
          } catch (e) {
            if (e instanceof TaskAbortError) throw e;
            logger.error('capture', `taking a still failed: ${String(e)}`);
          }
          // Off: look again at the next poll's settings in a few seconds.
          await task.delay((interval > 0 ? interval : 5) * 1000);
        }
      });
      await api.condition((a) => liveStopRequested.match(a) || loggedOut.match(a));
      loop.cancel();
    },
  });
}
