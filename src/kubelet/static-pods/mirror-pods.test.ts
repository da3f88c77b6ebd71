import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PODS } from '../../client/rest/resources.js';
import { newFakeClient, type FakeClient } from '../../client/testing/fake-client.js';
import { newLogger } from '../../machinery/logger.js';
import { serviceUnavailable } from '../../machinery/status.js';
import type { Node, Pod } from '../types.js';
import { isMirrorPodOf, mirrorPodFor, newMirrorPods, type MirrorPodsState } from './mirror-pods.js';

const logger = newLogger('test', { level: 'silent' });
const node: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a', uid: 'node-uid' } };
const staticPod = (hash: string, name = 'web-node-a'): Pod => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: {
    name,
    namespace: 'default',
    uid: hash,
    annotations: { 'kubernetes.io/config.hash': hash, 'kubernetes.io/config.source': 'file', 'kubernetes.io/config.seen': 's' },
  },
  spec: { nodeName: 'node-a', containers: [{ name: 'c', image: 'i' }] },
  status: { phase: 'Pending' },
});

async function mirrorsIn(client: FakeClient): Promise<Pod[]> {
  return (await client.resource<Pod>(PODS).list({ namespace: 'default' })).items;
}

async function settle(mirrors: ReturnType<typeof newMirrorPods>, client: FakeClient, staticPods: Pod[], extra: Partial<MirrorPodsState> = {}): Promise<Pod[]> {
  mirrors.update({ staticPods, mirrorPods: await mirrorsIn(client), apiSynced: true, staticSynced: true, ...extra });
  await mirrors.idle();
  return mirrorsIn(client);
}

describe('mirror pods', () => {
  it('are the static pod with the mirror annotation and the Node as controller owner, without uid or status', () => {
    const mirror = mirrorPodFor(staticPod('h1'), node);
    assert.equal(mirror.metadata.uid, undefined);
    assert.equal(mirror.status, undefined);
    assert.equal(mirror.metadata.annotations?.['kubernetes.io/config.mirror'], 'h1');
    assert.equal(mirror.metadata.annotations?.['kubernetes.io/config.source'], 'file');
    assert.deepEqual(mirror.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'node-a', uid: 'node-uid', controller: true }]);
    assert.ok(isMirrorPodOf(mirror, staticPod('h1')));
    assert.ok(!isMirrorPodOf(mirror, staticPod('h2')));
  });

  it('are created for static pods, made again when deleted or outdated, and deleted when their static pod goes', async () => {
    const client = newFakeClient();
    const mirrors = newMirrorPods({ client, nodeName: 'node-a', node: () => node, logger });
    let pods = await settle(mirrors, client, [staticPod('h1')]);
    assert.deepEqual(pods.map((p) => [p.metadata.name, p.metadata.annotations?.['kubernetes.io/config.mirror']]), [['web-node-a', 'h1']]);
    // Nothing to do when in step.
    const writes = client.actions.length;
    await settle(mirrors, client, [staticPod('h1')]);
    assert.equal(client.actions.length, writes);
    // Deleted by a user: made again.
    await client.resource<Pod>(PODS).delete('web-node-a', { namespace: 'default', gracePeriodSeconds: 0 });
    pods = await settle(mirrors, client, [staticPod('h1')]);
    assert.equal(pods.length, 1);
    // Being deleted gracefully: deleted at once and made again.
    await client.resource<Pod>(PODS).delete('web-node-a', { namespace: 'default', gracePeriodSeconds: 30 });
    const marked = (await mirrorsIn(client))[0]!;
    assert.ok(marked.metadata.deletionTimestamp !== undefined);
    pods = await settle(mirrors, client, [staticPod('h1')]);
    assert.equal(pods.length, 1);
    assert.equal(pods[0]!.metadata.deletionTimestamp, undefined);
    assert.notEqual(pods[0]!.metadata.uid, marked.metadata.uid);
    // The manifest changed: the old mirror pod goes (uid precondition), a new one comes.
    pods = await settle(mirrors, client, [staticPod('h2')]);
    assert.deepEqual(pods.map((p) => p.metadata.annotations?.['kubernetes.io/config.mirror']), ['h2']);
    const deletes = client.actionsOf('delete', 'pods');
    assert.ok((deletes.at(-1)!.body as { preconditions?: { uid?: string } }).preconditions?.uid !== undefined);
    // The static pod is gone: so is its mirror pod.
    pods = await settle(mirrors, client, []);
    assert.deepEqual(pods, []);
    mirrors.stop();
  });

  it('waits for the Node, the API list and the static pods before acting', async () => {
    const client = newFakeClient();
    let known: Node | undefined;
    const mirrors = newMirrorPods({ client, nodeName: 'node-a', node: () => known, logger });
    assert.deepEqual(await settle(mirrors, client, [staticPod('h1')]), [], 'no Node uid yet');
    known = { ...node, metadata: { ...node.metadata, deletionTimestamp: '2024-01-01T00:00:00Z' } };
    assert.deepEqual(await settle(mirrors, client, [staticPod('h1')]), [], 'the Node is being deleted');
    known = node;
    assert.deepEqual(await settle(mirrors, client, [staticPod('h1')], { apiSynced: false }), [], 'the API pods are not listed yet');
    assert.equal((await settle(mirrors, client, [staticPod('h1')])).length, 1);
    assert.equal((await settle(mirrors, client, [], { staticSynced: false })).length, 1, 'not an orphan before the manifests are read');
    mirrors.stop();
  });

  it('accepts an existing mirror pod of the same hash, and retries after failures', async () => {
    const client = newFakeClient();
    await client.resource<Pod>(PODS).create(mirrorPodFor(staticPod('h1'), node));
    const mirrors = newMirrorPods({ client, nodeName: 'node-a', node: () => node, logger, retryMs: 5 });
    // The API list has not shown it yet: create says AlreadyExists, and the hash matches.
    mirrors.update({ staticPods: [staticPod('h1')], mirrorPods: [], apiSynced: true, staticSynced: true });
    await mirrors.idle();
    assert.equal((await mirrorsIn(client)).length, 1);

    const failing = newFakeClient();
    failing.injectError('create', 'pods', serviceUnavailable('down'), 2);
    const retrying = newMirrorPods({ client: failing, nodeName: 'node-a', node: () => node, logger, retryMs: 5 });
    retrying.update({ staticPods: [staticPod('h1')], mirrorPods: [], apiSynced: true, staticSynced: true });
    const deadline = Date.now() + 10_000;
    while ((await mirrorsIn(failing)).length === 0) {
      if (Date.now() > deadline) throw new Error('the mirror pod was never made');
      await new Promise((r) => setTimeout(r, 5));
    }
    retrying.stop();
    mirrors.stop();
  });
});
