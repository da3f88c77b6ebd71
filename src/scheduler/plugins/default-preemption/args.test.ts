import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { calculateNumCandidates, parseDefaultPreemptionArgs } from './args.js';

describe('DefaultPreemptionArgs', () => {
  it('defaults to 10% and 100 nodes, also field by field', () => {
    assert.deepEqual(parseDefaultPreemptionArgs(undefined), { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 });
    assert.deepEqual(parseDefaultPreemptionArgs({ kind: 'DefaultPreemptionArgs', minCandidateNodesAbsolute: 5 }), { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 5 });
  });

  it('rejects values out of range with upstream messages', () => {
    assert.throws(() => parseDefaultPreemptionArgs({ minCandidateNodesPercentage: 101 }), { message: 'minCandidateNodesPercentage: Invalid value: 101: not in valid range [0, 100]' });
    assert.throws(() => parseDefaultPreemptionArgs({ minCandidateNodesAbsolute: -1 }), { message: 'minCandidateNodesAbsolute: Invalid value: -1: not in valid range [0, inf)' });
    assert.throws(() => parseDefaultPreemptionArgs({ minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 0 }), {
      message:
        '[minCandidateNodesPercentage: Invalid value: 0: cannot be zero at the same time as minCandidateNodesAbsolute, minCandidateNodesAbsolute: Invalid value: 0: cannot be zero at the same time as minCandidateNodesPercentage]',
    });
  });

  it('rejects malformed args', () => {
    assert.throws(() => parseDefaultPreemptionArgs('ten'), /want an object/);
    assert.throws(() => parseDefaultPreemptionArgs({ minCandidateNodesPercentage: '10' }), /minCandidateNodesPercentage must be an integer/);
    assert.throws(() => parseDefaultPreemptionArgs({ minCandidateNodesPercentage: 1.5 }), /must be an integer/);
    assert.throws(() => parseDefaultPreemptionArgs({ minCandidateNodes: 3 }), /unknown field "minCandidateNodes"/);
  });

  it('looks for max(percentage, absolute) candidates, at most the number of nodes', () => {
    const args = { minCandidateNodesPercentage: 10, minCandidateNodesAbsolute: 100 };
    assert.equal(calculateNumCandidates(args, 50), 50);
    assert.equal(calculateNumCandidates(args, 5000), 500);
    assert.equal(calculateNumCandidates(args, 1005), 100);
    assert.equal(calculateNumCandidates({ minCandidateNodesPercentage: 0, minCandidateNodesAbsolute: 2 }, 10), 2);
  });
});
