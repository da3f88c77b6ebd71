import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBuiltinScheme } from '../../../../api/resources.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { newMemoryStorage } from '../../../../storage/memory/memory-storage.js';
import { registryLookup } from '../../../endpoints/installer.js';
import { builtinDefinitions } from '../../../registry/builtin.js';
import { ObjectStorage } from '../../../registry/generic/object-storage.js';
import { Registry } from '../../../registry/registry.js';
import { attributesFor } from '../testing/attributes.js';
import { defaultIngressClass, newDefaultIngressClass } from './default-ingress-class.js';

const IS_DEFAULT = { 'ingressclass.kubernetes.io/is-default-class': 'true' };

async function setup(classes: Array<{ name: string; isDefault?: boolean }>) {
  const registry = new Registry({ scheme: newBuiltinScheme(), storage: new ObjectStorage(newMemoryStorage()), prefix: '/registry', definitions: builtinDefinitions(), watchCache: false });
  const store = registry.store('networking.k8s.io', 'v1', 'ingressclasses');
  for (const c of classes) {
    const metadata = { name: c.name, ...(c.isDefault ? { annotations: IS_DEFAULT } : {}) };
    await store.create(undefined, { apiVersion: 'networking.k8s.io/v1', kind: 'IngressClass', metadata, spec: { controller: 'example.com/ingress' } } as KubeObject);
  }
  return newDefaultIngressClass({ stores: registryLookup(registry), signal: new AbortController().signal });
}

function ingress(spec: Record<string, unknown> = {}, annotations?: Record<string, string>): KubeObject {
  const metadata = { name: 'web', namespace: 'default', ...(annotations ? { annotations } : {}) };
  return { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata, spec: { defaultBackend: { service: { name: 'web', port: { number: 80 } } }, ...spec } } as KubeObject;
}

const create = (object: KubeObject, subresource = '') => attributesFor({ operation: 'CREATE', group: 'networking.k8s.io', resource: 'ingresses', kind: 'Ingress', object, subresource });
const className = (object: KubeObject) => (object.spec as { ingressClassName?: string }).ingressClassName;

describe('DefaultIngressClass', () => {
  it('sets the default class on an Ingress that names none', async () => {
    const plugin = await setup([{ name: 'other' }, { name: 'nginx', isDefault: true }]);
    const object = ingress();
    await plugin.admit(create(object));
    assert.equal(className(object), 'nginx');
  });

  it('leaves an Ingress that names a class, by field or by the legacy annotation, and does nothing without a default', async () => {
    const plugin = await setup([{ name: 'nginx', isDefault: true }]);
    const named = ingress({ ingressClassName: 'other' });
    await plugin.admit(create(named));
    assert.equal(className(named), 'other');
    const annotated = ingress({}, { 'kubernetes.io/ingress.class': 'legacy' });
    await plugin.admit(create(annotated));
    assert.equal(className(annotated), undefined);
    const none = await setup([{ name: 'nginx' }]);
    const plain = ingress();
    await none.admit(create(plain));
    assert.equal(className(plain), undefined);
    assert.equal(plugin.handles('UPDATE'), false);
  });

  it('chooses the newest of several defaults, then the first name', () => {
    const c = (name: string, creationTimestamp: string) => ({ metadata: { name, creationTimestamp, annotations: IS_DEFAULT } });
    assert.equal(defaultIngressClass([c('a', '2024-01-01T00:00:00Z'), c('b', '2024-02-01T00:00:00Z'), { metadata: { name: 'z', creationTimestamp: '2025-01-01T00:00:00Z' } }])?.metadata?.name, 'b');
    assert.equal(defaultIngressClass([c('d', '2024-01-01T00:00:00Z'), c('c', '2024-01-01T00:00:00Z')])?.metadata?.name, 'c');
    assert.equal(defaultIngressClass([{ metadata: { name: 'x', annotations: { 'ingressclass.kubernetes.io/is-default-class': 'false' } } }]), undefined);
  });
});
