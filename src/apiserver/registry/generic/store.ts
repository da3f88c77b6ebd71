/**
 * The one generic store: create, get, list, update (PUT and PATCH), delete and
 * watch for any resource, given its strategy. Object metadata is handled here
 * as upstream does (names and generateName, uid, resourceVersion, generation,
 * creationTimestamp, finalizers, deletionTimestamp, graceful deletion), and
 * StorageErrors become API Status errors here, once.
 */
import { randomUUID } from 'node:crypto';
import type { FieldError } from '../../../machinery/field-errors.js';
import { formatFieldError, invalid as invalidField, RawValue } from '../../../machinery/field-errors.js';
import { validateObjectMeta, validateObjectMetaUpdate } from '../../../machinery/validation/object-meta.js';
import { deepCopy, formatTime, type KubeList, type KubeObject } from '../../../machinery/meta.js';
import {
  alreadyExists,
  isAlreadyExists,
  badRequest,
  conflict,
  expired,
  invalid,
  notFound,
  StatusError,
  timeout,
  type GroupResource,
} from '../../../machinery/status.js';
import type { VersionCodec } from '../../../api/conversion/conversion-registry.js';
import type { ResourceInfo } from '../../../api/scheme.js';
import { isStorageError } from '../../../storage/errors.js';
import { decodeContinueToken, encodeContinueToken } from './continue-token.js';
import type { ObjectEvent, ObjectWatch, Predicate } from './object-storage.js';
import type { ObjectStore } from './object-store.js';
import { servedStrategy, storedPredicate } from './store-codec.js';
import type { Strategy } from './strategy.js';
import type { UserInfo } from '../../server/context.js';

export interface ListParams {
  readonly predicate?: Predicate;
  readonly limit?: number;
  readonly continue?: string;
  readonly resourceVersion?: string;
  readonly resourceVersionMatch?: string;
}

export interface WriteOptions {
  readonly dryRun?: boolean;
  /** Who asks (unset for the API server's own writes): the RBAC registries check escalation against it. */
  readonly user?: UserInfo;
  /** Runs after prepare, defaults and validation, before storage (validating admission). */
  readonly validateAdmission?: (object: KubeObject, old: KubeObject | undefined) => void | Promise<void>;
  /**
   * The caller changes neither the object it passed to create nor the one it
   * gets back: the watch cache may hold that object rather than decode the
   * stored bytes again (CreateOptions.unchangedAfterWrite).
   */
  readonly unchangedAfterWrite?: boolean;
  /** Receives the strategy's warnings once the object has validated (upstream's WarningsOnCreate/WarningsOnUpdate), for the Warning header. */
  readonly warn?: (text: string) => void;
}

export interface DeleteParams extends WriteOptions {
  readonly gracePeriodSeconds?: number;
  readonly preconditions?: { uid?: string; resourceVersion?: string };
  readonly propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
  /** Upstream's deprecated orphanDependents. */
  readonly orphanDependents?: boolean;
  /** Validating admission of the deletion, with the object as stored (before it is marked or removed). */
  readonly admitDeletion?: (current: KubeObject) => Promise<void>;
}

export interface DeleteResult {
  readonly object: KubeObject;
  /** False when the object was only marked (finalizers, graceful deletion) and still exists. */
  readonly deleted: boolean;
}

/** How a resource deletes gracefully (pods): the grace period to wait, or 0 to delete at once. */
export type GracePeriodPolicy = (object: KubeObject, requested: number | undefined) => number;

export interface StoreConfig {
  readonly resource: ResourceInfo;
  readonly strategy: Strategy;
  readonly storage: ObjectStore;
  /** The key prefix of this resource, e.g. `/registry/pods` (upstream's layout). */
  readonly keyPrefix: string;
  readonly gracePeriod?: GracePeriodPolicy;
  /** Name rules of the kind: the messages of an invalid name. */
  readonly validateName: (name: string, prefix: boolean) => string[];
  /**
   * Upstream's NamespaceLifecycle admission for namespaced kinds: fails (404 or
   * 403) when the namespace of a new object does not exist or is being deleted.
   */
  readonly namespaceCheck?: (namespace: string, object: KubeObject) => Promise<void>;
  /**
   * For a kind served in several versions: converts between the served
   * version (requests, responses), the internal form (strategy, selectors,
   * tables) and the storage version. Without it the three are the same.
   */
  readonly codec?: VersionCodec;
  /**
   * Upstream's ReturnDeletedObject (pods, services, namespaces, service
   * accounts): a DELETE that removes the object answers with it; for every
   * other kind it answers with a Status of reason Success.
   */
  readonly returnDeletedObject?: boolean;
}

