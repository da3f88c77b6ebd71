import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Ingress, IngressClass, NetworkPolicy } from 'kubernetes-types/networking/v1.js';
import { formatFieldError, type FieldError } from '../../../machinery/field-errors.js';
import { setIngressClassDefaults, setNetworkPolicyDefaults } from './defaults.js';
import {
  validateIngress,
  validateIngressClass,
  validateIngressClassUpdate,
  validateIngressStatusUpdate,
  validateIngressUpdate,
  validateNetworkPolicy,
  validateNetworkPolicyUpdate,
  ingressWarnings,
  networkPolicyWarnings,
} from './validation.js';

const messages = (errs: FieldError[]): string[] => errs.map(formatFieldError);
const svc = (name = 'web', number = 80) => ({ service: { name, port: { number } } });
const ing = (spec: NonNullable<Ingress['spec']>, annotations?: Record<string, string>): Ingress => ({ metadata: { name: 'i', ...(annotations ? { annotations } : {}) }, spec });
const rule = (paths: unknown[], host?: string) => ({ ...(host !== undefined ? { host } : {}), http: { paths } }) as never;

describe('validateIngress', () => {
  it('accepts rules with each pathType, a default backend, TLS and wildcard hosts', () => {
    assert.deepEqual(
      messages(
        validateIngress(
          ing({
            ingressClassName: 'nginx',
            defaultBackend: { resource: { apiGroup: 'k8s.example.com', kind: 'StorageBucket', name: 'static' } },
            rules: [
              rule([{ path: '/', pathType: 'Prefix', backend: svc() }, { path: '/x', pathType: 'Exact', backend: { service: { name: 'web', port: { name: 'http' } } } }], 'foo.example.com'),
              rule([{ pathType: 'ImplementationSpecific', backend: svc() }], '*.example.com'),
            ],
            tls: [{ hosts: ['foo.example.com', '*.example.com'], secretName: 'tls' }],
          }),
        ),
      ),
      [],
    );
  });

  it('requires rules or a default backend', () => {
    assert.deepEqual(messages(validateIngress(ing({}))), ['spec: Invalid value: []networking.IngressRule(nil): either `defaultBackend` or `rules` must be specified']);
  });

  it('requires pathType (v1 has no default) and refuses unknown ones', () => {
    assert.deepEqual(messages(validateIngress(ing({ rules: [rule([{ path: '/', backend: svc() }])] }))), [
      'spec.rules[0].http.paths[0].pathType: Required value: pathType must be specified',
    ]);
    assert.deepEqual(messages(validateIngress(ing({ rules: [rule([{ path: '/', pathType: 'Regex', backend: svc() }])] }))), [
      'spec.rules[0].http.paths[0].pathType: Unsupported value: "Regex": supported values: "Exact", "ImplementationSpecific", "Prefix"',
    ]);
    assert.deepEqual(messages(validateIngress(ing({ rules: [rule([])] }))), ['spec.rules[0].http.paths: Required value']);
  });

  it('checks paths: absolute, no // or /./ sequences, no /.. ending', () => {
    const errs = (path: string, pathType = 'Prefix') => messages(validateIngress(ing({ rules: [rule([{ path, pathType, backend: svc() }])] })));
    assert.deepEqual(errs('foo'), ['spec.rules[0].http.paths[0].path: Invalid value: "foo": must be an absolute path']);
    assert.deepEqual(errs('/a//b'), ['spec.rules[0].http.paths[0].path: Invalid value: "/a//b": must not contain \'//\'']);
    assert.deepEqual(errs('/a/..'), ['spec.rules[0].http.paths[0].path: Invalid value: "/a/..": cannot end with \'/..\'']);
    assert.deepEqual(errs('foo', 'ImplementationSpecific'), ['spec.rules[0].http.paths[0].path: Invalid value: "foo": must be an absolute path']);
    assert.deepEqual(errs('', 'ImplementationSpecific'), []);
  });

  it('checks backends: service name and port, not both kinds, one of them', () => {
    const errs = (backend: unknown) => messages(validateIngress(ing({ rules: [rule([{ path: '/', pathType: 'Prefix', backend }])] })));
    const p = 'spec.rules[0].http.paths[0].backend';
    assert.deepEqual(errs({}), [`${p}: Invalid value: "": resource or service backend is required`]);
    assert.deepEqual(errs({ ...svc(), resource: { kind: 'K', name: 'n' } }), [`${p}: Invalid value: "": cannot set both resource and service backends`]);
    assert.deepEqual(errs({ service: { name: 'web', port: {} } }), [`${p}: Required value: port name or number is required`]);
    assert.deepEqual(errs({ service: { name: 'web', port: { name: 'http', number: 80 } } }), [`${p}: Invalid value: "": cannot set both port name & port number`]);
    assert.deepEqual(errs({ service: { name: 'web', port: { number: 70000 } } }), [`${p}.service.port.number: Invalid value: 70000: must be between 1 and 65535, inclusive`]);
    assert.deepEqual(errs({ service: { port: { number: 80 } } }), [`${p}.service.name: Required value`]);
    assert.equal(errs({ service: { name: '1web', port: { number: 80 } } })[0]?.startsWith(`${p}.service.name: Invalid value: "1web": a DNS-1035 label must consist of`), true);
    assert.deepEqual(errs({ resource: { kind: '', name: 'a/b' } }), [`${p}.resource.kind: Required value`, `${p}.resource.name: Invalid value: "a/b": may not contain '/'`]);
  });

  it('checks hosts: no IP, wildcard only as the first label', () => {
    const errs = (host: string) => messages(validateIngress(ing({ rules: [rule([{ path: '/', pathType: 'Prefix', backend: svc() }], host)] })));
    assert.equal(errs('10.0.0.1')[0], 'spec.rules[0].host: Invalid value: "10.0.0.1": must be a DNS name, not an IP address');
    assert.equal(errs('foo.*.com')[0]?.startsWith('spec.rules[0].host: Invalid value: "foo.*.com": a wildcard DNS-1123 subdomain must start with \'*.\''), true);
    assert.equal(errs('Foo.com')[0]?.startsWith('spec.rules[0].host: Invalid value: "Foo.com": a lowercase RFC 1123 subdomain'), true);
  });

  it('refuses a kubernetes.io/ingress.class annotation that differs from ingressClassName on create only', () => {
    const i = ing({ ingressClassName: 'a', defaultBackend: svc() }, { 'kubernetes.io/ingress.class': 'b' });
    assert.deepEqual(messages(validateIngress(i)), ['annotations.kubernetes.io/ingress.class: Invalid value: "b": must match `ingressClassName` when both are specified']);
    assert.deepEqual(messages(validateIngressUpdate(i, i)), []);
  });

  it('lets an update keep an invalid TLS secret name the old object had', () => {
    const i = ing({ defaultBackend: svc(), tls: [{ secretName: 'Bad_Name' }] });
    assert.equal(messages(validateIngress(i)).length, 1);
    assert.deepEqual(messages(validateIngressUpdate(i, i)), []);
  });

  it('checks status addresses', () => {
    const s = (lb: unknown): Ingress => ({ metadata: { name: 'i' }, status: { loadBalancer: { ingress: [lb as never] } } });
    assert.deepEqual(messages(validateIngressStatusUpdate(s({ ip: '10.0.0.1', hostname: 'lb.example.com' }), s({}))), []);
    assert.deepEqual(messages(validateIngressStatusUpdate(s({ hostname: '10.0.0.1' }), s({}))), [
      'status.loadBalancer.ingress[0].hostname: Invalid value: "10.0.0.1": must be a DNS name, not an IP address',
    ]);
    assert.equal(messages(validateIngressStatusUpdate(s({ ip: 'nope' }), s({}))).length, 1);
  });
});

