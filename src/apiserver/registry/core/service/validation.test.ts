import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatFieldError } from '../../../../machinery/field-errors.js';
import { setServiceDefaults } from './defaults.js';
import type { ServiceObject, ServiceSpec } from './service-helpers.js';
import { normalizeClusterIPs } from './strategy.js';
import { serviceWarnings, validateService, validateServiceStatusUpdate, validateServiceUpdate } from './validation.js';

/** A service as it reaches validation: defaulted, clusterIPs in step, families filled in as allocation does. */
function svc(spec: ServiceSpec, annotations?: Record<string, string>): ServiceObject {
  const s: ServiceObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', ...(annotations ? { annotations } : {}) }, spec };
  setServiceDefaults(s);
  normalizeClusterIPs(s, undefined);
  return s;
}

const errors = (s: ServiceObject, old?: ServiceObject): string[] =>
  (old === undefined ? validateService(s) : validateServiceUpdate(s, old)).map(formatFieldError);

const allocated = (spec: ServiceSpec): ServiceObject =>
  svc({ clusterIP: '10.96.0.10', ipFamilies: ['IPv4'], ipFamilyPolicy: 'SingleStack', ...spec });

describe('validateService', () => {
  it('accepts a defaulted service', () => {
    assert.deepEqual(errors(allocated({ ports: [{ port: 80 }], selector: { app: 'web' } })), []);
    assert.deepEqual(errors(svc({ type: 'ExternalName', externalName: 'db.example.com.' })), []);
    assert.deepEqual(errors(svc({ clusterIP: 'None' })), []);
  });

  it('requires ports except for headless and ExternalName services', () => {
    assert.deepEqual(errors(allocated({})), ['spec.ports: Required value']);
  });

  it('requires names on every port when there are several, unique and DNS-1123 labels', () => {
    assert.deepEqual(errors(allocated({ ports: [{ port: 80 }, { port: 443, name: 'https' }] })), ['spec.ports[0].name: Required value']);
    assert.deepEqual(errors(allocated({ ports: [{ port: 80, name: 'web' }, { port: 443, name: 'web' }] })), ['spec.ports[1].name: Duplicate value: "web"']);
    assert.deepEqual(errors(allocated({ ports: [{ port: 80, name: 'Web_1' }] })), [
      `spec.ports[0].name: Invalid value: "Web_1": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`,
    ]);
  });

  it('checks port numbers, protocols and target ports', () => {
    assert.deepEqual(errors(allocated({ ports: [{ port: 70000, targetPort: 80 }] })), ['spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive']);
    assert.deepEqual(errors(allocated({ ports: [{ port: 80, protocol: 'ICMP' }] })), [
      'spec.ports[0].protocol: Unsupported value: "ICMP": supported values: "SCTP", "TCP", "UDP"',
    ]);
    assert.deepEqual(errors(allocated({ ports: [{ port: 80, targetPort: 'no_such_port' }] })), [
      'spec.ports[0].targetPort: Invalid value: "no_such_port": must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)',
    ]);
  });

  it('finds duplicate ports and node ports by protocol', () => {
    assert.deepEqual(errors(allocated({ ports: [{ port: 80, name: 'a' }, { port: 80, name: 'b' }] })), [
      'spec.ports[1]: Duplicate value: core.ServicePort{Name:"", Protocol:"TCP", AppProtocol:(*string)(nil), Port:80, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}',
    ]);
    assert.deepEqual(errors(allocated({ ports: [{ port: 53, name: 'a' }, { port: 53, name: 'b', protocol: 'UDP' }] })), []);
    assert.deepEqual(
      errors(allocated({ type: 'NodePort', ports: [{ port: 80, name: 'a', nodePort: 30080 }, { port: 81, name: 'b', nodePort: 30080 }] })),
      ['spec.ports[1].nodePort: Duplicate value: 30080'],
    );
  });

  it('refuses node ports on ClusterIP services and unknown types', () => {
    assert.deepEqual(errors(allocated({ ports: [{ port: 80, nodePort: 30080 }] })), ["spec.ports[0].nodePort: Forbidden: may not be used when `type` is 'ClusterIP'"]);
    assert.deepEqual(errors(allocated({ type: 'Magic', ports: [{ port: 80 }] })), [
      'spec.type: Unsupported value: "Magic": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"',
    ]);
  });

  it('checks the selector as labels', () => {
    assert.deepEqual(errors(allocated({ ports: [{ port: 80 }], selector: { app: 'a b' } })), [
      `spec.selector: Invalid value: "a b": a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or '12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')`,
    ]);
  });

  it('requires externalName for ExternalName services and forbids cluster IPs there', () => {
    assert.deepEqual(errors(svc({ type: 'ExternalName' })), ['spec.externalName: Required value']);
    assert.deepEqual(errors(svc({ type: 'ExternalName', externalName: 'x', clusterIP: '10.96.0.1' })), [
      'spec.clusterIPs: Forbidden: may not be set for ExternalName services',
    ]);
    assert.deepEqual(errors(svc({ type: 'ExternalName', externalName: 'Bad_Name' })), [
      `spec.externalName: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`,
    ]);
  });

  it('forbids headless NodePort and LoadBalancer services', () => {
    assert.deepEqual(errors(svc({ type: 'NodePort', clusterIP: 'None', ports: [{ port: 80 }] })), [
      "spec.clusterIPs[0]: Invalid value: \"None\": may not be set to 'None' for NodePort services",
    ]);
  });

  it('keeps clusterIP and clusterIPs consistent and well formed', () => {
    assert.deepEqual(errors(svc({ clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.2'], ports: [{ port: 80 }] })), [
      'spec.clusterIPs: Invalid value: []string{"10.96.0.2"}: first value must match `clusterIP`',
    ]);
    assert.deepEqual(errors(svc({ clusterIP: 'bogus', ports: [{ port: 80 }] })), [
      'spec.clusterIPs[0]: Invalid value: "bogus": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)',
    ]);
    assert.deepEqual(errors(svc({ clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1', '10.96.0.2'], ports: [{ port: 80 }] })), [
      'spec.clusterIPs: Invalid value: []string{"10.96.0.1", "10.96.0.2"}: may specify no more than one IP for each IP family',
    ]);
    assert.deepEqual(errors(svc({ clusterIP: '10.96.0.1', ipFamilies: ['IPv6'], ports: [{ port: 80 }] })), [
      'spec.clusterIPs[0]: Invalid value: "10.96.0.1": expected an IPv6 value as indicated by `ipFamilies[0]`',
    ]);
    assert.deepEqual(errors(svc({ ipFamilyPolicy: 'Both', ports: [{ port: 80 }] })), [
      'spec.ipFamilyPolicy: Unsupported value: "Both": supported values: "PreferDualStack", "RequireDualStack", "SingleStack"',
    ]);
  });

  it('checks session affinity, traffic policies and load balancer fields', () => {
    assert.deepEqual(errors(allocated({ ports: [{ port: 80 }], sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 0 } } })), [
      'spec.sessionAffinityConfig.clientIP.timeoutSeconds: Invalid value: 0: must be greater than 0 and less than 86400',
    ]);
    assert.deepEqual(errors(allocated({ ports: [{ port: 80 }], externalTrafficPolicy: 'Local' })), [
      'spec.externalTrafficPolicy: Invalid value: "Local": may only be set for externally-accessible services',
    ]);
    assert.deepEqual(errors(allocated({ ports: [{ port: 80 }], internalTrafficPolicy: 'Nearby' })), [
      'spec.internalTrafficPolicy: Unsupported value: "Nearby": supported values: "Cluster", "Local"',
    ]);
    assert.deepEqual(errors(allocated({ ports: [{ port: 80 }], loadBalancerSourceRanges: ['10.0.0.0/8'], allocateLoadBalancerNodePorts: true })), [
      "spec.LoadBalancerSourceRanges: Forbidden: may only be used when `type` is 'LoadBalancer'",
      "spec.allocateLoadBalancerNodePorts: Forbidden: may only be used when `type` is 'LoadBalancer'",
    ]);
    assert.deepEqual(errors(allocated({ type: 'LoadBalancer', ports: [{ port: 80, nodePort: 30080 }], externalTrafficPolicy: 'Local' })), [
      'spec.healthCheckNodePort: Required value',
    ]);
    assert.deepEqual(errors(allocated({ ports: [{ port: 80 }], externalIPs: ['127.0.0.1'] })), [
      'spec.externalIPs[0]: Invalid value: "127.0.0.1": may not be in the loopback range (127.0.0.0/8, ::1/128)',
    ]);
  });

  it('checks the topology annotations agree', () => {
    const s = allocated({ ports: [{ port: 80 }] });
    s.metadata.annotations = { 'service.kubernetes.io/topology-aware-hints': 'Auto', 'service.kubernetes.io/topology-mode': 'Off' };
    assert.deepEqual(errors(s), [
      'metadata.annotations[service.kubernetes.io/topology-mode]: Invalid value: "Off": must match annotations[service.kubernetes.io/topology-aware-hints] when both are specified',
    ]);
  });
});

describe('validateServiceUpdate', () => {
  it('refuses a change of the cluster IP', () => {
    const old = allocated({ ports: [{ port: 80 }] });
    const changed = structuredClone(old);
    changed.spec!.clusterIP = '10.96.0.11';
    normalizeClusterIPs(changed, old);
    assert.deepEqual(errors(changed, old), ['spec.clusterIPs[0]: Invalid value: []string{"10.96.0.11"}: may not change once set']);
  });

  it('refuses a change of the IP family and of a load balancer class', () => {
    const old = allocated({ type: 'LoadBalancer', loadBalancerClass: 'example.com/a', ports: [{ port: 80, nodePort: 30080 }] });
    const changed = structuredClone(old);
    changed.spec!.ipFamilies = ['IPv6'];
    changed.spec!.loadBalancerClass = 'example.com/b';
    assert.deepEqual(errors(changed, old), [
      'spec.ipFamilies[0]: Invalid value: []core.IPFamily{"IPv6"}: may not change once set',
      'spec.loadBalancerClass: Invalid value: "example.com/b": may not change once set',
      'spec.clusterIPs[0]: Invalid value: "10.96.0.10": expected an IPv6 value as indicated by `ipFamilies[0]`',
    ]);
  });

  it('lets a service become ExternalName without its cluster IP', () => {
    const old = allocated({ ports: [{ port: 80 }] });
    const next = svc({ type: 'ExternalName', externalName: 'example.com' });
    assert.deepEqual(errors(next, old), []);
  });
});

describe('validateServiceStatusUpdate', () => {
  it('checks ingress IPs, hostnames and IP modes, and only for load balancers', () => {
    const lb = allocated({ type: 'LoadBalancer', ports: [{ port: 80, nodePort: 30080 }] });
    const next = structuredClone(lb);
    next.status = { loadBalancer: { ingress: [{ ip: '1.2.3.4', ipMode: 'Tunnel' }, { hostname: '1.2.3.5' }, { ipMode: 'VIP' }] } };
    assert.deepEqual(validateServiceStatusUpdate(next, lb).map(formatFieldError), [
      'status.loadBalancer.ingress[0].ipMode: Unsupported value: "Tunnel": supported values: "Proxy", "VIP"',
      'status.loadBalancer.ingress[1].hostname: Invalid value: "1.2.3.5": must be a DNS name, not an IP address',
      'status.loadBalancer.ingress[2].ipMode: Forbidden: may not be specified when `ip` is not set',
    ]);
    const plain = allocated({ ports: [{ port: 80 }] });
    const withIngress = structuredClone(plain);
    withIngress.status = { loadBalancer: { ingress: [{ ip: '1.2.3.4', ipMode: 'VIP' }] } };
    assert.deepEqual(validateServiceStatusUpdate(withIngress, plain).map(formatFieldError), [
      "status.loadBalancer.ingress: Forbidden: may only be used when `spec.type` is 'LoadBalancer'",
    ]);
  });
});

describe('serviceWarnings', () => {
  it('warns about non-canonical IPs and fields the type ignores', () => {
    const s = allocated({ ports: [{ port: 80 }], externalName: 'x.example.com' });
    s.spec!.clusterIP = '010.096.000.010';
    s.spec!.clusterIPs = ['010.096.000.010'];
    assert.deepEqual(serviceWarnings(s), [
      'spec.clusterIPs[0]: non-standard IP address "010.096.000.010" will be considered invalid in a future Kubernetes release: use "10.96.0.10"',
      'spec.externalName is ignored when spec.type is not "ExternalName"',
    ]);
  });
});