const GENERATE_CHARS = 'bcdfghjklmnpqrstvwxz2456789';
/** Upstream's maxNameGenerationCreateAttempts. */
const MAX_NAME_GENERATION_ATTEMPTS = 8;

export class GenericStore {
  readonly resource: ResourceInfo;
  readonly strategy: Strategy;
  protected readonly storage: ObjectStore;
  protected readonly keyPrefix: string;
  protected readonly groupResource: GroupResource;
  protected readonly config: StoreConfig;
  private readonly codec: VersionCodec | undefined;

  constructor(config: StoreConfig) {
    this.config = config;
    this.resource = config.resource;
    this.codec = config.codec;
    this.strategy = config.codec === undefined ? config.strategy : servedStrategy(config.strategy, config.codec);
    this.storage = config.storage;
    this.keyPrefix = config.keyPrefix.endsWith('/') ? config.keyPrefix : `${config.keyPrefix}/`;
    this.groupResource = { group: config.resource.group, resource: config.resource.resource };
  }

  /** The same store seen through another strategy (a subresource such as status); subclasses keep their class. */
  /** Whether a DELETE that removes the object answers with the object (else a Success Status). */
  get returnsDeletedObject(): boolean {
    return this.config.returnDeletedObject === true;
  }

  withStrategy(strategy: Strategy): GenericStore {
    const Self = this.constructor as new (config: StoreConfig) => GenericStore;
    return new Self({ ...this.config, strategy });
  }

  key(namespace: string | undefined, name: string): string {
    return this.resource.namespaced ? `${this.keyPrefix}${namespace ?? ''}/${name}` : `${this.keyPrefix}${name}`;
  }

  /** The prefix holding every object of a namespace (or of all namespaces). */
  prefix(namespace: string | undefined): string {
    return this.resource.namespaced && namespace !== undefined && namespace !== '' ? `${this.keyPrefix}${namespace}/` : this.keyPrefix;
  }

  async get(namespace: string | undefined, name: string): Promise<KubeObject> {
    const object = await this.translate(name, () => this.storage.get(this.key(namespace, name)));
    if (object === undefined) throw notFound(this.groupResource, name);
    return this.withTypeMeta(object);
  }

  /** The storage's current revision. */
  currentRevision(): Promise<number> {
    return this.translate('', () => this.storage.currentRevision());
  }

  async list(namespace: string | undefined, params: ListParams = {}): Promise<KubeList> {
    const prefix = this.prefix(namespace);
    const { revision, afterKey, notOlderThan } = await this.listStart(prefix, params);
    let result;
    try {
      result = await this.storage.list(prefix, {
        ...(revision !== undefined ? { revision } : {}),
        ...(notOlderThan !== undefined ? { notOlderThan } : {}),
        ...(params.limit !== undefined ? { limit: params.limit } : {}),
        ...(afterKey !== undefined ? { continueKey: afterKey } : {}),
        ...(params.predicate !== undefined ? { predicate: this.storedPredicate(params.predicate)! } : {}),
      });
    } catch (e: unknown) {
      if (isStorageError(e, 'Compacted') && params.continue !== undefined && afterKey !== undefined) {
        const error = expired(
          'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
        );
        error.status.metadata.continue = encodeContinueToken(prefix, afterKey, -1);
        throw error;
      }
      if (isStorageError(e, 'FutureRevision') && revision !== undefined) throw tooLargeResourceVersion(revision, e.currentRevision ?? 0);
      // Upstream's interpretListError: a list at a compacted revision.
      if (isStorageError(e, 'Compacted')) throw expired('The resourceVersion for the provided list is too old.');
      throw this.translateError(e, '');
    }
    const items = result.items.map((o) => this.withTypeMeta(o));
    return {
      apiVersion: this.apiVersion(),
      kind: this.resource.listKind,
      metadata: {
        resourceVersion: String(result.revision),
        ...(result.continueKey !== undefined ? { continue: encodeContinueToken(prefix, result.continueKey, result.revision) } : {}),
        ...(result.remainingItemCount !== undefined ? { remainingItemCount: result.remainingItemCount } : {}),
      },
      items,
    };
  }

