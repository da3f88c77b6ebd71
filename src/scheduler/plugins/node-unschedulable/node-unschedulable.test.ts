import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ActionType, QueueingHint } from '../../framework/cluster-event.js';
import { NodeInfo } from '../../framework/node-info.js';
import { Code } from '../../framework/status.js';
import { makeHandle, makeNode, makeNodeInfo, makePod, newState } from '../helper/test-fixtures.js';
import { NAME, NodeUnschedulable, newNodeUnschedulable } from './node-unschedulable.js';

describe('NodeUnschedulable', () => {
  const plugin = newNodeUnschedulable(undefined, makeHandle()) as NodeUnschedulable;
  const cordoned = makeNodeInfo(makeNode('n', { unschedulable: true }));
  const tolerating = makePod('t', { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoSchedule' }] });

  it('is named as upstream', () => assert.equal(NAME, 'NodeUnschedulable'));

  it('passes schedulable nodes', () => {
    assert.equal(plugin.filter(newState(), makePod('p'), makeNodeInfo(makeNode('n'))), undefined);
    assert.equal(plugin.filter(newState(), makePod('p'), makeNodeInfo(makeNode('n', { unschedulable: false }))), undefined);
  });

  it('rejects a cordoned node as unresolvable unless the pod tolerates the unschedulable taint', () => {
    const status = plugin.filter(newState(), makePod('p'), cordoned);
    assert.equal(status?.code, Code.UnschedulableAndUnresolvable);
    assert.deepEqual(status?.reasons, ['node(s) were unschedulable']);
    assert.equal(plugin.filter(newState(), tolerating, cordoned), undefined);
    assert.equal(plugin.filter(newState(), makePod('e', { tolerations: [{ operator: 'Exists' }] }), cordoned), undefined);
    const wrongEffect = makePod('w', { tolerations: [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists', effect: 'NoExecute' }] });
    assert.equal(plugin.filter(newState(), wrongEffect, cordoned)?.code, Code.UnschedulableAndUnresolvable);
  });

  it('rejects a NodeInfo without a node with the unknown-condition reason', () => {
    assert.deepEqual(plugin.filter(newState(), makePod('p'), new NodeInfo())?.reasons, ['node(s) had unknown conditions']);
  });

  it('re-queues on an added schedulable node or an uncordon, and on the pod gaining the toleration', () => {
    const [nodeEvent, podEvent] = plugin.eventsToRegister();
    assert.equal(nodeEvent?.event.actionType, ActionType.Add | ActionType.UpdateNodeTaint);
    const pod = makePod('p');
    const up = makeNode('n');
    const down = makeNode('n', { unschedulable: true });
    assert.equal(nodeEvent?.hint?.(pod, undefined, up), QueueingHint.Queue);
    assert.equal(nodeEvent?.hint?.(pod, undefined, down), QueueingHint.Skip);
    assert.equal(nodeEvent?.hint?.(pod, down, up), QueueingHint.Queue);
    assert.equal(nodeEvent?.hint?.(pod, up, up), QueueingHint.Skip);
    assert.equal(nodeEvent?.hint?.(pod, up, down), QueueingHint.Skip);
    assert.equal(podEvent?.event.resource, 'UnscheduledPod');
    assert.equal(podEvent?.event.actionType, ActionType.UpdatePodTolerations);
    const updated = { ...tolerating, metadata: { ...tolerating.metadata, uid: pod.metadata.uid } };
    assert.equal(podEvent?.hint?.(pod, pod, updated), QueueingHint.Queue);
    assert.equal(podEvent?.hint?.(pod, pod, pod), QueueingHint.Skip);
    assert.equal(podEvent?.hint?.(pod, tolerating, tolerating), QueueingHint.Skip);
  });
});
