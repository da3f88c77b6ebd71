/**
 * An in-memory {@link Client} for unit tests: every resource in one store
 * with a global resourceVersion, watches from any resourceVersion, selectors,
 * optimistic concurrency, finalizers and graceful deletion, generateName and
 * the subresources controllers use — the API server's semantics a controller
 * relies on, without an API server. Never use it outside unit tests.
 *
 * What it does as the API server does:
 * - create: generateName (+5 random characters of upstream's alphabet), uid,
 *   creationTimestamp, resourceVersion, generation 1 for objects with a spec;
 *   AlreadyExists; Forbidden in a terminating namespace; a namespace gets the
 *   `kubernetes` finalizer in spec.finalizers and phase Active.
 * - update: Conflict on a stale resourceVersion (none given: unconditional);
 *   for objects with a spec the status is kept (it changes through /status
 *   only) and generation grows when the spec changes; a no-op writes nothing;
 *   no finalizer may be added to an object being deleted; an update that
 *   leaves a deleting object without finalizers (and grace) deletes it.
 * - updateStatus: only the status changes (and, for the apps kinds, the metadata their status strategies let through).
 * - patch: json (fast-json-patch), merge (RFC 7386), strategic (machinery's
 *   strategic merge patch, with the merge keys of the common lists known by
 *   field name: strategic-patch-schema.ts); apply (server-side apply) is
 *   applied as a merge patch in this fake, creating the object when absent.
 * - delete: preconditions (Conflict); propagationPolicy Foreground / Orphan
 *   add the foregroundDeletion / orphan finalizer (Background removes them);
 *   with finalizers the object is only marked (deletionTimestamp) and kept.
 *   Only pods delete gracefully, as upstream: the grace period (the option,
 *   else spec.terminationGracePeriodSeconds, else 30 s; 0 for a pod on no
 *   node or one that has finished) marks the pod, and a later delete with
 *   gracePeriodSeconds 0 (the kubelet's) removes it. A namespace with
 *   spec.finalizers is marked Terminating until `finalize` empties them.
 * - subresources: status, scale (get/update spec.replicas), pods/binding
 *   (spec.nodeName and the PodScheduled condition), pods/eviction (a delete),
 *   serviceaccounts/token, namespaces/finalize.
 *
 * And for tests: `actions` logs every write (failed ones too, with their
 * error), `injectError` makes the next calls of a verb fail, `seed` stores
 * objects without logging them, `compact` expires old resourceVersions,
 * `bookmark` and `closeWatches` drive the watches.
 *
 * @example
 *   const client = newFakeClient();
 *   client.seed(REPLICA_SETS, [rs]);
 *   … run the controller …
 *   assert.equal(client.actionsOf('create', 'pods').length, 3);
 */
import { randomInt, randomUUID } from 'node:crypto';
import jsonpatch from 'fast-json-patch';
import { deepCopy, formatTime, isPlainObject, jsonEqual, type KubeList, type KubeObject } from '../../machinery/meta.js';
import { labelSelectorFromObject, type LabelSelectorObject } from '../../machinery/selectors/label-selector.js';
import { strategicMergePatch } from '../../machinery/strategic-merge-patch/apply.js';
import { StrategicMergePatchError } from '../../machinery/strategic-merge-patch/errors.js';
import { alreadyExists, badRequest, conflict, forbidden, notFound, StatusError } from '../../machinery/status.js';
import { objectKey } from '../cache/interfaces.js';
import type {
  Client,
  DeleteOptions,
  ListOptions,
  PatchOptions,
  PatchType,
  ResourceClient,
  ResourceRef,
  WatchOptions,
  WatchStream,
  WriteOptions,
} from '../rest/interface.js';
import { FakeObjectStore, Selection } from './fake-object-store.js';
import { applyMergePatch } from './merge-patch.js';
import { FAKE_STRATEGIC_PATCH_SCHEMA } from './strategic-patch-schema.js';

/** The metadata a /status write may change, as the API server's status strategies of these kinds allow. */
const STATUS_WRITES_METADATA: Readonly<Record<string, readonly ('labels' | 'annotations')[]>> = {
  'apps/deployments': ['annotations'],
  'apps/replicasets': ['labels', 'annotations'],
  'apps/statefulsets': ['labels', 'annotations'],
  'apps/daemonsets': ['labels', 'annotations'],
};

export type FakeVerb = 'get' | 'list' | 'watch' | 'create' | 'update' | 'patch' | 'delete';
export type FakeWriteVerb = 'create' | 'update' | 'patch' | 'delete';