  private async listStart(prefix: string, params: ListParams): Promise<{ revision?: number; afterKey?: string; notOlderThan?: number }> {
    const rv = params.resourceVersion;
    const match = params.resourceVersionMatch;
    if (match !== undefined && match !== '' && (rv === undefined || rv === '')) {
      throw badRequest('resourceVersionMatch is forbidden unless resourceVersion is provided');
    }
    if (match !== undefined && match !== '' && match !== 'Exact' && match !== 'NotOlderThan') {
      throw badRequest(`resourceVersionMatch: Unsupported value: "${match}": supported values: "Exact", "NotOlderThan"`);
    }
    if (params.continue !== undefined && params.continue !== '') {
      // Upstream decodes the token before it looks at resourceVersion.
      const token = decodeContinueToken(prefix, params.continue);
      if (rv !== undefined && rv !== '' && rv !== '0') throw badRequest('specifying resource version is not allowed when using continue');
      return token.revision > 0 ? { revision: token.revision, afterKey: token.afterKey } : { afterKey: token.afterKey };
    }
    if (rv === undefined || rv === '' || rv === '0') {
      if (match === 'Exact') throw badRequest('resourceVersionMatch "Exact" is forbidden for resourceVersion "0"');
      return rv === '0' ? { notOlderThan: 0 } : {};
    }
    const revision = parseResourceVersion(rv);
    const exact = match === 'Exact' || ((match === undefined || match === '') && params.limit !== undefined && params.limit > 0);
    if (exact) return { revision };
    // NotOlderThan: the current state is never older than a revision already issued.
    const current = await this.translate('', () => this.storage.currentRevision());
    if (revision > current) throw tooLargeResourceVersion(revision, current);
    return { notOlderThan: revision };
  }

  /** The strategy's warnings about a validated object, each once (an update's mutate function may run again after a conflict). */
  private warn(options: WriteOptions, object: KubeObject, old: KubeObject | undefined): void {
    if (options.warn === undefined || this.strategy.warnings === undefined) return;
    for (const w of this.strategy.warnings(object, old)) options.warn(w);
  }

  async create(namespace: string | undefined, body: KubeObject, options: WriteOptions = {}): Promise<KubeObject> {
    const object = this.toInternal(body);
    const meta = object.metadata;
    if (this.resource.namespaced) meta.namespace = namespace;
    else delete meta.namespace;
    const generatedFrom = (meta.name === undefined || meta.name === '') && meta.generateName !== undefined && meta.generateName !== '' ? meta.generateName : undefined;
    if (generatedFrom !== undefined) meta.name = generateName(generatedFrom);
    if (this.resource.namespaced && this.config.namespaceCheck !== undefined) await this.config.namespaceCheck(namespace ?? '', object);
    this.strategy.prepareForCreate(object);
    this.fillCreateMeta(object);
    this.strategy.defaults(object);
    this.validateOrThrow(object, [...this.validateMeta(object), ...this.strategy.validate(object)]);
    this.warn(options, object, undefined);
    await options.validateAdmission?.(object, undefined);
    // Upstream's RetryGenerateName (GA in 1.32): a generated name that is taken is generated again, up to
    // 8 attempts in all, so that a client never sees the collision of a name it did not choose.
    for (let attempt = 1; ; attempt++) {
      const name = meta.name!;
      try {
        if (options.dryRun === true) {
          const existing = await this.translate(name, () => this.storage.get(this.key(namespace, name)));
          if (existing !== undefined) throw alreadyExists(this.groupResource, name);
          return this.internalToServed(object);
        }
        const stored = this.toStorage(object);
        const shared = options.unchangedAfterWrite === true ? { unchangedAfterWrite: true } : undefined;
        const created = await this.translate(name, () => this.storage.create(this.key(namespace, name), stored, shared));
        return this.withTypeMeta(created);
      } catch (e: unknown) {
        if (generatedFrom === undefined || attempt >= MAX_NAME_GENERATION_ATTEMPTS || !isAlreadyExists(e)) throw e;
        meta.name = generateName(generatedFrom);
        this.validateOrThrow(object, this.validateMeta(object));
        await options.validateAdmission?.(object, undefined);
      }
    }
  }

