/**
 * The work queue of ./interface.ts: a FIFO of distinct keys (the dirty set),
 * the keys being processed (never handed out twice at once), delayed adds on
 * timers, and retries delayed by a {@link RateLimiter}.
 */
import type { WorkQueue } from './interface.js';
import { queueMetricsFor, type QueueMetrics } from './metrics.js';
import { defaultControllerRateLimiter, type RateLimiter } from './rate-limiters.js';

export interface WorkQueueOptions {
  readonly rateLimiter?: RateLimiter;
  /** The queue's name in metrics (upstream: the controller's name); unnamed queues report none. */
  readonly name?: string;
  /** Metrics hooks (default: the process's provider, see metrics.ts, when the queue has a name). */
  readonly metrics?: QueueMetrics;
}

export class RateLimitingQueue implements WorkQueue {
  private readonly order: string[] = [];
  private head = 0;
  private readonly dirty = new Set<string>();
  private readonly processing = new Set<string>();
  /** Pending delayed adds: key → when (ms since epoch) and timer. */
  private readonly delayed = new Map<string, { at: number; timer: NodeJS.Timeout }>();
  private readonly waiters: ((key: string | undefined) => void)[] = [];
  private readonly rateLimiter: RateLimiter;
  private readonly metrics: QueueMetrics | undefined;
  private shuttingDown = false;

  constructor(options: WorkQueueOptions = {}) {
    this.rateLimiter = options.rateLimiter ?? defaultControllerRateLimiter();
    this.metrics = options.metrics ?? (options.name !== undefined ? queueMetricsFor(options.name) : undefined);
  }

  get length(): number {
    return this.order.length - this.head;
  }

  add(key: string): void {
    if (this.shuttingDown || this.dirty.has(key)) return;
    this.dirty.add(key);
    this.metrics?.add(key);
    if (this.processing.has(key)) return; // handed out again after done()
    this.enqueue(key);
  }

  /** Put a dirty key in line, or hand it to a waiting worker at once. */
  private enqueue(key: string): void {
    const waiter = this.waiters.shift();
    if (waiter !== undefined) {
      this.dirty.delete(key);
      this.processing.add(key);
      this.metrics?.get(key);
      waiter(key);
      return;
    }
    this.order.push(key);
  }

  addAfter(key: string, delayMs: number): void {
    if (this.shuttingDown) return;
    if (delayMs <= 0) {
      this.add(key);
      return;
    }
    const at = Date.now() + delayMs;
    const pending = this.delayed.get(key);
    if (pending !== undefined) {
      if (pending.at <= at) return;
      clearTimeout(pending.timer);
    }
    const timer = setTimeout(() => {
      this.delayed.delete(key);
      this.add(key);
    }, delayMs);
    timer.unref();
    this.delayed.set(key, { at, timer });
  }

  addRateLimited(key: string): void {
    if (this.shuttingDown) return;
    this.metrics?.retry();
    this.addAfter(key, this.rateLimiter.when(key));
  }

  forget(key: string): void {
    this.rateLimiter.forget(key);
  }

  numRequeues(key: string): number {
    return this.rateLimiter.numRequeues(key);
  }

  get(): Promise<string | undefined> {
    if (this.length > 0) {
      const key = this.order[this.head++]!;
      if (this.head > 1024 && this.head * 2 > this.order.length) {
        this.order.splice(0, this.head);
        this.head = 0;
      }
      this.dirty.delete(key);
      this.processing.add(key);
      this.metrics?.get(key);
      return Promise.resolve(key);
    }
    if (this.shuttingDown) return Promise.resolve(undefined);
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  done(key: string): void {
    if (!this.processing.delete(key)) return;
    this.metrics?.done(key);
    // Added again while it was processed: it goes back in line now (counted as added then).
    if (this.dirty.has(key) && !this.shuttingDown) this.enqueue(key);
  }

  shutDown(): void {
    this.shuttingDown = true;
    for (const { timer } of this.delayed.values()) clearTimeout(timer);
    this.delayed.clear();
    for (const waiter of this.waiters.splice(0)) waiter(undefined);
  }
}
