import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container, run, specWith } from '../../testing/pods.js';
import { hostPathVolumes_1_0 } from './host-path-volumes.js';

describe('hostPathVolumes check', () => {
  it('allows other volume types', () => {
    assert.equal(run(hostPathVolumes_1_0, specWith([container('a')], { volumes: [{ name: 'e', emptyDir: {} }, { name: 'n', hostPath: null }] })).allowed, true);
  });
  it('names the hostPath volumes', () => {
    assert.deepEqual(run(hostPathVolumes_1_0, specWith([container('a')], { volumes: [{ name: 'h', hostPath: { path: '/' } }] })), {
      allowed: false,
      forbiddenReason: 'hostPath volumes',
      forbiddenDetail: 'volume "h"',
    });
    const two = specWith([container('a')], { volumes: [{ name: 'h1', hostPath: { path: '/' } }, { name: 'e', emptyDir: {} }, { name: 'h2', hostPath: { path: '/x' } }] });
    assert.equal(run(hostPathVolumes_1_0, two).forbiddenDetail, 'volumes "h1", "h2"');
  });
});