  /**
   * Update (PUT, PATCH, and the writes of subresources): `compute` gives the new
   * object from the current one (undefined when it does not exist); it runs
   * again with the newer object when a concurrent write wins.
   */
  async update(
    namespace: string | undefined,
    name: string,
    compute: (current: KubeObject | undefined) => KubeObject | Promise<KubeObject>,
    options: WriteOptions & { allowCreate?: boolean } = {},
  ): Promise<{ object: KubeObject; created: boolean }> {
    const key = this.key(namespace, name);
    const allowCreate = options.allowCreate ?? this.strategy.allowCreateOnUpdate;
    let deleteAfter: KubeObject | undefined;
    let dryRunResult: KubeObject | undefined;
    const tryUpdate = async (stored: KubeObject | undefined): Promise<KubeObject> => {
      const served = await compute(stored === undefined ? undefined : this.withTypeMeta(deepCopy(stored)));
      this.checkIdentity(served, namespace, name);
      const next = this.toInternal(served);
      const current = stored === undefined ? undefined : this.fromStorage(stored);
      if (current === undefined) {
        if (!allowCreate) throw notFound(this.groupResource, name);
        if (this.resource.namespaced && this.config.namespaceCheck !== undefined) await this.config.namespaceCheck(namespace ?? '', next);
        this.strategy.prepareForCreate(next);
        this.fillCreateMeta(next);
        this.strategy.defaults(next);
        this.validateOrThrow(next, [...this.validateMeta(next), ...this.strategy.validate(next)]);
        this.warn(options, next, undefined);
        await options.validateAdmission?.(next, undefined);
        if (options.dryRun === true) throw new DryRunDone(next);
        return this.toStorage(next);
      }
      const requestedVersion = next.metadata.resourceVersion;
      if (requestedVersion === undefined || requestedVersion === '') {
        if (!this.strategy.allowUnconditionalUpdate) {
          // Upstream names the resource as the kind here (leases.coordination.k8s.io) and prints the uint64 0 as Go's %#v.
          throw invalid({ group: this.resource.group, kind: this.resource.resource }, name, [
            invalidField('metadata.resourceVersion', new RawValue('0x0'), 'must be specified for an update'),
          ]);
        }
      } else if (requestedVersion !== current.metadata.resourceVersion) {
        throw conflict(this.groupResource, name);
      }
      this.strategy.prepareForUpdate(next, current);
      this.fillUpdateMeta(next, current);
      this.strategy.defaults(next);
      this.validateOrThrow(next, [...this.validateMeta(next), ...this.validateMetaUpdate(next, current), ...this.strategy.validateUpdate(next, current)]);
      this.warn(options, next, current);
      await options.validateAdmission?.(next, current);
      if (this.shouldDeleteDuringUpdate(next)) deleteAfter = next;
      if (options.dryRun === true) throw new DryRunDone(next);
      delete next.metadata.resourceVersion;
      return this.toStorage(next);
    };
    try {
      const result = await this.translate(name, () => this.storage.guaranteedUpdate(key, tryUpdate, { allowCreate }));
      if (deleteAfter !== undefined && !result.created) {
        // The last finalizer is gone from an object being deleted: finish the deletion.
        const deleted = await this.translate(name, () =>
          this.storage.delete(key, (current) => {
            if (!this.shouldDeleteDuringUpdate(current)) throw new StatusError({ code: 409, reason: 'Conflict', message: 'object changed during deletion' });
          }),
        ).catch((e: unknown) => {
          if (e instanceof StatusError && e.code === 404) return result.object;
          throw e;
        });
        return { object: this.withTypeMeta(deleted), created: false };
      }
      return { object: this.withTypeMeta(result.object), created: result.created };
    } catch (e: unknown) {
      if (e instanceof DryRunDone) {
        dryRunResult = e.object;
        return { object: this.internalToServed(dryRunResult), created: false };
      }
      throw e;
    }
  }

