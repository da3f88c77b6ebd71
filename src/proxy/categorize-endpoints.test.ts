import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { categorizeEndpoints, externallyAccessible } from './categorize-endpoints.js';
import type { Endpoint, ServicePort } from './interface.js';
import { servicePortKey } from './interface.js';

const name = { namespace: 'default', name: 'web', port: '', protocol: 'TCP' as const };
const service = (over: Partial<ServicePort> = {}): ServicePort => ({
  key: servicePortKey(name),
  name,
  type: 'ClusterIP',
  clusterIPs: ['10.96.0.20'],
  port: 80,
  externalIPs: [],
  loadBalancerIPs: [],
  internalTrafficPolicyLocal: false,
  externalTrafficPolicyLocal: false,
  ...over,
});
const ep = (ip: string, over: Partial<Endpoint> = {}): Endpoint => ({ ip, port: 8080, ready: true, serving: true, terminating: false, isLocal: false, ...over });

describe('categorizeEndpoints', () => {
  it('sends Cluster-policy traffic to the ready endpoints only', () => {
    const a = ep('10.0.0.1');
    const b = ep('10.0.0.2', { ready: false, serving: false });
    const r = categorizeEndpoints(service(), [a, b]);
    assert.deepEqual(r.cluster, [a]);
    assert.deepEqual(r.local, []);
    assert.deepEqual(r.allReachable, [a]);
  });

  it('falls back to serving terminating endpoints when none is ready', () => {
    const terminating = ep('10.0.0.1', { ready: false, serving: true, terminating: true });
    const notServing = ep('10.0.0.2', { ready: false, serving: false, terminating: true });
    assert.deepEqual(categorizeEndpoints(service(), [terminating, notServing]).cluster, [terminating]);
  });

  it('gives no endpoint at all when none is ready or serving', () => {
    const r = categorizeEndpoints(service(), [ep('10.0.0.1', { ready: false, serving: false })]);
    assert.deepEqual(r.allReachable, []);
  });

  it('internalTrafficPolicy Local uses only this node\'s endpoints and no cluster ones', () => {
    const local = ep('10.0.0.1', { isLocal: true });
    const remote = ep('10.0.0.2');
    const r = categorizeEndpoints(service({ internalTrafficPolicyLocal: true }), [local, remote]);
    assert.deepEqual(r.cluster, []);
    assert.deepEqual(r.local, [local]);
    assert.deepEqual(r.allReachable, [local]);
  });

  it('externalTrafficPolicy Local on a NodePort Service keeps cluster endpoints for internal traffic', () => {
    const local = ep('10.0.0.1', { isLocal: true });
    const remote = ep('10.0.0.2');
    const r = categorizeEndpoints(service({ type: 'NodePort', nodePort: 30080, externalTrafficPolicyLocal: true }), [local, remote]);
    assert.deepEqual(r.cluster, [local, remote]);
    assert.deepEqual(r.local, [local]);
    assert.deepEqual(r.allReachable, [local, remote]);
  });

  it('externalTrafficPolicy Local means nothing for a Service reachable only inside the cluster', () => {
    const r = categorizeEndpoints(service({ externalTrafficPolicyLocal: true }), [ep('10.0.0.1')]);
    assert.deepEqual(r.local, []);
    assert.equal(externallyAccessible(service()), false);
  });
});
