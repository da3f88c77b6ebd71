import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { EventRecorder, EventType } from '../../client/record/interface.js';
import type { Client, ResourceClient } from '../../client/rest/interface.js';
import type { KubeObject } from '../../machinery/meta.js';
import { notFound, StatusError } from '../../machinery/status.js';
import { controllerRefOf, newControllerRef, newPodControl, podFromTemplate } from './pod-control.js';

interface Recorded { type: EventType; reason: string; message: string; on: string | undefined }

function recorder(): { recorder: EventRecorder; events: Recorded[] } {
  const events: Recorded[] = [];
  return { events, recorder: { event: (o, type, reason, message) => events.push({ type, reason, message, on: o.metadata.name }) } };
}

/** A client whose pods resource answers create and delete with the given functions (everything else is unused here). */
function podsClient(overrides: Partial<ResourceClient>): Client {
  const unused = (): never => {
    throw new Error('not used by this test');
  };
  const base = { get: unused, list: unused, watch: unused, create: unused, update: unused, updateStatus: unused, patch: unused, delete: unused, getSubresource: unused, createSubresource: unused, updateSubresource: unused };
  return { resource: <T extends KubeObject>() => ({ ...base, ...overrides }) as unknown as ResourceClient<T> };
}

const owner: KubeObject = { apiVersion: 'apps/v1', kind: 'ReplicaSet', metadata: { name: 'web-abc', namespace: 'ns', uid: 'rs-uid' } };
const ref = newControllerRef(owner, { apiVersion: 'apps/v1', kind: 'ReplicaSet' });
const template = {
  metadata: { labels: { app: 'web' }, annotations: { a: 'b' }, finalizers: ['f'] },
  spec: { containers: [{ name: 'c', image: 'nginx' }] },
};

describe('pod control', () => {
  it('newControllerRef: controller and blockOwnerDeletion', () => {
    assert.deepEqual(ref, { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc', uid: 'rs-uid', controller: true, blockOwnerDeletion: true });
    assert.equal(controllerRefOf({ metadata: { ownerReferences: [{ ...ref, controller: false }, ref] } }), ref);
    assert.equal(controllerRefOf({ metadata: {} }), undefined);
  });

  it('podFromTemplate: generateName, labels, annotations, finalizers, owner, spec copied', () => {
    const pod = podFromTemplate(template, owner, ref);
    assert.deepEqual(pod.metadata, {
      generateName: 'web-abc-',
      namespace: 'ns',
      labels: { app: 'web' },
      annotations: { a: 'b' },
      finalizers: ['f'],
      ownerReferences: [ref],
    });
    assert.notEqual(pod.spec, template.spec);
    assert.deepEqual(pod.spec, template.spec);
  });

  it('podFromTemplate refuses a template without labels', () => {
    assert.throws(() => podFromTemplate({ spec: { containers: [] } }, owner, ref), /unable to create pods, no labels/);
  });

  it('createPod records SuccessfulCreate with the generated name', async () => {
    const { recorder: r, events } = recorder();
    const created: KubeObject[] = [];
    const control = newPodControl(podsClient({ create: async (o) => { created.push(o); return { ...o, metadata: { ...o.metadata, name: 'web-abc-x1' } }; } }), r);
    const pod = await control.createPod({ template, owner, controllerRef: ref });
    assert.equal(pod.metadata.name, 'web-abc-x1');
    assert.equal(created.length, 1);
    assert.deepEqual(events, [{ type: 'Normal', reason: 'SuccessfulCreate', message: 'Created pod: web-abc-x1', on: 'web-abc' }]);
  });

  it('createPod failure: Warning FailedCreate, rejects; none for a terminating namespace', async () => {
    const { recorder: r, events } = recorder();
    const forbidden = new StatusError({ code: 403, reason: 'Forbidden', message: 'pods "x" is forbidden: exceeded quota' });
    await assert.rejects(newPodControl(podsClient({ create: async () => { throw forbidden; } }), r).createPod({ template, owner, controllerRef: ref }), forbidden);
    assert.deepEqual(events, [{ type: 'Warning', reason: 'FailedCreate', message: 'Error creating: pods "x" is forbidden: exceeded quota', on: 'web-abc' }]);
    const terminating = new StatusError({ code: 403, reason: 'Forbidden', message: 'namespace ns is being terminated', details: { causes: [{ reason: 'NamespaceTerminating' }] } });
    await assert.rejects(newPodControl(podsClient({ create: async () => { throw terminating; } }), r).createPod({ template, owner, controllerRef: ref }));
    assert.equal(events.length, 1);
  });

  it('deletePod records SuccessfulDelete; a failure FailedDelete; NotFound rejects without an Event', async () => {
    const { recorder: r, events } = recorder();
    const deleted: string[] = [];
    await newPodControl(podsClient({ delete: async (name) => { deleted.push(name); return undefined; } }), r).deletePod({ namespace: 'ns', name: 'p1', owner });
    assert.deepEqual(deleted, ['p1']);
    assert.deepEqual(events.at(-1), { type: 'Normal', reason: 'SuccessfulDelete', message: 'Deleted pod: p1', on: 'web-abc' });
    const boom = new StatusError({ code: 500, reason: 'InternalError', message: 'boom' });
    await assert.rejects(newPodControl(podsClient({ delete: async () => { throw boom; } }), r).deletePod({ namespace: 'ns', name: 'p2', owner }), boom);
    assert.deepEqual(events.at(-1), { type: 'Warning', reason: 'FailedDelete', message: 'Error deleting: boom', on: 'web-abc' });
    const gone = notFound({ group: '', resource: 'pods' }, 'p3');
    await assert.rejects(newPodControl(podsClient({ delete: async () => { throw gone; } }), r).deletePod({ namespace: 'ns', name: 'p3', owner }), gone);
    assert.equal(events.length, 2);
  });
});