  async delete(namespace: string | undefined, name: string, params: DeleteParams = {}): Promise<DeleteResult> {
    const key = this.key(namespace, name);
    const current = await this.translate(name, () => this.storage.get(key));
    if (current === undefined) throw notFound(this.groupResource, name);
    this.checkPreconditions(current, name, params.preconditions);
    await params.admitDeletion?.(this.withTypeMeta(deepCopy(current)));
    const finalizers = deletionFinalizers(current, params);
    const grace = this.config.gracePeriod?.(current, params.gracePeriodSeconds) ?? 0;
    const needsMarking = finalizers.length > 0 || grace > 0;
    if (needsMarking) {
      // Mark the object; whoever holds it (finalizer owner, kubelet) finishes the deletion.
      // This writes storage directly, as upstream's graceful deletion does: an
      // update through the strategy would keep the old (absent) deletionTimestamp.
      const mark = (latest: KubeObject | undefined): KubeObject => {
        if (latest === undefined) throw notFound(this.groupResource, name);
        this.checkPreconditions(latest, name, params.preconditions);
        const meta = latest.metadata;
        const terminating = meta.deletionTimestamp !== undefined;
        if (!terminating || (grace > 0 && (meta.deletionGracePeriodSeconds ?? 0) > grace)) {
          meta.deletionTimestamp = formatTime(new Date(Date.now() + grace * 1000));
          meta.deletionGracePeriodSeconds = grace;
        }
        // Marking an object for deletion is a change its controller must see: upstream bumps a
        // set generation then (markAsDeleting, BeforeDelete), but not when a grace period shortens.
        if (!terminating && (meta.generation ?? 0) > 0) meta.generation = meta.generation! + 1;
        meta.finalizers = deletionFinalizers(latest, params);
        if (meta.finalizers.length === 0) delete meta.finalizers;
        return latest;
      };
      if (params.dryRun === true) {
        const object = mark(deepCopy(current));
        return { object: this.withTypeMeta(object), deleted: object.metadata.finalizers === undefined && grace === 0 };
      }
      const { object } = await this.translate(name, () => this.storage.guaranteedUpdate(key, mark, { allowCreate: false }));
      const done = object.metadata.finalizers === undefined && grace === 0;
      return { object: this.withTypeMeta(object), deleted: done };
    }
    if (params.dryRun === true) return { object: this.withTypeMeta(current), deleted: true };
    const deleted = await this.translate(name, () =>
      this.storage.delete(key, (latest) => this.checkPreconditions(latest, name, params.preconditions)),
    );
    return { object: this.withTypeMeta(deleted), deleted: true };
  }

  /**
   * True when an update leaves the object deleted: it is being deleted and
   * nothing holds it any more. A kind with more holders (namespaces' spec.finalizers) adds them.
   */
  protected shouldDeleteDuringUpdate(object: KubeObject): boolean {
    return shouldDeleteDuringUpdate(object);
  }

  /**
   * Watch from `resourceVersion`; "" or "0" starts with the current state as
   * ADDED events. `sendInitialEvents` (the watch-list feature) overrides that
   * as upstream's cacher does: true sends the state at least as new as
   * `resourceVersion` (a newer one than the store has is 504
   * ResourceVersionTooLarge), false with "" or "0" starts at the current
   * revision without the state.
   */
  async watch(
    namespace: string | undefined,
    params: { resourceVersion?: string; predicate?: Predicate; allowWatchBookmarks?: boolean; sendInitialEvents?: boolean },
  ): Promise<StoreWatch> {
    const prefix = this.prefix(namespace);
    const rv = params.resourceVersion;
    const fix = (o: KubeObject): KubeObject => this.withTypeMeta(o);
    const predicate = this.storedPredicate(params.predicate);
    // A bookmark carries only metadata.resourceVersion: typed, never converted.
    const bookmark = (o: KubeObject): KubeObject => ({ apiVersion: this.apiVersion(), kind: this.resource.kind, metadata: o.metadata });
    const options = { bookmarks: params.allowWatchBookmarks === true };
    const unset = rv === undefined || rv === '' || rv === '0';
    if (unset && params.sendInitialEvents === false) {
      const revision = await this.currentRevision();
      return newStoreWatch([], revision, this.storage.watch(prefix, revision, predicate, options), fix, bookmark);
    }
    if (unset || params.sendInitialEvents === true) {
      const notOlderThan = unset ? (rv === '0' ? 0 : undefined) : parseResourceVersion(rv);
      if (notOlderThan !== undefined && notOlderThan > 0) {
        const current = await this.currentRevision();
        if (notOlderThan > current) throw tooLargeResourceVersion(notOlderThan, current);
      }
      const listOptions = { ...(predicate !== undefined ? { predicate } : {}), ...(notOlderThan !== undefined ? { notOlderThan } : {}) };
      const list = await this.translate('', () => this.storage.list(prefix, listOptions));
      const watch = this.storage.watch(prefix, list.revision, predicate, options);
      return newStoreWatch(list.items.map(fix), list.revision, watch, fix, bookmark);
    }
    const revision = parseResourceVersion(rv);
    return newStoreWatch([], revision, this.storage.watch(prefix, revision, predicate, options), fix, bookmark);
  }

