import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newFakeClient } from '../../client/testing/fake-client.js';
import { CONTROLLER_REVISIONS, DAEMON_SETS, PODS } from '../../client/rest/resources.js';
import { POD_REVISION_LABEL, type ControllerRevisionObject } from '../history/controller-revision.js';
import { cleanupHistory, constructHistory } from './history-sync.js';
import { daemonSetRevision, daemonSetTemplateHash } from './revisions.js';
import { daemonPod, daemonSet } from './testing/fixtures.js';
import type { DaemonSetObject, PodObject } from './types.js';

const ref = { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'agent', uid: 'ds-uid', controller: true, blockOwnerDeletion: true };
const withImage = (image: string): DaemonSetObject => {
  const ds = daemonSet();
  ds.spec!.template.spec!.containers[0]!.image = image;
  return ds;
};
const list = async (client: ReturnType<typeof newFakeClient>) =>
  (await client.resource<ControllerRevisionObject>(CONTROLLER_REVISIONS).list({ namespace: 'ns' })).items.sort((a, b) => a.revision - b.revision);

describe('DaemonSet history', () => {
  it('creates the first revision, and finds it again', async () => {
    const client = newFakeClient();
    const ds = withImage('agent:1');
    const first = await constructHistory({ client, ds, revisions: [], pods: [] });
    assert.equal(first.current.metadata.name, `agent-${daemonSetTemplateHash(ds)}`);
    assert.equal(first.current.revision, 1);
    assert.equal(first.current.metadata.labels?.[POD_REVISION_LABEL], daemonSetTemplateHash(ds));
    const again = await constructHistory({ client, ds, revisions: await list(client), pods: [] });
    assert.equal(again.current.metadata.uid, first.current.metadata.uid);
    // A create that finds its own revision already there (a stale cache) takes it.
    const stale = await constructHistory({ client, ds, revisions: [], pods: [] });
    assert.equal(stale.current.metadata.uid, first.current.metadata.uid);
  });

  it('labels revisions without the hash label, and gives the current one the next number', async () => {
    const client = newFakeClient();
    const old = daemonSetRevision(withImage('agent:1'), 5, ref);
    delete old.metadata.labels![POD_REVISION_LABEL];
    const current = daemonSetRevision(withImage('agent:2'), 2, ref);
    client.seed(CONTROLLER_REVISIONS, [old, current]);
    const history = await constructHistory({ client, ds: withImage('agent:2'), revisions: await list(client), pods: [] });
    assert.equal(history.current.revision, 6);
    assert.equal(history.old[0]?.metadata.labels?.[POD_REVISION_LABEL], old.metadata.name);
  });

  it('folds duplicates of the current revision into the newest, relabelling their pods', async () => {
    const client = newFakeClient();
    const ds = withImage('agent:1');
    const keep = daemonSetRevision(ds, 3, ref);
    const duplicate = daemonSetRevision(ds, 1, ref);
    duplicate.metadata.name = 'agent-dup';
    duplicate.metadata.labels![POD_REVISION_LABEL] = 'dup';
    client.seed(CONTROLLER_REVISIONS, [keep, duplicate]);
    const [pod] = client.seed(PODS, [daemonPod('p', 'a', { hash: 'dup' })]);
    const history = await constructHistory({ client, ds, revisions: await list(client), pods: [pod!] });
    assert.equal(history.current.metadata.name, keep.metadata.name);
    assert.deepEqual((await list(client)).map((r) => r.metadata.name), [keep.metadata.name]);
    assert.equal((await client.resource<PodObject>(PODS).get('p', { namespace: 'ns' })).metadata.labels?.[POD_REVISION_LABEL], keep.metadata.labels?.[POD_REVISION_LABEL]);
  });

  it('on a name taken by other data raises status.collisionCount and fails the sync; a stale count only fails', async () => {
    const client = newFakeClient();
    const ds = withImage('agent:1');
    const [stored] = client.seed(DAEMON_SETS, [ds]);
    const squatter = daemonSetRevision(withImage('other'), 1, ref);
    squatter.metadata.name = `agent-${daemonSetTemplateHash(stored!)}`;
    client.seed(CONTROLLER_REVISIONS, [squatter]);
    await assert.rejects(constructHistory({ client, ds: stored!, revisions: [], pods: [] }), /hash collision/);
    const bumped = await client.resource<DaemonSetObject>(DAEMON_SETS).get('agent', { namespace: 'ns' });
    assert.equal(bumped.status?.collisionCount, 1);
    await assert.rejects(constructHistory({ client, ds: stored!, revisions: [], pods: [] }), /stale collision count/);
    const next = await constructHistory({ client, ds: bumped, revisions: [], pods: [] });
    assert.equal(next.current.metadata.name, `agent-${daemonSetTemplateHash(bumped)}`);
    assert.notEqual(daemonSetTemplateHash(bumped), daemonSetTemplateHash(stored!));
  });

  it('passes a failed create on', async () => {
    const client = newFakeClient();
    client.injectError('create', 'controllerrevisions', new Error('boom'));
    await assert.rejects(constructHistory({ client, ds: withImage('agent:1'), revisions: [], pods: [] }), /boom/);
  });

  it('deletes the oldest old revisions beyond the limit that no pod carries', async () => {
    const client = newFakeClient();
    const old = ['1', '2', '3', '4'].map((tag, i) => daemonSetRevision(withImage(`agent:${tag}`), i + 1, ref));
    client.seed(CONTROLLER_REVISIONS, old);
    const ds = withImage('agent:9');
    ds.spec!.revisionHistoryLimit = 1;
    const live = daemonPod('p', 'a', { hash: old[0]!.metadata.labels![POD_REVISION_LABEL]! });
    await cleanupHistory({ client, ds, old: await list(client), pods: [live] });
    // Upstream counts the live one among the kept: three go, and the one a pod carries stays.
    assert.deepEqual((await list(client)).map((r) => r.revision), [1]);
    client.seed(CONTROLLER_REVISIONS, [daemonSetRevision(withImage('agent:5'), 5, ref)]);
    await cleanupHistory({ client, ds: withImage('agent:9'), old: await list(client), pods: [] });
    assert.equal((await list(client)).length, 2, 'within the default limit nothing goes');
  });
});
