import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildProxyState, endpointsOf, servicePortsOf } from './service-state.js';
import { readyEndpoint, testService, testSlice } from './testing/objects.js';

describe('servicePortsOf', () => {
  it('gives one ServicePort per port with upstream defaults', () => {
    const ports = servicePortsOf(
      testService('web', {
        type: 'NodePort',
        clusterIPs: ['127.96.0.10'],
        ports: [
          { name: 'http', port: 80, nodePort: 30080 },
          { name: 'dns', port: 53, protocol: 'UDP', nodePort: 30053 },
        ],
        sessionAffinity: 'ClientIP',
        externalTrafficPolicy: 'Local',
        externalIPs: ['127.0.0.9'],
      }),
    );
    assert.deepEqual(
      ports.map((p) => [p.key, p.type, p.port, p.nodePort, p.sessionAffinityTimeoutSeconds, p.externalTrafficPolicyLocal, p.internalTrafficPolicyLocal]),
      [
        ['default/web:http/TCP', 'NodePort', 80, 30080, 10800, true, false],
        ['default/web:dns/UDP', 'NodePort', 53, 30053, 10800, true, false],
      ],
    );
    assert.deepEqual(ports[0]!.clusterIPs, ['127.96.0.10']);
    assert.deepEqual(ports[0]!.externalIPs, ['127.0.0.9']);
  });

  it('takes the ClientIP timeout from sessionAffinityConfig and internalTrafficPolicy Local', () => {
    const [port] = servicePortsOf(testService('web', { sessionAffinity: 'ClientIP', sessionAffinityConfig: { clientIP: { timeoutSeconds: 5 } }, internalTrafficPolicy: 'Local' }));
    assert.equal(port!.sessionAffinityTimeoutSeconds, 5);
    assert.equal(port!.internalTrafficPolicyLocal, true);
    assert.equal(port!.nodePort, undefined);
    assert.deepEqual(port!.clusterIPs, ['127.96.0.10']);
  });

  it('skips headless, ExternalName and unallocated Services', () => {
    assert.deepEqual(servicePortsOf(testService('h', { clusterIP: 'None' })), []);
    assert.deepEqual(servicePortsOf(testService('x', { type: 'ExternalName', externalName: 'example.com', clusterIP: '' })), []);
    assert.deepEqual(servicePortsOf(testService('u', { clusterIP: '' })), []);
    assert.deepEqual(servicePortsOf({ metadata: { name: 'nospec' } }), []);
  });

  it('names an unnamed port "" and defaults the protocol to TCP', () => {
    const [port] = servicePortsOf(testService('web', { ports: [{ port: 80 }] }));
    assert.equal(port!.key, 'default/web:/TCP');
  });
});

describe('endpointsOf', () => {
  const [http] = servicePortsOf(testService('web'));

  it('resolves the port by name and protocol and reads conditions as upstream', () => {
    const slice = testSlice('web-1', 'web', [
      readyEndpoint('127.244.0.2', 'n1'),
      { addresses: ['127.244.0.3'], nodeName: 'n2' },
      { addresses: ['127.244.0.4'], conditions: { ready: false, serving: true, terminating: true } },
      { addresses: ['127.244.0.5'], conditions: { ready: false } },
      { addresses: [] },
    ], { ports: [{ name: 'metrics', port: 9090 }, { name: 'http', port: 8080 }] });
    const eps = endpointsOf(http!, [slice], 'n1');
    assert.deepEqual(
      eps.map((e) => [e.ip, e.port, e.ready, e.serving, e.terminating, e.isLocal]),
      [
        ['127.244.0.2', 8080, true, true, false, true],
        ['127.244.0.3', 8080, true, true, false, false],
        ['127.244.0.4', 8080, false, true, true, false],
        ['127.244.0.5', 8080, false, false, false, false],
      ],
    );
  });

  it('ignores slices without the port, FQDN slices, and keeps the most ready duplicate', () => {
    const eps = endpointsOf(
      http!,
      [
        testSlice('a', 'web', [readyEndpoint('127.244.0.9')], { ports: [{ name: 'http', port: 8080, protocol: 'UDP' }] }),
        testSlice('b', 'web', [readyEndpoint('example.com')], { addressType: 'FQDN' }),
        testSlice('c', 'web', [{ addresses: ['127.244.0.2'], conditions: { ready: false } }]),
        testSlice('d', 'web', [readyEndpoint('127.244.0.2')]),
        testSlice('e', 'web', [{ addresses: ['127.244.0.2'], conditions: { ready: false } }]),
      ],
      'n1',
    );
    assert.deepEqual(eps.map((e) => [e.ip, e.ready]), [['127.244.0.2', true]]);
  });
});

describe('buildProxyState', () => {
  it('joins Services and slices by the service-name label and records every slice revision', () => {
    const state = buildProxyState({
      nodeName: 'n1',
      services: [testService('web'), testService('other', { clusterIP: '127.96.0.11' }), testService('headless', { clusterIP: 'None' }), testService('web', {}, 'prod'), { ...testService('elsewhere'), metadata: { name: 'elsewhere', namespace: 'default', labels: { 'service.kubernetes.io/service-proxy-name': 'other-proxy' } } }],
      slices: [
        testSlice('web-abc', 'web', [readyEndpoint('127.244.0.2')], { resourceVersion: '7' }),
        testSlice('headless-x', 'headless', [readyEndpoint('127.244.0.3')], { resourceVersion: '8' }),
        testSlice('orphan', '', [], { resourceVersion: '9' }),
      ],
    });
    assert.deepEqual([...state.services.keys()].sort(), ['default/other:http/TCP', 'default/web:http/TCP', 'prod/web:http/TCP']);
    assert.deepEqual(state.endpoints.get('default/web:http/TCP')!.map((e) => e.ip), ['127.244.0.2']);
    assert.deepEqual(state.endpoints.get('default/other:http/TCP'), []);
    assert.deepEqual(state.endpoints.get('prod/web:http/TCP'), []);
    assert.deepEqual([...state.sliceVersions], [['default/web-abc', '7'], ['default/headless-x', '8']]);
  });
});
