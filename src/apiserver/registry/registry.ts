/**
 * The registry: one store per served resource, built from the scheme and each
 * resource's definition, and the lookup the router uses.
 */
import type { ResourceInfo, Scheme, SubresourceInfo } from '../../api/scheme.js';
import type { VerbHandler } from '../endpoints/target.js';
import type { ResourceDefinition } from './definition.js';
import { ObjectStorage } from './generic/object-storage.js';
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
}

export class Registry {
  private readonly entries = new Map<string, ResourceEntry>();

  constructor(options: RegistryOptions) {
    const prefix = options.prefix.replace(/\/+$/, '');
    for (const info of options.scheme.resources()) {
      const definition = options.definitions.get(definitionKey(info.group, info.kind));
      if (definition === undefined) continue;
      const config = {
        resource: info,
        strategy: definition.strategy,
        storage: options.storage,
        keyPrefix: `${prefix}/${definition.storagePath ?? info.resource}`,
        validateName: definition.validateName,
        ...(definition.gracePeriod !== undefined ? { gracePeriod: definition.gracePeriod } : {}),
      };
      const store = definition.newStore !== undefined ? definition.newStore(config) : new GenericStore(config);
      const subresources = new Map<string, SubresourceEntry>();
      for (const sub of info.subresources) {
        const handlers = definition.subresourceHandlers?.[sub.name] ?? {};
        const strategy = sub.name === 'status' ? (definition.statusStrategy ?? statusStrategy(definition.strategy)) : definition.strategy;
        subresources.set(sub.name, { info: sub, store: store.withStrategy(strategy), handlers });
      }
      this.entries.set(`${info.group}/${info.version}/${info.resource}`, { info, store, subresources });
    }
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