/** One write the client was asked for. */
export interface FakeAction {
  readonly verb: FakeWriteVerb;
  /** The plural resource name: `pods`. */
  readonly resource: string;
  /** '' for a cluster-scoped resource. */
  readonly namespace: string;
  readonly name: string;
  /** `status`, `scale`, `binding`, `eviction`, `finalize`, `token`. */
  readonly subresource?: string;
  /** The body sent: object (create, update), patch (patch), options (delete). */
  readonly body?: unknown;
  readonly patchType?: PatchType;
  /** Set when the write failed. */
  readonly error?: unknown;
}

export interface FakeClientOptions {
  /** Changes kept for watches; older resourceVersions expire (default: all kept until compact()). */
  readonly historyLimit?: number;
  /** The clock for timestamps (default: the real one). */
  readonly now?: () => Date;
}

interface InjectedError {
  readonly verb: FakeVerb | '*';
  readonly resource: string;
  readonly error: unknown;
  remaining: number;
}

const SUFFIX_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';
const FOREGROUND_FINALIZER = 'foregroundDeletion';
const ORPHAN_FINALIZER = 'orphan';
const NAMESPACE_FINALIZER = 'kubernetes';

export class FakeClient implements Client {
  /** Every write asked for, in order. */
  readonly actions: FakeAction[] = [];
  private readonly store: FakeObjectStore;
  private readonly injected: InjectedError[] = [];
  private readonly now: () => Date;

  constructor(options: FakeClientOptions = {}) {
    this.store = new FakeObjectStore(options.historyLimit ?? Number.POSITIVE_INFINITY);
    this.now = options.now ?? (() => new Date());
  }

  resource<T extends KubeObject = KubeObject>(ref: ResourceRef): ResourceClient<T> {
    return new FakeResourceClient<T>(this, ref);
  }

  /** The current (last written) resourceVersion. */
  get resourceVersion(): string {
    return String(this.store.resourceVersion);
  }

  /** Writes of a verb (and resource, `pods` or `pods/status`), for assertions. */
  actionsOf(verb?: FakeWriteVerb, resource?: string): FakeAction[] {
    return this.actions.filter((a) => (verb === undefined || a.verb === verb) && (resource === undefined || matchesResource(resource, a.resource, a.subresource)));
  }

  clearActions(): void {
    this.actions.length = 0;
  }

  /**
   * Make the next `times` calls of `verb` ('*': any) on `resource` fail with
   * `error`. `pods` matches the resource and its subresources, `pods/status`
   * only that subresource.
   */
  injectError(verb: FakeVerb | '*', resource: string, error: unknown, times = 1): void {
    this.injected.push({ verb, resource, error, remaining: times });
  }

  /** Store objects as they are (metadata completed as a create would), without logging actions; returns the stored copies. */
  seed<T extends KubeObject>(ref: ResourceRef, objects: readonly T[]): T[] {
    return objects.map((object) => deepCopy(this.createObject(ref, object, {}, true)) as T);
  }

  /** Expire the history up to resourceVersion (default: now): a watch from an older one fails with 410. */
  compact(resourceVersion?: string): void {
    this.store.compact(resourceVersion === undefined ? undefined : Number(resourceVersion));
  }

  /** Send a BOOKMARK at the current resourceVersion to every watch that allows them. */
  bookmark(): void {
    this.store.bookmark();
  }

  /** End every open watch, as a dropped connection would (with an error: as a failed watch). */
  closeWatches(error?: unknown): void {
    this.store.closeWatches(error);
  }

  get openWatches(): number {
    return this.store.openWatches;
  }

  // ---- the verbs, called by FakeResourceClient ----

  /** @internal */
  checkInjected(verb: FakeVerb, ref: ResourceRef, subresource?: string): void {
    const rule = this.injected.find((r) => r.remaining > 0 && (r.verb === '*' || r.verb === verb) && matchesResource(r.resource, ref.resource, subresource));
    if (rule === undefined) return;
    rule.remaining--;
    throw rule.error;
  }

  /** @internal */
  record(action: FakeAction): void {
    this.actions.push(action);
  }

  /** @internal */
  getObject(ref: ResourceRef, name: string, namespace: string | undefined): KubeObject {
    const object = this.store.get(ref, keyOf(ref, name, namespace));
    if (object === undefined) throw notFound(ref, name);
    return object;
  }