describe('validateIngressClass', () => {
  const ic = (spec: NonNullable<IngressClass['spec']>): IngressClass => ({ metadata: { name: 'c' }, spec });

  it('requires a domain-prefixed controller, which is immutable', () => {
    assert.deepEqual(messages(validateIngressClass(ic({ controller: 'k8s.io/ingress-nginx' }))), []);
    assert.deepEqual(messages(validateIngressClass(ic({}))), ['spec.controller: Required value']);
    assert.deepEqual(messages(validateIngressClass(ic({ controller: 'nginx' }))), ['spec.controller: Invalid value: "nginx": must be a domain-prefixed path (such as "acme.io/foo")']);
    assert.deepEqual(messages(validateIngressClassUpdate(ic({ controller: 'a.io/b' }), ic({ controller: 'a.io/c' }))), ['spec.controller: Invalid value: "a.io/b": field is immutable']);
  });

  it('checks parameters: kind, name, scope and namespace', () => {
    const p = (parameters: unknown) => messages(validateIngressClass(ic({ controller: 'a.io/b', parameters: parameters as never })));
    assert.deepEqual(p({ kind: 'K', name: 'n', scope: 'Cluster' }), []);
    assert.deepEqual(p({ kind: 'K', name: 'n', scope: 'Namespace', namespace: 'ns' }), []);
    assert.deepEqual(p({ kind: 'K', name: 'n', scope: 'Namespace' }), ["spec.parameters.namespace: Required value: `parameters.scope` is set to 'Namespace'"]);
    assert.deepEqual(p({ kind: 'K', name: 'n', scope: 'Cluster', namespace: 'ns' }), ["spec.parameters.namespace: Forbidden: `parameters.scope` is set to 'Cluster'"]);
    assert.deepEqual(p({ kind: 'K', name: 'n', scope: 'World' }), ['spec.parameters.scope: Unsupported value: "World": supported values: "Cluster", "Namespace"']);
    assert.deepEqual(p({ scope: 'Cluster' }), ['spec.parameters.kind: Required value', 'spec.parameters.name: Required value']);
  });

  it('defaults the parameters scope to Cluster', () => {
    const c = ic({ controller: 'a.io/b', parameters: { kind: 'K', name: 'n' } });
    setIngressClassDefaults(c);
    assert.equal(c.spec?.parameters?.scope, 'Cluster');
  });
});

