import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { DeploymentStatus } from 'kubernetes-types/apps/v1.js';
import type { DeploymentObject, ReplicaSetObject } from '../util/types.js';
import { setCondition, newCondition } from './conditions.js';
import { computeDeploymentStatus, computeRolloutStatus, isDeploymentComplete, stuckRequeueMs } from './status.js';

const now = new Date('2024-01-01T00:10:00Z');

function deployment(status: DeploymentStatus = {}, progressDeadlineSeconds = 600): DeploymentObject {
  return {
    metadata: { name: 'web', namespace: 'ns', generation: 2 },
    spec: { replicas: 4, selector: {}, template: {}, progressDeadlineSeconds, strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 1 } } },
    status,
  };
}

const rs = (name: string, spec: number, replicas: number, available: number, ready = available): ReplicaSetObject => ({
  metadata: { name },
  spec: { replicas: spec, selector: {} },
  status: { replicas, availableReplicas: available, readyReplicas: ready },
});

const progressing = (reason: string, lastUpdateTime: string, status: 'True' | 'False' = 'True') => ({
  type: 'Progressing', status, reason, message: 'm', lastUpdateTime, lastTransitionTime: '2024-01-01T00:00:00Z',
});

describe('deployment status', () => {
  it('counts from the replica sets; Available when ≥ replicas − maxUnavailable are available', () => {
    const newRS = rs('new', 2, 2, 1);
    const status = computeDeploymentStatus(deployment(), [rs('old', 3, 3, 3), newRS], newRS, now);
    assert.deepEqual({ ...status, conditions: undefined }, {
      observedGeneration: 2, replicas: 5, updatedReplicas: 2, readyReplicas: 4, availableReplicas: 4, unavailableReplicas: 1, conditions: undefined,
    });
    assert.deepEqual(status.conditions?.map((c) => [c.type, c.status, c.reason, c.message]), [['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.']]);
    const low = computeDeploymentStatus(deployment(), [rs('old', 2, 2, 2)], undefined, now);
    assert.deepEqual(low.conditions?.map((c) => [c.status, c.reason, c.message]), [['False', 'MinimumReplicasUnavailable', 'Deployment does not have minimum availability.']]);
  });

  it('setCondition keeps lastTransitionTime for the same status and ignores the same reason', () => {
    const status: DeploymentStatus = {};
    setCondition(status, newCondition('Progressing', 'True', 'A', 'a', new Date('2024-01-01T00:00:00Z')));
    setCondition(status, newCondition('Progressing', 'True', 'A', 'other message', now));
    assert.equal(status.conditions?.[0]?.message, 'a');
    setCondition(status, newCondition('Progressing', 'True', 'B', 'b', now));
    assert.equal(status.conditions?.[0]?.lastTransitionTime, '2024-01-01T00:00:00Z');
    assert.equal(status.conditions?.[0]?.lastUpdateTime, '2024-01-01T00:10:00Z');
  });

  it('complete: NewReplicaSetAvailable with upstream\'s message', () => {
    const newRS = rs('web-abc', 4, 4, 4);
    const status = computeRolloutStatus(deployment({ conditions: [progressing('ReplicaSetUpdated', '2024-01-01T00:09:00Z')] }), [newRS], newRS, now);
    const p = status.conditions?.find((c) => c.type === 'Progressing');
    assert.deepEqual([p?.status, p?.reason, p?.message], ['True', 'NewReplicaSetAvailable', 'ReplicaSet "web-abc" has successfully progressed.']);
    assert.equal(isDeploymentComplete(deployment(), status), true);
  });

  it('progress moves lastUpdateTime (ReplicaSetUpdated), keeping lastTransitionTime', () => {
    const newRS = rs('web-abc', 2, 2, 1);
    const d = deployment({ replicas: 4, updatedReplicas: 1, availableReplicas: 3, readyReplicas: 3, conditions: [progressing('ReplicaSetUpdated', '2024-01-01T00:01:00Z')] });
    const status = computeRolloutStatus(d, [rs('old', 3, 3, 3), newRS], newRS, now);
    const p = status.conditions?.find((c) => c.type === 'Progressing');
    assert.deepEqual([p?.reason, p?.message, p?.lastUpdateTime, p?.lastTransitionTime], ['ReplicaSetUpdated', 'ReplicaSet "web-abc" is progressing.', '2024-01-01T00:10:00Z', '2024-01-01T00:00:00Z']);
  });

  it('no progress past the deadline: ProgressDeadlineExceeded; before it, a requeue at the deadline', () => {
    const newRS = rs('web-abc', 2, 2, 0, 0);
    const statusBefore = { replicas: 5, updatedReplicas: 2, availableReplicas: 3, readyReplicas: 3 };
    const d = deployment({ ...statusBefore, conditions: [progressing('ReplicaSetUpdated', '2024-01-01T00:09:00Z')] }, 30);
    const status = computeRolloutStatus(d, [rs('old', 3, 3, 3), newRS], newRS, now);
    const p = status.conditions?.find((c) => c.type === 'Progressing');
    assert.deepEqual([p?.status, p?.reason, p?.message], ['False', 'ProgressDeadlineExceeded', 'ReplicaSet "web-abc" has timed out progressing.']);
    assert.equal(stuckRequeueMs({ ...d, status: { ...d.status, conditions: [p!] } }, status, now), undefined, 'timed out: nothing to wait for');
    const early = deployment({ ...statusBefore, conditions: [progressing('ReplicaSetUpdated', '2024-01-01T00:09:50Z')] }, 30);
    assert.equal(stuckRequeueMs(early, computeRolloutStatus(early, [rs('old', 3, 3, 3), newRS], newRS, now), now), 21_000);
    const due = deployment({ ...statusBefore, conditions: [progressing('ReplicaSetUpdated', '2024-01-01T00:09:29.5Z')] }, 30);
    assert.equal(stuckRequeueMs(due, {}, now), 0);
  });

  it('no deadline: no Progressing condition, nothing to requeue', () => {
    const d = deployment({ conditions: [progressing('ReplicaSetUpdated', '2024-01-01T00:09:00Z')] }, 2147483647);
    const status = computeRolloutStatus(d, [], undefined, now);
    assert.equal(status.conditions?.find((c) => c.type === 'Progressing'), undefined);
    assert.equal(stuckRequeueMs(d, status, now), undefined);
  });

  it('a ReplicaSet failure is mirrored, the new set\'s first; removed when gone', () => {
    const failing: ReplicaSetObject = { ...rs('web-abc', 2, 0, 0), status: { replicas: 0, conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: 'quota', lastTransitionTime: '2024-01-01T00:05:00Z' }] } };
    const status = computeRolloutStatus(deployment(), [failing], failing, now);
    const f = status.conditions?.find((c) => c.type === 'ReplicaFailure');
    assert.deepEqual([f?.status, f?.reason, f?.message, f?.lastUpdateTime], ['True', 'FailedCreate', 'quota', '2024-01-01T00:05:00Z']);
    const healed = computeRolloutStatus({ ...deployment(), status }, [rs('web-abc', 2, 0, 0)], undefined, now);
    assert.equal(healed.conditions?.find((c) => c.type === 'ReplicaFailure'), undefined);
  });
});
