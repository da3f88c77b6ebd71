/**
 * The Service strategy (upstream's pkg/registry/core/service/strategy.go): a
 * create starts without status; an update keeps the status and wipes the
 * fields a type change leaves behind; `/status` changes only the status.
 * Allocation of cluster IPs and node ports is not here but in the store
 * (storage.ts), which runs it before these hooks, as upstream's REST does.
 */
import type { KubeObject } from '../../../../machinery/meta.js';
import { deepCopy } from '../../../../machinery/meta.js';
import type { TableConvertor } from '../../../../machinery/table.js';
import { baseStrategy, statusStrategy, type Strategy } from '../../generic/strategy.js';
import { setServiceDefaults } from './defaults.js';
import {
  needsClusterIP,
  needsHealthCheck,
  needsNodePort,
  portsOf,
  sameStrings,
  specOf,
  typeOf,
  type ServiceObject,
} from './service-helpers.js';
import { serviceTable } from './table.js';
import { serviceWarnings, validateService, validateServiceStatusUpdate, validateServiceUpdate } from './validation.js';

/**
 * Keep clusterIP and clusterIPs in step (upstream's NormalizeClusterIPs): an
 * old client sets only clusterIP, a new one both; an update that leaves
 * clusterIPs out keeps them, and one that changes or clears only clusterIP
 * changes clusterIPs with it.
 */
export function normalizeClusterIPs(service: ServiceObject, old: ServiceObject | undefined): void {
  const s = specOf(service);
  const clusterIP = s.clusterIP ?? '';
  const clusterIPs = s.clusterIPs ?? [];
  if (old === undefined) {
    if (clusterIP !== '' && clusterIPs.length === 0) s.clusterIPs = [clusterIP];
    return;
  }
  const oldIP = old.spec?.clusterIP ?? '';
  const oldIPs = old.spec?.clusterIPs ?? [];
  if (oldIPs.length > 0 && clusterIPs.length === 0 && oldIP === clusterIP) s.clusterIPs = [...oldIPs];
  if (oldIP !== clusterIP) {
    if (oldIP !== '' && clusterIP === '' && sameStrings(oldIPs, s.clusterIPs)) delete s.clusterIPs;
    if (clusterIP !== '' && sameStrings(oldIPs, s.clusterIPs)) s.clusterIPs = [clusterIP];
  }
}

/**
 * Fill in what was allocated for the client and it left out, so that
 * resubmitting the YAML it created the service from succeeds (upstream's
 * patchAllocatedValues): clusterIP(s), node ports by port name, the health
 * check node port.
 */
export function patchAllocatedValues(service: ServiceObject, old: ServiceObject): void {
  const s = specOf(service);
  if (needsClusterIP(old) && needsClusterIP(service)) {
    if ((s.clusterIP ?? '') === '' && old.spec?.clusterIP !== undefined) s.clusterIP = old.spec.clusterIP;
    if ((s.clusterIPs?.length ?? 0) === 0 && (old.spec?.clusterIPs?.length ?? 0) > 0) s.clusterIPs = [...old.spec!.clusterIPs!];
  }
  if (needsNodePort(old) && needsNodePort(service)) {
    const inNew = new Set(portsOf(service).map((p) => p.nodePort ?? 0).filter((p) => p !== 0));
    const used = new Set(portsOf(old).map((p) => p.nodePort ?? 0).filter((p) => p !== 0 && inNew.has(p)));
    const byName = new Map<string, number>();
    for (const p of portsOf(old)) byName.set(p.name ?? '', p.nodePort ?? 0);
    for (const p of portsOf(service)) {
      if ((p.nodePort ?? 0) !== 0) continue;
      const previous = byName.get(p.name ?? '') ?? 0;
      if (previous !== 0 && !used.has(previous)) p.nodePort = previous;
    }
  }
  if (needsHealthCheck(old) && needsHealthCheck(service) && (s.healthCheckNodePort ?? 0) === 0 && old.spec?.healthCheckNodePort !== undefined) {
    s.healthCheckNodePort = old.spec.healthCheckNodePort;
  }
}

/**
 * Wipe what a type change leaves behind, when the client did not change it
 * too (upstream's dropTypeDependentFields): clusterIPs and families when
 * becoming ExternalName, node ports when leaving NodePort/LoadBalancer, the
 * health check port, allocateLoadBalancerNodePorts, loadBalancerClass,
 * externalTrafficPolicy, and the load balancer status.
 */
