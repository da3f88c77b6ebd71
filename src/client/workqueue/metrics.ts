/**
 * Metrics hooks of a work queue, as client-go's workqueue reports them: a
 * queue calls add when a key becomes waiting, get when a worker takes it,
 * done when the worker finishes, retry on every rate-limited re-add. A process
 * sets one {@link WorkQueueMetricsProvider} (the controller manager's exports
 * Prometheus metrics); named queues made afterwards report through it.
 */

export interface QueueMetrics {
  add(key: string): void;
  get(key: string): void;
  done(key: string): void;
  retry(): void;
}

/** The numbers a provider turns into metrics, per queue name. */
export interface WorkQueueMetricsSink {
  depth(name: string, delta: number): void;
  added(name: string): void;
  retried(name: string): void;
  /** Seconds a key waited between add and get. */
  queued(name: string, seconds: number): void;
  /** Seconds between get and done. */
  worked(name: string, seconds: number): void;
}

export type WorkQueueMetricsProvider = (name: string) => QueueMetrics;

let provider: WorkQueueMetricsProvider | undefined;

/** Set (or with undefined, clear) the provider of queues made from now on. */
export function setWorkQueueMetricsProvider(next: WorkQueueMetricsProvider | undefined): void {
  provider = next;
}

/** The metrics of a named queue from the current provider (undefined without one). */
export function queueMetricsFor(name: string): QueueMetrics | undefined {
  return provider?.(name);
}

/** A provider that turns a queue's hooks into a sink's numbers (timing keys between the hooks). */
export function metricsProviderFor(sink: WorkQueueMetricsSink, clock: () => number = () => performance.now()): WorkQueueMetricsProvider {
  return (name) => {
    const addedAt = new Map<string, number>();
    const startedAt = new Map<string, number>();
    return {
      add(key) {
        sink.added(name);
        sink.depth(name, 1);
        if (!addedAt.has(key)) addedAt.set(key, clock());
      },
      get(key) {
        sink.depth(name, -1);
        const t = clock();
        const since = addedAt.get(key);
        if (since !== undefined) sink.queued(name, (t - since) / 1000);
        addedAt.delete(key);
        startedAt.set(key, t);
      },
      done(key) {
        const since = startedAt.get(key);
        if (since !== undefined) sink.worked(name, (clock() - since) / 1000);
        startedAt.delete(key);
      },
      retry() {
        sink.retried(name);
      },
    };
  };
}
