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

  /**
   * @param run answers a batch: one result per item, in the items' order.
   * @param maxInFlight batches under way at once (1 where two batches could lock the same rows in turn).
   * @param maxBatch the most items in one statement.
   */
  constructor(
    private readonly run: (items: T[]) => Promise<R[]>,
    private readonly maxInFlight = 1,
    private readonly maxBatch = 500,
  ) {}

  submit(item: T): Promise<R> {
    return new Promise<R>((done, failed) => {
      this.queue.push({ item, done, failed });
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
          this.pump();
        });
    }
  }
}
