/**
 * The live stills' own code (live-capture.ts runs the loop): the queue of stills not sent yet, taking one from
 * the camera and sending it. Loaded with the sitting's first still: most sittings take none.
 */
import { isApiError, NETWORK_ERROR_STATUS } from '../../api/api-error';
import { postCapture } from '../../api/capture';
import { logger } from '../../lib/logger';

export { captureLiveStill } from '../../media/frame-capture';

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
