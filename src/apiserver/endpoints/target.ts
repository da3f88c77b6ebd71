/**
 * The target of a resource request once routed: which store serves it, under
 * which resource, and the request's namespace and name.
 */
import type { ResourceInfo, SubresourceInfo } from '../../api/scheme.js';
import type { AdmissionChain } from '../admission/interfaces.js';
import type { GenericStore } from '../registry/generic/store.js';
import type { RequestContext, UserInfo } from '../server/context.js';

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

/** The requesting user as write options carry it (for the stores that check who writes: RBAC escalation). */
export const userOf = (ctx: RequestContext): { user?: UserInfo } => (ctx.user !== undefined ? { user: ctx.user } : {});

/** The store's `warn` option: a strategy's warnings go to the response's Warning header, each once. */
export const warnTo = (ctx: RequestContext): { warn: (text: string) => void } => ({
  warn: (text) => {
    if (!ctx.warnings.includes(text)) ctx.warnings.push(text);
  },
});