  /** @internal */
  listObjects(ref: ResourceRef, options: ListOptions): KubeList<KubeObject> {
    const selection = new Selection(ref.namespaced ? (options.namespace ?? '') : '', options.labelSelector ?? '', options.fieldSelector ?? '');
    let items = this.store.list(ref, selection);
    let next: string | undefined;
    if (options.continue !== undefined && options.continue !== '') {
      const after = options.continue;
      items = items.filter((o) => objectKey(o) > after);
    }
    if (options.limit !== undefined && options.limit > 0 && items.length > options.limit) {
      items = items.slice(0, options.limit);
      next = objectKey(items[items.length - 1]!);
    }
    return {
      apiVersion: apiVersionOf(ref),
      kind: `${ref.kind}List`,
      metadata: { resourceVersion: this.resourceVersion, ...(next !== undefined ? { continue: next } : {}) },
      items: items.map((o) => deepCopy(o)),
    };
  }

  /** @internal */
  watchObjects(ref: ResourceRef, options: WatchOptions): WatchStream<KubeObject> {
    const selection = new Selection(ref.namespaced ? (options.namespace ?? '') : '', options.labelSelector ?? '', options.fieldSelector ?? '');
    return this.store.watch(ref, selection, options.resourceVersion ?? '', options.allowWatchBookmarks === true);
  }

  /** @internal Create (or, with seeding, store as given). Returns the stored object. */
  createObject(ref: ResourceRef, input: KubeObject, options: WriteOptions, seeding = false): KubeObject {
    const object = deepCopy(input);
    object.apiVersion ??= apiVersionOf(ref);
    object.kind ??= ref.kind;
    const metadata = object.metadata;
    if (ref.namespaced) {
      const namespace = namespaceFor(options.namespace, metadata.namespace);
      metadata.namespace = namespace;
      if (!seeding) this.checkNamespaceAcceptsContent(ref, metadata.name ?? metadata.generateName ?? '', namespace);
    } else {
      delete metadata.namespace;
    }
    if ((metadata.name === undefined || metadata.name === '') && metadata.generateName !== undefined && metadata.generateName !== '') {
      metadata.name = `${metadata.generateName}${randomSuffix()}`;
    }
    if (metadata.name === undefined || metadata.name === '') throw badRequest('name or generateName is required');
    if (this.store.get(ref, objectKey(object)) !== undefined) throw alreadyExists(ref, metadata.name);
    if (!seeding || metadata.uid === undefined) metadata.uid = randomUUID();
    if (!seeding || metadata.creationTimestamp === undefined || metadata.creationTimestamp === null) metadata.creationTimestamp = formatTime(this.now());
    if (!seeding) {
      delete metadata.deletionTimestamp;
      delete metadata.deletionGracePeriodSeconds;
    }
    if ('spec' in object && (!seeding || metadata.generation === undefined)) metadata.generation = 1;
    if (ref.resource === 'namespaces' && ref.group === '') defaultNamespace(object);
    if (options.dryRun === true) return object;
    return this.store.commit(ref, 'ADDED', object);
  }

  /**
   * @internal Replace an object with `next` (built from `existing`), after
   * the resourceVersion check; deletes a deleting object left without
   * finalizers. Returns the stored (or last) state.
   */
  writeUpdate(ref: ResourceRef, existing: KubeObject, next: KubeObject, options: WriteOptions): KubeObject {
    const name = existing.metadata.name ?? '';
    const wantedVersion = next.metadata.resourceVersion;
    if (wantedVersion !== undefined && wantedVersion !== '' && wantedVersion !== existing.metadata.resourceVersion) throw conflict(ref, name);
    const wantedUid = next.metadata.uid;
    if (wantedUid !== undefined && wantedUid !== '' && wantedUid !== existing.metadata.uid) {
      throw conflict(ref, name, `Precondition failed: UID in precondition: ${wantedUid}, UID in object meta: ${existing.metadata.uid ?? ''}`);
    }
    next.metadata.resourceVersion = existing.metadata.resourceVersion;
    if (existing.metadata.deletionTimestamp !== undefined) {
      const before = new Set(existing.metadata.finalizers ?? []);
      const added = (next.metadata.finalizers ?? []).filter((f) => !before.has(f));
      if (added.length > 0) {
        throw new StatusError({
          code: 422,
          reason: 'Invalid',
          message: `${ref.kind} "${name}" is invalid: metadata.finalizers: Forbidden: no new finalizers can be added if the object is being deleted, found new finalizers ${JSON.stringify(added)}`,
        });
      }
    }
    if (jsonEqual(existing, next)) return existing;
    if (options.dryRun === true) return next;
    // As upstream's store: an update that leaves a deleting object nothing to wait for deletes it (one DELETED event).
    if (shouldDeleteDuringUpdate(ref, next)) return this.store.commit(ref, 'DELETED', next);
    return this.store.commit(ref, 'MODIFIED', next, existing);
  }

