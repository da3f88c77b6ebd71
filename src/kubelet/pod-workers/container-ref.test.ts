import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { containerFieldPath } from './container-ref.js';

describe('containerFieldPath', () => {
  const pod = {
    metadata: { name: 'p' },
    spec: { initContainers: [{ name: 'init' }], containers: [{ name: 'app' }], ephemeralContainers: [{ name: 'debugger' }] },
  };
  it('names the container by its list, as upstream kubelet Events do', () => {
    assert.equal(containerFieldPath(pod, 'app'), 'spec.containers{app}');
    assert.equal(containerFieldPath(pod, 'init'), 'spec.initContainers{init}');
    assert.equal(containerFieldPath(pod, 'debugger'), 'spec.ephemeralContainers{debugger}');
    assert.equal(containerFieldPath(pod, 'gone'), undefined);
  });
});
