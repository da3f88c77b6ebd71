/**
 * Which endpoints of a Service port receive traffic, as upstream's proxy
 * decides it (pkg/proxy/topology.go, CategorizeEndpoints), without topology
 * hints:
 *
 * - cluster endpoints (for traffic under the Cluster policy): the ready ones;
 *   when none is ready, the ones still serving while terminating, so that a
 *   rolling update does not drop connections that could still be served.
 * - local endpoints (for traffic under a Local policy): the same rule over
 *   the endpoints on this node only.
 *
 * A Service whose every policy is Local has no cluster endpoints at all.
 */
import type { Endpoint, ServicePort } from './interface.js';

export interface CategorizedEndpoints {
  /** Endpoints for traffic under the Cluster policy ([] when no traffic uses it). */
  readonly cluster: readonly Endpoint[];
  /** Endpoints for traffic under a Local policy ([] when no traffic uses it). */
  readonly local: readonly Endpoint[];
  /** Every endpoint some traffic may reach (cluster ∪ local). */
  readonly allReachable: readonly Endpoint[];
}

/** Ready endpoints, else serving-and-terminating ones. */
function usable(endpoints: readonly Endpoint[]): readonly Endpoint[] {
  const ready = endpoints.filter((e) => e.ready);
  return ready.length > 0 ? ready : endpoints.filter((e) => e.serving && e.terminating);
}

/** Whether traffic from outside the node (node ports, external and load-balancer IPs) can reach the Service. */
export function externallyAccessible(service: ServicePort): boolean {
  return service.nodePort !== undefined || service.externalIPs.length > 0 || service.loadBalancerIPs.length > 0;
}

export function categorizeEndpoints(service: ServicePort, endpoints: readonly Endpoint[]): CategorizedEndpoints {
  const external = externallyAccessible(service);
  const needsCluster = !service.internalTrafficPolicyLocal || (external && !service.externalTrafficPolicyLocal);
  const needsLocal = service.internalTrafficPolicyLocal || (external && service.externalTrafficPolicyLocal);
  const cluster = needsCluster ? usable(endpoints) : [];
  const local = needsLocal ? usable(endpoints.filter((e) => e.isLocal)) : [];
  const allReachable = [...new Set([...cluster, ...local])];
  return { cluster, local, allReachable };
}
