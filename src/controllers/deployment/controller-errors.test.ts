import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { defaultDeployment } from '../../api/apps/v1/defaults.js';
import { objectKey } from '../../client/cache/interfaces.js';
import { DEPLOYMENTS, REPLICA_SETS } from '../../client/rest/resources.js';
import { StatusError } from '../../machinery/status.js';
import { newFakeClient } from '../../client/testing/fake-client.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import type { DeploymentObject, ReplicaSetObject } from '../util/types.js';
import type { KeyQueue } from '../util/key-queue.js';
import { newDeploymentController } from './controller.js';
import { computeTemplateHash } from './hash.js';

const contexts: TestContext[] = [];
afterEach(() => {
  for (const t of contexts.splice(0)) t.stop();
});

const queue: KeyQueue = { enqueue: () => {}, enqueueAfter: () => {} };

function deployment(spec: Partial<NonNullable<DeploymentObject['spec']>> = {}): DeploymentObject {
  const d: DeploymentObject = {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'ns' },
    spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } }, ...spec },
  };
  defaultDeployment(d);
  return d;
}

async function setup(d: DeploymentObject, replicaSets: ReplicaSetObject[] = []): Promise<{ t: TestContext; d: DeploymentObject; sync: () => Promise<unknown> }> {
  const t = newTestContext();
  contexts.push(t);
  const [stored] = t.client.seed(DEPLOYMENTS, [d]);
  t.client.seed(REPLICA_SETS, replicaSets);
  const controller = newDeploymentController(t.ctx, queue);
  t.start();
  await t.informers.waitForCacheSync();
  return { t, d: stored!, sync: () => controller.sync(objectKey(stored!)) };
}

const getDeployment = (t: TestContext) => t.client.resource<DeploymentObject>(DEPLOYMENTS).get('web', { namespace: 'ns' });

describe('deployment controller: error paths', () => {
  it('a failed ReplicaSet create: Progressing False ReplicaSetCreateError, a Warning Event, and a retry', async () => {
    const { t, sync } = await setup(deployment());
    const quota = new StatusError({ code: 403, reason: 'Forbidden', message: 'exceeded quota' });
    t.client.injectError('create', 'replicasets', quota, 1);
    await assert.rejects(sync(), quota);
    const d = await getDeployment(t);
    const progressing = d.status?.conditions?.find((c) => c.type === 'Progressing');
    const name = `web-${computeTemplateHash(d.spec!.template)}`;
    assert.deepEqual([progressing?.status, progressing?.reason, progressing?.message], ['False', 'ReplicaSetCreateError', `Failed to create new replica set "${name}": exceeded quota`]);
    assert.deepEqual(t.events.map((e) => [e.type, e.reason]), [['Warning', 'ReplicaSetCreateError']]);
  });

  it('a hash collision (the name is taken by another template) bumps collisionCount; the next sync uses a new name', async () => {
    const d = deployment();
    const hash = computeTemplateHash(d.spec!.template!);
    const squatter: ReplicaSetObject = {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: `web-${hash}`, namespace: 'ns', labels: { other: 'x' } },
      spec: { replicas: 0, selector: { matchLabels: { other: 'x' } }, template: { metadata: { labels: { other: 'x' } }, spec: { containers: [{ name: 'c', image: 'other' }] } } },
    };
    const { t, sync } = await setup(d, [squatter]);
    await assert.rejects(sync(), (e: unknown) => e instanceof StatusError && e.reason === 'AlreadyExists');
    assert.equal((await getDeployment(t)).status?.collisionCount, 1);
    await waitFor(async () => t.informers.informerFor<DeploymentObject>(DEPLOYMENTS).indexer.get('ns/web')?.status?.collisionCount === 1);
    await sync();
    const names = (await t.client.resource<ReplicaSetObject>(REPLICA_SETS).list({ namespace: 'ns' })).items.map((rs) => rs.metadata.name).sort();
    assert.deepEqual(names, [`web-${computeTemplateHash(d.spec!.template!, 1)}`, `web-${hash}`].sort());
  });

  it('AlreadyExists for our own ReplicaSet (the cache is behind) is not a collision: the existing set is used', async () => {
    // The controller writes to `writes`, where its ReplicaSet already exists; its informers watch `seen`, which has not seen it yet.
    const seen = newTestContext();
    contexts.push(seen);
    const [d] = seen.client.seed(DEPLOYMENTS, [deployment()]);
    const writes = newFakeClient();
    writes.seed(DEPLOYMENTS, [d!]);
    const hash = computeTemplateHash(d!.spec!.template!);
    writes.seed(REPLICA_SETS, [{
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: `web-${hash}`, namespace: 'ns', labels: { app: 'web', 'pod-template-hash': hash }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: d!.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }] },
      spec: { replicas: 2, selector: { matchLabels: { app: 'web', 'pod-template-hash': hash } }, template: { ...d!.spec!.template, metadata: { labels: { app: 'web', 'pod-template-hash': hash } } } },
    } as ReplicaSetObject]);
    const controller = newDeploymentController({ ...seen.ctx, client: writes }, queue);
    seen.start();
    await seen.informers.waitForCacheSync();
    await controller.sync('ns/web');
    assert.equal(writes.actionsOf('create', 'replicasets').length, 1);
    assert.equal(writes.actionsOf('create', 'replicasets')[0]?.error !== undefined, true, 'the create met AlreadyExists');
    const stored = await writes.resource<DeploymentObject>(DEPLOYMENTS).get('web', { namespace: 'ns' });
    assert.equal(stored.status?.collisionCount, undefined, 'no collision counted');
    assert.equal(stored.metadata.annotations?.['deployment.kubernetes.io/revision'], '1');
  });

  it('an empty selector selects all pods: a SelectingAll Warning and observedGeneration, nothing else', async () => {
    const { t, sync } = await setup(deployment({ selector: {} }));
    await sync();
    assert.deepEqual(t.events.map((e) => [e.type, e.reason, e.message]), [['Warning', 'SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.']]);
    assert.equal((await getDeployment(t)).status?.observedGeneration, 1);
    assert.equal(t.client.actionsOf('create', 'replicasets').length, 0);
  });

  it('an invalid selector is logged and not retried; a deleted Deployment is nothing to do', async () => {
    const { t, sync } = await setup(deployment({ selector: { matchExpressions: [{ key: 'app', operator: 'Bogus' }] } }));
    await sync();
    assert.equal(t.client.actions.length, 0);
    await t.client.resource(DEPLOYMENTS).delete('web', { namespace: 'ns' });
    await waitFor(() => t.informers.informerFor(DEPLOYMENTS).indexer.size === 0);
    await sync();
  });

  it('a failed ReplicaSet scale (update) is returned for a retry', async () => {
    const { t, sync } = await setup(deployment());
    await sync();
    await waitFor(() => t.informers.informerFor(REPLICA_SETS).indexer.size === 1);
    await t.client.resource(DEPLOYMENTS).patch('web', 'merge', { spec: { replicas: 4 } }, { namespace: 'ns' });
    await waitFor(() => t.informers.informerFor<DeploymentObject>(DEPLOYMENTS).indexer.get('ns/web')?.spec?.replicas === 4);
    const boom = new StatusError({ code: 500, reason: 'InternalError', message: 'boom' });
    t.client.injectError('update', 'replicasets', boom, 1);
    await assert.rejects(sync(), boom);
    await sync();
    const [rs] = (await t.client.resource<ReplicaSetObject>(REPLICA_SETS).list({ namespace: 'ns' })).items;
    assert.equal(rs?.spec?.replicas, 4);
  });
});
