import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NodeSelectorTerm } from 'kubernetes-types/core/v1.js';
import { makeNode, makePod } from '../inter-pod-affinity/testing/fake-handle.js';
import { hasUntoleratedDoNotScheduleTaint, RequiredNodeAffinity, toleratesTaint } from './node-inclusion.js';

function requiring(terms: NodeSelectorTerm[], nodeSelector?: Record<string, string>): RequiredNodeAffinity {
  return RequiredNodeAffinity.of(
    makePod({ spec: { ...(nodeSelector === undefined ? {} : { nodeSelector }), affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: terms } } } } }),
  );
}

describe('RequiredNodeAffinity', () => {
  const node = makeNode('n1', { disk: 'ssd', cores: '8' });

  it('matches everything for a pod without nodeSelector or required affinity', () => {
    const affinity = RequiredNodeAffinity.of(makePod());
    assert.equal(affinity.isEmpty, true);
    assert.equal(affinity.matches(node), true);
  });

  it('requires every nodeSelector label', () => {
    assert.equal(RequiredNodeAffinity.of(makePod({ spec: { nodeSelector: { disk: 'ssd' } } })).matches(node), true);
    assert.equal(RequiredNodeAffinity.of(makePod({ spec: { nodeSelector: { disk: 'hdd' } } })).matches(node), false);
    assert.equal(requiring([{ matchExpressions: [{ key: 'disk', operator: 'Exists' }] }], { gpu: 'yes' }).matches(node), false);
  });

  it('ORs terms and ANDs their requirements, with every operator', () => {
    assert.equal(requiring([{ matchExpressions: [{ key: 'disk', operator: 'In', values: ['ssd'] }, { key: 'cores', operator: 'Gt', values: ['4'] }] }]).matches(node), true);
    assert.equal(requiring([{ matchExpressions: [{ key: 'disk', operator: 'NotIn', values: ['ssd'] }] }, { matchExpressions: [{ key: 'cores', operator: 'Lt', values: ['9'] }] }]).matches(node), true);
    assert.equal(requiring([{ matchExpressions: [{ key: 'gpu', operator: 'DoesNotExist' }, { key: 'cores', operator: 'Lt', values: ['8'] }] }]).matches(node), false);
    assert.equal(requiring([{ matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }] }]).matches(node), true);
    assert.equal(requiring([{ matchFields: [{ key: 'metadata.name', operator: 'NotIn', values: ['n1'] }] }]).matches(node), false);
  });

  it('never matches empty or invalid terms', () => {
    assert.equal(requiring([]).matches(node), false);
    assert.equal(requiring([{}]).matches(node), false);
    const invalid: NodeSelectorTerm[] = [
      { matchExpressions: [{ key: 'disk', operator: 'Like', values: ['ssd'] }] },
      { matchExpressions: [{ key: 'disk', operator: 'In' }] },
      { matchExpressions: [{ key: 'disk', operator: 'Exists', values: ['x'] }] },
      { matchExpressions: [{ key: 'cores', operator: 'Gt', values: ['many'] }] },
      { matchFields: [{ key: 'metadata.uid', operator: 'In', values: ['n1'] }] },
      { matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1', 'n2'] }] },
    ];
    for (const term of invalid) assert.equal(requiring([term]).matches(node), false, JSON.stringify(term));
  });
});

describe('taints', () => {
  it('tolerations match by effect, key, operator and value', () => {
    const taint = { key: 'k', value: 'v', effect: 'NoSchedule' };
    assert.equal(toleratesTaint({ key: 'k', operator: 'Equal', value: 'v' }, taint), true);
    assert.equal(toleratesTaint({ key: 'k', value: 'v', effect: 'NoExecute' }, taint), false);
    assert.equal(toleratesTaint({ key: 'other', operator: 'Exists' }, taint), false);
    assert.equal(toleratesTaint({ operator: 'Exists' }, taint), true);
    assert.equal(toleratesTaint({ key: 'k', value: 'w' }, taint), false);
    assert.equal(toleratesTaint({ key: 'k', operator: 'Bogus' }, taint), false);
  });

  it('only NoSchedule and NoExecute taints keep a pod away', () => {
    const tainted = makeNode('n', {}, { taints: [{ key: 'a', effect: 'PreferNoSchedule' }, { key: 'b', effect: 'NoExecute' }] });
    assert.equal(hasUntoleratedDoNotScheduleTaint(tainted, undefined), true);
    assert.equal(hasUntoleratedDoNotScheduleTaint(tainted, [{ key: 'b', operator: 'Exists' }]), false);
    assert.equal(hasUntoleratedDoNotScheduleTaint(makeNode('m'), undefined), false);
  });
});
