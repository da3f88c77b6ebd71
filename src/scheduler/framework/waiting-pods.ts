/**
 * Pods that a Permit plugin told to wait (upstream's waitingPodsMap and
 * waitingPod): each waits for every plugin that said Wait to allow it, and is
 * rejected as soon as one rejects it or its timeout passes. The binding cycle
 * awaits {@link WaitingPodImpl.done}; plugins reach a waiting pod through
 * Handle.getWaitingPod(uid).
 */
import type { WaitingPod } from './interfaces.js';
import { Code, Status } from './status.js';
import type { Pod } from './types.js';

/** Upstream caps a Permit wait at 15 minutes. */
export const MAX_PERMIT_TIMEOUT_MS = 15 * 60_000;

export class WaitingPodImpl implements WaitingPod {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private settled = false;
  private resolve!: (status: Status | undefined) => void;
  /** Resolves with undefined (allowed by every plugin) or the rejection. */
  readonly done: Promise<Status | undefined>;

  constructor(
    readonly pod: Pod,
    /** Plugin name → how long it lets the pod wait. */
    waitMs: ReadonlyMap<string, number>,
  ) {
    this.done = new Promise((resolve) => (this.resolve = resolve));
    for (const [plugin, ms] of waitMs) {
      const timer = setTimeout(() => this.reject(plugin, `rejected due to timeout after waiting ${formatGoDuration(ms)} at plugin ${plugin}`), ms);
      timer.unref();
      this.timers.set(plugin, timer);
    }
  }

  pendingPlugins(): string[] {
    return [...this.timers.keys()];
  }

  allow(pluginName: string): void {
    const timer = this.timers.get(pluginName);
    if (timer === undefined || this.settled) return;
    clearTimeout(timer);
    this.timers.delete(pluginName);
    if (this.timers.size > 0) return;
    this.settle(undefined);
  }

  reject(pluginName: string, message: string): void {
    if (this.settled) return;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.settle(new Status(Code.Unschedulable, [message]).withPlugin(pluginName));
  }

  private settle(status: Status | undefined): void {
    this.settled = true;
    this.resolve(status);
  }
}

/** Waiting pods by uid; one map may be shared by every profile of a scheduler. */
export class WaitingPods {
  private readonly byUid = new Map<string, WaitingPodImpl>();

  add(pod: WaitingPodImpl): void {
    this.byUid.set(pod.pod.metadata.uid ?? '', pod);
  }

  get(uid: string): WaitingPodImpl | undefined {
    return this.byUid.get(uid);
  }

  remove(uid: string): void {
    this.byUid.delete(uid);
  }

  /** Reject a waiting pod (its pod was deleted); true if there was one. */
  reject(uid: string, pluginName: string, message: string): boolean {
    const pod = this.byUid.get(uid);
    if (pod === undefined) return false;
    pod.reject(pluginName, message);
    return true;
  }

  /** Reject every waiting pod (the scheduler stops). */
  rejectAll(pluginName: string, message: string): void {
    for (const pod of [...this.byUid.values()]) pod.reject(pluginName, message);
  }

  get size(): number {
    return this.byUid.size;
  }
}

/** A duration as Go's time.Duration prints it (`10s`, `1m30s`, `500ms`), for messages that quote upstream. */
export function formatGoDuration(ms: number): string {
  if (ms === 0) return '0s';
  if (ms < 1000) return `${ms}ms`;
  let rest = ms / 1000;
  const hours = Math.floor(rest / 3600);
  rest -= hours * 3600;
  const minutes = Math.floor(rest / 60);
  rest -= minutes * 60;
  const seconds = `${Number(rest.toFixed(3))}s`;
  if (hours > 0) return `${hours}h${minutes}m${seconds}`;
  if (minutes > 0) return `${minutes}m${seconds}`;
  return seconds;
}
