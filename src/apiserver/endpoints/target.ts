/**
 * The target of a resource request once routed: which store serves it, under
 * which resource, and the request's namespace and name.
 */
import type { ResourceInfo, SubresourceInfo } from '../../api/scheme.js';
import type { AdmissionChain } from '../admission/interfaces.js';
import type { GenericStore } from '../registry/generic/store.js';
import type { RequestContext } from '../server/context.js';

export interface Target {
  readonly resource: ResourceInfo;
  readonly subresource: SubresourceInfo | undefined;
  /** The store of the resource, seen through the subresource's strategy when there is one. */
  readonly store: GenericStore;
  /** '' for cluster-scoped resources and for lists across all namespaces. */
  readonly namespace: string;
  readonly name: string;
  /**
   * Another resource's store, or the view of one of its subresources, for a
   * handler that reads or writes a second resource (pods/eviction reads and
   * updates PodDisruptionBudgets). Set for subresource handlers.
   */
  readonly lookup?: StoreLookup;
  /** The server's admission chain (none: nothing is admitted, as in unit tests of handlers). */
  readonly admission?: AdmissionChain;
}

export type StoreLookup = (group: string, version: string, resource: string, subresource?: string) => GenericStore | undefined;

/** A handler of one verb of one (sub)resource. */
export type VerbHandler = (ctx: RequestContext, target: Target) => Promise<void>;
