/**
 * What the API server needs to know to serve one resource: its strategy, where
 * its objects live in storage, its name rules, and its subresources. Each
 * resource's folder exports one of these (its storage.ts); the registry turns
 * them into stores.
 */
import type { KubeObject } from '../../machinery/meta.js';
import type { ValidateNameFunc } from '../../machinery/validation/names.js';
import type { VerbHandler } from '../endpoints/target.js';
import type { GenericStore, GracePeriodPolicy, StoreConfig } from './generic/store.js';
import type { Strategy } from './generic/strategy.js';

export interface ResourceDefinition<T extends KubeObject = KubeObject> {
  readonly strategy: Strategy<T>;
  /** The strategy of the /status subresource, when the resource has one. */
  readonly statusStrategy?: Strategy<T>;
  /** The path under the storage prefix when it is not the resource name (upstream: services/specs, minions, …). */
  readonly storagePath?: string;
  readonly validateName: ValidateNameFunc;
  readonly gracePeriod?: GracePeriodPolicy;
  /** Upstream's ReturnDeletedObject: a DELETE answers with the deleted object rather than a Success Status. */
  readonly returnDeletedObject?: boolean;
  /** Handlers of subresources that are not a view of the object through another strategy (binding, eviction, scale). */
  /**
   * A store of its own when create, update or delete do more than the generic
   * store (services allocate cluster IPs and node ports): a subclass of GenericStore.
   */
  readonly newStore?: (config: StoreConfig) => GenericStore;
  readonly subresourceHandlers?: Readonly<Record<string, Readonly<Record<string, VerbHandler>>>>;
  /** The strategy of another subresource that is a view of the object (namespaces' `finalize`); default: the main strategy. */
  readonly subresourceStrategies?: Readonly<Record<string, Strategy<T>>>;
}
