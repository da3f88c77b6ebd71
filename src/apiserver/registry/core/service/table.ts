/**
 * `kubectl get services`: TYPE, CLUSTER-IP (`None` for headless), EXTERNAL-IP
 * (`<none>`, `<pending>` for a load balancer without ingress, the external
 * name), PORT(S) like `80/TCP,443:30443/TCP`, and the selector in wide output.
 */
import type { Service, ServicePort } from 'kubernetes-types/core/v1.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { ageColumn, column, nameColumn, wideColumn } from '../../printing/columns.js';
import { formatLabels } from '../../printing/labels.js';
import { sortedUnique } from '../../printing/lists.js';
import { NONE, PENDING, UNKNOWN } from '../../printing/placeholders.js';
import { age } from '../../printing/timestamps.js';

/** Load-balancer ingress IPs (or hostnames), sorted and de-duplicated. */
function loadBalancerAddresses(service: Service): string[] {
  const found: string[] = [];
  for (const ingress of service.status?.loadBalancer?.ingress ?? []) {
    if (ingress.ip) found.push(ingress.ip);
    else if (ingress.hostname) found.push(ingress.hostname);
  }
  return sortedUnique(found);
}

function externalIP(service: Service, type: string): string {
  const externalIPs = service.spec?.externalIPs ?? [];
  switch (type) {
    case 'ClusterIP':
    case 'NodePort':
      return externalIPs.length > 0 ? externalIPs.join(',') : NONE;
    case 'LoadBalancer': {
      const lb = loadBalancerAddresses(service);
      if (externalIPs.length > 0) return [...lb, ...externalIPs].join(',');
      return lb.length > 0 ? lb.join(',') : PENDING;
    }
    case 'ExternalName':
      return service.spec?.externalName ?? '';
    default:
      return UNKNOWN;
  }
}

function portString(ports: readonly ServicePort[]): string {
  return ports
    .map((p) => {
      const protocol = p.protocol || 'TCP';
      return p.nodePort && p.nodePort > 0 ? `${p.port}:${p.nodePort}/${protocol}` : `${p.port}/${protocol}`;
    })
    .join(',');
}

export const serviceTable: TableConvertor<Service> = {
  columns: [
    nameColumn(),
    column('Type', 'string', 'How the service is exposed: ClusterIP, NodePort, LoadBalancer or ExternalName.'),
    column('Cluster-IP', 'string', 'Virtual IP of the service inside the cluster; None for a headless service.'),
    column('External-IP', 'string', 'Addresses the service is reachable at from outside the cluster.'),
    column('Port(s)', 'string', 'Ports the service exposes, with node ports and protocols.'),
    ageColumn(),
    wideColumn('Selector', 'string', 'Label selector for the pods behind the service.'),
  ],
  cells(service, now) {
    const spec = service.spec ?? {};
    // Defaulting gives every service a type; ClusterIP when none was asked for.
    const type = spec.type || 'ClusterIP';
    const clusterIP = spec.clusterIP || spec.clusterIPs?.[0] || NONE;
    const ports = portString(spec.ports ?? []);
    return [
      service.metadata?.name ?? '',
      type,
      clusterIP,
      externalIP(service, type),
      ports === '' ? NONE : ports,
      age(service, now),
      formatLabels(spec.selector),
    ];
  },
};
