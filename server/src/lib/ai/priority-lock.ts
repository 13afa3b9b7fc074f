/**
 * A lock whose waiters with `high` priority go first: identity checks jump ahead of the frames of a running
 * analysis, because Human's `detect()` must not overlap (ai-feasibility.md §6.3). Waiters of one priority
 * run in arrival order.
 */
export class PriorityLock {
  private busy = false;
  private readonly high: (() => void)[] = [];
  private readonly low: (() => void)[] = [];

  async run<T>(priority: 'high' | 'low', fn: () => Promise<T>): Promise<T> {
    if (this.busy) await new Promise<void>((r) => (priority === 'high' ? this.high : this.low).push(r));
    this.busy = true;
    try {
      return await fn();
    } finally {
      const next = this.high.shift() ?? this.low.shift();
      if (next) next();
      else this.busy = false;
    }
  }
}
