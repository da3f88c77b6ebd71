/**
 * The backoff between deletions of failed daemon pods on one node (upstream's
 * flowcontrol.Backoff with 1 s initial and 15 min maximum): a kubelet that
 * rejects a pod (it does not fit, say) would otherwise make the controller
 * and the kubelet create and fail it in a tight loop. An entry unused for
 * twice the maximum starts over.
 */
export interface FailedPodBackoffOptions {
  readonly initialMs?: number;
  readonly maxMs?: number;
  readonly now?: () => number;
}

interface Entry {
  backoffMs: number;
  lastUpdate: number;
}

export class FailedPodBackoff {
  readonly #entries = new Map<string, Entry>();
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #now: () => number;

  constructor(options: FailedPodBackoffOptions = {}) {
    this.#initialMs = options.initialMs ?? 1000;
    this.#maxMs = options.maxMs ?? 15 * 60_000;
    this.#now = options.now ?? Date.now;
  }

  /** How long the key must still wait (undefined: it may act now). */
  remainingMs(key: string): number | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    const remaining = entry.lastUpdate + entry.backoffMs - this.#now();
    return remaining > 0 ? remaining : undefined;
  }

  /** The key acted: double its backoff (or start it). */
  next(key: string): void {
    const now = this.#now();
    const entry = this.#entries.get(key);
    if (entry === undefined || now - entry.lastUpdate > 2 * this.#maxMs) {
      this.#entries.set(key, { backoffMs: this.#initialMs, lastUpdate: now });
      return;
    }
    entry.backoffMs = Math.min(entry.backoffMs * 2, this.#maxMs);
    entry.lastUpdate = now;
  }

  /** Drop entries unused for twice the maximum. */
  gc(): void {
    const now = this.#now();
    for (const [key, entry] of this.#entries) if (now - entry.lastUpdate > 2 * this.#maxMs) this.#entries.delete(key);
  }
}
