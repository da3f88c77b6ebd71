import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { KubeObject } from '../../../../machinery/meta.js';
import type { AdmissionAttributes } from '../../interfaces.js';
import { namespaceSelectorMatches, objectSelectorMatches, selectorOf } from './selectors.js';

const obj = (labels: Record<string, string>): KubeObject => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', labels } });
const attrs = (over: Partial<AdmissionAttributes>): AdmissionAttributes =>
  ({
    operation: 'CREATE',
    kind: { group: '', version: 'v1', kind: 'ConfigMap' },
    resource: { group: '', version: 'v1', resource: 'configmaps' },
    subresource: '',
    namespace: 'team-a',
    name: 'x',
    object: undefined,
    oldObject: undefined,
    dryRun: false,
    userInfo: { name: 'u', groups: [] },
    addWarning: () => {},
    addAuditAnnotation: () => {},
    ...over,
  }) as AdmissionAttributes;
const labels = async (name: string) => (name === 'team-a' ? { env: 'prod' } : undefined);

describe('objectSelector', () => {
  it('matches the new or the old object', () => {
    const s = selectorOf({ matchLabels: { hook: 'on' } });
    assert.equal(objectSelectorMatches(s, { object: obj({ hook: 'on' }), oldObject: undefined }), true);
    assert.equal(objectSelectorMatches(s, { object: obj({}), oldObject: obj({ hook: 'on' }) }), true);
    assert.equal(objectSelectorMatches(s, { object: obj({}), oldObject: obj({}) }), false);
    assert.equal(objectSelectorMatches(selectorOf({}), { object: undefined, oldObject: undefined }), true);
  });
});

describe('namespaceSelector', () => {
  const prod = selectorOf({ matchLabels: { env: 'prod' } });
  it("matches the namespace's labels", async () => {
    assert.equal(await namespaceSelectorMatches(prod, attrs({}), labels), true);
    assert.equal(await namespaceSelectorMatches(selectorOf({ matchLabels: { env: 'dev' } }), attrs({}), labels), false);
  });

  it('always matches cluster-scoped requests other than namespaces', async () => {
    assert.equal(await namespaceSelectorMatches(prod, attrs({ namespace: '', resource: { group: '', version: 'v1', resource: 'nodes' } }), labels), true);
  });

  it("judges a namespace's create by its own labels", async () => {
    const ns = { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'new', labels: { env: 'prod' } } };
    const a = attrs({ namespace: '', name: 'new', resource: { group: '', version: 'v1', resource: 'namespaces' }, object: ns });
    assert.equal(await namespaceSelectorMatches(prod, a, labels), true);
  });

  it('is an error when the namespace is missing', async () => {
    await assert.rejects(namespaceSelectorMatches(prod, attrs({ namespace: 'gone' }), labels), /namespace "gone" not found/);
  });
});