  // ---- helpers

  apiVersion(): string {
    return this.resource.group === '' ? this.resource.version : `${this.resource.group}/${this.resource.version}`;
  }

  /** Objects are stored with apiVersion and kind; make sure they are the served version's (converting a stored object to it). */
  withTypeMeta(object: KubeObject): KubeObject {
    if (this.codec !== undefined) return this.codec.storageToServed(object);
    if (object.apiVersion === this.apiVersion() && object.kind === this.resource.kind) return object;
    const { apiVersion: _, kind: __, ...rest } = object;
    return { apiVersion: this.apiVersion(), kind: this.resource.kind, ...rest } as KubeObject;
  }

  // ---- versions: the identity without a codec

  private toInternal(served: KubeObject): KubeObject {
    return this.codec === undefined ? served : this.codec.toInternal(served);
  }

  private toStorage(internal: KubeObject): KubeObject {
    return this.codec === undefined ? internal : this.codec.toStorage(internal);
  }

  private fromStorage(stored: KubeObject): KubeObject {
    return this.codec === undefined ? stored : this.codec.fromStorage(stored);
  }

  private internalToServed(internal: KubeObject): KubeObject {
    return this.codec === undefined ? this.withTypeMeta(internal) : this.codec.toServed(internal);
  }

  private storedPredicate(predicate: Predicate | undefined): Predicate | undefined {
    return this.codec === undefined ? predicate : storedPredicate(predicate, this.codec);
  }

  private fillCreateMeta(object: KubeObject): void {
    const meta = object.metadata;
    meta.uid = randomUUID();
    meta.creationTimestamp = formatTime(new Date());
    delete meta.resourceVersion;
    delete meta.deletionTimestamp;
    delete meta.deletionGracePeriodSeconds;
    delete meta.selfLink;
    if (this.strategy.generation) meta.generation = 1;
    else delete meta.generation;
  }

  private fillUpdateMeta(object: KubeObject, old: KubeObject): void {
    const meta = object.metadata;
    const oldMeta = old.metadata;
    // A uid the client sent must be the object's (validateMetaUpdate: immutable), so that an update or a
    // patch meant for an object that was deleted and made again under the same name fails; none: the old one.
    if (meta.uid === undefined || meta.uid === '') meta.uid = oldMeta.uid;
    // Other server-owned fields are kept as they were, whatever the client sent.
    meta.creationTimestamp = oldMeta.creationTimestamp;
    if (oldMeta.deletionTimestamp !== undefined) {
      meta.deletionTimestamp = oldMeta.deletionTimestamp;
      if (oldMeta.deletionGracePeriodSeconds !== undefined) meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
    } else {
      delete meta.deletionTimestamp;
      delete meta.deletionGracePeriodSeconds;
    }
    delete meta.selfLink;
    if (this.strategy.generation) {
      const oldGeneration = oldMeta.generation ?? 1;
      meta.generation = specChanged(object, old) ? oldGeneration + 1 : oldGeneration;
    } else if (oldMeta.generation !== undefined) {
      meta.generation = oldMeta.generation;
    } else {
      delete meta.generation;
    }
  }

