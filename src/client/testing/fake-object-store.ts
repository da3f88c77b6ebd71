/**
 * The fake client's storage: every resource's objects, one global
 * resourceVersion counter (as etcd's revision), a history of changes for
 * watches to replay from a resourceVersion, and the open watches.
 *
 * Watch semantics follow the API server's watch cache: with a selection, an
 * object that starts matching arrives as ADDED, one that stops matching as
 * DELETED (its previous state at the new resourceVersion). A watch from a
 * resourceVersion older than the compaction point fails with 410 Expired.
 */
import { deepCopy, type KubeObject } from '../../machinery/meta.js';
import { parseFieldSelector, type FieldSelector } from '../../machinery/selectors/field-selector.js';
import { parseLabelSelector, type LabelSelector } from '../../machinery/selectors/label-selector.js';
import { expired } from '../../machinery/status.js';
import { objectKey } from '../cache/interfaces.js';
import type { ResourceRef, WatchEvent } from '../rest/interface.js';
import { FakeWatchStream } from './fake-watch.js';

export type ChangeType = 'ADDED' | 'MODIFIED' | 'DELETED';

interface Change {
  readonly collection: string;
  readonly resourceVersion: number;
  readonly type: ChangeType;
  /** The new state (for DELETED: the last state, at the deletion's resourceVersion). */
  readonly object: KubeObject;
  /** The state before (MODIFIED only). */
  readonly previous: KubeObject | undefined;
}

/** Which objects of a collection a list or watch wants. */
export class Selection {
  private readonly labels: LabelSelector;
  private readonly fields: FieldSelector;

  constructor(
    private readonly namespace: string,
    labelSelector: string,
    fieldSelector: string,
  ) {
    this.labels = parseLabelSelector(labelSelector);
    this.fields = parseFieldSelector(fieldSelector);
  }

  matches(object: KubeObject): boolean {
    if (this.namespace !== '' && object.metadata.namespace !== this.namespace) return false;
    if (!this.labels.matches(object.metadata.labels)) return false;
    if (this.fields.empty()) return true;
    const values: Record<string, string> = {};
    for (const requirement of this.fields.requirements) values[requirement.field] = fieldValue(object, requirement.field);
    return this.fields.matches(values);
  }
}

/** The value of a dotted field path (metadata.name, spec.nodeName, status.phase, …) as a selector sees it; absent is ''. */
function fieldValue(object: KubeObject, path: string): string {
  let at: unknown = object;
  for (const part of path.split('.')) {
    if (typeof at !== 'object' || at === null) return '';
    at = (at as Record<string, unknown>)[part];
  }
  return typeof at === 'string' ? at : typeof at === 'number' || typeof at === 'boolean' ? String(at) : '';
}

interface Watcher {
  readonly collection: string;
  readonly selection: Selection;
  readonly bookmarks: boolean;
  readonly stream: FakeWatchStream<KubeObject>;
}

export const collectionOf = (ref: ResourceRef): string => `${ref.group}/${ref.resource}`;

export class FakeObjectStore {
  private readonly collections = new Map<string, Map<string, KubeObject>>();
  private readonly history: Change[] = [];
  private readonly watchers = new Set<Watcher>();
  private revision = 0;
  private compactedRevision = 0;

  constructor(private readonly historyLimit: number) {}

  get resourceVersion(): number {
    return this.revision;
  }

  get compactedResourceVersion(): number {
    return this.compactedRevision;
  }

  /** The stored object itself (callers copy before handing it out). */
  get(ref: ResourceRef, key: string): KubeObject | undefined {
    return this.collections.get(collectionOf(ref))?.get(key);
  }

