/** Builders of ProxyStates for the iptables proxier's unit tests (not a test file itself). */
import type { Endpoint, ProxyState, ServicePort, ServicePortName } from '../../interface.js';
import { servicePortKey } from '../../interface.js';

export function servicePort(name: Partial<ServicePortName> = {}, over: Partial<ServicePort> = {}): ServicePort {
  const n: ServicePortName = { namespace: 'ns1', name: 'svc1', port: 'p80', protocol: 'TCP', ...name };
  return {
    key: servicePortKey(n),
    name: n,
    type: 'ClusterIP',
    clusterIPs: ['172.30.0.41'],
    port: 80,
    externalIPs: [],
    loadBalancerIPs: [],
    internalTrafficPolicyLocal: false,
    externalTrafficPolicyLocal: false,
    ...over,
  };
}

export function endpoint(ip: string, over: Partial<Endpoint> = {}): Endpoint {
  return { ip, port: 80, ready: true, serving: true, terminating: false, isLocal: false, ...over };
}

export function proxyState(entries: ReadonlyArray<readonly [ServicePort, readonly Endpoint[]]>): ProxyState {
  return {
    services: new Map(entries.map(([s]) => [s.key, s])),
    endpoints: new Map(entries.map(([s, e]) => [s.key, e])),
    sliceVersions: new Map(),
  };
}
