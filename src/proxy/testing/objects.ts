/** Services and EndpointSlices for the proxy's unit tests. */
import type { ServiceSpec } from 'kubernetes-types/core/v1.js';
import type { Endpoint } from 'kubernetes-types/discovery/v1.js';
import type { EndpointSliceObject, ServiceObject } from '../service-state.js';

export function testService(name: string, spec: ServiceSpec = {}, namespace = 'default'): ServiceObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace },
    spec: { type: 'ClusterIP', clusterIP: '127.96.0.10', ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }], ...spec },
  };
}

export interface TestSliceOptions {
  readonly namespace?: string;
  readonly ports?: EndpointSliceObject['ports'];
  readonly resourceVersion?: string;
  readonly addressType?: string;
}

export function testSlice(name: string, service: string, endpoints: Endpoint[], options: TestSliceOptions = {}): EndpointSliceObject {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name,
      namespace: options.namespace ?? 'default',
      labels: { 'kubernetes.io/service-name': service },
      ...(options.resourceVersion !== undefined ? { resourceVersion: options.resourceVersion } : {}),
    },
    addressType: options.addressType ?? 'IPv4',
    ports: options.ports ?? [{ name: 'http', port: 8080, protocol: 'TCP' }],
    endpoints,
  };
}

export const readyEndpoint = (ip: string, nodeName?: string): Endpoint => ({
  addresses: [ip],
  conditions: { ready: true, serving: true, terminating: false },
  ...(nodeName !== undefined ? { nodeName } : {}),
});
