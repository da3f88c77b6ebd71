/**
 * Owners the garbage collector has verified absent, so that the dependents of
 * one deleted owner cost one lookup, not one each (upstream's absentOwnerCache,
 * an LRU of 500 entries).
 */
import type { ObjectIdentity } from './identity.js';
import { identityKey } from './identity.js';

export class AbsentOwnerCache {
  private readonly entries = new Map<string, true>();

  constructor(private readonly capacity = 500) {}

  add(identity: ObjectIdentity): void {
    const key = identityKey(identity);
    this.entries.delete(key);
    this.entries.set(key, true);
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }

  has(identity: ObjectIdentity): boolean {
    const key = identityKey(identity);
    if (!this.entries.has(key)) return false;
    // Recently used: move to the young end.
    this.entries.delete(key);
    this.entries.set(key, true);
    return true;
  }

  get size(): number {
    return this.entries.size;
  }
}
