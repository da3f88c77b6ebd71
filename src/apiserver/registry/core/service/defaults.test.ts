import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setServiceDefaults } from './defaults.js';
import { setEndpointsDefaults } from './endpoints-defaults.js';
import type { ServiceObject } from './service-helpers.js';

const svc = (spec: ServiceObject['spec'], status?: ServiceObject['status']): ServiceObject => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name: 's' },
  ...(spec !== undefined ? { spec } : {}),
  ...(status !== undefined ? { status } : {}),
});

describe('setServiceDefaults', () => {
  it('defaults a bare ClusterIP service as upstream does', () => {
    const s = svc({ ports: [{ port: 80 }, { port: 53, protocol: 'UDP', targetPort: 'dns' }] });
    setServiceDefaults(s);
    assert.deepEqual(s.spec, {
      type: 'ClusterIP',
      sessionAffinity: 'None',
      internalTrafficPolicy: 'Cluster',
      ports: [
        { port: 80, protocol: 'TCP', targetPort: 80 },
        { port: 53, protocol: 'UDP', targetPort: 'dns' },
      ],
    });
  });

  it('creates a missing spec and treats a zero or empty targetPort as unset', () => {
    const s = svc(undefined);
    setServiceDefaults(s);
    assert.equal(s.spec?.type, 'ClusterIP');
    const z = svc({ ports: [{ port: 8080, targetPort: 0 }, { port: 9090, targetPort: '' }] });
    setServiceDefaults(z);
    assert.deepEqual(
      z.spec?.ports?.map((p) => p.targetPort),
      [8080, 9090],
    );
  });

  it('gives NodePort and LoadBalancer services an external traffic policy, and load balancers allocateLoadBalancerNodePorts', () => {
    const np = svc({ type: 'NodePort', ports: [{ port: 80 }] });
    setServiceDefaults(np);
    assert.equal(np.spec?.externalTrafficPolicy, 'Cluster');
    assert.equal(np.spec?.allocateLoadBalancerNodePorts, undefined);
    const lb = svc({ type: 'LoadBalancer', ports: [{ port: 80 }] }, { loadBalancer: { ingress: [{ ip: '1.2.3.4' }, { hostname: 'lb.example.com' }] } });
    setServiceDefaults(lb);
    assert.equal(lb.spec?.externalTrafficPolicy, 'Cluster');
    assert.equal(lb.spec?.allocateLoadBalancerNodePorts, true);
    assert.equal(lb.spec?.internalTrafficPolicy, 'Cluster');
    assert.deepEqual(lb.status?.loadBalancer?.ingress, [{ ip: '1.2.3.4', ipMode: 'VIP' }, { hostname: 'lb.example.com' }]);
  });

  it('gives a ClusterIP service with external IPs an external traffic policy, and ExternalName no traffic policy', () => {
    const ext = svc({ externalIPs: ['192.0.2.1'], ports: [{ port: 80 }] });
    setServiceDefaults(ext);
    assert.equal(ext.spec?.externalTrafficPolicy, 'Cluster');
    const name = svc({ type: 'ExternalName', externalName: 'example.com' });
    setServiceDefaults(name);
    assert.equal(name.spec?.externalTrafficPolicy, undefined);
    assert.equal(name.spec?.internalTrafficPolicy, undefined);
  });

  it('gives ClientIP affinity a 10800 s timeout and drops the config with affinity None', () => {
    const client = svc({ sessionAffinity: 'ClientIP', ports: [{ port: 80 }] });
    setServiceDefaults(client);
    assert.deepEqual(client.spec?.sessionAffinityConfig, { clientIP: { timeoutSeconds: 10800 } });
    const kept = svc({ sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } });
    setServiceDefaults(kept);
    assert.deepEqual(kept.spec?.sessionAffinityConfig, { clientIP: { timeoutSeconds: 60 } });
    const none = svc({ sessionAffinityConfig: { clientIP: { timeoutSeconds: 60 } } });
    setServiceDefaults(none);
    assert.equal(none.spec?.sessionAffinityConfig, undefined);
  });

  it('keeps what the client set', () => {
    const s = svc({ type: 'LoadBalancer', externalTrafficPolicy: 'Local', internalTrafficPolicy: 'Local', allocateLoadBalancerNodePorts: false });
    setServiceDefaults(s);
    assert.equal(s.spec?.externalTrafficPolicy, 'Local');
    assert.equal(s.spec?.internalTrafficPolicy, 'Local');
    assert.equal(s.spec?.allocateLoadBalancerNodePorts, false);
  });
});

describe('setEndpointsDefaults', () => {
  it('makes every port without a protocol TCP', () => {
    const ep = { metadata: { name: 'e' }, subsets: [{ ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }] }, {}] };
    setEndpointsDefaults(ep);
    assert.deepEqual(ep.subsets[0]!.ports, [{ port: 80, protocol: 'TCP' }, { port: 53, protocol: 'UDP' }]);
  });
});
