import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodObject, ReplicaSetObject } from '../util/types.js';
import { computeReplicaSetStatus, replicaSetStatusChanged } from './status.js';

const now = new Date('2024-01-01T00:01:00Z');

function rs(status: ReplicaSetObject['status'] = { replicas: 0 }, minReadySeconds = 0): ReplicaSetObject {
  return {
    metadata: { name: 'web', namespace: 'ns', generation: 3 },
    spec: { replicas: 3, minReadySeconds, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web', tier: 'fe' } } } },
    status,
  };
}

const pod = (labels: Record<string, string>, readySince?: string): PodObject => ({
  metadata: { name: 'p', labels },
  status: readySince ? { conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: readySince }] } : {},
});

describe('replica set status', () => {
  it('counts replicas, fully labeled, ready and available (minReadySeconds)', () => {
    const pods = [pod({ app: 'web', tier: 'fe' }, '2024-01-01T00:00:00Z'), pod({ app: 'web' }, '2024-01-01T00:00:50Z'), pod({ app: 'web', tier: 'fe' })];
    const status = computeReplicaSetStatus(rs(undefined, 30), pods, undefined, now);
    assert.deepEqual(status, { replicas: 3, fullyLabeledReplicas: 2, readyReplicas: 2, availableReplicas: 1 });
  });

  it('a failed create sets ReplicaFailure (FailedCreate) once; success removes it', () => {
    const failed = computeReplicaSetStatus(rs(), [], new Error('pods "web-x" is forbidden: exceeded quota'), now);
    assert.deepEqual(failed.conditions, [{ type: 'ReplicaFailure', status: 'True', lastTransitionTime: '2024-01-01T00:01:00Z', reason: 'FailedCreate', message: 'pods "web-x" is forbidden: exceeded quota' }]);
    const again = computeReplicaSetStatus(rs(failed), [], new Error('other'), new Date('2024-01-01T00:02:00Z'));
    assert.deepEqual(again.conditions, failed.conditions, 'an existing failure is kept as it is');
    const healed = computeReplicaSetStatus(rs(failed), [], undefined, now);
    assert.equal(healed.conditions, undefined);
    const tooMany = computeReplicaSetStatus(rs(), [pod({ app: 'web' }), pod({ app: 'web' }), pod({ app: 'web' }), pod({ app: 'web' })], new Error('x'), now);
    assert.equal(tooMany.conditions?.[0]?.reason, 'FailedDelete');
  });

  it('changed: counts, observed generation, conditions', () => {
    const current = rs({ replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 3 });
    assert.equal(replicaSetStatusChanged(current, { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3 }), false);
    assert.equal(replicaSetStatusChanged(current, { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 2, availableReplicas: 2 }), true);
    assert.equal(replicaSetStatusChanged({ ...current, metadata: { ...current.metadata, generation: 4 } }, { replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3 }), true);
  });
});
