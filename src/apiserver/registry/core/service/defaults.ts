/**
 * Service defaults, as upstream's SetDefaults_Service (pkg/apis/core/v1)
 * applies them to every decoded body: type ClusterIP, sessionAffinity None (or
 * a ClientIP timeout of 10800 s), ports TCP with targetPort = port, the traffic
 * policies, and allocateLoadBalancerNodePorts for load balancers.
 *
 * ipFamilies and ipFamilyPolicy are not defaults: upstream fills them in when
 * it allocates cluster IPs, because they depend on the cluster's ranges (see
 * allocations.ts).
 */
import { externallyAccessible, specOf, typeOf, type ServiceObject } from './service-helpers.js';

/** Upstream's DefaultClientIPServiceAffinitySeconds (3 hours). */
export const DEFAULT_CLIENT_IP_AFFINITY_SECONDS = 10800;

export function setServiceDefaults(service: ServiceObject): void {
  const spec = specOf(service);
  if (unset(spec.sessionAffinity)) spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP' && spec.sessionAffinityConfig?.clientIP?.timeoutSeconds == null) {
    spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: DEFAULT_CLIENT_IP_AFFINITY_SECONDS } };
  }
  if (unset(spec.type)) spec.type = 'ClusterIP';
  for (const port of spec.ports ?? []) {
    if (unset(port.protocol)) port.protocol = 'TCP';
    if (unset(port.targetPort) || port.targetPort === 0) port.targetPort = port.port;
  }
  if (externallyAccessible(service) && unset(spec.externalTrafficPolicy)) {
    spec.externalTrafficPolicy = 'Cluster';
  }
  const type = typeOf(service);
  if (spec.internalTrafficPolicy == null && (type === 'NodePort' || type === 'LoadBalancer' || type === 'ClusterIP')) {
    spec.internalTrafficPolicy = 'Cluster';
  }
  if (type === 'LoadBalancer') {
    if (spec.allocateLoadBalancerNodePorts == null) spec.allocateLoadBalancerNodePorts = true;
    for (const ingress of service.status?.loadBalancer?.ingress ?? []) {
      if (!unset(ingress.ip) && ingress.ipMode == null) ingress.ipMode = 'VIP';
    }
  }
}

/** Absent, null or empty: what Go decodes to a zero value. */
function unset(value: unknown): boolean {
  return value === undefined || value === null || value === '';
}
