/**
 * Counts events per key in fixed windows, in this process's memory (for limits that need not be shared by
 * several instances: each instance then allows its own share). Keys of past windows are dropped as new
 * windows start, so memory follows the number of active keys.
 */
export class RateWindow {
  private windowStart = 0;
  private counts = new Map<string, number>();

  constructor(
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  /** Counts one event for `key`; false when the key has used up its window (the event is refused). */
  take(key: string, now = Date.now()): boolean {
    if (now - this.windowStart >= this.windowMs) {
      this.windowStart = now;
      this.counts = new Map();
    }
    const n = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, n);
    return n <= this.max;
  }
}
