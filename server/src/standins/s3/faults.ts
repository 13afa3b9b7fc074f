/**
 * Fault injection for UploadPart (media-stack.md §7.2, perf-reliability.md §3 "Faults to inject"):
 * - `destroy`: the socket is destroyed (the browser sees `TypeError: Failed to fetch`, Node a network error);
 * - `stall`: nothing is answered for `ms` milliseconds (longer than the client timeout), then the socket is destroyed;
 * - `status`: a 500 InternalError or 503 SlowDown;
 * - `expired-token`: 400 ExpiredToken, as when the temporary credentials ran out.
 */
export type FaultKind = 'destroy' | 'stall' | 'status' | 'expired-token';

/** One queued fault, applied to the next `count` UploadParts (optionally only for one key). */
export interface Fault {
  kind: FaultKind;
  count: number;
  /** `stall` only: how long to hold the request. */
  ms?: number;
  /** `status` only: 500 or 503. */
  status?: 500 | 503;
  /** Only UploadParts for this object key. */
  key?: string;
}

/** A FIFO of faults; each UploadPart takes at most one. */
export class FaultQueue {
  private queue: Fault[] = [];
  /** How many faults have fired, by kind (for the state dump). */
  readonly fired: Record<FaultKind, number> = { destroy: 0, stall: 0, status: 0, 'expired-token': 0 };

  add(fault: Fault): void {
    this.queue.push({ ...fault });
  }

  clear(): void {
    this.queue = [];
  }

  pending(): Fault[] {
    return this.queue.map((f) => ({ ...f }));
  }

  /** Takes the fault for an UploadPart on `key`, if one is queued. */
  take(key: string): Fault | null {
    const i = this.queue.findIndex((f) => f.key === undefined || f.key === key);
    const f = this.queue[i];
    if (!f) return null;
    f.count -= 1;
    if (f.count <= 0) this.queue.splice(i, 1);
    this.fired[f.kind] += 1;
    return { ...f };
  }
}
