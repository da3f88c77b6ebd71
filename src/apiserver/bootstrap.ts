/**
 * What exists from the first start: the namespaces default, kube-system,
 * kube-public and kube-node-lease; the PriorityClasses system-cluster-critical
 * and system-node-critical; and the `kubernetes` Service in default with the
 * Endpoints that point at the API server. Each is created if missing, so a
 * restart (or a second API server on the same etcd) changes nothing.
 */
import type { KubeObject } from '../machinery/meta.js';
import { isAlreadyExists } from '../machinery/status.js';
import type { Registry } from './registry/registry.js';

export interface BootstrapOptions {
  readonly registry: Registry;
  /** The first address of --service-cluster-ip-range: the `kubernetes` Service's clusterIP. */
  readonly kubernetesServiceIP: string;
  /** Where clients reach this API server (the Endpoints of the `kubernetes` Service). */
  readonly advertiseAddress: string;
  readonly securePort: number;
}

const SYSTEM_NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'];

async function ensure(create: () => Promise<unknown>): Promise<void> {
  try {
    await create();
  } catch (e: unknown) {
    if (!isAlreadyExists(e)) throw e;
  }
}

export async function bootstrap(options: BootstrapOptions): Promise<void> {
  const { registry } = options;
  const namespaces = registry.store('', 'v1', 'namespaces');
  for (const name of SYSTEM_NAMESPACES) {
    await ensure(() => namespaces.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels: { 'kubernetes.io/metadata.name': name } } }));
  }
  const priorityClasses = registry.store('scheduling.k8s.io', 'v1', 'priorityclasses');
  const systemClasses: [string, number, string][] = [
    ['system-node-critical', 2000001000, 'Used for system critical pods that must not be moved from their current node.'],
    ['system-cluster-critical', 2000000000, 'Used for system critical pods that must run in the cluster, but can be moved to another node if necessary.'],
  ];
  for (const [name, value, description] of systemClasses) {
    await ensure(() =>
      priorityClasses.create(undefined, {
        apiVersion: 'scheduling.k8s.io/v1',
        kind: 'PriorityClass',
        metadata: { name },
        value,
        description,
        preemptionPolicy: 'PreemptLowerPriority',
      }),
    );
  }
  const service: KubeObject = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { component: 'apiserver', provider: 'kubernetes' } },
    spec: {
      type: 'ClusterIP',
      clusterIP: options.kubernetesServiceIP,
      clusterIPs: [options.kubernetesServiceIP],
      ipFamilies: [options.kubernetesServiceIP.includes(':') ? 'IPv6' : 'IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
      sessionAffinity: 'None',
      ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: options.securePort }],
    },
  };
  await ensure(() => registry.store('', 'v1', 'services').create('default', service));
  const endpoints: KubeObject = {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'kubernetes', namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
    subsets: [{ addresses: [{ ip: options.advertiseAddress }], ports: [{ name: 'https', port: options.securePort, protocol: 'TCP' }] }],
  };
  await ensure(() => registry.store('', 'v1', 'endpoints').create('default', endpoints));
}
