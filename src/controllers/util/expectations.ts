/**
 * Expectations, as upstream's controller package keeps them: a controller
 * that just asked for N creates (or deletes) remembers it, and does not act
 * on that controller key again until its informer has observed them all (or
 * five minutes have passed, in case a watch event was lost). Without this a
 * reconcile that runs before the watch delivers its own creates would count
 * too few pods and create them a second time.
 */

/** Upstream's ExpectationsTimeout. */
export const EXPECTATIONS_TIMEOUT_MS = 5 * 60_000;

export interface ExpectationsOptions {
  /** The clock (default Date.now); tests move it. */
  readonly now?: () => number;
  /** How long an unfulfilled expectation is trusted (default 5 minutes). */
  readonly timeoutMs?: number;
}

interface Expectation {
  add: number;
  del: number;
  setAt: number;
}

export class ControllerExpectations {
  readonly #entries = new Map<string, Expectation>();
  readonly #now: () => number;
  readonly #timeoutMs: number;

  constructor(options: ExpectationsOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#timeoutMs = options.timeoutMs ?? EXPECTATIONS_TIMEOUT_MS;
  }

  /**
   * True when the controller may act on `key`: nothing is expected, what was
   * expected has been observed, or the expectation expired.
   */
  satisfied(key: string): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined) return true;
    if (entry.add <= 0 && entry.del <= 0) return true;
    return this.#now() - entry.setAt > this.#timeoutMs;
  }

  /** What is still expected (undefined when nothing was ever set for the key). */
  pending(key: string): { readonly add: number; readonly del: number } | undefined {
    const entry = this.#entries.get(key);
    return entry === undefined ? undefined : { add: entry.add, del: entry.del };
  }

  /** Replace the key's expectations with `adds` creates (and restart its timer). */
  expectCreations(key: string, adds: number): void {
    this.#entries.set(key, { add: adds, del: 0, setAt: this.#now() });
  }

  /** Replace the key's expectations with `dels` deletes (and restart its timer). */
  expectDeletions(key: string, dels: number): void {
    this.#entries.set(key, { add: 0, del: dels, setAt: this.#now() });
  }

  creationObserved(key: string): void {
    this.lower(key, 1, 0);
  }

  deletionObserved(key: string): void {
    this.lower(key, 0, 1);
  }

  /** Expect fewer (a create that failed will never be observed). */
  lower(key: string, adds: number, dels: number): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    entry.add -= adds;
    entry.del -= dels;
  }

  raise(key: string, adds: number, dels: number): void {
    const entry = this.#entries.get(key);
    if (entry === undefined) return;
    entry.add += adds;
    entry.del += dels;
  }

  /** Forget the key (its controller was deleted). */
  delete(key: string): void {
    this.#entries.delete(key);
  }
}

/**
 * Expectations that also remember which pods (by `namespace/name`) a
 * controller deleted, so that only the deletion of one of those lowers the
 * count, and observing the same deletion twice (the graceful-deletion update,
 * then the DELETED event) counts once (upstream's UIDTrackingControllerExpectations).
 */
export class UIDTrackingExpectations extends ControllerExpectations {
  readonly #deleting = new Map<string, Set<string>>();

  /** Expect the deletion of these pods (replacing what the key expected). */
  expectDeletionsOf(key: string, podKeys: readonly string[]): void {
    this.#deleting.set(key, new Set(podKeys));
    this.expectDeletions(key, podKeys.length);
  }

  /** Observe that pod `podKey` is being deleted or is gone; counts only once per expected pod. */
  deletionOfObserved(key: string, podKey: string): void {
    const set = this.#deleting.get(key);
    if (set === undefined || !set.delete(podKey)) return;
    this.deletionObserved(key);
  }

  /** The pods whose deletion is still awaited. */
  deletingPods(key: string): readonly string[] {
    return [...(this.#deleting.get(key) ?? [])];
  }

  override delete(key: string): void {
    super.delete(key);
    this.#deleting.delete(key);
  }
}
