import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ActionType, QueueingHint } from '../../framework/cluster-event.js';
import type { Pod } from '../../framework/types.js';
import { interPodAffinityEvents, isSchedulableAfterNodeChange, isSchedulableAfterPodChange } from './events.js';
import { makeNode, makePod } from './testing/fake-handle.js';

const ZONE = 'topology.kubernetes.io/zone';

function target(): Pod {
  return makePod({
    name: 'target',
    spec: {
      affinity: {
        podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'db' } }, topologyKey: ZONE }] },
        podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: { matchLabels: { app: 'web' } }, topologyKey: 'rack' }] },
      },
    },
  });
}

const assigned = (labels: Record<string, string>): Pod => makePod({ labels, nodeName: 'n1' });

describe('InterPodAffinity events', () => {
  it('registers assigned pod add/label/delete and node add/label, as upstream with queueing hints', () => {
    const events = interPodAffinityEvents();
    assert.deepEqual(
      events.map((e) => [e.event.resource, e.event.actionType]),
      [
        ['Pod', ActionType.Add | ActionType.UpdatePodLabel | ActionType.Delete],
        ['Node', ActionType.Add | ActionType.UpdateNodeLabel],
      ],
    );
    assert.ok(events.every((e) => e.hint !== undefined));
  });

  it('pod hint: unscheduled pods never help', () => {
    assert.equal(isSchedulableAfterPodChange(target(), undefined, makePod({ labels: { app: 'db' } })), QueueingHint.Skip);
  });

  it('pod hint: an added pod helps when it matches the affinity', () => {
    assert.equal(isSchedulableAfterPodChange(target(), undefined, assigned({ app: 'db' })), QueueingHint.Queue);
    assert.equal(isSchedulableAfterPodChange(target(), undefined, assigned({ app: 'other' })), QueueingHint.Skip);
  });

  it('pod hint: an update helps when it starts matching the affinity or stops matching the anti-affinity', () => {
    assert.equal(isSchedulableAfterPodChange(target(), assigned({ app: 'x' }), assigned({ app: 'db' })), QueueingHint.Queue);
    assert.equal(isSchedulableAfterPodChange(target(), assigned({ app: 'web' }), assigned({ app: 'x' })), QueueingHint.Queue);
    assert.equal(isSchedulableAfterPodChange(target(), assigned({ app: 'db' }), assigned({ app: 'db', v: '2' })), QueueingHint.Skip);
  });

  it('pod hint: a deletion helps when the deleted pod matched the anti-affinity', () => {
    assert.equal(isSchedulableAfterPodChange(target(), assigned({ app: 'web' }), undefined), QueueingHint.Queue);
    assert.equal(isSchedulableAfterPodChange(target(), assigned({ app: 'db' }), undefined), QueueingHint.Skip);
  });

  it('pod hint: a pod whose terms do not parse is queued', () => {
    const bad = makePod({
      spec: { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ topologyKey: ZONE, labelSelector: { matchExpressions: [{ key: 'a', operator: 'Bad' }] } }] } } },
    });
    assert.equal(isSchedulableAfterPodChange(bad, undefined, assigned({})), QueueingHint.Queue);
    assert.equal(isSchedulableAfterNodeChange(bad, undefined, makeNode('n')), QueueingHint.Queue);
  });

  it('node hint: affinity topology key added or changed', () => {
    assert.equal(isSchedulableAfterNodeChange(target(), undefined, makeNode('n', { [ZONE]: 'a' })), QueueingHint.Queue);
    assert.equal(isSchedulableAfterNodeChange(target(), makeNode('n'), makeNode('n', { [ZONE]: 'a' })), QueueingHint.Queue);
    assert.equal(isSchedulableAfterNodeChange(target(), makeNode('n', { [ZONE]: 'a' }), makeNode('n', { [ZONE]: 'b' })), QueueingHint.Queue);
    assert.equal(isSchedulableAfterNodeChange(target(), makeNode('n', { [ZONE]: 'a' }), makeNode('n', { [ZONE]: 'a', x: 'y' })), QueueingHint.Skip);
  });

  it('node hint: any added node for anti-affinity; its topology key removed or changed', () => {
    const anti = makePod({ spec: { affinity: { podAntiAffinity: { requiredDuringSchedulingIgnoredDuringExecution: [{ labelSelector: {}, topologyKey: 'rack' }] } } } });
    assert.equal(isSchedulableAfterNodeChange(anti, undefined, makeNode('n')), QueueingHint.Queue);
    assert.equal(isSchedulableAfterNodeChange(anti, makeNode('n', { rack: '1' }), makeNode('n')), QueueingHint.Queue);
    assert.equal(isSchedulableAfterNodeChange(anti, makeNode('n', { rack: '1' }), makeNode('n', { rack: '2' })), QueueingHint.Queue);
    assert.equal(isSchedulableAfterNodeChange(anti, makeNode('n'), makeNode('n', { rack: '2' })), QueueingHint.Skip);
    assert.equal(isSchedulableAfterNodeChange(makePod(), undefined, makeNode('n')), QueueingHint.Skip);
  });
});