describe('validateNetworkPolicy', () => {
  const np = (spec: Partial<NonNullable<NetworkPolicy['spec']>>): NetworkPolicy => ({ metadata: { name: 'n' }, spec: { podSelector: {}, ...spec } });

  it('accepts ports, peers and ipBlocks', () => {
    assert.deepEqual(
      messages(
        validateNetworkPolicy(
          np({
            ingress: [{ from: [{ podSelector: { matchLabels: { app: 'a' } }, namespaceSelector: {} }, { ipBlock: { cidr: '10.0.0.0/8', except: ['10.1.0.0/16'] } }], ports: [{ port: 80 }, { port: 'http', protocol: 'UDP' }, { port: 8000, endPort: 8080 }] }],
            egress: [{ to: [{ ipBlock: { cidr: 'fd00::/8' } }] }],
            policyTypes: ['Ingress', 'Egress'],
          }),
        ),
      ),
      [],
    );
  });

  it('checks ports and protocols', () => {
    const p = (port: unknown) => messages(validateNetworkPolicy(np({ ingress: [{ ports: [port as never] }] })));
    assert.deepEqual(p({ protocol: 'ICMP' }), ['spec.ingress[0].ports[0].protocol: Unsupported value: "ICMP": supported values: "TCP", "UDP", "SCTP"']);
    assert.deepEqual(p({ port: 0 }), ['spec.ingress[0].ports[0].port: Invalid value: 0: must be between 1 and 65535, inclusive']);
    assert.deepEqual(p({ port: 90, endPort: 80 }), ['spec.ingress[0].ports[0].endPort: Invalid value: 80: must be greater than or equal to `port`']);
    assert.deepEqual(p({ port: 'http', endPort: 80 }), ['spec.ingress[0].ports[0].endPort: Invalid value: 80: may not be specified when `port` is non-numeric']);
    assert.deepEqual(p({ endPort: 80 }), ['spec.ingress[0].ports[0].endPort: Invalid value: 80: may not be specified when `port` is not specified']);
  });

  it('checks peers and ipBlock CIDRs', () => {
    const p = (peer: unknown) => messages(validateNetworkPolicy(np({ egress: [{ to: [peer as never] }] })));
    assert.deepEqual(p({}), ['spec.egress[0].to[0]: Required value: must specify a peer']);
    assert.deepEqual(p({ ipBlock: { cidr: '10.0.0.0/8' }, podSelector: {} }), ['spec.egress[0].to[0]: Forbidden: may not specify both ipBlock and another peer']);
    assert.deepEqual(p({ ipBlock: { cidr: '' } }), ['spec.egress[0].to[0].ipBlock.cidr: Required value']);
    assert.equal(p({ ipBlock: { cidr: '10.0.0.0' } })[0]?.startsWith('spec.egress[0].to[0].ipBlock.cidr: Invalid value: "10.0.0.0": must be a valid CIDR value'), true);
    assert.deepEqual(p({ ipBlock: { cidr: '10.0.0.0/16', except: ['10.0.0.0/8'] } }), ['spec.egress[0].to[0].ipBlock.except[0]: Invalid value: "10.0.0.0/8": must be a strict subset of `cidr`']);
    assert.deepEqual(p({ ipBlock: { cidr: '10.0.0.0/16', except: ['192.168.0.0/24'] } }), [
      'spec.egress[0].to[0].ipBlock.except[0]: Invalid value: "192.168.0.0/24": must be a strict subset of `cidr`',
    ]);
  });

  it('checks policyTypes', () => {
    assert.deepEqual(messages(validateNetworkPolicy(np({ policyTypes: ['Both' as never] }))), ['spec.policyTypes[0]: Unsupported value: "Both": supported values: "Ingress", "Egress"']);
    assert.deepEqual(messages(validateNetworkPolicy(np({ policyTypes: ['Ingress', 'Egress', 'Ingress'] }))), [
      'spec.policyTypes: Invalid value: []networking.PolicyType{"Ingress", "Egress", "Ingress"}: may not specify more than two policyTypes',
    ]);
  });

  it('lets an update keep a CIDR the old object had', () => {
    const bad = np({ ingress: [{ from: [{ ipBlock: { cidr: '10.0.0.0' } }] }] });
    assert.equal(validateNetworkPolicy(bad).length, 1);
    assert.deepEqual(validateNetworkPolicyUpdate(bad, bad), []);
  });

  it('defaults policyTypes from the rules present and port protocols to TCP', () => {
    const ingressOnly = np({ ingress: [{ ports: [{ port: 80 }] }] });
    setNetworkPolicyDefaults(ingressOnly);
    assert.deepEqual(ingressOnly.spec?.policyTypes, ['Ingress']);
    assert.equal(ingressOnly.spec?.ingress?.[0]?.ports?.[0]?.protocol, 'TCP');
    const both = np({ egress: [{ ports: [{ port: 53, protocol: 'UDP' }] }] });
    setNetworkPolicyDefaults(both);
    assert.deepEqual(both.spec?.policyTypes, ['Ingress', 'Egress']);
    assert.equal(both.spec?.egress?.[0]?.ports?.[0]?.protocol, 'UDP');
    const egressOnly = np({ egress: [{}], policyTypes: ['Egress'] });
    setNetworkPolicyDefaults(egressOnly);
    assert.deepEqual(egressOnly.spec?.policyTypes, ['Egress']);
    const bare: NetworkPolicy = { metadata: { name: 'n' } };
    setNetworkPolicyDefaults(bare);
    assert.deepEqual(bare.spec, { podSelector: {}, policyTypes: ['Ingress'] });
  });
});

