import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../../machinery/meta.js';
import { attributesFor } from '../testing/attributes.js';
import { newDefaultTolerationSeconds } from './default-toleration-seconds.js';

function pod(tolerations?: unknown[]): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...(tolerations ? { tolerations } : {}) } } as KubeObject;
}

describe('DefaultTolerationSeconds', () => {
  it('adds the not-ready and unreachable NoExecute tolerations for 300 s', async () => {
    const object = pod();
    await newDefaultTolerationSeconds().admit(attributesFor({ operation: 'CREATE', resource: 'pods', kind: 'Pod', object }));
    assert.deepEqual((object.spec as { tolerations: unknown[] }).tolerations, [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ]);
  });

  it('keeps a pod\'s own toleration of a taint and adds only the missing one, with the configured seconds', async () => {
    const object = pod([{ key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 }]);
    await newDefaultTolerationSeconds({ notReadySeconds: 60 }).admit(attributesFor({ operation: 'CREATE', resource: 'pods', kind: 'Pod', object }));
    assert.deepEqual((object.spec as { tolerations: unknown[] }).tolerations, [
      { key: 'node.kubernetes.io/unreachable', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 10 },
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 60 },
    ]);
  });

  it('adds nothing when a toleration of every taint is present, and leaves other resources alone', async () => {
    const object = pod([{ operator: 'Exists' }]);
    await newDefaultTolerationSeconds().admit(attributesFor({ operation: 'CREATE', resource: 'pods', kind: 'Pod', object }));
    assert.deepEqual((object.spec as { tolerations: unknown[] }).tolerations, [{ operator: 'Exists' }]);
    const binding = pod();
    await newDefaultTolerationSeconds().admit(attributesFor({ operation: 'CREATE', resource: 'pods', subresource: 'binding', kind: 'Binding', object: binding }));
    assert.equal((binding.spec as { tolerations?: unknown[] }).tolerations, undefined);
  });
});
