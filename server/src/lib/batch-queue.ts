/**
 * Group commit for any statement that many requests make alike: requests that arrive while `maxInFlight`
 * batches are under way wait and go together, as one statement, in the next. Alone, a request goes at once;
 * under load one statement serves many requests, so the database's per-statement cost (a round trip, parse,
 * plan, commit) is paid once per batch instead of once per request. Every request is answered with its own
 * result, or with the batch's error.
 */
export class BatchQueue<T, R> {
  private queue: { item: T; done: (r: R) => void; failed: (e: unknown) => void }[] = [];
  private inFlight = 0;
  private pumpScheduled = false;

  /**
   * @param run answers a batch: one result per item, in the items' order.
   * @param maxInFlight batches under way at once (1 where two batches could lock the same rows in turn).
   * @param maxBatch the most items in one statement.
   * @param gather `'turn'`: a batch starts after the event loop's current turn, so that every request read in
   *   that turn joins it. For a database that runs statements on this thread (PGlite): there a statement is
   *   over before the next request's socket is even read, so batches that start at once are each of one item,
   *   and the per-statement cost is paid per request. `'at-once'` (a database across a connection): the first
   *   request goes at once and those arriving while it runs go together next.
   */
  constructor(
    private readonly run: (items: T[]) => Promise<R[]>,
    private readonly maxInFlight = 1,
    private readonly maxBatch = 500,
    private readonly gather: 'at-once' | 'turn' = 'at-once',
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((done, failed) => {
      this.queue.push({ item, done, failed });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.queue.length === 0) return;
    if (this.gather === 'at-once') return this.pump();
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.queue.splice(0, this.maxBatch);
      this.inFlight++;
      let answer: Promise<R[]>;
      try {
        answer = this.run(batch.map((b) => b.item));
      } catch (err) {
        answer = Promise.reject(err);
      }
      answer
        .then((results) => {
          if (results.length !== batch.length)
            throw new Error(`batch answered ${results.length} of ${batch.length}`);
          batch.forEach((b, i) => b.done(results[i]!));
        })
        .catch((err: unknown) => {
          for (const b of batch) b.failed(err);
        })
        .finally(() => {
          this.inFlight--;
          this.schedule();
        });
    }
  }
}

/** How a batch for `db` gathers its items (BatchQueue's `gather`). */
export function gatherFor(db: { readonly kind: 'pglite' | 'postgres' }): 'at-once' | 'turn' {
  return db.kind === 'pglite' ? 'turn' : 'at-once';
}
