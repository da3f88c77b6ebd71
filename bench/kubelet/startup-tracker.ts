/**
 * What the client sees of each pod's startup, at millisecond precision: when
 * its create was sent, and when a watch event first showed it scheduled, its
 * container running, and Ready. (The pods' own timestamps have second
 * precision; these are the figures for the p50/p99.) A watch the server ends is
 * reopened where it stopped.
 */
import type { ResourceClient } from '../../src/client/rest/interface.js';
import type { Pod } from '../../src/kubelet/types.js';

export interface PodStartup {
  /** performance.now() just before the create request. */
  sentAt: number;
  scheduledAt?: number;
  runningAt?: number;
  readyAt?: number;
  deletedAt?: number;
}

export interface StartupTrackerOptions {
  readonly pods: ResourceClient<Pod>;
  readonly namespace: string;
  /** Only pods with this label selector are tracked. */
  readonly labelSelector: string;
  /** The resourceVersion to watch from (a list's, taken before the first create). */
  readonly resourceVersion: string;
}

const isTrue = (pod: Pod, type: string): boolean => pod.status?.conditions?.some((c) => c.type === type && c.status === 'True') ?? false;

export class StartupTracker {
  readonly startups = new Map<string, PodStartup>();
  private resourceVersion: string;
  private stopped = false;
  private watch: { cancel(): void } | undefined;
  private readonly listeners = new Set<() => void>();
  private readonly done: Promise<void>;
  /** Times the server ended the watch and it was reopened. */
  reopened = 0;
  /** Why the watch stopped for good (an error event, e.g. 410 Gone), if it did. */
  failure: Error | undefined;

  constructor(private readonly options: StartupTrackerOptions) {
    this.resourceVersion = options.resourceVersion;
    this.done = this.run().catch((e: unknown) => {
      this.failure = e instanceof Error ? e : new Error(String(e));
      for (const l of [...this.listeners]) l();
    });
  }

  /** Record that the create of `name` is about to be sent. */
  sent(name: string): void {
    this.startups.set(name, { sentAt: performance.now() });
  }

  /** Resolve once `check` holds after some event, or reject at the deadline. */
  until(check: () => boolean, what: string, timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => {
      const listener = (): void => {
        if (this.failure !== undefined) {
          finish();
          reject(new Error(`the pods watch failed while waiting for ${what}: ${this.failure.message}`));
          return;
        }
        if (!check()) return;
        finish();
        resolve();
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`));
      }, timeoutMs);
      const finish = (): void => {
        clearTimeout(timer);
        this.listeners.delete(listener);
      };
      this.listeners.add(listener);
      listener();
    });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.watch?.cancel();
    await this.done;
  }

  private observe(type: string, pod: Pod, now: number): void {
    const startup = this.startups.get(pod.metadata.name ?? '');
    if (startup === undefined) return;
    if (type === 'DELETED') {
      startup.deletedAt ??= now;
      return;
    }
    if (startup.scheduledAt === undefined && (isTrue(pod, 'PodScheduled') || (pod.spec?.nodeName ?? '') !== '')) startup.scheduledAt = now;
    if (startup.runningAt === undefined && (pod.status?.containerStatuses ?? []).some((s) => s.state?.running !== undefined)) startup.runningAt = now;
    if (startup.readyAt === undefined && isTrue(pod, 'Ready')) startup.readyAt = now;
  }

  private async run(): Promise<void> {
    while (!this.stopped) {
      const watch = this.options.pods.watch({
        namespace: this.options.namespace,
        labelSelector: this.options.labelSelector,
        resourceVersion: this.resourceVersion,
      });
      this.watch = watch;
      try {
        for await (const event of watch) {
          const now = performance.now();
          this.resourceVersion = event.object.metadata.resourceVersion ?? this.resourceVersion;
          if (event.type !== 'BOOKMARK') this.observe(event.type, event.object, now);
          for (const l of [...this.listeners]) l();
        }
      } catch (e: unknown) {
        if (this.stopped) break;
        // An expired resourceVersion cannot be resumed: the figures would have a gap.
        throw e;
      }
      if (!this.stopped) this.reopened++;
    }
  }
}
