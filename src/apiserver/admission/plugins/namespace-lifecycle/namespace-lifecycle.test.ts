import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../../../../machinery/status.js';
import { attributesFor } from '../testing/attributes.js';
import { newNamespaceLifecycle } from './namespace-lifecycle.js';

describe('NamespaceLifecycle', () => {
  const plugin = newNamespaceLifecycle();

  it('refuses to delete default, kube-system and kube-public with upstream\'s message', async () => {
    for (const name of ['default', 'kube-system', 'kube-public']) {
      const a = attributesFor({ operation: 'DELETE', resource: 'namespaces', kind: 'Namespace', namespace: '', name });
      await assert.rejects(
        async () => plugin.validate(a),
        (e: unknown) => e instanceof StatusError && e.code === 403 && e.message === `namespaces "${name}" is forbidden: this namespace may not be deleted`,
      );
    }
  });

  it('lets other namespaces and other resources be deleted', async () => {
    await plugin.validate(attributesFor({ operation: 'DELETE', resource: 'namespaces', kind: 'Namespace', namespace: '', name: 'team-a' }));
    await plugin.validate(attributesFor({ operation: 'DELETE', resource: 'configmaps', kind: 'ConfigMap', namespace: 'default', name: 'default' }));
    assert.equal(plugin.handles('CREATE'), false);
  });
});
