/**
 * The registry: one store per served resource, built from the scheme and each
 * resource's definition, and the lookup the router uses.
 */
import { newBuiltinConversions } from '../../api/conversion/builtin.js';
import type { ConversionRegistry, VersionCodec } from '../../api/conversion/conversion-registry.js';
import { gvkKey } from '../../api/conversion/kind-conversion.js';
import type { ResourceInfo, Scheme, SubresourceInfo } from '../../api/scheme.js';
import type { KubeObject } from '../../machinery/meta.js';
import { forbidden, isNotFound, notFound } from '../../machinery/status.js';
import type { Storage } from '../../storage/interface.js';
import type { VerbHandler } from '../endpoints/target.js';
import type { ResourceDefinition } from './definition.js';
import { Cacher, type CacherOptions } from './cacher/cacher.js';
import type { ObjectStorage } from './generic/object-storage.js';
import type { ObjectStore } from './generic/object-store.js';
import { GenericStore } from './generic/store.js';
import { statusStrategy } from './generic/strategy.js';

export interface SubresourceEntry {
  readonly info: SubresourceInfo;
  /** The object seen through the subresource's strategy (status), if the subresource is such a view. */
  readonly store: GenericStore;
  readonly handlers: Readonly<Record<string, VerbHandler>>;
}

export interface ResourceEntry {
  readonly info: ResourceInfo;
  readonly store: GenericStore;
  readonly subresources: ReadonlyMap<string, SubresourceEntry>;
}

export interface RegistryOptions {
  readonly scheme: Scheme;
  readonly storage: ObjectStorage;
  /** `--etcd-prefix`: every key starts with it (default `/registry`). */
  readonly prefix: string;
  /** kind (e.g. `apps/Deployment`, core kinds without group: `Pod`) → definition. */
  readonly definitions: ReadonlyMap<string, ResourceDefinition>;
  /** Serve lists and watches from a watch cache per resource (default on), as upstream's --watch-cache. */
  readonly watchCache?: false | CacherOptions;
  /** Kinds served in several versions (default: the built-in ones, api/conversion/builtin.ts). */
  readonly conversions?: ConversionRegistry;
  /**
   * The create half of the NamespaceLifecycle admission plugin (default on):
   * new content needs a namespace that exists and is not terminating.
   */
  readonly namespaceLifecycle?: boolean;
}

export class Registry {
  private readonly entries = new Map<string, ResourceEntry>();
  private readonly cachers: Cacher[] = [];
  /** Each resource's watch cache, by `group/version/resource`. */
  private readonly cacheOf = new Map<string, Cacher>();
  private namespaceCache: Cacher | undefined;
  /** Each resource's storage key prefix (with its trailing slash), by `group/version/resource`. */
  private readonly keyPrefixOf = new Map<string, string>();
  private readonly rawStorage: Storage;

  constructor(options: RegistryOptions) {
    const prefix = options.prefix.replace(/\/+$/, '');
    this.rawStorage = options.storage.storage;
    const conversions = options.conversions ?? newBuiltinConversions();
    // Versions of one kind share their storage location, and so one watch cache.
    const cachersByPrefix = new Map<string, Cacher>();
    for (const info of options.scheme.resources()) {
      const definition = options.definitions.get(definitionKey(info.group, info.kind));
      if (definition === undefined) continue;
      const codec = conversions.codec(info);
      const keyPrefix = `${prefix}/${this.storagePath(options, info, definition, codec)}`;
      this.keyPrefixOf.set(`${info.group}/${info.version}/${info.resource}`, `${keyPrefix}/`);
      let storage: ObjectStore = options.storage;
      if (options.watchCache !== false) {
        let cacher = cachersByPrefix.get(keyPrefix);
        if (cacher === undefined) {
          cacher = new Cacher(options.storage, `${keyPrefix}/`, options.watchCache ?? {});
          cachersByPrefix.set(keyPrefix, cacher);
          this.cachers.push(cacher);
        }
        if (info.group === '' && info.resource === 'namespaces') this.namespaceCache = cacher;
        this.cacheOf.set(`${info.group}/${info.version}/${info.resource}`, cacher);
        storage = cacher;
      }
      const config = {
        resource: info,
        ...(codec !== undefined ? { codec } : {}),
        strategy: definition.strategy,
        storage,
        keyPrefix,
        validateName: definition.validateName,
        ...(info.namespaced && options.namespaceLifecycle !== false ? { namespaceCheck: (ns: string, object: KubeObject) => this.checkNamespace(ns, info, object) } : {}),
        ...(definition.gracePeriod !== undefined ? { gracePeriod: definition.gracePeriod } : {}),
        ...(definition.returnDeletedObject === true ? { returnDeletedObject: true } : {}),
      };
      const store = definition.newStore !== undefined ? definition.newStore(config) : new GenericStore(config);
      const subresources = new Map<string, SubresourceEntry>();
      for (const sub of info.subresources) {
        const handlers = definition.subresourceHandlers?.[sub.name] ?? {};
        const strategy =
          sub.name === 'status'
            ? (definition.statusStrategy ?? statusStrategy(definition.strategy))
            : (definition.subresourceStrategies?.[sub.name] ?? definition.strategy);
        subresources.set(sub.name, { info: sub, store: store.withStrategy(strategy), handlers });
      }
      this.entries.set(`${info.group}/${info.version}/${info.resource}`, { info, store, subresources });
    }
  }

