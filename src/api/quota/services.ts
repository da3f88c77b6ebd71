/** Quota of services (upstream pkg/quota/v1/evaluator/core/services.go). */
import type { Service } from 'kubernetes-types/core/v1.js';
import { objectCountName, type QuotaEvaluator } from './evaluator.js';

const SERVICE_RESOURCES = [objectCountName('', 'services'), 'services', 'services.loadbalancers', 'services.nodeports'];

/** What one service uses: itself, a load balancer, and the node ports it asks for. */
export function serviceUsage(service: Service): Record<string, string> {
  const result: Record<string, string> = { [objectCountName('', 'services')]: '1', services: '1' };
  const ports = service.spec?.ports ?? [];
  switch (service.spec?.type) {
    case 'NodePort':
      result['services.nodeports'] = String(ports.length);
      break;
    case 'LoadBalancer':
      // Node ports are not allocated yet: count the intent. Without node-port allocation only explicit ones count.
      result['services.nodeports'] = String(service.spec.allocateLoadBalancerNodePorts === false ? ports.filter((p) => (p.nodePort ?? 0) !== 0).length : ports.length);
      result['services.loadbalancers'] = '1';
      break;
    default:
      break;
  }
  return result;
}

export const serviceEvaluator: QuotaEvaluator = {
  group: '',
  resource: 'services',
  handles: (operation, subresource) => subresource === '' && (operation === 'CREATE' || operation === 'UPDATE'),
  matchingResources: (names) => names.filter((n) => SERVICE_RESOURCES.includes(n)),
  matchesScope: () => false,
  constraints: () => undefined,
  usage: (object) => serviceUsage(object as Service),
};
