import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { computePodRequests, DEFAULT_MEMORY_REQUEST, resourceFromList } from './resource.js';
import type { Pod } from './types.js';

function pod(spec: NonNullable<Pod['spec']>): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'default' }, spec };
}

describe('resourceFromList', () => {
  it('reads cpu in millicores, memory and storage in bytes, pods, and extended resources by name', () => {
    const r = resourceFromList({ cpu: '1500m', memory: '1Gi', 'ephemeral-storage': '10G', pods: '110', 'example.com/gpu': '2' });
    assert.deepEqual([r.milliCPU, r.memory, r.ephemeralStorage, r.allowedPodNumber, r.scalar.get('example.com/gpu')], [1500, 1073741824, 1e10, 110, 2]);
  });
});

describe('computePodRequests', () => {
  it('sums the containers and adds the overhead', () => {
    const r = computePodRequests(pod({
      containers: [{ name: 'a', resources: { requests: { cpu: '100m', memory: '64Mi' } } }, { name: 'b', resources: { requests: { cpu: '200m' } } }],
      overhead: { cpu: '10m' },
    }));
    assert.equal(r.milliCPU, 310);
    assert.equal(r.memory, 64 * 1024 * 1024);
  });

  it('takes the largest init container when it exceeds the containers, counting sidecars started before it', () => {
    const r = computePodRequests(pod({
      initContainers: [
        { name: 'sidecar', restartPolicy: 'Always', resources: { requests: { cpu: '100m' } } },
        { name: 'migrate', resources: { requests: { cpu: '1' } } },
      ],
      containers: [{ name: 'app', resources: { requests: { cpu: '200m' } } }],
    }));
    // containers + sidecar = 300m; the init moment = 1000m + 100m sidecar = 1100m.
    assert.equal(r.milliCPU, 1100);
  });

  it('counts the defaults for containers without requests when asked for non-zero requests', () => {
    const r = computePodRequests(pod({ containers: [{ name: 'a' }, { name: 'b', resources: { requests: { cpu: '50m' } } }] }), { nonZero: true });
    assert.equal(r.milliCPU, 150);
    assert.equal(r.memory, 2 * DEFAULT_MEMORY_REQUEST);
    assert.equal(computePodRequests(pod({ containers: [{ name: 'a' }] })).milliCPU, 0);
  });
});
