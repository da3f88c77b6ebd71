import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Code } from '../../framework/status.js';
import type { Pod } from '../../framework/types.js';
import { makeHandle, makeNode, makeNodeInfo, makePod, newState } from '../helper/test-fixtures.js';
import { NAME, NodeResourcesBalancedAllocation, balancedResourceScore, newNodeResourcesBalancedAllocation } from './node-resources-balanced-allocation.js';

const handle = makeHandle();
const plugin = (args?: unknown) => newNodeResourcesBalancedAllocation(args, handle) as NodeResourcesBalancedAllocation;
const allocatable = { cpu: '4', memory: '8Gi', pods: '110', 'example.com/gpu': '4' };

function runScore(p: NodeResourcesBalancedAllocation, pod: Pod, ...assigned: Pod[]): number {
  const state = newState();
  assert.equal(p.preScore(state, pod), undefined);
  return p.score(state, pod, makeNodeInfo(makeNode('n', { allocatable }), ...assigned)) as number;
}

describe('NodeResourcesBalancedAllocation', () => {
  it('is named as upstream', () => assert.equal(NAME, 'NodeResourcesBalancedAllocation'));

  it('scores 100 × (1 − |cpu fraction − memory fraction| / 2) on requests, the node\'s included', () => {
    assert.equal(runScore(plugin(), makePod('p', { requests: { cpu: '1', memory: '2Gi' } })), 100);
    // cpu 2/4 = 0.5, memory 2/8 = 0.25 → std 0.125 → 87.5 → 87
    assert.equal(runScore(plugin(), makePod('p', { requests: { cpu: '2', memory: '2Gi' } })), 87);
    // with an assigned pod: cpu 3/4, memory 2/8 → std 0.25 → 75
    assert.equal(runScore(plugin(), makePod('p', { requests: { cpu: '2', memory: '1Gi' } }), makePod('a', { nodeName: 'n', requests: { cpu: '1', memory: '1Gi' } })), 75);
    // fractions are capped at 1: cpu 8/4 → 1, memory 0 → std 0.5 → 50
    assert.equal(runScore(plugin(), makePod('p', { requests: { cpu: '8' } })), 50);
  });

  it('uses the standard deviation for three resources or more, and a single fraction scores 100', () => {
    assert.equal(balancedResourceScore([1, 2, 3], [4, 4, 4]), Math.trunc((1 - Math.sqrt(((0.25 - 0.5) ** 2 + 0 + 0.25 ** 2) / 3)) * 100));
    assert.equal(balancedResourceScore([1], [4]), 100);
    assert.equal(balancedResourceScore([1, 1], [0, 0]), 100);
    const three = plugin({ resources: [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }, { name: 'example.com/gpu', weight: 1 }] });
    // cpu 0.25, memory 0.25, gpu 1 → mean 0.5, std √(0.125/… ) 
    const expected = Math.trunc((1 - Math.sqrt((0.0625 + 0.0625 + 0.25) / 3)) * 100);
    assert.equal(runScore(three, makePod('p', { requests: { cpu: '1', memory: '2Gi', 'example.com/gpu': '4' } })), expected);
    // A scalar resource the pod does not request is left out.
    assert.equal(runScore(three, makePod('p', { requests: { cpu: '1', memory: '2Gi' } })), 100);
  });

  it('skips best-effort pods in PreScore, and scores 0 for them without PreScore', () => {
    assert.equal(plugin().preScore(newState(), makePod('p'))?.code, Code.Skip);
    assert.equal(plugin().score(newState(), makePod('p'), makeNodeInfo(makeNode('n', { allocatable }))), 0);
    assert.equal(plugin().score(newState(), makePod('p', { requests: { cpu: '2', memory: '2Gi' } }), makeNodeInfo(makeNode('n', { allocatable }))), 87);
    assert.equal(plugin().scoreExtensions(), undefined);
  });

  it('defaults resources to cpu and memory, weight 0 to 1', () => {
    assert.deepEqual(plugin().args.resources, [{ name: 'cpu', weight: 1 }, { name: 'memory', weight: 1 }]);
    assert.deepEqual(plugin({ resources: [{ name: 'cpu' }] }).args.resources, [{ name: 'cpu', weight: 1 }]);
  });

  it('refuses bad args with upstream messages naming the field', () => {
    assert.throws(() => plugin('x'), { message: 'want args to be of type NodeResourcesBalancedAllocationArgs, got string' });
    assert.throws(() => plugin({ resources: {} }), { message: 'resources: must be a list, got object' });
    assert.throws(() => plugin({ resources: [{ name: 'cpu', weight: 2 }] }), { message: 'resources[0].weight: Invalid value: 2: must be 1' });
    assert.throws(() => plugin({ resources: [{ name: 'cpu', weight: 1 }, { name: 'cpu', weight: 1 }] }), { message: 'resources[1].name: Duplicate value: "cpu"' });
    assert.throws(
      () => plugin({ resources: [{ name: 'cpu', weight: 3 }, { name: 'cpu', weight: 1 }] }),
      { message: '[resources[0].weight: Invalid value: 3: must be 1, resources[1].name: Duplicate value: "cpu"]' },
    );
  });
});
