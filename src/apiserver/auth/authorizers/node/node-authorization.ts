/**
 * The `Node` authorization mode, wired over the API server's own stores: the
 * graph, the reflectors that keep it current, and the authorizer reading it.
 */
import type { StoreLookup } from '../../../endpoints/target.js';
import { nodeRules } from '../../bootstrap-policy/cluster-roles.js';
import type { RuleResolvingAuthorizer } from '../always.js';
import { NodeGraph } from './graph.js';
import type { PodStorageSource } from './bound-pods.js';
import { populateGraph } from './graph-populator.js';
import { newNodeAuthorizer } from './node-authorizer.js';

export interface NodeAuthorization {
  readonly authorizer: RuleResolvingAuthorizer;
  /** Resolves once pods (and PVs, volume attachments where served) have been listed into the graph. */
  readonly synced: Promise<void>;
  stop(): void;
}

/** `pods`: storage and the pods' key prefix, so that the graph reads bound pods from storage rather than through the pods' watch cache. */
export function newNodeAuthorization(stores: StoreLookup, onError?: (message: string, error: unknown) => void, pods?: PodStorageSource): NodeAuthorization {
  const graph = new NodeGraph();
  const populator = populateGraph(graph, { stores, ...(pods !== undefined ? { pods } : {}), ...(onError !== undefined ? { onError } : {}) });
  return { authorizer: newNodeAuthorizer({ graph, rules: nodeRules() }), synced: populator.synced, stop: () => populator.stop() };
}
