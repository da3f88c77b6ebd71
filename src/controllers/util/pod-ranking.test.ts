import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { podDeletionCost, podsToDelete } from './pod-ranking.js';

interface PodFacts {
  name: string;
  node?: string;
  phase?: string;
  ready?: string;
  cost?: string;
  restarts?: number;
  created?: string;
  uid?: string;
}

const pod = (f: PodFacts): Pod => ({
  metadata: {
    name: f.name,
    uid: f.uid ?? f.name,
    ...(f.created ? { creationTimestamp: f.created } : {}),
    ...(f.cost !== undefined ? { annotations: { 'controller.kubernetes.io/pod-deletion-cost': f.cost } } : {}),
  },
  spec: { containers: [], ...(f.node ? { nodeName: f.node } : {}) },
  status: {
    phase: f.phase ?? 'Running',
    conditions: f.ready ? [{ type: 'Ready', status: 'True', lastTransitionTime: f.ready }] : [],
    containerStatuses: [{ name: 'c', image: 'i', imageID: '', ready: true, restartCount: f.restarts ?? 0 }],
  },
});

const names = (pods: Pod[]): string[] => pods.map((p) => p.metadata!.name!);

describe('podsToDelete (upstream ActivePodsWithRanks order)', () => {
  it('unassigned, then Pending < Unknown < Running, then not ready < ready', () => {
    const pods = [
      pod({ name: 'ready', node: 'n1', ready: '2024-01-01T00:00:00Z' }),
      pod({ name: 'running', node: 'n2' }),
      pod({ name: 'unknown', node: 'n3', phase: 'Unknown' }),
      pod({ name: 'pending', node: 'n4', phase: 'Pending' }),
      pod({ name: 'unassigned', phase: 'Pending' }),
    ];
    assert.deepEqual(names(podsToDelete(pods, 4)), ['unassigned', 'pending', 'unknown', 'running']);
  });

  it('lower deletion cost first; a bad cost counts as 0', () => {
    const pods = [pod({ name: 'high', node: 'a', cost: '100' }), pod({ name: 'bad', node: 'b', cost: 'x' }), pod({ name: 'low', node: 'c', cost: '-5' })];
    assert.deepEqual(names(podsToDelete(pods, 2)), ['low', 'bad']);
    assert.equal(podDeletionCost(pods[1]!), 0);
    assert.equal(podDeletionCost(pod({ name: 'big', cost: '99999999999' })), 0);
  });

  it('doubled-up pods first (related pods on the same node)', () => {
    const pods = [pod({ name: 'alone', node: 'a' }), pod({ name: 'crowded', node: 'b' })];
    const related = [...pods, pod({ name: 'sibling1', node: 'b' }), pod({ name: 'sibling2', node: 'b' })];
    assert.deepEqual(names(podsToDelete(pods, 1, { related })), ['crowded']);
  });

  it('ready more recently first; then more restarts; then newer; missing times first', () => {
    const now = new Date('2024-01-02T00:00:00Z');
    const byReady = [pod({ name: 'old', node: 'a', ready: '2024-01-01T00:00:00Z' }), pod({ name: 'new', node: 'b', ready: '2024-01-01T23:59:00Z' })];
    assert.deepEqual(names(podsToDelete(byReady, 1, { now })), ['new']);
    assert.deepEqual(names(podsToDelete(byReady, 1)), ['new']);
    const byRestarts = [pod({ name: 'calm', node: 'a' }), pod({ name: 'crashy', node: 'b', restarts: 4 })];
    assert.deepEqual(names(podsToDelete(byRestarts, 1)), ['crashy']);
    const byAge = [
      pod({ name: 'older', node: 'a', created: '2024-01-01T00:00:00Z' }),
      pod({ name: 'newer', node: 'b', created: '2024-01-01T12:00:00Z' }),
      pod({ name: 'none', node: 'c' }),
    ];
    assert.deepEqual(names(podsToDelete(byAge, 2, { now })), ['none', 'newer']);
  });

  it('times in the same log2 bucket fall back to uid order', () => {
    const now = new Date('2024-01-02T00:00:00Z');
    const pods = [
      pod({ name: 'b', uid: 'uid-b', node: 'x', created: '2024-01-01T00:00:01Z' }),
      pod({ name: 'a', uid: 'uid-a', node: 'y', created: '2024-01-01T00:00:00Z' }),
    ];
    assert.deepEqual(names(podsToDelete(pods, 1, { now })), ['a']);
    assert.deepEqual(names(podsToDelete(pods, 1)), ['b'], 'without now: exact times, newer first');
  });

  it('count 0 deletes none; count ≥ length deletes all', () => {
    const pods = [pod({ name: 'a' }), pod({ name: 'b' })];
    assert.deepEqual(podsToDelete(pods, 0), []);
    assert.deepEqual(names(podsToDelete(pods, 5)), ['a', 'b']);
  });
});
