/**
 * Creations and deletions a controller has asked for and not yet seen on its
 * watch (upstream's ControllerExpectations): while any is outstanding the
 * informer cache is behind the controller's own writes, so the controller
 * must not count pods to decide how many to create or delete — a slow watch
 * would make it act twice. Expectations expire after a TTL (5 minutes, as
 * upstream) so a lost event cannot stall a key for ever.
 */
interface Pending {
  adds: number;
  deletes: Set<string>;
  at: number;
}

export interface ExpectationsOptions {
  readonly ttlMs?: number;
  readonly now?: () => number;
}

export class Expectations {
  private readonly pending = new Map<string, Pending>();
  private readonly ttlMs: number;
  private readonly now: () => number;

  constructor(options: ExpectationsOptions = {}) {
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Whether the key has nothing outstanding (or its expectations expired). */
  satisfied(key: string): boolean {
    const p = this.pending.get(key);
    if (p === undefined) return true;
    if ((p.adds <= 0 && p.deletes.size === 0) || this.now() - p.at > this.ttlMs) {
      this.pending.delete(key);
      return true;
    }
    return false;
  }

  expectCreations(key: string, count: number): void {
    const p = this.entry(key);
    p.adds += count;
  }

  expectDeletions(key: string, uids: readonly string[]): void {
    const p = this.entry(key);
    for (const uid of uids) p.deletes.add(uid);
  }

  creationObserved(key: string): void {
    const p = this.pending.get(key);
    if (p !== undefined && p.adds > 0) p.adds--;
  }

  /** A create that failed will never be observed. */
  lowerCreations(key: string, count: number): void {
    const p = this.pending.get(key);
    if (p !== undefined) p.adds = Math.max(0, p.adds - count);
  }

  deletionObserved(key: string, uid: string): void {
    this.pending.get(key)?.deletes.delete(uid);
  }

  forget(key: string): void {
    this.pending.delete(key);
  }

  private entry(key: string): Pending {
    let p = this.pending.get(key);
    if (p === undefined || this.satisfied(key)) {
      p = { adds: 0, deletes: new Set(), at: this.now() };
      this.pending.set(key, p);
    }
    p.at = this.now();
    return p;
  }
}
