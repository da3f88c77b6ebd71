/**
 * The client's one interface: a {@link Client} hands out a
 * {@link ResourceClient} per resource, and a resource client speaks the API's
 * verbs. The HTTP client (rest/http-client.ts) and the in-memory fake of unit
 * tests (testing/fake-client.ts) implement it alike, so a controller never
 * knows which one it has.
 *
 * Errors: every failed call rejects with a {@link StatusError} rebuilt from
 * the server's Status body (so `isNotFound(e)`, `isConflict(e)`,
 * `isAlreadyExists(e)` work on both sides); a lost connection that retries
 * could not mend rejects with a StatusError of code 503 whose `cause` is the
 * socket error.
 *
 * @example
 *   const pods = client.resource<Pod>(PODS);
 *   const list = await pods.list({ namespace: 'default', labelSelector: 'app=web' });
 *   await pods.delete('web-1', { namespace: 'default', propagationPolicy: 'Background' });
 */
import type { KubeList, KubeObject } from '../../machinery/meta.js';

/** Which collection a resource client talks to (the facts of discovery it needs). */
export interface ResourceRef {
  readonly group: string;
  readonly version: string;
  /** The plural, lower-case name in URLs: `pods`. */
  readonly resource: string;
  readonly kind: string;
  readonly namespaced: boolean;
}

export interface ListOptions {
  /** Omit (or '') for every namespace of a namespaced resource. */
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  readonly limit?: number;
  readonly continue?: string;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: 'Exact' | 'NotOlderThan';
}

export interface WatchOptions {
  readonly namespace?: string;
  readonly labelSelector?: string;
  readonly fieldSelector?: string;
  /** Changes after this one; '' or absent: the current state as ADDED events first. */
  readonly resourceVersion?: string;
  readonly allowWatchBookmarks?: boolean;
  readonly timeoutSeconds?: number;
}

export interface WriteOptions {
  /** For a namespaced create/update: defaults to the object's metadata.namespace. */
  readonly namespace?: string;
  readonly dryRun?: boolean;
  readonly fieldManager?: string;
  readonly fieldValidation?: 'Strict' | 'Warn' | 'Ignore';
}

/** json: application/json-patch+json; merge: merge-patch; strategic: strategic-merge-patch; apply: server-side apply (YAML or JSON body). */
export type PatchType = 'json' | 'merge' | 'strategic' | 'apply';

export interface PatchOptions extends WriteOptions {
  /** `status`, `scale`, … */
  readonly subresource?: string;
  /** Server-side apply only: take ownership of conflicting fields. */
  readonly force?: boolean;
}

export interface DeleteOptions {
  readonly namespace?: string;
  readonly propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  readonly gracePeriodSeconds?: number;
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly dryRun?: boolean;
}

/** One event of a watch. ERROR events are not events: the iteration throws their StatusError (410 for an expired resourceVersion). */
export interface WatchEvent<T> {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  /** For BOOKMARK: an object of the kind whose metadata holds only resourceVersion (and annotations). */
  readonly object: T;
}

/** A running watch: iterate it; it ends when the server ends the watch or on cancel(). */
export interface WatchStream<T> extends AsyncIterable<WatchEvent<T>> {
  cancel(): void;
}

export interface ResourceClient<T extends KubeObject = KubeObject> {
  readonly ref: ResourceRef;
  get(name: string, options?: { readonly namespace?: string }): Promise<T>;
  list(options?: ListOptions): Promise<KubeList<T>>;
  watch(options?: WatchOptions): WatchStream<T>;
  create(object: T, options?: WriteOptions): Promise<T>;
  /** PUT: optimistic concurrency on object.metadata.resourceVersion (409 Conflict when stale). */
  update(object: T, options?: WriteOptions): Promise<T>;
  /** PUT to /status. */
  updateStatus(object: T, options?: WriteOptions): Promise<T>;
  patch(name: string, type: PatchType, patch: unknown, options?: PatchOptions): Promise<T>;
  /**
   * DELETE. Resolves with the object when it was only marked for deletion
   * (finalizers, grace period) and still exists, with undefined once it is gone.
   */
  delete(name: string, options?: DeleteOptions): Promise<T | undefined>;
  /** GET a subresource (`scale`). */
  getSubresource<R = KubeObject>(name: string, subresource: string, options?: { readonly namespace?: string }): Promise<R>;
  /** POST to a subresource: pods/binding, pods/eviction, serviceaccounts/token. */
  createSubresource<R = KubeObject>(name: string, subresource: string, body: unknown, options?: WriteOptions): Promise<R>;
  /** PUT a subresource: `scale`, namespaces' `finalize`. */
  updateSubresource<R = KubeObject>(name: string, subresource: string, body: unknown, options?: WriteOptions): Promise<R>;
}

export interface Client {
  /** The client of one resource; the same ref gives an equivalent client (cheap to call often). */
  resource<T extends KubeObject = KubeObject>(ref: ResourceRef): ResourceClient<T>;
}
