/**
 * An async iterable a test (or the fake client) feeds by hand: push items,
 * then end it (with an error, which iteration throws after the queued
 * items). The one mechanism behind the fake client's watch stream and the
 * scripted watches of the reflector's and informer's tests.
 */
export class PushQueue<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private ended = false;
  private error: unknown;
  private wake: (() => void) | undefined;

  get closed(): boolean {
    return this.ended;
  }

  push(item: T): void {
    if (this.ended) return;
    this.items.push(item);
    this.wakeUp();
  }

  /** End after the queued items; with an error, iteration throws it then. */
  end(error?: unknown): void {
    if (this.ended) return;
    this.ended = true;
    this.error = error;
    this.wakeUp();
  }

  /** Drop what is queued and end. */
  clear(): void {
    this.items.length = 0;
    this.end();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<T> {
    for (;;) {
      const next = this.items.shift();
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
