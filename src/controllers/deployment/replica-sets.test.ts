import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DeploymentObject, ReplicaSetObject } from '../util/types.js';
import {
  equalIgnoreHash,
  findActiveOrLatest,
  findNewReplicaSet,
  findOldReplicaSets,
  isSaturated,
  newReplicaSetReplicas,
  proportionalSizes,
  replicaSetFraction,
} from './replica-sets.js';

const template = (image: string, extraLabels: Record<string, string> = {}) => ({ metadata: { labels: { app: 'web', ...extraLabels } }, spec: { containers: [{ name: 'c', image }] } });

function deployment(replicas: number, image = 'v2', strategy: Record<string, unknown> = { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } }, statusReplicas = 0): DeploymentObject {
  return { metadata: { name: 'web', namespace: 'ns', uid: 'd', generation: 1 }, spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: template(image), strategy }, status: { replicas: statusReplicas } };
}

let seq = 0;
function rs(name: string, replicas: number, image: string, options: { created?: string; available?: number; annotations?: Record<string, string> } = {}): ReplicaSetObject {
  return {
    metadata: { name, namespace: 'ns', uid: `uid-${name}-${seq++}`, creationTimestamp: options.created ?? '2024-01-01T00:00:00Z', ...(options.annotations ? { annotations: options.annotations } : {}) },
    spec: { replicas, selector: { matchLabels: { app: 'web' } }, template: template(image, { 'pod-template-hash': name }) },
    status: { replicas, availableReplicas: options.available ?? replicas },
  };
}

describe('a deployment\'s replica sets', () => {
  it('equalIgnoreHash ignores the hash label and empty maps', () => {
    assert.equal(equalIgnoreHash(template('a', { 'pod-template-hash': 'x' }), template('a')), true);
    assert.equal(equalIgnoreHash({ metadata: { labels: { app: 'web' }, annotations: {} }, spec: { containers: [{ name: 'c', image: 'a' }] } }, template('a')), true);
    assert.equal(equalIgnoreHash(template('a'), template('b')), false);
  });

  it('the new one is the oldest with the deployment\'s template; the others are old', () => {
    const d = deployment(3);
    const older = rs('older', 1, 'v2', { created: '2024-01-01T00:00:00Z' });
    const newer = rs('newer', 1, 'v2', { created: '2024-01-02T00:00:00Z' });
    const old = rs('old', 2, 'v1');
    assert.equal(findNewReplicaSet(d, [newer, old, older]), older);
    assert.deepEqual(findOldReplicaSets(d, [newer, old, older]).map((r) => r.metadata.name), ['newer', 'old']);
    assert.equal(findNewReplicaSet(d, [old]), undefined);
  });

  it('rolling: the new set grows up to replicas + maxSurge in total', () => {
    const d = deployment(4);
    const newRS = rs('n', 0, 'v2');
    assert.equal(newReplicaSetReplicas(d, [rs('o', 4, 'v1'), newRS], newRS), 1);
    assert.equal(newReplicaSetReplicas(d, [rs('o', 5, 'v1'), newRS], newRS), 0, 'already at the surge limit');
    const half = rs('n', 2, 'v2');
    assert.equal(newReplicaSetReplicas(d, [rs('o', 0, 'v1'), half], half), 4, 'never above replicas');
    assert.equal(newReplicaSetReplicas(deployment(4, 'v2', { type: 'Recreate' }), [newRS], newRS), 4);
  });

  it('findActiveOrLatest: the single active set, or the newest when none is active', () => {
    const a = rs('a', 0, 'v1', { created: '2024-01-01T00:00:00Z' });
    const b = rs('b', 0, 'v1', { created: '2024-01-02T00:00:00Z' });
    assert.equal(findActiveOrLatest(undefined, [a, b]), b);
    const n = rs('n', 0, 'v2');
    assert.equal(findActiveOrLatest(n, [a, b]), n);
    const active = rs('c', 2, 'v1');
    assert.equal(findActiveOrLatest(n, [a, active]), active);
    assert.equal(findActiveOrLatest(rs('n2', 1, 'v2'), [active]), undefined);
    assert.equal(findActiveOrLatest(undefined, []), undefined);
  });

  it('isSaturated: sized, annotated and available for the desired replicas', () => {
    const d = deployment(3);
    assert.equal(isSaturated(d, rs('n', 3, 'v2', { annotations: { 'deployment.kubernetes.io/desired-replicas': '3' } })), true);
    assert.equal(isSaturated(d, rs('n', 3, 'v2', { available: 2, annotations: { 'deployment.kubernetes.io/desired-replicas': '3' } })), false);
    assert.equal(isSaturated(d, rs('n', 3, 'v2')), false);
    assert.equal(isSaturated(d, undefined), false);
  });

  it('proportional scaling mid-rollout keeps the ratio and the surge bound', () => {
    // 10 replicas, 25%: max 13; the sets were sized for max 13; scale to 20 (max 25).
    const annotations = { 'deployment.kubernetes.io/desired-replicas': '10', 'deployment.kubernetes.io/max-replicas': '13' };
    const d = deployment(20);
    const oldRS = rs('old', 8, 'v1', { created: '2024-01-01T00:00:00Z', annotations });
    const newRS = rs('new', 5, 'v2', { created: '2024-01-02T00:00:00Z', annotations });
    const sizes = proportionalSizes(d, [oldRS, newRS]);
    assert.deepEqual(sizes.map((s) => [s.rs.metadata.name, s.size, s.direction]), [['old', 15, 'up'], ['new', 10, 'up']]);
    assert.equal(sizes.reduce((n, s) => n + s.size, 0), 25);
    const down = proportionalSizes(deployment(0), [oldRS, newRS]);
    assert.deepEqual(down.map((s) => s.size), [0, 0]);
  });

  it('fraction falls back to status.replicas without the max-replicas annotation', () => {
    assert.equal(replicaSetFraction(rs('x', 2, 'v1'), deployment(8, 'v2', { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } }, 4)), 2);
    assert.equal(replicaSetFraction(rs('x', 2, 'v1'), deployment(8, 'v2', { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } }, 0)), 0);
  });
});
