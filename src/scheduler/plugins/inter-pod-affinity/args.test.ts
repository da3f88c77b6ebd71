import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseInterPodAffinityArgs } from './args.js';

describe('InterPodAffinityArgs', () => {
  it('defaults hardPodAffinityWeight to 1 and ignorePreferredTermsOfExistingPods to false', () => {
    assert.deepEqual(parseInterPodAffinityArgs(undefined), { hardPodAffinityWeight: 1, ignorePreferredTermsOfExistingPods: false });
    assert.deepEqual(parseInterPodAffinityArgs({}), { hardPodAffinityWeight: 1, ignorePreferredTermsOfExistingPods: false });
  });

  it('accepts weights 0 to 100, the kind and apiVersion of the config file', () => {
    assert.equal(parseInterPodAffinityArgs({ hardPodAffinityWeight: 0 }).hardPodAffinityWeight, 0);
    const args = parseInterPodAffinityArgs({ apiVersion: 'kubescheduler.config.k8s.io/v1', kind: 'InterPodAffinityArgs', hardPodAffinityWeight: 100, ignorePreferredTermsOfExistingPods: true });
    assert.deepEqual(args, { hardPodAffinityWeight: 100, ignorePreferredTermsOfExistingPods: true });
  });

  it('rejects a weight out of range with upstream message', () => {
    assert.throws(() => parseInterPodAffinityArgs({ hardPodAffinityWeight: 101 }), { message: 'hardPodAffinityWeight: Invalid value: 101: not in valid range [0-100]' });
    assert.throws(() => parseInterPodAffinityArgs({ hardPodAffinityWeight: -1 }), { message: 'hardPodAffinityWeight: Invalid value: -1: not in valid range [0-100]' });
  });

  it('rejects values of the wrong type, unknown fields, another kind and non-objects', () => {
    assert.throws(() => parseInterPodAffinityArgs({ hardPodAffinityWeight: 1.5 }), /hardPodAffinityWeight: must be an integer, got 1.5/);
    assert.throws(() => parseInterPodAffinityArgs({ hardPodAffinityWeight: '2' }), /hardPodAffinityWeight: must be an integer/);
    assert.throws(() => parseInterPodAffinityArgs({ ignorePreferredTermsOfExistingPods: 'yes' }), /ignorePreferredTermsOfExistingPods: must be a boolean/);
    assert.throws(() => parseInterPodAffinityArgs({ hardPodAffinityWieght: 2 }), /strict decoding error: unknown field "hardPodAffinityWieght"/);
    assert.throws(() => parseInterPodAffinityArgs({ kind: 'NodeAffinityArgs' }), /want args to be of type InterPodAffinityArgs, got NodeAffinityArgs/);
    assert.throws(() => parseInterPodAffinityArgs(7), /want args to be of type InterPodAffinityArgs, got number/);
    assert.throws(() => parseInterPodAffinityArgs([]), /got array/);
  });
});
