import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container, run, specWith } from '../../testing/pods.js';
import { windowsHostProcess_1_0 } from './windows-host-process.js';

describe('windowsHostProcess check', () => {
  it('allows unset and false', () => {
    assert.equal(run(windowsHostProcess_1_0, specWith([container('a', { windowsOptions: { hostProcess: false } })])).allowed, true);
  });
  it('names the pod and the containers', () => {
    const spec = specWith([container('a', { windowsOptions: { hostProcess: true } }), container('b', { windowsOptions: { hostProcess: true } })], {
      securityContext: { windowsOptions: { hostProcess: true } },
    });
    assert.deepEqual(run(windowsHostProcess_1_0, spec), {
      allowed: false,
      forbiddenReason: 'hostProcess',
      forbiddenDetail: 'pod and containers "a", "b" must not set securityContext.windowsOptions.hostProcess=true',
    });
  });
  it('names the pod alone', () => {
    const spec = specWith([container('a')], { securityContext: { windowsOptions: { hostProcess: true } } });
    assert.equal(run(windowsHostProcess_1_0, spec).forbiddenDetail, 'pod must not set securityContext.windowsOptions.hostProcess=true');
  });
});
