import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ActionType } from '../framework/cluster-event.js';
import type { Pod } from '../framework/types.js';
import { podUpdateActions, podUpdateEvents } from './pod-update-events.js';

function pod(overrides: { labels?: Record<string, string>; cpu?: string; gpu?: string; gates?: string[]; tolerations?: number; nodeName?: string } = {}): Pod {
  const requests: Record<string, string> = {};
  if (overrides.cpu !== undefined) requests.cpu = overrides.cpu;
  if (overrides.gpu !== undefined) requests['example.com/gpu'] = overrides.gpu;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p', namespace: 'default', uid: 'u', ...(overrides.labels === undefined ? {} : { labels: overrides.labels }) },
    spec: {
      containers: [{ name: 'c', resources: { requests } }],
      ...(overrides.gates === undefined ? {} : { schedulingGates: overrides.gates.map((name) => ({ name })) }),
      ...(overrides.tolerations === undefined ? {} : { tolerations: Array.from({ length: overrides.tolerations }, (_, i) => ({ key: `k${i}`, operator: 'Exists' })) }),
      ...(overrides.nodeName === undefined ? {} : { nodeName: overrides.nodeName }),
    },
  };
}

describe('podUpdateEvents', () => {
  it('is UpdateOther on an UnscheduledPod when nothing relevant changed', () => {
    assert.deepEqual(podUpdateEvents(pod(), pod()), [{ resource: 'UnscheduledPod', actionType: ActionType.UpdateOther, label: 'UnschedulablePodUpdatePodOther' }]);
  });

  it('names the resource Pod for an assigned pod', () => {
    const [event] = podUpdateEvents(pod({ nodeName: 'n' }), pod({ nodeName: 'n', labels: { a: 'b' } }));
    assert.equal(event?.resource, 'Pod');
    assert.equal(event?.actionType, ActionType.UpdatePodLabel);
    assert.equal(event?.label, 'AssignedPodUpdatePodLabel');
  });

  it('takes the resource from the caller when given (an assigned-pod handler)', () => {
    const [event] = podUpdateEvents(pod(), pod({ labels: { a: 'b' } }), 'Pod');
    assert.deepEqual(event, { resource: 'Pod', actionType: ActionType.UpdatePodLabel, label: 'AssignedPodUpdatePodLabel' });
  });

  it('sees label changes, additions and removals', () => {
    assert.deepEqual(podUpdateActions(pod({ labels: { a: '1' } }), pod({ labels: { a: '2' } })), [ActionType.UpdatePodLabel]);
    assert.deepEqual(podUpdateActions(pod(), pod({ labels: { a: '1' } })), [ActionType.UpdatePodLabel]);
    assert.deepEqual(podUpdateActions(pod({ labels: { a: '1', b: '2' } }), pod({ labels: { a: '1' } })), [ActionType.UpdatePodLabel]);
    assert.deepEqual(podUpdateActions(pod({ labels: { a: '1' } }), pod({ labels: { a: '1' } })), []);
  });

  it('sees a scale-down, not a scale-up', () => {
    assert.deepEqual(podUpdateActions(pod({ cpu: '2' }), pod({ cpu: '1' })), [ActionType.UpdatePodScaleDown]);
    assert.deepEqual(podUpdateActions(pod({ cpu: '1' }), pod({ cpu: '2' })), []);
    assert.deepEqual(podUpdateActions(pod({ gpu: '1' }), pod()), [ActionType.UpdatePodScaleDown], 'a removed extended resource');
  });

  it('sees scheduling gates eliminated, not merely reduced', () => {
    assert.deepEqual(podUpdateActions(pod({ gates: ['a', 'b'] }), pod({ gates: ['a'] })), []);
    assert.deepEqual(podUpdateActions(pod({ gates: ['a'] }), pod({ gates: [] })), [ActionType.UpdatePodSchedulingGatesEliminated]);
    assert.deepEqual(podUpdateActions(pod({ gates: ['a'] }), pod()), [ActionType.UpdatePodSchedulingGatesEliminated]);
  });

  it('sees tolerations added, and reports several changes as several events', () => {
    const events = podUpdateEvents(pod({ tolerations: 1 }), pod({ tolerations: 2, labels: { a: 'b' } }));
    assert.deepEqual(
      events.map((e) => e.actionType),
      [ActionType.UpdatePodLabel, ActionType.UpdatePodTolerations],
    );
  });
});
