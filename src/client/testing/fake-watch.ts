/**
 * The watch stream of the fake client: the client pushes events (or an
 * error, or the end) and the consumer iterates them in order.
 */
import type { KubeObject } from '../../machinery/meta.js';
import type { WatchEvent, WatchStream } from '../rest/interface.js';

export class FakeWatchStream<T extends KubeObject> implements WatchStream<T> {
  private readonly queue: WatchEvent<T>[] = [];
  private ended = false;
  private error: unknown;
  private wake: (() => void) | undefined;

  constructor(private readonly onCancel: () => void) {}

  get closed(): boolean {
    return this.ended;
  }

  push(event: WatchEvent<T>): void {
    if (this.ended) return;
    this.queue.push(event);
    this.wakeUp();
  }

  /** End the stream, after the queued events; with an error, iteration throws it then. */
  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.error = error;
    this.onCancel();
    this.wakeUp();
  }

  cancel(): void {
    this.queue.length = 0;
    this.end();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    for (;;) {
      const next = this.queue.shift();
      if (next !== undefined) {
        yield next;
        continue;
      }
      if (this.ended) {
        if (this.error !== undefined) throw this.error;
        return;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
    }
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }
}
