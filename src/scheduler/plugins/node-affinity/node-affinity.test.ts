import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NodeSelectorTerm, PreferredSchedulingTerm } from 'kubernetes-types/core/v1.js';
import { ActionType, QueueingHint } from '../../framework/cluster-event.js';
import { Code } from '../../framework/status.js';
import { makeHandle, makeNode, makeNodeInfo, makePod, newState } from '../helper/test-fixtures.js';
import { NAME, NodeAffinity, newNodeAffinity } from './node-affinity.js';

const handle = makeHandle();
const plugin = newNodeAffinity(undefined, handle) as NodeAffinity;
const required = (...nodeSelectorTerms: NodeSelectorTerm[]) => ({ nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms } } });
const preferred = (...terms: PreferredSchedulingTerm[]) => ({ nodeAffinity: { preferredDuringSchedulingIgnoredDuringExecution: terms } });
const nodeA = makeNodeInfo(makeNode('a', { labels: { zone: 'a', disk: 'ssd', gen: '5' } }));
const nodeB = makeNodeInfo(makeNode('b', { labels: { zone: 'b', gen: '2' } }));
const nodeC = makeNodeInfo(makeNode('c'));

function filterAll(p: NodeAffinity, pod: ReturnType<typeof makePod>): Array<string | undefined> {
  const state = newState();
  const outcome = p.preFilter(state, pod);
  assert.notEqual(outcome.status?.code, Code.Skip);
  return [nodeA, nodeB, nodeC].map((n) => {
    const status = p.filter(state, pod, n);
    if (status !== undefined) assert.equal(status.code, Code.UnschedulableAndUnresolvable);
    return status?.message();
  });
}

const POD_REASON = "node(s) didn't match Pod's node affinity/selector";