export function dropTypeDependentFields(service: ServiceObject, old: ServiceObject): void {
  const s = specOf(service);
  const o = old.spec ?? {};
  if (needsClusterIP(old) && !needsClusterIP(service)) {
    if (sameStrings(o.clusterIPs, s.clusterIPs)) {
      delete s.clusterIP;
      delete s.clusterIPs;
    }
    if (sameStrings(o.ipFamilies, s.ipFamilies)) delete s.ipFamilies;
    if ((o.ipFamilyPolicy ?? null) === (s.ipFamilyPolicy ?? null)) delete s.ipFamilyPolicy;
  }
  if (needsNodePort(old) && !needsNodePort(service) && samePortNumbers(old, service)) {
    for (const p of portsOf(service)) delete p.nodePort;
  }
  if (needsHealthCheck(old) && !needsHealthCheck(service) && (o.healthCheckNodePort ?? 0) === (s.healthCheckNodePort ?? 0)) {
    delete s.healthCheckNodePort;
  }
  if (typeOf(old) === 'LoadBalancer' && typeOf(service) !== 'LoadBalancer') {
    if (s.allocateLoadBalancerNodePorts != null && o.allocateLoadBalancerNodePorts != null && s.allocateLoadBalancerNodePorts === o.allocateLoadBalancerNodePorts) {
      delete s.allocateLoadBalancerNodePorts;
    }
    if ((o.loadBalancerClass ?? null) === (s.loadBalancerClass ?? null)) delete s.loadBalancerClass;
  }
  const hadPolicy = typeOf(old) === 'NodePort' || typeOf(old) === 'LoadBalancer' || (o.externalIPs?.length ?? 0) > 0;
  const hasPolicy = typeOf(service) === 'NodePort' || typeOf(service) === 'LoadBalancer' || (s.externalIPs?.length ?? 0) > 0;
  if (hadPolicy && !hasPolicy && (o.externalTrafficPolicy ?? '') === (s.externalTrafficPolicy ?? '')) delete s.externalTrafficPolicy;
  if (typeOf(service) !== 'LoadBalancer' && service.status !== undefined) service.status.loadBalancer = {};
}

/**
 * An ExternalName service shows no internalTrafficPolicy (upstream drops it
 * when reading, because older versions defaulted it there; dropping it when
 * writing shows the same).
 */
function dropExternalNameTrafficPolicy(service: ServiceObject): void {
  if (typeOf(service) === 'ExternalName') delete specOf(service).internalTrafficPolicy;
}

/** The node ports of both, port by port (upstream's sameNodePorts). */
function samePortNumbers(a: ServiceObject, b: ServiceObject): boolean {
  const x = portsOf(a);
  const y = portsOf(b);
  return x.length === y.length && x.every((p, i) => (p.nodePort ?? 0) === (y[i]!.nodePort ?? 0));
}

export const serviceStrategy: Strategy = {
  ...baseStrategy,
  defaults: (object) => setServiceDefaults(object as ServiceObject),
  prepareForCreate: (object) => {
    object.status = { loadBalancer: {} };
    dropExternalNameTrafficPolicy(object as ServiceObject);
  },
  prepareForUpdate: (object, old) => {
    const service = object as ServiceObject;
    const oldStatus = (old as ServiceObject).status;
    if (oldStatus === undefined) delete service.status;
    else service.status = deepCopy(oldStatus);
    dropTypeDependentFields(service, old as ServiceObject);
    dropExternalNameTrafficPolicy(service);
  },
  validate: (object) => validateService(object as ServiceObject),
  validateUpdate: (object, old) => validateServiceUpdate(object as ServiceObject, old as ServiceObject),
  warnings: (object) => serviceWarnings(object as ServiceObject),
  allowCreateOnUpdate: true,
  allowUnconditionalUpdate: true,
  generation: false,
  table: serviceTable as unknown as TableConvertor<KubeObject>,
  // Upstream's service SelectableFields (kube-proxy lists with spec.clusterIP!=None).
  selectableFields: {
    'spec.clusterIP': (o) => (o as ServiceObject).spec?.clusterIP ?? '',
    'spec.type': (o) => (o as ServiceObject).spec?.type ?? '',
  },
};

/** `/status`: the spec stays as it was; the load balancer status is validated. */
export const serviceStatusStrategy: Strategy = statusStrategy(serviceStrategy, (object, old) =>
  validateServiceStatusUpdate(object as ServiceObject, old as ServiceObject),
);
