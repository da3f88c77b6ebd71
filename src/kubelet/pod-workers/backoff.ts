/**
 * Crash-loop back-off per container, as upstream's flowcontrol.Backoff is used
 * by the kubelet: the first restart is immediate, each further one waits twice
 * as long as the last (initialMs doubling up to maxMs), counted from when the
 * container last finished; a container that ran resetAfterMs or more since its
 * restart was scheduled starts again from initialMs.
 */
import { formatGoDuration } from '../../api/protobuf/go-values.js';
import type { BackoffConfig } from './interface.js';

interface Entry {
  /** The current back-off (ms). */
  durationMs: number;
  /** When the last restart was allowed (ms since the epoch). */
  lastUpdateMs: number;
}

export class ContainerBackoff {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly config: BackoffConfig,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * True while a restart of `key` must wait: it has a back-off entry and
   * less than its duration has passed since `finishedAtMs`.
   */
  isInBackOffSince(key: string, finishedAtMs: number): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined || this.hasExpired(entry, finishedAtMs)) return false;
    return this.now() - finishedAtMs < entry.durationMs;
  }

  /** When the back-off of `key` ends for a container that finished at `finishedAtMs` (ms since the epoch). */
  releaseAt(key: string, finishedAtMs: number): number {
    return finishedAtMs + (this.entries.get(key)?.durationMs ?? 0);
  }

  /** Records a restart: the next back-off doubles (up to maxMs), or starts from initialMs when none was recent. */
  next(key: string, finishedAtMs: number): void {
    const entry = this.entries.get(key);
    const now = this.now();
    if (entry === undefined || this.hasExpired(entry, finishedAtMs)) {
      this.entries.set(key, { durationMs: this.config.initialMs, lastUpdateMs: now });
      return;
    }
    entry.durationMs = Math.min(entry.durationMs * 2, this.config.maxMs);
    entry.lastUpdateMs = now;
  }

  /** The current back-off of `key` in Go's spelling (`10s`, `1m20s`), as upstream's message shows it. */
  describe(key: string): string {
    return formatGoDuration((this.entries.get(key)?.durationMs ?? 0) * 1e6);
  }

  /** Forgets every key with this prefix (a pod that is gone). */
  forget(prefix: string): void {
    for (const key of [...this.entries.keys()]) if (key.startsWith(prefix)) this.entries.delete(key);
  }

  /** A container that ran for resetAfterMs since its last restart starts its back-off again. */
  private hasExpired(entry: Entry, finishedAtMs: number): boolean {
    return finishedAtMs - entry.lastUpdateMs >= this.config.resetAfterMs;
  }
}

/** The key upstream's GetStableKey makes: one back-off per pod and container spec. */
export const backoffKey = (podUid: string, containerName: string, hash: string): string => `${podUid}/${containerName}/${hash}`;
