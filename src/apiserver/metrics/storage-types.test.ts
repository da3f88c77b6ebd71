import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBuiltinScheme } from '../../api/resources.js';
import { builtinDefinitions } from '../registry/builtin.js';
import { newStorageTypeResolver, storedResources } from './storage-types.js';

describe('storage type of a key', () => {
  const typeOf = newStorageTypeResolver('/registry', storedResources(newBuiltinScheme(), builtinDefinitions()));

  const cases: [key: string, type: string][] = [
    ['/registry/pods/default/web', 'pods'],
    ['/registry/pods/', 'pods'],
    ['/registry/pods', 'pods'],
    ['/registry/namespaces/default', 'namespaces'],
    ['/registry/deployments/default/web', 'deployments.apps'],
    ['/registry/minions/node-1', 'nodes'],
    ['/registry/services/specs/default/kubernetes', 'services'],
    ['/registry/services/endpoints/default/kubernetes', 'endpoints'],
    ['/registry/services/endpoints/', 'endpoints'],
    // events.k8s.io/v1 Events are core/v1 Events in storage.
    ['/registry/events/default/e', 'events'],
    ['/registry/no-such-thing/x', 'no-such-thing'],
    ['/elsewhere/pods/x', ''],
  ];
  for (const [key, type] of cases) {
    it(`${key} → "${type}"`, () => assert.equal(typeOf(key), type));
  }

  it('follows --etcd-prefix, with or without a trailing slash', () => {
    const resources = [{ path: 'services/specs', group: '', resource: 'services' }];
    assert.equal(newStorageTypeResolver('/k8s/', resources)('/k8s/services/specs/a/b'), 'services');
    assert.equal(newStorageTypeResolver('/k8s', resources)('/k8s/services/specs/a/b'), 'services');
    assert.equal(newStorageTypeResolver('/k8s', resources)('/registry/services/specs/a/b'), '');
  });
});
