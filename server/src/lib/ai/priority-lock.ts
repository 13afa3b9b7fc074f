/** Who waits for the detector: identity checks first, then live stills, then the frames of recordings. */
export type Priority = 'high' | 'medium' | 'low';

/**
 * A lock whose waiters go by priority: identity checks (`high`) jump ahead of live stills (`medium`, a checker
 * waits for them), which jump ahead of the frames of a running analysis (`low`), because Human's `detect()`
 * must not overlap (ai-feasibility.md §6.3). Waiters of one priority run in arrival order.
 */
export class PriorityLock {
  private busy = false;
  private readonly queues: Record<Priority, (() => void)[]> = { high: [], medium: [], low: [] };

  async run<T>(priority: Priority, fn: () => Promise<T>): Promise<T> {
    if (this.busy) await new Promise<void>((r) => this.queues[priority].push(r));
    this.busy = true;
    try {
      return await fn();
    } finally {
      const next = this.queues.high.shift() ?? this.queues.medium.shift() ?? this.queues.low.shift();
      if (next) next();
      else this.busy = false;
    }
  }
}
