/**
 * The objects of writes this process has just made, kept until the watch
 * cache's storage watch delivers them: the cache then holds the very object
 * that was written instead of decoding the stored bytes again (a JSON.parse
 * of the whole object, and the garbage it leaves, for every write a watch
 * cache follows). An entry is only taken for the same key with exactly the
 * bytes that were stored, so a write by another API server, or anything else
 * stored under the key, is decoded as before. Only writers that never change
 * the object afterwards register it (the handlers' creates): objects in the
 * cache are shared and must not change.
 */
import type { KubeObject } from '../../../machinery/meta.js';
import type { KeyValue } from '../../../storage/interface.js';

interface Entry {
  readonly bytes: Uint8Array;
  readonly object: KubeObject;
}

/** Entries whose event never came (the watch restarted and relisted) are dropped, oldest first, beyond this many. */
const DEFAULT_CAPACITY = 1024;

export class RecentWrites {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly capacity = DEFAULT_CAPACITY) {}

  /** How many entries are held (tests). */
  get size(): number {
    return this.entries.size;
  }

  /** `object` was stored under `key` as `bytes` (or is about to be). */
  remember(key: string, bytes: Uint8Array, object: KubeObject): void {
    this.entries.delete(key);
    this.entries.set(key, { bytes, object });
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next();
      if (oldest.done !== true) this.entries.delete(oldest.value);
    }
  }

  /** The write did not happen (or its object may change after all): forget it. */
  forget(key: string, object: KubeObject): void {
    if (this.entries.get(key)?.object === object) this.entries.delete(key);
  }

  /**
   * The written object for a stored key-value, with resourceVersion set to its
   * modRevision, when it is the one remembered (same key, same bytes); the
   * entry is used once. Undefined otherwise: the caller decodes.
   */
  take(kv: KeyValue): KubeObject | undefined {
    const entry = this.entries.get(kv.key);
    if (entry === undefined) return undefined;
    this.entries.delete(kv.key);
    if (!sameBytes(entry.bytes, kv.value)) return undefined;
    entry.object.metadata.resourceVersion = String(kv.modRevision);
    return entry.object;
  }
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.byteLength !== b.byteLength) return false;
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(b);
}
