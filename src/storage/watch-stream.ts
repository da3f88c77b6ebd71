import type { StorageEvent, StorageProgress, StorageWatch } from './interface.js';

type WatchItem = StorageEvent | StorageProgress;

/**
 * A push-to-pull bridge every backend uses for its watches: the backend pushes
 * events (in revision order) as they happen; the consumer pulls them with
 * `for await`. Events are buffered until read, so a slow consumer never loses
 * one; `fail` ends the stream with an error after the buffered events.
 *
 * @example
 *   const stream = new WatchStream(() => unsubscribe(), () => askForProgress());
 *   stream.push(event);          // backend side
 *   for await (const e of stream) … // consumer side
 */
export class WatchStream implements StorageWatch {
  private readonly buffer: WatchItem[] = [];
  private head = 0;
  private waiting: ((result: IteratorResult<WatchItem>) => void) | undefined;
  private waitingReject: ((e: unknown) => void) | undefined;
  private ended = false;
  private error: unknown;
  private readonly onCancel: () => void;
  private readonly onProgressRequest: (stream: WatchStream) => void;
  /** A progress request is on its way to the backend (requests coalesce until it is answered). */
  private progressRequested = false;

  /**
   * `onProgressRequest` is the backend's way to answer requestProgress: it
   * calls {@link pushProgress} once every event up to that revision is pushed.
   */
  constructor(onCancel: () => void = () => {}, onProgressRequest: (stream: WatchStream) => void = () => {}) {
    this.onCancel = onCancel;
    this.onProgressRequest = onProgressRequest;
  }

  requestProgress(): void {
    if (this.ended || this.progressRequested) return;
    this.progressRequested = true;
    this.onProgressRequest(this);
  }

  /** Whether a progress request waits for its answer. */
  get wantsProgress(): boolean {
    return this.progressRequested;
  }

  /** Answer the pending progress request (backend side): every event up to `revision` was pushed before. */
  pushProgress(revision: number): void {
    if (!this.progressRequested) return;
    this.progressRequested = false;
    this.push({ type: 'PROGRESS', revision });
  }

  /** True once cancelled, failed or ended: pushes are then ignored. */
  get done(): boolean {
    return this.ended;
  }

  /** Number of events waiting to be read. */
  get pending(): number {
    return this.buffer.length - this.head;
  }

  push(event: WatchItem): void {
    if (this.ended) return;
    const waiter = this.waiting;
    if (waiter !== undefined && this.pending === 0) {
      this.waiting = undefined;
      this.waitingReject = undefined;
      waiter({ value: event, done: false });
      return;
    }
    this.buffer.push(event);
  }

  /** End the stream with an error; the consumer sees the buffered events first. */
  fail(error: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.error = error;
    this.onCancel();
    this.wake();
  }

  /** End the stream normally (store closed, or cancelled). */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    this.onCancel();
    this.wake();
  }

  cancel(): void {
    this.end();
  }

  private wake(): void {
    if (this.pending > 0) return;
    const resolve = this.waiting;
    const reject = this.waitingReject;
    this.waiting = undefined;
    this.waitingReject = undefined;
    if (this.error !== undefined) reject?.(this.error);
    else resolve?.({ value: undefined, done: true });
  }

  private next(): Promise<IteratorResult<WatchItem>> {
    if (this.pending > 0) {
      const value = this.buffer[this.head]!;
      this.buffer[this.head] = undefined as unknown as WatchItem;
      this.head++;
      if (this.head > 1024 && this.head * 2 > this.buffer.length) {
        this.buffer.splice(0, this.head);
        this.head = 0;
      }
      return Promise.resolve({ value, done: false });
    }
    if (this.ended) {
      if (this.error !== undefined) return Promise.reject(this.error);
      return Promise.resolve({ value: undefined, done: true });
    }
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.waitingReject = reject;
    });
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchItem> {
    return {
      next: () => this.next(),
      return: () => {
        this.cancel();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