  /** @internal An update of the main resource: the status of an object with a spec stays; the generation follows the spec. */
  updateObject(ref: ResourceRef, input: KubeObject, options: WriteOptions): KubeObject {
    const name = input.metadata.name ?? '';
    if (name === '') throw badRequest('name is required for an update');
    const namespace = ref.namespaced ? namespaceFor(options.namespace, input.metadata.namespace) : undefined;
    const existing = this.getObject(ref, name, namespace);
    const next = deepCopy(input);
    if (next.apiVersion === undefined && existing.apiVersion !== undefined) next.apiVersion = existing.apiVersion;
    if (next.kind === undefined && existing.kind !== undefined) next.kind = existing.kind;
    keepServerFields(next, existing);
    if ('spec' in existing || 'spec' in next) {
      if (existing.status === undefined) delete next.status;
      else next.status = deepCopy(existing.status);
      if (!jsonEqual(existing.spec, next.spec)) next.metadata.generation = (existing.metadata.generation ?? 0) + 1;
    }
    return this.writeUpdate(ref, existing, next, options);
  }

  /** @internal An update of /status: only the status changes. */
  updateStatus(ref: ResourceRef, input: KubeObject, options: WriteOptions): KubeObject {
    const name = input.metadata.name ?? '';
    const namespace = ref.namespaced ? namespaceFor(options.namespace, input.metadata.namespace) : undefined;
    const existing = this.getObject(ref, name, namespace);
    const next = deepCopy(existing);
    if (input.status === undefined) delete next.status;
    else next.status = deepCopy(input.status);
    for (const key of STATUS_WRITES_METADATA[`${ref.group}/${ref.resource}`] ?? []) {
      if (input.metadata[key] === undefined) delete next.metadata[key];
      else next.metadata[key] = deepCopy(input.metadata[key]);
    }
    next.metadata.resourceVersion = input.metadata.resourceVersion;
    next.metadata.uid = input.metadata.uid ?? existing.metadata.uid;
    return this.writeUpdate(ref, existing, next, options);
  }

  /** @internal */
  patchObject(ref: ResourceRef, name: string, type: PatchType, body: unknown, options: PatchOptions): KubeObject {
    const patch = typeof body === 'string' ? parseJson(body) : body;
    const namespace = ref.namespaced ? options.namespace : undefined;
    const existing = this.store.get(ref, keyOf(ref, name, namespace));
    if (existing === undefined) {
      if (type === 'apply' && options.subresource === undefined && isPlainObject(patch)) {
        const object = deepCopy(patch) as KubeObject;
        object.metadata = { ...(isPlainObject(object.metadata) ? object.metadata : {}), name, ...(namespace !== undefined ? { namespace } : {}) };
        return this.createObject(ref, object, options);
      }
      throw notFound(ref, name);
    }
    const subresource = options.subresource;
    const base: KubeObject = subresource === 'scale' ? scaleOf(ref, existing) : existing;
    const patched = applyPatch(type, base, patch);
    if (subresource === 'status') return this.updateStatus(ref, patched, options);
    if (subresource === 'scale') return this.updateScale(ref, existing, patched, options);
    if (subresource !== undefined) throw badRequest(`the fake client cannot patch the ${subresource} subresource`);
    return this.updateObject(ref, patched, options);
  }