  /** Stored objects of a collection matching a selection, sorted by key. */
  list(ref: ResourceRef, selection: Selection): KubeObject[] {
    const objects = this.collections.get(collectionOf(ref));
    if (objects === undefined) return [];
    return [...objects.entries()]
      .filter(([, object]) => selection.matches(object))
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([, object]) => object);
  }

  /** Store a change at the next resourceVersion (set on the object, which the store keeps), and tell the watches. */
  commit(ref: ResourceRef, type: ChangeType, object: KubeObject, previous?: KubeObject): KubeObject {
    const collection = collectionOf(ref);
    this.revision++;
    object.metadata.resourceVersion = String(this.revision);
    let objects = this.collections.get(collection);
    if (objects === undefined) this.collections.set(collection, (objects = new Map()));
    if (type === 'DELETED') objects.delete(objectKey(object));
    else objects.set(objectKey(object), object);
    const change: Change = { collection, resourceVersion: this.revision, type, object, previous: type === 'MODIFIED' ? previous : undefined };
    this.history.push(change);
    if (this.history.length > this.historyLimit) this.compact(this.history[this.history.length - this.historyLimit - 1]!.resourceVersion);
    for (const watcher of this.watchers) if (watcher.collection === collection) deliver(watcher, change);
    return object;
  }

  /** Forget the history up to resourceVersion (default: all of it): watches from before it get 410 Expired. */
  compact(resourceVersion: number = this.revision): void {
    this.compactedRevision = Math.max(this.compactedRevision, resourceVersion);
    let drop = 0;
    while (drop < this.history.length && this.history[drop]!.resourceVersion <= this.compactedRevision) drop++;
    this.history.splice(0, drop);
  }

  /**
   * A watch of a collection from a resourceVersion ('' or '0': the current
   * matching objects as ADDED first, then every change).
   */
  watch(ref: ResourceRef, selection: Selection, resourceVersion: string, bookmarks: boolean): FakeWatchStream<KubeObject> {
    const watcher: Watcher = {
      collection: collectionOf(ref),
      selection,
      bookmarks,
      stream: new FakeWatchStream<KubeObject>(() => this.watchers.delete(watcher)),
    };
    if (resourceVersion === '' || resourceVersion === '0') {
      for (const object of this.list(ref, selection)) watcher.stream.push({ type: 'ADDED', object: deepCopy(object) });
    } else {
      const from = Number(resourceVersion);
      if (!Number.isSafeInteger(from) || from < 0) {
        watcher.stream.end(expired(`too old resource version: ${resourceVersion} (${this.compactedRevision})`));
        return watcher.stream;
      }
      if (from < this.compactedRevision) {
        watcher.stream.end(expired(`too old resource version: ${from} (${this.compactedRevision})`));
        return watcher.stream;
      }
      for (const change of this.history) if (change.resourceVersion > from && change.collection === watcher.collection) deliver(watcher, change);
    }
    this.watchers.add(watcher);
    return watcher.stream;
  }

  /** Send a bookmark at the current resourceVersion to every watch that allows them. */
  bookmark(): void {
    for (const watcher of this.watchers) {
      if (!watcher.bookmarks) continue;
      watcher.stream.push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: String(this.revision) } } });
    }
  }

  /** End every open watch (as a server timeout or a dropped connection would), optionally with an error. */
  closeWatches(error?: unknown): void {
    for (const watcher of [...this.watchers]) watcher.stream.end(error);
  }

  get openWatches(): number {
    return this.watchers.size;
  }
}

function deliver(watcher: Watcher, change: Change): void {
  const event = eventFor(watcher.selection, change);
  if (event !== undefined) watcher.stream.push(event);
}

function eventFor(selection: Selection, change: Change): WatchEvent<KubeObject> | undefined {
  const matchesNow = selection.matches(change.object);
  if (change.type !== 'MODIFIED') return matchesNow ? { type: change.type, object: deepCopy(change.object) } : undefined;
  const matchedBefore = change.previous !== undefined && selection.matches(change.previous);
  if (matchesNow) return { type: matchedBefore ? 'MODIFIED' : 'ADDED', object: deepCopy(change.object) };
  if (!matchedBefore || change.previous === undefined) return undefined;
  const last = deepCopy(change.previous);
  last.metadata.resourceVersion = String(change.resourceVersion);
  return { type: 'DELETED', object: last };
}