describe('warnings', () => {
  it('warns about the legacy ingress class annotation on create only', () => {
    const i = ing({ defaultBackend: svc() }, { 'kubernetes.io/ingress.class': 'nginx' });
    assert.deepEqual(ingressWarnings(i), [`annotation "kubernetes.io/ingress.class" is deprecated, please use 'spec.ingressClassName' instead`]);
    assert.deepEqual(ingressWarnings(i, i), []);
    assert.deepEqual(ingressWarnings(ing({ defaultBackend: svc() })), []);
  });

  it('warns about ambiguous ipBlock CIDRs on create and on a spec change', () => {
    const np: NetworkPolicy = { metadata: { name: 'n' }, spec: { podSelector: {}, egress: [{ to: [{ ipBlock: { cidr: '10.0.0.1/8', except: ['10.1.0.0/16'] } }] }] } };
    const expected = ['spec.egress[0].to[0].ipBlock.cidr: CIDR value "10.0.0.1/8" is ambiguous in this context (should be "10.0.0.0/8" or "10.0.0.1/32"?)'];
    assert.deepEqual(networkPolicyWarnings(np), expected);
    assert.deepEqual(networkPolicyWarnings(np, np), []);
    assert.deepEqual(networkPolicyWarnings(np, { ...np, spec: { podSelector: { matchLabels: { a: 'b' } } } }), expected);
  });
});
