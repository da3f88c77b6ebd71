import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computeEndpointSubsets, repackSubsets, subsetsEqualIgnoringResourceVersion, truncateSubsets } from './endpoint-subsets.js';
import { findPort, shouldPodBeInEndpoints } from './pod-rules.js';
import { testPod, testService } from './testing/objects.js';

describe('shouldPodBeInEndpoints', () => {
  it('needs an IP', () => {
    assert.equal(shouldPodBeInEndpoints(testPod('a'), false), false);
    assert.equal(shouldPodBeInEndpoints(testPod('a', { ip: '10.0.0.1' }), false), true);
  });
  it('leaves out terminating pods unless asked', () => {
    const pod = testPod('a', { ip: '10.0.0.1', deleting: true });
    assert.equal(shouldPodBeInEndpoints(pod, false), false);
    assert.equal(shouldPodBeInEndpoints(pod, true), true);
  });
  it('follows the restart policy for finished pods', () => {
    assert.equal(shouldPodBeInEndpoints(testPod('a', { ip: '10.0.0.1', phase: 'Failed', restartPolicy: 'Never' }), false), false);
    assert.equal(shouldPodBeInEndpoints(testPod('a', { ip: '10.0.0.1', phase: 'Failed', restartPolicy: 'OnFailure' }), false), true);
    assert.equal(shouldPodBeInEndpoints(testPod('a', { ip: '10.0.0.1', phase: 'Succeeded', restartPolicy: 'OnFailure' }), false), false);
    assert.equal(shouldPodBeInEndpoints(testPod('a', { ip: '10.0.0.1', phase: 'Succeeded' }), false), true);
  });
});

describe('findPort', () => {
  const pod = testPod('a', { ports: [{ name: 'http', containerPort: 8080 }, { name: 'dns', containerPort: 53, protocol: 'UDP' }] });
  it('resolves names with the protocol, and numbers as they are', () => {
    assert.equal(findPort(pod, { port: 80, targetPort: 'http' }), 8080);
    assert.equal(findPort(pod, { port: 53, targetPort: 'dns', protocol: 'UDP' }), 53);
    assert.equal(findPort(pod, { port: 53, targetPort: 'dns', protocol: 'TCP' }), undefined);
    assert.equal(findPort(pod, { port: 80, targetPort: 9090 }), 9090);
    assert.equal(findPort(pod, { port: 80 }), 80);
    assert.equal(findPort(pod, { port: 80, targetPort: 'nope' }), undefined);
  });
});

describe('computeEndpointSubsets', () => {
  it('splits ready and not-ready addresses, with the pod as targetRef and its node', () => {
    const { subsets, ready, notReady } = computeEndpointSubsets(testService('web'), [
      testPod('b', { ip: '10.0.0.2', ready: false, node: 'n1' }),
      testPod('a', { ip: '10.0.0.1', node: 'n1' }),
      testPod('c'),
    ]);
    assert.equal(ready, 1);
    assert.equal(notReady, 1);
    assert.deepEqual(subsets, [
      {
        addresses: [{ ip: '10.0.0.1', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: 'uid-a' } }],
        notReadyAddresses: [{ ip: '10.0.0.2', nodeName: 'n1', targetRef: { kind: 'Pod', namespace: 'default', name: 'b', uid: 'uid-b' } }],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
    ]);
  });
  it('publishNotReadyAddresses puts every address among the ready ones, terminating pods too', () => {
    const { subsets } = computeEndpointSubsets(testService('web', { publishNotReadyAddresses: true }), [testPod('b', { ip: '10.0.0.2', ready: false, deleting: true })]);
    assert.equal(subsets[0]!.addresses?.length, 1);
    assert.equal(subsets[0]!.notReadyAddresses, undefined);
  });
  it('groups pods by the ports they resolve; pods resolving none are left out', () => {
    const service = testService('web', { ports: [{ name: 'http', port: 80, targetPort: 'http' }] });
    const { subsets } = computeEndpointSubsets(service, [
      testPod('a', { ip: '10.0.0.1' }),
      testPod('b', { ip: '10.0.0.2', ports: [{ name: 'http', containerPort: 9000 }] }),
      testPod('c', { ip: '10.0.0.3', ports: [] }),
    ]);
    assert.deepEqual(
      subsets.map((s) => [s.ports?.[0]?.port, s.addresses?.map((a) => a.ip)]),
      [
        [8080, ['10.0.0.1']],
        [9000, ['10.0.0.2']],
      ],
    );
  });
  it('a headless Service without ports lists addresses without ports; a non-headless one lists none', () => {
    const pods = [testPod('a', { ip: '10.0.0.1' })];
    assert.deepEqual(computeEndpointSubsets(testService('h', { clusterIP: 'None', ports: [] }), pods).subsets, [
      { addresses: [{ ip: '10.0.0.1', targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: 'uid-a' } }] },
    ]);
    assert.deepEqual(computeEndpointSubsets(testService('s', { ports: [] }), pods).subsets, []);
  });
  it('sets the hostname of a pod whose subdomain names the Service', () => {
    const pod = testPod('a', { ip: '10.0.0.1' });
    pod.spec!.hostname = 'web-0';
    pod.spec!.subdomain = 'web';
    assert.equal(computeEndpointSubsets(testService('web'), [pod]).subsets[0]!.addresses![0]!.hostname, 'web-0');
  });
});

describe('repackSubsets and equality', () => {
  it('merges an address serving several ports into one subset', () => {
    const address = { ip: '10.0.0.1' };
    const packed = repackSubsets([
      { addresses: [address], ports: [{ name: 'b', port: 2 }] },
      { addresses: [address], ports: [{ name: 'a', port: 1 }] },
    ]);
    assert.deepEqual(packed, [{ addresses: [address], ports: [{ name: 'a', port: 1 }, { name: 'b', port: 2 }] }]);
  });
  it('ignores the pods’ resourceVersions', () => {
    const a = [{ addresses: [{ ip: '1.1.1.1', targetRef: { kind: 'Pod', name: 'p', resourceVersion: '1' } }] }];
    const b = [{ addresses: [{ ip: '1.1.1.1', targetRef: { kind: 'Pod', name: 'p' } }] }];
    assert.equal(subsetsEqualIgnoringResourceVersion(a, b), true);
    assert.equal(subsetsEqualIgnoringResourceVersion(a, []), false);
  });
  it('truncates to 1000 addresses, ready ones first', () => {
    const many = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ ip: `${prefix}.${Math.floor(i / 256)}.${i % 256}` }));
    const subsets = [{ addresses: many(900, '10.1'), notReadyAddresses: many(300, '10.2') }];
    assert.equal(truncateSubsets(subsets), true);
    assert.equal(subsets[0]!.addresses.length, 900);
    assert.equal(subsets[0]!.notReadyAddresses.length, 100);
    assert.equal(truncateSubsets([{ addresses: many(10, '10.3') }]), false);
  });
});
