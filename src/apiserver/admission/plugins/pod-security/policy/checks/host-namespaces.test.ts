import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container, run, specWith } from '../../testing/pods.js';
import { hostNamespaces_1_0 } from './host-namespaces.js';

describe('hostNamespaces check', () => {
  it('allows unset and false', () => {
    assert.equal(run(hostNamespaces_1_0, specWith([container('a')], { hostNetwork: false, hostPID: null })).allowed, true);
  });
  it('lists each shared namespace', () => {
    assert.deepEqual(run(hostNamespaces_1_0, specWith([container('a')], { hostNetwork: true, hostPID: true, hostIPC: true })), {
      allowed: false,
      forbiddenReason: 'host namespaces',
      forbiddenDetail: 'hostNetwork=true, hostPID=true, hostIPC=true',
    });
    assert.equal(run(hostNamespaces_1_0, specWith([container('a')], { hostIPC: true })).forbiddenDetail, 'hostIPC=true');
  });
});
