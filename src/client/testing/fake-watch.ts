/**
 * The watch stream of the fake client: the client pushes events (or an
 * error, or the end) and the consumer iterates them in order.
 */
import type { KubeObject } from '../../machinery/meta.js';
import type { WatchEvent, WatchStream } from '../rest/interface.js';
import { PushQueue } from './push-queue.js';

export class FakeWatchStream<T extends KubeObject> implements WatchStream<T> {
  private readonly queue = new PushQueue<WatchEvent<T>>();

  constructor(private readonly onCancel: () => void) {}

  get closed(): boolean {
    return this.queue.closed;
  }

  push(event: WatchEvent<T>): void {
    this.queue.push(event);
  }

  /** End the stream, after the queued events; with an error, iteration throws it then. */
  end(error?: unknown): void {
    if (this.queue.closed) return;
    this.queue.end(error);
    this.onCancel();
  }

  cancel(): void {
    if (this.queue.closed) return;
    this.queue.clear();
    this.onCancel();
  }

  [Symbol.asyncIterator](): AsyncIterator<WatchEvent<T>> {
    return this.queue[Symbol.asyncIterator]();
  }
}
