// Group commit (ADR 0013): items of work sent to the store together, in one call and one transaction.
// An item added while no call is under way goes out at the end of the event loop's turn, with every
// item added in that turn; one added while a call is under way waits for it, then goes out with every
// item that came meanwhile. Nothing waits on a timer: under light load a call holds one item, under
// load it holds what the last call's time let gather. A call that fails is made again item by item, so
// one bad item fails alone and the others are answered.

export class GroupCommit<T, R> {
  private waiting: Array<{ item: T; resolve: (result: R) => void; reject: (error: unknown) => void }> = [];
  /** A call is under way or about to be made. */
  private busy = false;

  constructor(
    /** Sends the items in one call; answers one result per item, in their order. */
    private readonly send: (items: T[]) => Promise<R[]>,
    /** The most items a call takes. */
    private readonly most = 256,
  ) {}

  /** Resolves with the item's result once the call that carried it has committed. */
  add(item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (this.busy) return;
      this.busy = true;
      setImmediate(() => void this.drain());
    });
  }

  private async drain(): Promise<void> {
    while (this.waiting.length > 0) {
      const batch = this.waiting.splice(0, this.most);
      let results: R[];
      try {
        results = await this.send(batch.map((w) => w.item));
      } catch (error) {
        // The call's transaction was rolled back: each item is tried again alone.
        if (batch.length === 1) batch[0]!.reject(error);
        else
          for (const w of batch)
            await this.send([w.item]).then(
              ([result]) => w.resolve(result!),
              (alone: unknown) => w.reject(alone),
            );
        continue;
      }
      batch.forEach((w, i) =>
        results[i] !== undefined
          ? w.resolve(results[i])
          : w.reject(new Error(`group commit: ${results.length} results for ${batch.length} items`)),
      );
    }
    this.busy = false;
  }
}