  /**
   * NamespaceLifecycle: a new object needs a namespace that exists and is not
   * being deleted (upstream's messages: 404 NotFound, 403 Forbidden).
   */
  private async checkNamespace(namespace: string, info: ResourceInfo, object: KubeObject): Promise<void> {
    const namespaces = this.lookup('', 'v1', 'namespaces')?.store;
    if (namespaces === undefined) return;
    // The watch cache answers without waiting for storage; a namespace it has
    // not seen yet (created a moment ago) is looked up in storage.
    let ns = await this.namespaceCache?.cached(namespaces.key(undefined, namespace));
    if (ns === undefined) {
      try {
        ns = await namespaces.get(undefined, namespace);
      } catch (e: unknown) {
        if (isNotFound(e)) throw notFound({ group: '', resource: 'namespaces' }, namespace);
        throw e;
      }
    }
    const phase = (ns.status as { phase?: string } | undefined)?.phase;
    if (ns.metadata.deletionTimestamp !== undefined || phase === 'Terminating') {
      const error = forbidden(
        { group: info.group, resource: info.resource },
        object.metadata.name ?? '',
        `unable to create new content in namespace ${namespace} because it is being terminated`,
      );
      // The cause clients test for (client-go's HasStatusCause(err, NamespaceTerminatingCause)) to stop retrying.
      error.status.details = {
        ...error.status.details,
        causes: [{ reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' }],
      };
      throw error;
    }
  }

  /**
   * Where a resource's objects live: under its own path, or under its storage
   * version's when its conversions store it as another resource's version.
   * Discovery (ResourceInfo.storageVersion) and the conversions must agree.
   */
  private storagePath(options: RegistryOptions, info: ResourceInfo, definition: ResourceDefinition, codec: VersionCodec | undefined): string {
    const sv = codec?.storage;
    const elsewhere = sv !== undefined && gvkKey(sv) !== gvkKey(info);
    const declared = info.storageVersion;
    if (elsewhere !== (declared !== undefined) || (elsewhere && gvkKey(sv) !== gvkKey(declared!))) {
      throw new Error(
        `${gvkKey(info)}: the scheme says it is stored as ${declared === undefined ? 'itself' : gvkKey(declared)}, its conversions as ${sv === undefined || !elsewhere ? 'itself' : gvkKey(sv)}`,
      );
    }
    if (!elsewhere) return definition.storagePath ?? info.resource;
    const stored = options.scheme.kind(sv.group, sv.version, sv.kind);
    if (stored === undefined) throw new Error(`${gvkKey(info)}: its storage version ${gvkKey(sv)} is not served`);
    return options.definitions.get(definitionKey(stored.group, stored.kind))?.storagePath ?? stored.resource;
  }

  /**
   * An object as the watch cache holds it, else as storage does; undefined
   * when it does not exist. For checks on the request path that upstream
   * answers from an informer (a service-account token's ServiceAccount and pod).
   */
  async getCached(group: string, version: string, resource: string, namespace: string, name: string): Promise<KubeObject | undefined> {
    const store = this.store(group, version, resource);
    const cached = await this.cacheOf.get(`${group}/${version}/${resource}`)?.cached(store.key(namespace, name));
    if (cached !== undefined) return cached;
    try {
      return await store.get(namespace, name);
    } catch (e: unknown) {
      if (isNotFound(e)) return undefined;
      throw e;
    }
  }

  /** Stop every watch cache (on shutdown). */
  stop(): void {
    for (const c of this.cachers) c.stop();
  }

  /**
   * Storage itself and a resource's key prefix (objects as stored, in the storage version), bypassing the watch
   * cache: for an in-process reader that needs only a few of the objects and must not make the cache hold them all.
   */
  storageSource(group: string, version: string, resource: string): { readonly storage: Storage; readonly prefix: string } | undefined {
    const prefix = this.keyPrefixOf.get(`${group}/${version}/${resource}`);
    return prefix === undefined ? undefined : { storage: this.rawStorage, prefix };
  }

  lookup(group: string, version: string, resource: string): ResourceEntry | undefined {
    return this.entries.get(`${group}/${version}/${resource}`);
  }

  /** The store of a resource by group and resource name (for bootstrap and internal writers). */
  store(group: string, version: string, resource: string): GenericStore {
    const entry = this.lookup(group, version, resource);
    if (entry === undefined) throw new Error(`resource ${group}/${version}/${resource} is not served`);
    return entry.store;
  }
}

export const definitionKey = (group: string, kind: string): string => (group === '' ? kind : `${group}/${kind}`);
