import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ResourceClient } from '../../client/rest/interface.js';
import type { KubeObject, OwnerReference } from '../../machinery/meta.js';
import { labelSelectorFromObject } from '../../machinery/selectors/label-selector.js';
import { notFound, StatusError } from '../../machinery/status.js';
import { claimObjects, recheckOwner } from './controller-ref.js';

const owner: KubeObject = { metadata: { name: 'rs', namespace: 'ns', uid: 'owner' } };
const ref: OwnerReference = { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'rs', uid: 'owner', controller: true, blockOwnerDeletion: true };
const selector = labelSelectorFromObject({ matchLabels: { app: 'web' } });

const obj = (name: string, labels: Record<string, string>, controller?: string, extra: Partial<KubeObject['metadata']> = {}): KubeObject => ({
  metadata: { name, namespace: 'ns', uid: `uid-${name}`, labels, ...(controller ? { ownerReferences: [{ ...ref, uid: controller }] } : {}), ...extra },
});

interface Patch { name: string; type: string; body: unknown }

function patchingClient(fail: (name: string) => unknown = () => undefined): { client: ResourceClient; patches: Patch[] } {
  const patches: Patch[] = [];
  const client = {
    patch: async (name: string, type: string, body: unknown) => {
      const error = fail(name);
      if (error !== undefined) throw error;
      patches.push({ name, type, body });
      return { metadata: { name, namespace: 'ns', ownerReferences: [ref] } };
    },
  } as unknown as ResourceClient;
  return { client, patches };
}

describe('claimObjects (ControllerRefManager)', () => {
  it('keeps matching owned objects, adopts matching orphans, releases owned that stopped matching, ignores others', async () => {
    const { client, patches } = patchingClient();
    const claimed = await claimObjects(
      [obj('mine', { app: 'web' }, 'owner'), obj('orphan', { app: 'web' }), obj('strayed', { app: 'db' }, 'owner'), obj('theirs', { app: 'web' }, 'other'), obj('unrelated', { app: 'db' })],
      { owner, controllerRef: ref, selector, client },
    );
    assert.deepEqual(claimed.map((o) => o.metadata.name), ['mine', 'orphan']);
    assert.deepEqual(patches, [
      { name: 'orphan', type: 'strategic', body: { metadata: { ownerReferences: [ref], uid: 'uid-orphan' } } },
      { name: 'strayed', type: 'strategic', body: { metadata: { ownerReferences: [{ $patch: 'delete', uid: 'owner' }], uid: 'uid-strayed' } } },
    ]);
  });

  it('an owner being deleted adopts nothing and releases nothing', async () => {
    const { client, patches } = patchingClient();
    const deleting = { metadata: { ...owner.metadata, deletionTimestamp: '2024-01-01T00:00:00Z' } };
    const claimed = await claimObjects([obj('orphan', { app: 'web' }), obj('strayed', { app: 'db' }, 'owner'), obj('mine', { app: 'web' }, 'owner')], { owner: deleting, controllerRef: ref, selector, client });
    assert.deepEqual(claimed.map((o) => o.metadata.name), ['mine']);
    assert.deepEqual(patches, []);
  });

  it('orphans being deleted or not adoptable are left alone', async () => {
    const { client, patches } = patchingClient();
    const claimed = await claimObjects([obj('dying', { app: 'web' }, undefined, { deletionTimestamp: 'x' }), obj('done', { app: 'web' })], {
      owner, controllerRef: ref, selector, client, adoptable: (o) => o.metadata.name !== 'done',
    });
    assert.deepEqual(claimed, []);
    assert.deepEqual(patches, []);
  });

  it('canAdopt is called once; its failure rejects the claim and adopts nothing', async () => {
    const { client, patches } = patchingClient();
    let calls = 0;
    const canAdopt = async (): Promise<void> => {
      calls++;
      throw new Error('rs has just been deleted');
    };
    await assert.rejects(claimObjects([obj('a', { app: 'web' }), obj('b', { app: 'web' })], { owner, controllerRef: ref, selector, client, canAdopt }), /just been deleted/);
    assert.equal(calls, 1);
    assert.deepEqual(patches, []);
  });

  it('an object gone meanwhile is skipped; other patch errors reject after trying the rest', async () => {
    const boom = new StatusError({ code: 500, reason: 'InternalError', message: 'boom' });
    const { client, patches } = patchingClient((name) => (name === 'gone' ? notFound({ group: '', resource: 'pods' }, name) : name === 'bad' ? boom : undefined));
    await assert.rejects(claimObjects([obj('gone', { app: 'web' }), obj('bad', { app: 'web' }), obj('good', { app: 'web' })], { owner, controllerRef: ref, selector, client }), boom);
    assert.deepEqual(patches.map((p) => p.name), ['good']);
    const released = patchingClient((name) => (name === 'gone' ? notFound({ group: '', resource: 'pods' }, name) : undefined));
    assert.deepEqual(await claimObjects([obj('gone', { app: 'db' }, 'owner')], { owner, controllerRef: ref, selector, client: released.client }), []);
    const failing = patchingClient(() => boom);
    await assert.rejects(claimObjects([obj('x', { app: 'db' }, 'owner')], { owner, controllerRef: ref, selector, client: failing.client }), boom);
  });
});

describe('recheckOwner', () => {
  it('passes for the same uid without deletionTimestamp; rejects a replaced or deleting owner', async () => {
    await recheckOwner(async () => owner, owner)();
    await assert.rejects(recheckOwner(async () => ({ metadata: { ...owner.metadata, uid: 'new' } }), owner)(), /original ns\/rs is gone: got uid new, wanted owner/);
    await assert.rejects(recheckOwner(async () => ({ metadata: { ...owner.metadata, deletionTimestamp: 'T' } }), owner)(), /ns\/rs has just been deleted at T/);
  });
});
