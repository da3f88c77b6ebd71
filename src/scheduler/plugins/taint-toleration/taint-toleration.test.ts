import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Taint } from 'kubernetes-types/core/v1.js';
import { ActionType, QueueingHint } from '../../framework/cluster-event.js';
import { Code } from '../../framework/status.js';
import { makeHandle, makeNode, makeNodeInfo, makePod, newState } from '../helper/test-fixtures.js';
import { NAME, TaintToleration, newTaintToleration } from './taint-toleration.js';

const controlPlane: Taint = { key: 'node-role.kubernetes.io/control-plane', effect: 'NoSchedule' };

describe('TaintToleration', () => {
  const plugin = newTaintToleration(undefined, makeHandle()) as TaintToleration;

  it('is named as upstream', () => assert.equal(NAME, 'TaintToleration'));

  it('rejects the first untolerated NoSchedule/NoExecute taint with the upstream reason', () => {
    const status = plugin.filter(newState(), makePod('p'), makeNodeInfo(makeNode('n', { taints: [controlPlane] })));
    assert.equal(status?.code, Code.UnschedulableAndUnresolvable);
    assert.deepEqual(status?.reasons, ['node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }']);
    const two = makeNodeInfo(makeNode('n', { taints: [{ key: 'soft', value: 'x', effect: 'PreferNoSchedule' }, { key: 'dedicated', value: 'gpu', effect: 'NoExecute' }, controlPlane] }));
    assert.deepEqual(plugin.filter(newState(), makePod('p'), two)?.reasons, ['node(s) had untolerated taint {dedicated: gpu}']);
  });

  it('passes tolerated taints, PreferNoSchedule taints and untainted nodes', () => {
    const node = makeNodeInfo(makeNode('n', { taints: [controlPlane, { key: 'dedicated', value: 'gpu', effect: 'NoExecute' }] }));
    const pod = makePod('p', {
      tolerations: [
        { key: 'node-role.kubernetes.io/control-plane', operator: 'Exists', effect: 'NoSchedule' },
        { key: 'dedicated', operator: 'Equal', value: 'gpu' },
      ],
    });
    assert.equal(plugin.filter(newState(), pod, node), undefined);
    const wrongValue = makePod('w', { tolerations: [{ operator: 'Exists', key: 'node-role.kubernetes.io/control-plane' }, { key: 'dedicated', value: 'cpu' }] });
    assert.deepEqual(plugin.filter(newState(), wrongValue, node)?.reasons, ['node(s) had untolerated taint {dedicated: gpu}']);
    assert.equal(plugin.filter(newState(), makePod('p'), makeNodeInfo(makeNode('n', { taints: [{ key: 'k', effect: 'PreferNoSchedule' }] }))), undefined);
    assert.equal(plugin.filter(newState(), makePod('p'), makeNodeInfo(makeNode('n'))), undefined);
  });

  it('scores intolerable PreferNoSchedule taints, normalized in reverse', () => {
    const nodes = [
      makeNodeInfo(makeNode('clean')),
      makeNodeInfo(makeNode('one', { taints: [{ key: 'a', effect: 'PreferNoSchedule' }, { key: 'x', effect: 'NoSchedule' }] })),
      makeNodeInfo(makeNode('two', { taints: [{ key: 'a', effect: 'PreferNoSchedule' }, { key: 'b', effect: 'PreferNoSchedule' }] })),
      makeNodeInfo(makeNode('tolerated', { taints: [{ key: 'c', effect: 'PreferNoSchedule' }] })),
    ];
    // A NoSchedule toleration does not count against PreferNoSchedule taints.
    const pod = makePod('p', { tolerations: [{ key: 'c', operator: 'Exists' }, { key: 'b', operator: 'Exists', effect: 'NoSchedule' }] });
    const state = newState();
    assert.equal(plugin.preScore(state, pod, nodes), undefined);
    const scores = nodes.map((n) => ({ name: n.name, score: plugin.score(state, pod, n) as number }));
    assert.deepEqual(scores.map((s) => s.score), [0, 1, 2, 0]);
    plugin.scoreExtensions().normalizeScore(state, pod, scores);
    assert.deepEqual(scores.map((s) => s.score), [100, 50, 0, 100]);
    // Without PreScore (disabled), Score computes the tolerations itself.
    assert.equal(plugin.score(newState(), pod, nodes[2]!), 2);
    const zeros = [{ name: 'a', score: 0 }];
    plugin.normalizeScore(state, pod, zeros);
    assert.deepEqual(zeros, [{ name: 'a', score: 100 }]);
    assert.equal(plugin.preScore(newState(), pod, []), undefined);
  });

  it('re-queues when a node stops having an untolerated taint, and on the pod updating its tolerations', () => {
    const [nodeEvent, podEvent] = plugin.eventsToRegister();
    assert.equal(nodeEvent?.event.resource, 'Node');
    assert.equal(nodeEvent?.event.actionType, ActionType.Add | ActionType.UpdateNodeTaint);
    const pod = makePod('p');
    const tainted = makeNode('n', { taints: [controlPlane] });
    const clean = makeNode('n');
    assert.equal(nodeEvent?.hint?.(pod, undefined, clean), QueueingHint.Queue);
    assert.equal(nodeEvent?.hint?.(pod, undefined, tainted), QueueingHint.Skip);
    assert.equal(nodeEvent?.hint?.(pod, tainted, clean), QueueingHint.Queue);
    assert.equal(nodeEvent?.hint?.(pod, clean, clean), QueueingHint.Skip);
    assert.equal(nodeEvent?.hint?.(pod, clean, tainted), QueueingHint.Skip);
    assert.equal(podEvent?.event.resource, 'UnscheduledPod');
    assert.equal(podEvent?.event.actionType, ActionType.UpdatePodTolerations);
    assert.equal(podEvent?.hint?.(pod, pod, pod), QueueingHint.Queue);
    assert.equal(podEvent?.hint?.(pod, pod, makePod('other')), QueueingHint.Skip);
  });
});
