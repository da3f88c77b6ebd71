import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ActionType, QueueingHint, type QueueingHintFn } from '../../framework/cluster-event.js';
import type { Pod } from '../../framework/types.js';
import { fakeHandle, makeNode, makePod } from '../inter-pod-affinity/testing/fake-handle.js';
import { newPodTopologySpread, type PodTopologySpread } from './pod-topology-spread.js';

const ZONE = 'topology.kubernetes.io/zone';

function target(policy: 'Honor' | 'Ignore' = 'Ignore'): Pod {
  return makePod({
    name: 'target',
    labels: { foo: 'bar' },
    spec: { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchLabels: { foo: 'bar' } }, nodeTaintsPolicy: policy }] },
  });
}

function hints(): { pod: QueueingHintFn; node: QueueingHintFn } {
  const events = (newPodTopologySpread(undefined, fakeHandle()) as PodTopologySpread).eventsToRegister();
  return { pod: events[0]!.hint!, node: events[2]!.hint! };
}

const assigned = (labels: Record<string, string>, namespace = 'default'): Pod => makePod({ name: 'other', labels, namespace, nodeName: 'n1' });

describe('PodTopologySpread events', () => {
  it('registers assigned pods, the pod’s own tolerations and nodes, as upstream with queueing hints', () => {
    const events = (newPodTopologySpread(undefined, fakeHandle()) as PodTopologySpread).eventsToRegister();
    assert.deepEqual(
      events.map((e) => [e.event.resource, e.event.actionType]),
      [
        ['Pod', ActionType.Add | ActionType.UpdatePodLabel | ActionType.Delete],
        ['UnscheduledPod', ActionType.UpdatePodLabel | ActionType.UpdatePodTolerations],
        ['Node', ActionType.Add | ActionType.Delete | ActionType.UpdateNodeLabel | ActionType.UpdateNodeTaint],
      ],
    );
    assert.ok(events.every((e) => e.hint !== undefined));
  });

  it('pod hint: unassigned pods and pods of other namespaces never help', () => {
    const { pod } = hints();
    assert.equal(pod(target(), undefined, makePod({ labels: { foo: 'bar' } })), QueueingHint.Skip);
    assert.equal(pod(target(), undefined, assigned({ foo: 'bar' }, 'other')), QueueingHint.Skip);
  });

  it('pod hint: added or deleted pods help when a selector matches them', () => {
    const { pod } = hints();
    assert.equal(pod(target(), undefined, assigned({ foo: 'bar' })), QueueingHint.Queue);
    assert.equal(pod(target(), assigned({ foo: 'bar' }), undefined), QueueingHint.Queue);
    assert.equal(pod(target(), assigned({ foo: 'baz' }), undefined), QueueingHint.Skip);
  });

  it('pod hint: label updates help when they change whether a selector matches', () => {
    const { pod } = hints();
    assert.equal(pod(target(), assigned({ foo: 'bar' }), assigned({ foo: 'baz' })), QueueingHint.Queue);
    assert.equal(pod(target(), assigned({ foo: 'bar' }), assigned({ foo: 'bar', x: '1' })), QueueingHint.Skip);
    assert.equal(pod(target(), assigned({ foo: 'bar' }), assigned({ foo: 'bar' })), QueueingHint.Skip);
  });

  it('pod hint: the pod’s own new tolerations help only when a constraint honours taints', () => {
    const { pod } = hints();
    const withToleration = (p: Pod): Pod => ({ ...p, spec: { ...p.spec!, tolerations: [{ key: 'x', operator: 'Exists' }] } });
    assert.equal(pod(target('Honor'), target('Honor'), withToleration(target('Honor'))), QueueingHint.Queue);
    assert.equal(pod(target(), target(), withToleration(target())), QueueingHint.Skip);
    const relabelled = { ...target(), metadata: { ...target().metadata, labels: { foo: 'other' } } };
    assert.equal(pod(target(), target(), relabelled), QueueingHint.Queue);
  });

  it('pod hint: constraints that do not parse queue the pod', () => {
    const { pod, node } = hints();
    const bad = makePod({ spec: { topologySpreadConstraints: [{ maxSkew: 1, topologyKey: ZONE, whenUnsatisfiable: 'DoNotSchedule', labelSelector: { matchExpressions: [{ key: 'a', operator: 'Bad' }] } }] } });
    assert.equal(pod(bad, undefined, assigned({})), QueueingHint.Queue);
    assert.equal(node(bad, undefined, makeNode('n')), QueueingHint.Queue);
  });

  it('node hint: nodes with the topology keys added, deleted, relabelled or retainted', () => {
    const { node } = hints();
    const zoned = makeNode('n', { [ZONE]: 'a' });
    assert.equal(node(target(), undefined, zoned), QueueingHint.Queue);
    assert.equal(node(target(), undefined, makeNode('n')), QueueingHint.Skip);
    assert.equal(node(target(), zoned, undefined), QueueingHint.Queue);
    assert.equal(node(target(), makeNode('n'), undefined), QueueingHint.Skip);
    assert.equal(node(target(), makeNode('n'), zoned), QueueingHint.Queue);
    assert.equal(node(target(), zoned, makeNode('n', { [ZONE]: 'b' })), QueueingHint.Queue);
    assert.equal(node(target(), zoned, makeNode('n', { [ZONE]: 'a' }, { taints: [{ key: 't', effect: 'NoSchedule' }] })), QueueingHint.Queue);
    assert.equal(node(target(), zoned, makeNode('n', { [ZONE]: 'a', other: 'x' })), QueueingHint.Skip);
    assert.equal(node(target(), makeNode('n'), makeNode('n', { other: 'x' })), QueueingHint.Skip);
  });
});
