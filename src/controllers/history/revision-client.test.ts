import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newFakeClient } from '../../client/testing/fake-client.js';
import { newInformerFactory } from '../../client/cache/informer-factory.js';
import { CONTROLLER_REVISIONS } from '../../client/rest/resources.js';
import { labelSelectorFromObject } from '../../machinery/selectors/label-selector.js';
import { CONTROLLER_REVISION_HASH_LABEL, hashControllerRevision, newControllerRevision, templatePatch, type ControllerRevisionObject } from './controller-revision.js';
import { createControllerRevision, listOwnedOrOrphanRevisions, renumberControllerRevision } from './revision-client.js';

const owner = { metadata: { name: 'web', namespace: 'ns', uid: 'u1' }, spec: { template: { metadata: { labels: { app: 'web' } }, spec: { containers: [] } } } };
const ref = { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'web', uid: 'u1', controller: true };
const revision = (image: string, number = 1): ControllerRevisionObject =>
  newControllerRevision({
    owner,
    controllerRef: ref,
    templateLabels: { app: 'web' },
    data: templatePatch({ spec: { template: { spec: { containers: [{ name: 'c', image }] } } } }),
    revision: number,
    collisionCount: 0,
  });

describe('ControllerRevision client helpers', () => {
  it('creates a revision named by its hash, and answers the existing one for the same data', async () => {
    const client = newFakeClient();
    const revisions = client.resource<ControllerRevisionObject>(CONTROLLER_REVISIONS);
    const first = await createControllerRevision({ client: revisions, owner, revision: revision('a'), collisionCount: 0 });
    assert.equal(first.collisionCount, 0);
    assert.equal(first.revision.metadata.name, `web-${hashControllerRevision(revision('a'), 0)}`);
    const again = await createControllerRevision({ client: revisions, owner, revision: revision('a'), collisionCount: 0 });
    assert.equal(again.revision.metadata.uid, first.revision.metadata.uid);
  });

  it('raises the collision count when the name is taken by other data', async () => {
    const client = newFakeClient();
    const revisions = client.resource<ControllerRevisionObject>(CONTROLLER_REVISIONS);
    const squatter = revision('other');
    squatter.metadata.name = `web-${hashControllerRevision(revision('a'), 0)}`;
    await revisions.create(squatter, { namespace: 'ns' });
    const created = await createControllerRevision({ client: revisions, owner, revision: revision('a'), collisionCount: 0 });
    assert.equal(created.collisionCount, 1);
    assert.equal(created.revision.metadata.name, `web-${hashControllerRevision(revision('a'), 1)}`);
    assert.equal(created.revision.metadata.labels?.[CONTROLLER_REVISION_HASH_LABEL], hashControllerRevision(revision('a'), 1));
    await assert.rejects(createControllerRevision({ client: revisions, owner, revision: revision('a'), collisionCount: 0, maxCollisions: 0 }), /too many name collisions/);
  });

  it('passes other errors on', async () => {
    const client = newFakeClient();
    client.injectError('create', 'controllerrevisions', new Error('boom'));
    await assert.rejects(createControllerRevision({ client: client.resource(CONTROLLER_REVISIONS), owner, revision: revision('a'), collisionCount: 0 }), /boom/);
  });

  it('renumbers a revision (and does not write when the number is already right)', async () => {
    const client = newFakeClient();
    const revisions = client.resource<ControllerRevisionObject>(CONTROLLER_REVISIONS);
    const { revision: created } = await createControllerRevision({ client: revisions, owner, revision: revision('a'), collisionCount: 0 });
    assert.equal(await renumberControllerRevision(revisions, created, 1), created);
    assert.equal((await renumberControllerRevision(revisions, created, 5)).revision, 5);
  });

  it('lists the revisions an owner controls or nobody controls, matching its selector', async () => {
    const client = newFakeClient();
    const mine = revision('a');
    const orphan = { ...revision('b'), metadata: { ...revision('b').metadata, ownerReferences: [] } };
    const theirs = { ...revision('c'), metadata: { ...revision('c').metadata, ownerReferences: [{ ...ref, uid: 'u2' }] } };
    const unlabelled = { ...revision('d'), metadata: { ...revision('d').metadata, labels: {} } };
    client.seed(CONTROLLER_REVISIONS, [mine, orphan, theirs, unlabelled]);
    const informers = newInformerFactory(client);
    const informer = informers.informerFor<ControllerRevisionObject>(CONTROLLER_REVISIONS);
    informers.start();
    await informers.waitForCacheSync();
    const listed = listOwnedOrOrphanRevisions(informer.indexer, owner, labelSelectorFromObject({ matchLabels: { app: 'web' } }));
    assert.deepEqual(listed.map((r) => r.metadata.name).sort(), [mine.metadata.name, orphan.metadata.name].sort());
    informers.stop();
  });
});