describe('NodeAffinity', () => {
  it('is named as upstream', () => assert.equal(NAME, 'NodeAffinity'));

  it('skips pods without nodeSelector or required affinity', () => {
    assert.equal(plugin.preFilter(newState(), makePod('p')).status?.code, Code.Skip);
    assert.equal(plugin.preFilter(newState(), makePod('p', { affinity: preferred({ weight: 1, preference: {} }) })).status?.code, Code.Skip);
  });

  it('filters by spec.nodeSelector', () => {
    assert.deepEqual(filterAll(plugin, makePod('p', { nodeSelector: { zone: 'a' } })), [undefined, POD_REASON, POD_REASON]);
  });

  it('filters by required terms with every operator (terms ORed)', () => {
    const cases: Array<[NodeSelectorTerm[], Array<string | undefined>]> = [
      [[{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }], [undefined, undefined, POD_REASON]],
      [[{ matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }], [POD_REASON, undefined, undefined]],
      [[{ matchExpressions: [{ key: 'disk', operator: 'Exists' }] }], [undefined, POD_REASON, POD_REASON]],
      [[{ matchExpressions: [{ key: 'disk', operator: 'DoesNotExist' }] }], [POD_REASON, undefined, undefined]],
      [[{ matchExpressions: [{ key: 'gen', operator: 'Gt', values: ['3'] }] }], [undefined, POD_REASON, POD_REASON]],
      [[{ matchExpressions: [{ key: 'gen', operator: 'Lt', values: ['3'] }] }], [POD_REASON, undefined, POD_REASON]],
      [[{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] }, { matchExpressions: [{ key: 'disk', operator: 'Exists' }] }], [undefined, undefined, POD_REASON]],
      [[{ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['c'] }] }], [undefined, undefined, POD_REASON]],
      [[{}], [POD_REASON, POD_REASON, POD_REASON]],
    ];
    for (const [terms, want] of cases) assert.deepEqual(filterAll(plugin, makePod('p', { affinity: required(...terms) })), want, JSON.stringify(terms));
  });

  it('requires the nodeSelector and the affinity together', () => {
    const pod = makePod('p', { nodeSelector: { zone: 'a' }, affinity: required({ matchExpressions: [{ key: 'gen', operator: 'Lt', values: ['3'] }] }) });
    assert.deepEqual(filterAll(plugin, pod), [POD_REASON, POD_REASON, POD_REASON]);
  });

  it('narrows PreFilter to the nodes named by matchFields metadata.name in every term', () => {
    const names = (...terms: NodeSelectorTerm[]) => [...(plugin.preFilter(newState(), makePod('p', { affinity: required(...terms) })).result?.nodeNames ?? [])].sort();
    const byName = (...values: string[]): NodeSelectorTerm => ({ matchFields: [{ key: 'metadata.name', operator: 'In', values }] });
    assert.deepEqual(names(byName('a')), ['a']);
    assert.deepEqual(names(byName('a'), byName('b')), ['a', 'b']);
    assert.deepEqual(names({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a', 'b'] }, { key: 'metadata.name', operator: 'In', values: ['b', 'c'] }] }), ['b']);
    // A term that names no node can match any node: no narrowing.
    assert.deepEqual(names(byName('a'), { matchExpressions: [{ key: 'zone', operator: 'Exists' }] }), []);
    assert.equal(plugin.preFilter(newState(), makePod('p', { affinity: required(byName('a'), { matchExpressions: [{ key: 'zone', operator: 'Exists' }] }) })).result, undefined);
    const conflict = plugin.preFilter(
      newState(),
      makePod('p', { affinity: required({ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['a'] }, { key: 'metadata.name', operator: 'In', values: ['b'] }] }) }),
    );
    assert.equal(conflict.status?.code, Code.UnschedulableAndUnresolvable);
    assert.deepEqual(conflict.status?.reasons, ['pod affinity terms conflict']);
  });

  it('filters without PreFilter state (PreFilter disabled)', () => {
    assert.equal(plugin.filter(newState(), makePod('p', { nodeSelector: { zone: 'b' } }), nodeA)?.message(), POD_REASON);
    assert.equal(plugin.filter(newState(), makePod('p', { nodeSelector: { zone: 'a' } }), nodeA), undefined);
  });

  it('enforces args.addedAffinity with its own reason, before the pod\'s', () => {
    const enforced = newNodeAffinity(
      { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'In', values: ['a', 'b'] }] }] } } },
      handle,
    ) as NodeAffinity;
    const state = newState();
    const pod = makePod('p');
    assert.equal(enforced.preFilter(state, pod).status, undefined);
    assert.equal(enforced.filter(state, pod, nodeA), undefined);
    assert.deepEqual(enforced.filter(state, pod, nodeC)?.reasons, ["node(s) didn't match scheduler-enforced node affinity"]);
    assert.deepEqual(filterAll(enforced, makePod('p', { nodeSelector: { zone: 'b' } })), [POD_REASON, undefined, "node(s) didn't match scheduler-enforced node affinity"]);
  });

  it('scores preferred terms by the sum of matching weights, normalized to 100', () => {
    const pod = makePod('p', {
      affinity: preferred(
        { weight: 10, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] } },
        { weight: 30, preference: { matchExpressions: [{ key: 'gen', operator: 'Exists' }] } },
      ),
    });
    const state = newState();
    const nodes = [nodeA, nodeB, nodeC];
    assert.equal(plugin.preScore(state, pod, nodes), undefined);
    const scores = nodes.map((n) => ({ name: n.name, score: plugin.score(state, pod, n) as number }));
    assert.deepEqual(scores.map((s) => s.score), [40, 30, 0]);
    plugin.scoreExtensions().normalizeScore(state, pod, scores);
    assert.deepEqual(scores.map((s) => s.score), [100, 75, 0]);
    assert.equal(plugin.score(newState(), pod, nodeB), 30);
    assert.equal(plugin.preScore(newState(), makePod('q'), nodes)?.code, Code.Skip);
    assert.equal(plugin.preScore(newState(), pod, []), undefined);
  });

  it('adds args.addedAffinity preferred terms to every pod\'s score', () => {
    const p = newNodeAffinity(
      { addedAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 5, preference: { matchExpressions: [{ key: 'zone', operator: 'In', values: ['b'] }] } }] } },
      handle,
    ) as NodeAffinity;
    const state = newState();
    const pod = makePod('q');
    assert.equal(p.preScore(state, pod, [nodeA, nodeB]), undefined);
    assert.deepEqual([nodeA, nodeB].map((n) => p.score(state, pod, n)), [0, 5]);
  });

  it('returns an Error status for preferred terms that do not parse', () => {
    const pod = makePod('p', { affinity: preferred({ weight: 1, preference: { matchExpressions: [{ key: 'zone', operator: 'Bad' }] } }) });
    const status = plugin.preScore(newState(), pod, [nodeA]);
    assert.equal(status?.code, Code.Error);
    assert.match(status?.message() ?? '', /operator: Unsupported value: "Bad"/);
    const s = plugin.score(newState(), pod, nodeA);
    assert.equal(typeof s === 'number' ? s : s.code, Code.Error);
  });

  it('refuses bad args with messages naming the field', () => {
    assert.throws(() => newNodeAffinity('x', handle), /want args to be of type NodeAffinityArgs/);
    assert.throws(() => newNodeAffinity({ addedAffinity: 3 }, handle), /addedAffinity: must be an object/);
    assert.throws(
      () => newNodeAffinity({ addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'zone', operator: 'Foo' }] }] } } }, handle),
      { message: 'addedAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0].matchExpressions[0].operator: Unsupported value: "Foo": supported values: "In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"' },
    );
    assert.throws(
      () => newNodeAffinity({ addedAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 1, preference: { matchFields: [{ key: 'metadata.labels', operator: 'In', values: ['x'] }] } }] } }, handle),
      { message: 'addedAffinity.preferredDuringSchedulingIgnoredDuringExecution[0].preference.matchFields[0].key: Invalid value: "metadata.labels": must be metadata.name' },
    );
    assert.throws(() => newNodeAffinity({ addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: {} } }, handle), /nodeSelectorTerms: must be a list/);
  });

  it('re-queues when a node starts matching the pod (and the added affinity)', () => {
    const [reg] = plugin.eventsToRegister();
    assert.equal(reg?.event.resource, 'Node');
    assert.equal(reg?.event.actionType, ActionType.Add | ActionType.UpdateNodeLabel);
    const pod = makePod('p', { nodeSelector: { zone: 'a' } });
    const a = makeNode('n', { labels: { zone: 'a' } });
    const b = makeNode('n', { labels: { zone: 'b' } });
    assert.equal(reg?.hint?.(pod, undefined, a), QueueingHint.Queue);
    assert.equal(reg?.hint?.(pod, undefined, b), QueueingHint.Skip);
    assert.equal(reg?.hint?.(pod, b, a), QueueingHint.Queue);
    assert.equal(reg?.hint?.(pod, a, a), QueueingHint.Skip);
    assert.equal(reg?.hint?.(pod, a, b), QueueingHint.Skip);
    const enforced = newNodeAffinity(
      { addedAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: 'ok', operator: 'Exists' }] }] } } },
      handle,
    ) as NodeAffinity;
    assert.equal(enforced.eventsToRegister()[0]?.hint?.(pod, undefined, a), QueueingHint.Skip);
    assert.equal(enforced.eventsToRegister()[0]?.hint?.(pod, undefined, makeNode('n', { labels: { zone: 'a', ok: '' } })), QueueingHint.Queue);
  });
});
