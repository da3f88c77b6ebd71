/**
 * A bounded push-to-pull queue of watch events for one watcher of the cache.
 * The cache pushes synchronously as changes arrive; the watch handler pulls
 * with `for await`. A watcher that falls more than `capacity` events behind is
 * ended (its client watches again from its last resourceVersion), so that one
 * slow client cannot make the API server hold unbounded memory.
 */
export class EventQueue<T> {
  private items: T[] = [];
  private head = 0;
  private waiter: ((result: IteratorResult<T>) => void) | undefined;
  private failWaiter: ((e: unknown) => void) | undefined;
  private ended = false;
  private error: unknown;

  constructor(
    private readonly capacity: number,
    private readonly onEnd: () => void,
  ) {}

  get done(): boolean {
    return this.ended;
  }

  push(item: T): void {
    if (this.ended) return;
    if (this.waiter !== undefined) {
      const w = this.waiter;
      this.waiter = undefined;
      this.failWaiter = undefined;
      w({ value: item, done: false });
      return;
    }
    if (this.items.length - this.head >= this.capacity) {
      // Too far behind: end the watch; the client resumes from its last revision.
      this.end();
      return;
    }
    this.items.push(item);
  }

  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.error = error;
    this.onEnd();
    const w = this.waiter;
    const f = this.failWaiter;
    this.waiter = undefined;
    this.failWaiter = undefined;
    if (this.head < this.items.length) return; // the reader drains first
    if (error !== undefined) f?.(error);
    else w?.({ value: undefined, done: true });
  }

  next(): Promise<IteratorResult<T>> {
    if (this.head < this.items.length) {
      const value = this.items[this.head]!;
      this.head++;
      if (this.head === this.items.length) {
        this.items = [];
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.ended) return this.error !== undefined ? Promise.reject(this.error) : Promise.resolve({ value: undefined, done: true });
    return new Promise((resolve, reject) => {
      this.waiter = resolve;
      this.failWaiter = reject;
    });
  }
}