  /**
   * Upstream's ValidateObjectMeta for every kind: name (the kind's rule),
   * namespace, labels, annotations, owner references, finalizers.
   */
  private validateMeta(object: KubeObject): FieldError[] {
    return validateObjectMeta(object.metadata, { namespaced: this.resource.namespaced, nameValidator: this.config.validateName });
  }

  /**
   * Upstream's ValidateObjectMetaUpdate. An update without resourceVersion is
   * unconditional (allowed where the strategy says so): it is validated with
   * the stored version filled in, as upstream's store does.
   */
  private validateMetaUpdate(object: KubeObject, old: KubeObject): FieldError[] {
    const meta = object.metadata.resourceVersion ? object.metadata : { ...object.metadata, resourceVersion: old.metadata.resourceVersion };
    return validateObjectMetaUpdate(meta, old.metadata);
  }

  /**
   * A kind's own validation usually includes ValidateObjectMeta too (as
   * upstream's does): the same error is reported once, as upstream's
   * aggregate reports each message once.
   */
  private validateOrThrow(object: KubeObject, errors: FieldError[]): void {
    if (errors.length === 0) return;
    const seen = new Set<string>();
    const unique = errors.filter((e) => {
      const key = `${e.type}\u0000${e.field}\u0000${e.detail ?? ''}\u0000${formatFieldError(e)}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    throw invalid({ group: this.resource.group, kind: this.resource.kind }, object.metadata.name ?? object.metadata.generateName ?? '', unique);
  }

  private checkIdentity(object: KubeObject, namespace: string | undefined, name: string): void {
    if (object.metadata.name !== name) {
      throw badRequest(`the name of the object (${object.metadata.name ?? ''}) does not match the name on the URL (${name})`);
    }
    if (this.resource.namespaced) {
      const ns = object.metadata.namespace;
      if (ns !== undefined && ns !== '' && ns !== namespace) {
        throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
      }
      object.metadata.namespace = namespace;
    }
  }

  protected checkPreconditions(object: KubeObject, name: string, preconditions: DeleteParams['preconditions']): void {
    if (preconditions === undefined) return;
    if (preconditions.uid !== undefined && preconditions.uid !== object.metadata.uid) {
      throw conflict(
        this.groupResource,
        name,
        `Precondition failed: UID in precondition: ${preconditions.uid}, UID in object meta: ${object.metadata.uid ?? ''}`,
      );
    }
    if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== object.metadata.resourceVersion) {
      throw conflict(
        this.groupResource,
        name,
        `Precondition failed: ResourceVersion in precondition: ${preconditions.resourceVersion}, ResourceVersion in object meta: ${object.metadata.resourceVersion ?? ''}`,
      );
    }
  }

  protected async translate<T>(name: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (e: unknown) {
      throw this.translateError(e, name);
    }
  }

  private translateError(e: unknown, name: string): unknown {
    if (!isStorageError(e)) return e;
    switch (e.code) {
      case 'KeyNotFound':
        return notFound(this.groupResource, name);
      case 'KeyExists':
        return alreadyExists(this.groupResource, name);
      case 'Conflict':
        return conflict(this.groupResource, name);
      case 'Compacted':
        return expired(`too old resource version: ${e.message}`);
      case 'FutureRevision':
        return tooLargeResourceVersion(0, e.currentRevision ?? 0);
      case 'TooLarge':
        return new StatusError({ code: 413, reason: 'RequestEntityTooLarge', message: 'Request entity too large: limit is 3145728' });
      case 'InvalidArgument':
        return badRequest(e.message);
      case 'Unavailable':
      case 'Closed':
        return new StatusError({ code: 503, reason: 'ServiceUnavailable', message: 'the storage is unavailable; please try again' }, { cause: e });
      default:
        return e;
    }
  }
}

class DryRunDone extends Error {
  constructor(readonly object: KubeObject) {
    super('dry run');
  }
}

/**
 * `resourceVersion` must be a non-negative integer. Upstream's versioner
 * (strconv.ParseUint) answers anything else with a storage InvalidError,
 * which reaches the client as 422 Invalid with no details.
 */
export function parseResourceVersion(rv: string): number {
  const syntax = /^\d+$/.test(rv);
  if (!syntax || BigInt(rv) > 0xffff_ffff_ffff_ffffn) {
    const why = syntax ? 'value out of range' : 'invalid syntax';
    throw new StatusError({ code: 422, reason: 'Invalid', message: `resourceVersion: Invalid value: "${rv}": strconv.ParseUint: parsing "${rv}": ${why}` });
  }
  return Number(rv);
}

/**
 * A GET's resourceVersion: "" and "0" read whatever is current; any other
 * must parse, and must not be newer than the store (upstream's watch cache
 * answers a newer one, after waiting for it, with 504 Too large resource version).
 */
export async function checkGetResourceVersion(store: GenericStore, rv: string | null): Promise<void> {
  if (rv === null || rv === '' || rv === '0') return;
  const requested = parseResourceVersion(rv);
  const current = await store.currentRevision();
  if (requested > current) throw tooLargeResourceVersion(requested, current);
}

function tooLargeResourceVersion(requested: number, current: number): StatusError {
  const e = timeout(`Too large resource version: ${requested}, current: ${current}`, 1);
  e.status.details = { causes: [{ reason: 'ResourceVersionTooLarge', message: 'Too large resource version' }], retryAfterSeconds: 1 };
  return e;
}

function generateName(base: string): string {
  let suffix = '';
  for (let i = 0; i < 5; i++) suffix += GENERATE_CHARS[Math.floor(Math.random() * GENERATE_CHARS.length)];
  // Upstream keeps names under 63 characters by trimming the base.
  return `${base.length > 58 ? base.slice(0, 58) : base}${suffix}`;
}

/** Everything but metadata and status: a change there bumps the generation. Key order does not count. */
function specChanged(object: KubeObject, old: KubeObject): boolean {
  return stableStringify(stripMetaStatus(object)) !== stableStringify(stripMetaStatus(old));
}

function stripMetaStatus(o: KubeObject): Record<string, unknown> {
  const { metadata: _, status: __, apiVersion: ___, kind: ____, ...rest } = o;
  return rest;
}

function stableStringify(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableStringify).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableStringify(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** The finalizers a delete with this propagation policy adds (upstream's garbage-collection finalizers). */
function deletionFinalizers(object: KubeObject, params: DeleteParams): string[] {
  const existing = object.metadata.finalizers ?? [];
  const policy = params.propagationPolicy ?? (params.orphanDependents === true ? 'Orphan' : params.orphanDependents === false ? 'Background' : undefined);
  if (policy === undefined) return [...existing];
  // As upstream's deletionFinalizersForGarbageCollection: the policy named now wins over one named by an
  // earlier delete, so the other garbage-collection finalizer goes.
  const kept = existing.filter((f) => f !== 'orphan' && f !== 'foregroundDeletion');
  if (policy === 'Orphan') kept.push('orphan');
  if (policy === 'Foreground') kept.push('foregroundDeletion');
  return kept;
}

/** An object being deleted whose finalizers are all gone and whose grace period is over. */
function shouldDeleteDuringUpdate(object: KubeObject): boolean {
  const meta = object.metadata;
  return meta.deletionTimestamp !== undefined && (meta.finalizers === undefined || meta.finalizers.length === 0) && (meta.deletionGracePeriodSeconds ?? 0) === 0;
}

/** A watch as the store gives it: first `initialEvents` synthetic ADDED events, then the changes after `startRevision`. */
export interface StoreWatch extends AsyncIterable<ObjectEvent> {
  readonly initialEvents: number;
  readonly startRevision: number;
  cancel(): void;
}

function newStoreWatch(
  items: KubeObject[],
  revision: number,
  watch: ObjectWatch,
  fix: (o: KubeObject) => KubeObject,
  bookmark: (o: KubeObject) => KubeObject,
): StoreWatch {
  return {
    initialEvents: items.length,
    startRevision: revision,
    cancel: () => watch.cancel(),
    async *[Symbol.asyncIterator]() {
      for (const object of items) yield { type: 'ADDED', object, revision };
      for await (const event of watch) yield { ...event, object: event.type === 'BOOKMARK' ? bookmark(event.object) : fix(event.object) };
    },
  };
}
