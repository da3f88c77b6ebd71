import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBuiltinScheme } from '../../../../api/resources.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { StatusError } from '../../../../machinery/status.js';
import { newMemoryStorage } from '../../../../storage/memory/memory-storage.js';
import { registryLookup } from '../../../endpoints/installer.js';
import { builtinDefinitions } from '../../../registry/builtin.js';
import { ObjectStorage } from '../../../registry/generic/object-storage.js';
import { Registry } from '../../../registry/registry.js';
import { attributesFor } from '../testing/attributes.js';
import { newPriority } from './priority.js';

async function setup(classes: Array<{ name: string; value: number; globalDefault?: boolean; preemptionPolicy?: string }>) {
  const registry = new Registry({ scheme: newBuiltinScheme(), storage: new ObjectStorage(newMemoryStorage()), prefix: '/registry', definitions: builtinDefinitions(), watchCache: false });
  const store = registry.store('scheduling.k8s.io', 'v1', 'priorityclasses');
  for (const c of classes) {
    await store.create(undefined, { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: c.name }, value: c.value, ...(c.globalDefault ? { globalDefault: true } : {}), ...(c.preemptionPolicy ? { preemptionPolicy: c.preemptionPolicy } : {}) } as KubeObject);
  }
  return { plugin: newPriority({ stores: registryLookup(registry), signal: new AbortController().signal }), registry };
}

function pod(spec: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default' }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } } as KubeObject;
}

const create = (object: KubeObject) => attributesFor({ operation: 'CREATE', resource: 'pods', kind: 'Pod', object });
const specOf = (object: KubeObject) => object.spec as { priority?: number; priorityClassName?: string; preemptionPolicy?: string };

describe('Priority', () => {
  it('sets the priority and preemption policy of the named class', async () => {
    const { plugin } = await setup([{ name: 'high', value: 1000, preemptionPolicy: 'Never' }]);
    const object = pod({ priorityClassName: 'high' });
    await plugin.admit(create(object));
    assert.deepEqual(specOf(object), { ...specOf(object), priority: 1000, preemptionPolicy: 'Never' });
  });

  it('uses the global default class for a pod that names none, and 0 without one', async () => {
    const { plugin } = await setup([{ name: 'low', value: 10 }, { name: 'usual', value: 100, globalDefault: true }]);
    const object = pod();
    await plugin.admit(create(object));
    assert.equal(specOf(object).priority, 100);
    assert.equal(specOf(object).priorityClassName, 'usual');
    const none = await setup([]);
    const plain = pod();
    await none.plugin.admit(create(plain));
    assert.equal(specOf(plain).priority, 0);
  });

  it('refuses an unknown class and a pod that brings its own number, with upstream\'s messages', async () => {
    const { plugin } = await setup([{ name: 'high', value: 1000 }]);
    await assert.rejects(async () => plugin.admit(create(pod({ priorityClassName: 'missing' }))), (e: unknown) => e instanceof StatusError && e.code === 403 && e.message === 'pods "web" is forbidden: no PriorityClass with name missing was found');
    await assert.rejects(
      async () => plugin.admit(create(pod({ priorityClassName: 'high', priority: 5 }))),
      (e: unknown) => e instanceof StatusError && e.message === 'pods "web" is forbidden: the integer value of priority (5) must not be provided in pod spec; priority admission controller computed 1000 from the given PriorityClass name',
    );
  });

  it('keeps the priority on update', async () => {
    const { plugin } = await setup([]);
    const old = pod({ priority: 7, preemptionPolicy: 'Never' });
    const next = pod();
    await plugin.admit(attributesFor({ operation: 'UPDATE', resource: 'pods', kind: 'Pod', object: next, oldObject: old }));
    assert.equal(specOf(next).priority, 7);
    assert.equal(specOf(next).preemptionPolicy, 'Never');
  });

  it('allows one global default PriorityClass only', async () => {
    const { plugin } = await setup([{ name: 'usual', value: 100, globalDefault: true }]);
    const another = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'other' }, value: 5, globalDefault: true } as KubeObject;
    await assert.rejects(
      async () => plugin.validate(attributesFor({ operation: 'CREATE', group: 'scheduling.k8s.io', resource: 'priorityclasses', kind: 'PriorityClass', namespace: '', object: another })),
      (e: unknown) => e instanceof StatusError && e.message === 'priorityclasses.scheduling.k8s.io "other" is forbidden: PriorityClass usual is already marked as default. Only one default can exist',
    );
    const same = { apiVersion: 'scheduling.k8s.io/v1', kind: 'PriorityClass', metadata: { name: 'usual' }, value: 101, globalDefault: true } as KubeObject;
    await plugin.validate(attributesFor({ operation: 'UPDATE', group: 'scheduling.k8s.io', resource: 'priorityclasses', kind: 'PriorityClass', namespace: '', object: same }));
  });
});