  /** @internal Returns the object when it was only marked for deletion, undefined once gone. */
  deleteObject(ref: ResourceRef, name: string, options: DeleteOptions): KubeObject | undefined {
    const existing = this.getObject(ref, name, ref.namespaced ? options.namespace : undefined);
    const { uid, resourceVersion } = options.preconditions ?? {};
    if (uid !== undefined && uid !== existing.metadata.uid) {
      throw conflict(ref, name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${existing.metadata.uid ?? ''}`);
    }
    if (resourceVersion !== undefined && resourceVersion !== existing.metadata.resourceVersion) {
      throw conflict(ref, name, `Precondition failed: ResourceVersion in precondition: ${resourceVersion}, ResourceVersion in object meta: ${existing.metadata.resourceVersion ?? ''}`);
    }
    const next = deepCopy(existing);
    applyPropagationFinalizers(next, options.propagationPolicy);
    const grace = gracePeriodOf(ref, existing, options.gracePeriodSeconds);
    const hasFinalizers = (next.metadata.finalizers ?? []).length > 0 || namespaceFinalizers(ref, next).length > 0;
    if (options.dryRun === true) return hasFinalizers || grace > 0 ? next : undefined;
    if (existing.metadata.deletionTimestamp !== undefined) {
      // Already being deleted: a zero grace period ends a graceful deletion; otherwise only the finalizers may change.
      if (grace === 0) next.metadata.deletionGracePeriodSeconds = 0;
      if (!hasFinalizers && grace === 0) return void this.store.commit(ref, 'DELETED', next);
      return jsonEqual(existing, next) ? existing : this.store.commit(ref, 'MODIFIED', next, existing);
    }
    if (!hasFinalizers && grace === 0) return void this.store.commit(ref, 'DELETED', next);
    next.metadata.deletionTimestamp = formatTime(new Date(this.now().getTime() + grace * 1000));
    next.metadata.deletionGracePeriodSeconds = grace;
    if (next.metadata.generation !== undefined) next.metadata.generation++;
    if (ref.resource === 'namespaces' && ref.group === '') setNamespacePhase(next, 'Terminating');
    return this.store.commit(ref, 'MODIFIED', next, existing);
  }

  /** @internal */
  updateScale(ref: ResourceRef, existing: KubeObject, scale: KubeObject, options: WriteOptions): KubeObject {
    const replicas = (scale.spec as { replicas?: unknown } | undefined)?.replicas;
    if (typeof replicas !== 'number' || !Number.isInteger(replicas) || replicas < 0) throw badRequest('spec.replicas of a Scale must be a non-negative integer');
    const next = deepCopy(existing);
    next.metadata.resourceVersion = scale.metadata.resourceVersion;
    const spec = isPlainObject(next.spec) ? next.spec : (next.spec = {});
    spec.replicas = replicas;
    if (!jsonEqual(existing.spec, next.spec)) next.metadata.generation = (existing.metadata.generation ?? 0) + 1;
    return scaleOf(ref, this.writeUpdate(ref, existing, next, options));
  }

  /** @internal pods/binding: assign the node. */
  bind(ref: ResourceRef, name: string, body: unknown, options: WriteOptions): KubeObject {
    const pod = this.getObject(ref, name, options.namespace);
    const target = isPlainObject(body) && isPlainObject(body.target) ? body.target : undefined;
    const nodeName = typeof target?.name === 'string' ? target.name : '';
    if (nodeName === '') throw badRequest('a binding needs target.name');
    if (pod.metadata.deletionTimestamp !== undefined) throw conflict(ref, name, `pod ${name} is being deleted, cannot be assigned to a host`);
    const spec = (isPlainObject(pod.spec) ? pod.spec : {}) as Record<string, unknown>;
    if (typeof spec.nodeName === 'string' && spec.nodeName !== '') throw conflict(ref, name, `pod ${name} is already assigned to node "${spec.nodeName}"`);
    const next = deepCopy(pod);
    const nextSpec = isPlainObject(next.spec) ? next.spec : (next.spec = {});
    nextSpec.nodeName = nodeName;
    const status = isPlainObject(next.status) ? next.status : (next.status = {});
    const conditions = (Array.isArray(status.conditions) ? status.conditions : []).filter((c: unknown) => !(isPlainObject(c) && c.type === 'PodScheduled'));
    conditions.push({ type: 'PodScheduled', status: 'True', lastProbeTime: null, lastTransitionTime: formatTime(this.now()) });
    status.conditions = conditions;
    this.writeUpdate(ref, pod, next, options);
    return successStatus(201);
  }

  /** @internal namespaces/finalize: set spec.finalizers. */
  finalizeNamespace(ref: ResourceRef, name: string, body: unknown, options: WriteOptions): KubeObject {
    const existing = this.getObject(ref, name, undefined);
    const wanted = isPlainObject(body) && isPlainObject(body.spec) && Array.isArray(body.spec.finalizers) ? body.spec.finalizers : [];
    const next = deepCopy(existing);
    next.metadata.resourceVersion = isPlainObject(body) && isPlainObject(body.metadata) && typeof body.metadata.resourceVersion === 'string' ? body.metadata.resourceVersion : undefined;
    next.spec = { ...(isPlainObject(next.spec) ? next.spec : {}), finalizers: [...wanted] };
    return this.writeUpdate(ref, existing, next, options);
  }

  private checkNamespaceAcceptsContent(ref: ResourceRef, name: string, namespace: string): void {
    const ns = this.store.get({ group: '', version: 'v1', resource: 'namespaces', kind: 'Namespace', namespaced: false }, namespace);
    if (ns?.metadata.deletionTimestamp !== undefined) {
      throw forbidden(ref, name, `unable to create new content in namespace ${namespace} because it is being terminated`);
    }
  }
}

class FakeResourceClient<T extends KubeObject> implements ResourceClient<T> {
  constructor(
    private readonly fake: FakeClient,
    readonly ref: ResourceRef,
  ) {}

  async get(name: string, options: { readonly namespace?: string } = {}): Promise<T> {
    this.fake.checkInjected('get', this.ref);
    return deepCopy(this.fake.getObject(this.ref, name, options.namespace)) as T;
  }

  async list(options: ListOptions = {}): Promise<KubeList<T>> {
    this.fake.checkInjected('list', this.ref);
    return this.fake.listObjects(this.ref, options) as KubeList<T>;
  }

  watch(options: WatchOptions = {}): WatchStream<T> {
    try {
      this.fake.checkInjected('watch', this.ref);
    } catch (e: unknown) {
      return failedWatch<T>(e);
    }
    return this.fake.watchObjects(this.ref, options) as WatchStream<T>;
  }

  async create(object: T, options: WriteOptions = {}): Promise<T> {
    return (await this.write({ verb: 'create', object, options }, () => this.fake.createObject(this.ref, object, options))) as T;
  }

  async update(object: T, options: WriteOptions = {}): Promise<T> {
    return (await this.write({ verb: 'update', object, options }, () => this.fake.updateObject(this.ref, object, options))) as T;
  }

  async updateStatus(object: T, options: WriteOptions = {}): Promise<T> {
    return (await this.write({ verb: 'update', object, options, subresource: 'status' }, () => this.fake.updateStatus(this.ref, object, options))) as T;
  }

  async patch(name: string, type: PatchType, patch: unknown, options: PatchOptions = {}): Promise<T> {
    return (await this.write({ verb: 'patch', name, body: patch, patchType: type, options, ...sub(options.subresource) }, () =>
      this.fake.patchObject(this.ref, name, type, patch, options),
    )) as T;
  }

  async delete(name: string, options: DeleteOptions = {}): Promise<T | undefined> {
    return (await this.write({ verb: 'delete', name, body: options, options }, () => this.fake.deleteObject(this.ref, name, options))) as T | undefined;
  }

  async getSubresource<R = KubeObject>(name: string, subresource: string, options: { readonly namespace?: string } = {}): Promise<R> {
    this.fake.checkInjected('get', this.ref, subresource);
    const object = this.fake.getObject(this.ref, name, options.namespace);
    if (subresource === 'scale') return scaleOf(this.ref, object) as R;
    if (subresource === 'status') return deepCopy(object) as R;
    throw badRequest(`the fake client cannot get the ${subresource} subresource of ${this.ref.resource}`);
  }

  async createSubresource<R = KubeObject>(name: string, subresource: string, body: unknown, options: WriteOptions = {}): Promise<R> {
    return (await this.write({ verb: 'create', name, body, options, subresource }, () => {
      if (this.ref.resource === 'pods' && subresource === 'binding') return this.fake.bind(this.ref, name, body, options);
      if (this.ref.resource === 'pods' && subresource === 'eviction') {
        const deleteOptions = isPlainObject(body) && isPlainObject(body.deleteOptions) ? (body.deleteOptions as DeleteOptions) : {};
        this.fake.deleteObject(this.ref, name, { ...deleteOptions, ...(options.namespace !== undefined ? { namespace: options.namespace } : {}) });
        return successStatus(201);
      }
      if (this.ref.resource === 'serviceaccounts' && subresource === 'token') return tokenRequest(this.fake.getObject(this.ref, name, options.namespace), body);
      throw badRequest(`the fake client cannot create the ${subresource} subresource of ${this.ref.resource}`);
    })) as R;
  }

  async updateSubresource<R = KubeObject>(name: string, subresource: string, body: unknown, options: WriteOptions = {}): Promise<R> {
    return (await this.write({ verb: 'update', name, body, options, subresource }, () => {
      if (!isPlainObject(body) || !isPlainObject(body.metadata)) throw badRequest(`the body of a ${subresource} update must be an object with metadata`);
      const object = body as KubeObject;
      if (subresource === 'status') return this.fake.updateStatus(this.ref, { ...object, metadata: { ...object.metadata, name } }, options);
      if (subresource === 'scale') {
        const existing = this.fake.getObject(this.ref, name, options.namespace ?? object.metadata.namespace);
        return this.fake.updateScale(this.ref, existing, object, options);
      }
      if (this.ref.resource === 'namespaces' && subresource === 'finalize') return this.fake.finalizeNamespace(this.ref, name, body, options);
      throw badRequest(`the fake client cannot update the ${subresource} subresource of ${this.ref.resource}`);
    })) as R;
  }

  /** Log the write, apply injected errors, run it, and hand back a copy of the result. */
  private async write(
    request: { verb: FakeWriteVerb; object?: T; name?: string; body?: unknown; patchType?: PatchType; options: WriteOptions | DeleteOptions; subresource?: string },
    run: () => KubeObject | undefined,
  ): Promise<KubeObject | undefined> {
    const { verb, object, subresource, patchType } = request;
    const namespace = this.ref.namespaced ? (request.options.namespace ?? object?.metadata.namespace ?? '') : '';
    const name = request.name ?? object?.metadata.name ?? object?.metadata.generateName ?? '';
    const base = {
      verb,
      resource: this.ref.resource,
      namespace,
      name,
      ...(subresource !== undefined ? { subresource } : {}),
      ...(patchType !== undefined ? { patchType } : {}),
      body: deepCopy(object ?? request.body),
    };
    try {
      this.fake.checkInjected(verb, this.ref, subresource);
      const result = run();
      this.fake.record(base);
      return result === undefined ? undefined : deepCopy(result);
    } catch (e: unknown) {
      this.fake.record({ ...base, error: e });
      throw e;
    }
  }
}

function sub(subresource: string | undefined): { subresource?: string } {
  return subresource !== undefined ? { subresource } : {};
}

function matchesResource(rule: string, resource: string, subresource: string | undefined): boolean {
  if (rule === '*' || rule === resource) return true;
  return subresource !== undefined && rule === `${resource}/${subresource}`;
}

function apiVersionOf(ref: ResourceRef): string {
  return ref.group === '' ? ref.version : `${ref.group}/${ref.version}`;
}

function keyOf(ref: ResourceRef, name: string, namespace: string | undefined): string {
  return ref.namespaced && namespace !== undefined && namespace !== '' ? `${namespace}/${name}` : name;
}

function namespaceFor(fromOptions: string | undefined, fromObject: string | undefined): string {
  const a = fromOptions ?? '';
  const b = fromObject ?? '';
  if (a !== '' && b !== '' && a !== b) throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
  const namespace = a !== '' ? a : b;
  if (namespace === '') throw badRequest('a namespaced object needs a namespace (metadata.namespace or the namespace option)');
  return namespace;
}

function randomSuffix(): string {
  let out = '';
  for (let i = 0; i < 5; i++) out += SUFFIX_ALPHABET[randomInt(SUFFIX_ALPHABET.length)];
  return out;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (e: unknown) {
    throw new StatusError({ code: 400, reason: 'BadRequest', message: `the patch is not valid JSON: ${e instanceof Error ? e.message : String(e)}` }, { cause: e });
  }
}

/** The server-set fields an update cannot change. */
function keepServerFields(next: KubeObject, existing: KubeObject): void {
  const m = next.metadata;
  const e = existing.metadata;
  m.name = e.name;
  if (e.namespace !== undefined) m.namespace = e.namespace;
  else delete m.namespace;
  m.uid = m.uid === undefined || m.uid === '' ? e.uid : m.uid;
  m.creationTimestamp = e.creationTimestamp;
  setOrDelete(m, 'deletionTimestamp', e.deletionTimestamp);
  setOrDelete(m, 'deletionGracePeriodSeconds', e.deletionGracePeriodSeconds);
  setOrDelete(m, 'generation', e.generation);
}

function setOrDelete<K extends 'deletionTimestamp' | 'deletionGracePeriodSeconds' | 'generation'>(m: KubeObject['metadata'], key: K, value: KubeObject['metadata'][K]): void {
  if (value === undefined) delete m[key];
  else m[key] = value;
}

function applyPatch(type: PatchType, base: KubeObject, patch: unknown): KubeObject {
  if (type === 'json') {
    if (!Array.isArray(patch)) throw badRequest('a JSON patch must be a list of operations');
    try {
      return jsonpatch.applyPatch(deepCopy(base), patch as jsonpatch.Operation[], true, true).newDocument;
    } catch (e: unknown) {
      throw new StatusError({ code: 422, reason: 'Invalid', message: e instanceof Error ? e.message : String(e) }, { cause: e });
    }
  }
  if (!isPlainObject(patch)) throw badRequest(`a ${type} patch must be a JSON object`);
  if (type === 'strategic') {
    try {
      const result = strategicMergePatch(base, patch, FAKE_STRATEGIC_PATCH_SCHEMA);
      if (!isPlainObject(result.metadata)) throw badRequest('the patch removed metadata');
      return result as KubeObject;
    } catch (e: unknown) {
      if (!(e instanceof StrategicMergePatchError)) throw e;
      throw new StatusError({ code: e.kind === 'BadRequest' ? 400 : 422, reason: e.kind === 'BadRequest' ? 'BadRequest' : 'Invalid', message: e.message }, { cause: e });
    }
  }
  // merge, and (in this fake only) apply as a merge patch.
  const result = applyMergePatch(base, patch);
  if (!isPlainObject(result) || !isPlainObject(result.metadata)) throw badRequest('the patch removed metadata');
  return result as KubeObject;
}

function applyPropagationFinalizers(object: KubeObject, policy: DeleteOptions['propagationPolicy']): void {
  if (policy === undefined) return;
  const finalizers = (object.metadata.finalizers ?? []).filter((f) => f !== FOREGROUND_FINALIZER && f !== ORPHAN_FINALIZER);
  if (policy === 'Foreground') finalizers.push(FOREGROUND_FINALIZER);
  if (policy === 'Orphan') finalizers.push(ORPHAN_FINALIZER);
  if (finalizers.length > 0) object.metadata.finalizers = finalizers;
  else delete object.metadata.finalizers;
}

function gracePeriodOf(ref: ResourceRef, object: KubeObject, requested: number | undefined): number {
  if (ref.resource !== 'pods' || ref.group !== '') return 0;
  const spec = (isPlainObject(object.spec) ? object.spec : {}) as { nodeName?: unknown; terminationGracePeriodSeconds?: unknown };
  const phase = isPlainObject(object.status) ? object.status.phase : undefined;
  if (typeof spec.nodeName !== 'string' || spec.nodeName === '' || phase === 'Succeeded' || phase === 'Failed') return 0;
  if (requested !== undefined) return Math.max(0, requested);
  return typeof spec.terminationGracePeriodSeconds === 'number' ? spec.terminationGracePeriodSeconds : 30;
}

function namespaceFinalizers(ref: ResourceRef, object: KubeObject): unknown[] {
  if (ref.resource !== 'namespaces' || ref.group !== '') return [];
  const finalizers = isPlainObject(object.spec) ? object.spec.finalizers : undefined;
  return Array.isArray(finalizers) ? finalizers : [];
}

function shouldDeleteDuringUpdate(ref: ResourceRef, object: KubeObject): boolean {
  const m = object.metadata;
  return m.deletionTimestamp !== undefined && (m.deletionGracePeriodSeconds ?? 0) === 0 && (m.finalizers ?? []).length === 0 && namespaceFinalizers(ref, object).length === 0;
}

function defaultNamespace(object: KubeObject): void {
  const spec = isPlainObject(object.spec) ? object.spec : (object.spec = {});
  if (!Array.isArray(spec.finalizers)) spec.finalizers = [NAMESPACE_FINALIZER];
  setNamespacePhase(object, 'Active');
}

function setNamespacePhase(object: KubeObject, phase: string): void {
  object.status = { ...(isPlainObject(object.status) ? object.status : {}), phase };
}

/** The autoscaling/v1 Scale of an object with spec.replicas. */
function scaleOf(ref: ResourceRef, object: KubeObject): KubeObject {
  const spec = (isPlainObject(object.spec) ? object.spec : {}) as { replicas?: unknown; selector?: unknown };
  const status = (isPlainObject(object.status) ? object.status : {}) as { replicas?: unknown };
  const m = object.metadata;
  let selector = '';
  if (isPlainObject(spec.selector)) selector = labelSelectorFromObject(spec.selector as LabelSelectorObject).toString();
  return {
    apiVersion: 'autoscaling/v1',
    kind: 'Scale',
    metadata: {
      name: m.name,
      ...(ref.namespaced ? { namespace: m.namespace } : {}),
      uid: m.uid,
      resourceVersion: m.resourceVersion,
      creationTimestamp: m.creationTimestamp,
    },
    spec: { replicas: typeof spec.replicas === 'number' ? spec.replicas : 1 },
    status: { replicas: typeof status.replicas === 'number' ? status.replicas : 0, ...(selector !== '' ? { selector } : {}) },
  };
}

function successStatus(code: number): KubeObject {
  return { apiVersion: 'v1', kind: 'Status', metadata: {}, status: 'Success', code };
}

function tokenRequest(account: KubeObject, body: unknown): KubeObject {
  const spec = isPlainObject(body) && isPlainObject(body.spec) ? body.spec : {};
  const seconds = typeof spec.expirationSeconds === 'number' ? spec.expirationSeconds : 3600;
  return {
    apiVersion: 'authentication.k8s.io/v1',
    kind: 'TokenRequest',
    metadata: { name: account.metadata.name, namespace: account.metadata.namespace },
    spec: { ...spec, expirationSeconds: seconds },
    status: { token: `fake-token-${account.metadata.namespace ?? ''}-${account.metadata.name ?? ''}`, expirationTimestamp: formatTime(new Date(Date.now() + seconds * 1000)) },
  };
}

/** A watch that fails at once with error. */
function failedWatch<T>(error: unknown): WatchStream<T> {
  return {
    cancel: () => undefined,
    async *[Symbol.asyncIterator]() {
      throw error;
    },
  };
}

export function newFakeClient(options: FakeClientOptions = {}): FakeClient {
  return new FakeClient(options);
}
