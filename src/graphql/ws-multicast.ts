/**
 * One subscription source shared by several graphql-ws subscriptions of a socket, so many copies of
 * one subscription cost one computation per event, not one each: identical subscriptions (same query,
 * operation and variables, so the same result for the same viewer) are coalesced, each event is
 * computed once, and every subscription id still gets its copy.
 * The source is closed when its last subscription ends, and its end or failure ends them all.
 */
export class Multicast<T> {
  private readonly branches = new Set<Branch<T>>();
  private pumping = false;
  private ended = false;

  constructor(
    private readonly source: AsyncIterator<T>,
    /** Called once the source is no longer shared (the socket forgets it). */
    private readonly onEnd: () => void,
  ) {}

  /** Whether the source still runs (an ended one takes no new subscriptions). */
  get open(): boolean {
    return !this.ended;
  }

  /** A new subscription on the source. */
  join(): AsyncGenerator<T> {
    const b = new Branch<T>(() => this.leave(b));
    this.branches.add(b);
    if (!this.pumping) {
      this.pumping = true;
      void this.pump();
    }
    return b;
  }

  private async pump(): Promise<void> {
    try {
      for (;;) {
        const r = await this.source.next();
        if (r.done) break;
        for (const b of this.branches) b.push(r.value);
      }
      this.finish();
      for (const b of [...this.branches]) b.end();
    } catch (e) {
      this.finish();
      for (const b of [...this.branches]) b.fail(e);
    }
  }

  private leave(b: Branch<T>): void {
    this.branches.delete(b);
    if (this.branches.size || this.ended) return;
    this.finish();
    void this.source.return?.(undefined)?.catch(() => undefined);
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    this.onEnd();
  }
}

/** One subscription's view of a shared source: an async generator graphql-ws can iterate and return(). */
class Branch<T> implements AsyncGenerator<T> {
  private readonly queue: T[] = [];
  private waiting: { resolve(r: IteratorResult<T>): void; reject(e: unknown): void } | null = null;
  private done = false;
  private error: { e: unknown } | null = null;
  private left = false;

  constructor(private readonly onLeave: () => void) {}

  push(value: T): void {
    if (this.done) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = null;
      w.resolve({ value, done: false });
    } else this.queue.push(value);
  }

  end(): void {
    this.close();
  }

  fail(e: unknown): void {
    if (this.done) return;
    if (this.waiting) {
      const w = this.waiting;
      this.close();
      w.reject(e);
    } else {
      this.error = { e };
      this.done = true;
    }
  }

  next(): Promise<IteratorResult<T>> {
    if (this.queue.length) return Promise.resolve({ value: this.queue.shift()!, done: false });
    if (this.error) {
      const { e } = this.error;
      this.error = null;
      this.close();
      return Promise.reject(e);
    }
    if (this.done) return Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  async return(): Promise<IteratorResult<T>> {
    this.close();
    return { value: undefined, done: true };
  }

  async throw(e: unknown): Promise<IteratorResult<T>> {
    this.close();
    throw e;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async [Symbol.asyncDispose](): Promise<void> {
    this.close();
  }

  /** Ends this subscription: a pending next() answers done, and the source hears it left. */
  private close(): void {
    this.done = true;
    this.queue.length = 0;
    const w = this.waiting;
    this.waiting = null;
    w?.resolve({ value: undefined, done: true });
    if (this.left) return;
    this.left = true;
    this.onLeave();
  }
}
