/**
 * An in-memory Storage for unit tests of the code around storage (the generic
 * registry store, the watch cache). It follows every rule of the interface and
 * passes the same conformance suite, but it is simple rather than fast and keeps
 * nothing on disk: never use it where a user would have a real store.
 */
import { closed, compacted, conflict, futureRevision, keyExists, keyNotFound, tooLarge } from '../errors.js';
import {
  MAX_VALUE_BYTES,
  prefixEnd,
  type DeleteResult,
  type KeyValue,
  type ListOptions,
  type ListResult,
  type Storage,
  type StorageEvent,
  type StorageWatch,
} from '../interface.js';
import { WatchStream } from '../watch-stream.js';

interface Watcher {
  readonly start: string;
  readonly end: string;
  readonly stream: WatchStream;
}

export class MemoryStorage implements Storage {
  private revision = 0;
  private compactRevision = 0;
  private readonly current = new Map<string, KeyValue>();
  /** Every event, in revision order; compaction drops the ones at or below the compact revision. */
  private history: StorageEvent[] = [];
  private readonly watchers = new Set<Watcher>();
  private closed = false;

  async get(key: string): Promise<KeyValue | undefined> {
    this.checkOpen();
    return this.current.get(key);
  }

  async list(prefix: string, options: ListOptions = {}): Promise<ListResult> {
    this.checkOpen();
    const revision = options.revision ?? this.revision;
    if (revision > this.revision) throw futureRevision(revision, this.revision);
    if (revision < this.compactRevision) throw compacted(revision, this.compactRevision);
    // Rebuild the state at `revision` by undoing the later events.
    const state = new Map(this.current);
    for (let i = this.history.length - 1; i >= 0; i--) {
      const event = this.history[i]!;
      if ((event.type === 'PUT' ? event.kv.modRevision : event.revision) <= revision) break;
      const key = event.type === 'PUT' ? event.kv.key : event.key;
      if (event.prevKv === undefined) state.delete(key);
      else state.set(key, event.prevKv);
    }
    const end = prefixEnd(prefix);
    const after = options.continueFrom;
    const keys = [...state.keys()]
      .filter((k) => inRange(k, prefix, end) && (after === undefined || compareKeys(k, after) > 0))
      .sort(compareKeys);
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : keys.length;
    return {
      items: keys.slice(0, limit).map((k) => state.get(k)!),
      revision,
      more: keys.length > limit,
      ...(keys.length > limit ? { count: keys.length } : {}),
    };
  }

  async create(key: string, value: Uint8Array): Promise<KeyValue> {
    this.checkWrite(key, value);
    if (this.current.has(key)) throw keyExists(key);
    const revision = ++this.revision;
    const kv: KeyValue = { key, value: copy(value), createRevision: revision, modRevision: revision };
    this.current.set(key, kv);
    this.emit({ type: 'PUT', kv });
    return kv;
  }

  async update(key: string, value: Uint8Array, expectedModRevision: number): Promise<KeyValue> {
    this.checkWrite(key, value);
    const prev = this.current.get(key);
    if (prev === undefined) throw keyNotFound(key);
    if (prev.modRevision !== expectedModRevision) throw conflict(key, expectedModRevision, prev);
    const kv: KeyValue = { key, value: copy(value), createRevision: prev.createRevision, modRevision: ++this.revision };
    this.current.set(key, kv);
    this.emit({ type: 'PUT', kv, prevKv: prev });
    return kv;
  }

  async delete(key: string, expectedModRevision?: number): Promise<DeleteResult> {
    this.checkOpen();
    const prev = this.current.get(key);
    if (prev === undefined) throw keyNotFound(key);
    if (expectedModRevision !== undefined && prev.modRevision !== expectedModRevision) {
      throw conflict(key, expectedModRevision, prev);
    }
    const revision = ++this.revision;
    this.current.delete(key);
    this.emit({ type: 'DELETE', key, revision, prevKv: prev });
    return { prevKv: prev, revision };
  }

  watch(prefix: string, fromRevision: number): StorageWatch {
    const watcher: Watcher = {
      start: prefix,
      end: prefixEnd(prefix),
      // Events are pushed synchronously as writes happen: the current revision is progress.
      stream: new WatchStream(
        () => this.watchers.delete(watcher),
        (stream) => stream.pushProgress(this.revision),
      ),
    };
    if (this.closed) {
      watcher.stream.fail(closed());
      return watcher.stream;
    }
    if (fromRevision < this.compactRevision) {
      watcher.stream.fail(compacted(fromRevision, this.compactRevision));
      return watcher.stream;
    }
    for (const event of this.history) {
      const revision = event.type === 'PUT' ? event.kv.modRevision : event.revision;
      if (revision > fromRevision) deliver(watcher, event);
    }
    this.watchers.add(watcher);
    return watcher.stream;
  }

  async currentRevision(): Promise<number> {
    this.checkOpen();
    return this.revision;
  }

  async compact(revision: number): Promise<void> {
    this.checkOpen();
    if (revision > this.revision) throw futureRevision(revision, this.revision);
    if (revision <= this.compactRevision) return;
    this.compactRevision = revision;
    this.history = this.history.filter((e) => (e.type === 'PUT' ? e.kv.modRevision : e.revision) > revision);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    for (const watcher of [...this.watchers]) watcher.stream.end();
    this.watchers.clear();
  }

  private emit(event: StorageEvent): void {
    this.history.push(event);
    for (const watcher of this.watchers) deliver(watcher, event);
  }

  private checkOpen(): void {
    if (this.closed) throw closed();
  }

  private checkWrite(key: string, value: Uint8Array): void {
    this.checkOpen();
    if (value.length > MAX_VALUE_BYTES) throw tooLarge(key, value.length, MAX_VALUE_BYTES);
  }
}

function deliver(watcher: Watcher, event: StorageEvent): void {
  if (inRange(event.type === 'PUT' ? event.kv.key : event.key, watcher.start, watcher.end)) watcher.stream.push(event);
}

/** Byte order of UTF-8 keys, as etcd and sqlite compare them. */
function compareKeys(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

function inRange(key: string, start: string, end: string): boolean {
  return compareKeys(key, start) >= 0 && (end === '' || compareKeys(key, end) < 0);
}

function copy(value: Uint8Array): Uint8Array {
  return Uint8Array.from(value);
}

export function newMemoryStorage(): MemoryStorage {
  return new MemoryStorage();
}
