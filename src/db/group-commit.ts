// Group commit (ADR 0013): items of work sent to the store together, in one call and one transaction.
// An item added while no call is under way goes out at the end of the event loop's turn, with every
// item added in that turn; one added while a call is under way waits for it, then goes out with every
// item that came meanwhile. Nothing waits on a timer: under light load a call holds one item, under
// load it holds what the last call's time let gather. A call that fails is made again item by item, so
// one bad item fails alone and the others are answered. An item that must not fail (`keep`: its work
// is already promised, as a journaled settlement is) is tried again, after a pause growing to a second,
// until it succeeds: the items behind it wait, so their order holds. Once the group commit is closed, a
// kept item that fails fails every item after it too: none is sent past it. When every item waiting is
// kept (nothing waits for its answer), the call may wait `lingerMs` for more (a call's commit costs more
// than its rows), unless an item that is not kept comes, the most a call takes are waiting, or someone
// waits for them (settled).

interface Waiting<T, R> {
  item: T;
  resolve: (result: R) => void;
  reject: (error: unknown) => void;
}

export class GroupCommit<T, R> {
  private waiting: Array<Waiting<T, R>> = [];
  /** A call is under way or about to be made. */
  private busy = false;
  /** Settles when the last item added has been answered. */
  private last: Promise<void> = Promise.resolve();
  private closed = false;
  /** The error of a kept item failed after close(): every item after it fails with it. */
  private broken: { error: unknown } | undefined;
  /** A call waiting for more items (lingerMs). */
  private timer: NodeJS.Timeout | undefined;

  constructor(
    /** Sends the items in one call; answers one result per item, in their order. */
    private readonly send: (items: T[]) => Promise<R[]>,
    options: {
      /** The most items a call takes. */
      most?: number;
      /** Whether a failed item is tried again until it succeeds rather than failed. */
      keep?: (item: T) => boolean;
      /** How long a call of kept items alone may wait for more. */
      lingerMs?: number;
    } = {},
  ) {
    this.most = options.most ?? 256;
    this.keep = options.keep ?? (() => false);
    this.lingerMs = options.lingerMs ?? 0;
  }

  private readonly most: number;
  private readonly keep: (item: T) => boolean;
  private readonly lingerMs: number;

  /** A kept item that fails from now on is failed, and every item after it: the store is closing. */
  close(): void {
    this.closed = true;
    this.hurry();
  }

  /** Resolves with the item's result once the call that carried it has committed. */
  add(item: T): Promise<R> {
    const answer = new Promise<R>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      if (!this.busy) this.start();
      else if (!this.keep(item) || this.waiting.length >= this.most) this.hurry();
    });
    this.last = answer.then(
      () => undefined,
      () => undefined,
    );
    return answer;
  }

  /** Resolves once every item added so far has been answered (committed, or failed): items are answered in order. */
  settled(): Promise<void> {
    this.hurry();
    return this.last;
  }

  /** The next call: at the end of this turn, or after lingerMs when every item waiting is kept. */
  private start(): void {
    this.busy = true;
    if (this.lingerMs > 0 && !this.closed && this.waiting.length < this.most && this.waiting.every((w) => this.keep(w.item)))
      this.timer = setTimeout(() => {
        this.timer = undefined;
        void this.drain();
      }, this.lingerMs);
    else setImmediate(() => void this.drain());
  }

  /** A call waiting for more goes at the end of this turn. */
  private hurry(): void {
    if (!this.timer) return;
    clearTimeout(this.timer);
    this.timer = undefined;
    setImmediate(() => void this.drain());
  }

  /** One call; then the next, if items came meanwhile. */
  private async drain(): Promise<void> {
    await this.call();
    if (this.waiting.length > 0) this.start();
    else this.busy = false;
  }

  /** The items waiting, at most `most`, in one call; each item alone if it fails. */
  private async call(): Promise<void> {
    const batch = this.waiting.splice(0, this.most);
    if (this.broken) {
      for (const w of batch) w.reject(this.broken.error);
      return;
    }
    let results: R[];
    try {
      results = await this.send(batch.map((w) => w.item));
    } catch (error) {
      // The call's transaction was rolled back: each item is tried again alone.
      for (const w of batch) await this.alone(w, batch.length === 1 ? error : undefined);
      return;
    }
    batch.forEach((w, i) =>
      results[i] !== undefined
        ? w.resolve(results[i])
        : w.reject(new Error(`group commit: ${results.length} results for ${batch.length} items`)),
    );
  }

  /** One item in a call of its own (`failed`: the error of the call it just failed alone); a kept one until it succeeds. */
  private async alone(w: Waiting<T, R>, failed?: unknown): Promise<void> {
    if (this.broken) return w.reject(this.broken.error);
    let error = failed;
    for (let pause = 10; ; pause = Math.min(1000, pause * 2)) {
      if (error !== undefined) {
        if (!this.keep(w.item)) return w.reject(error);
        if (this.closed) {
          this.broken = { error };
          return w.reject(error);
        }
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
      try {
        const [result] = await this.send([w.item]);
        return w.resolve(result!);
      } catch (again) {
        error = again;
      }
    }
  }
}
