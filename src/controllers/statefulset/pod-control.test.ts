import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newFakeClient } from '../../client/testing/fake-client.js';
import { PODS } from '../../client/rest/resources.js';
import { conflict } from '../../machinery/status.js';
import { newRecordingEventRecorderFactory, type RecordedEvent } from '../testing/recording-event-recorder.js';
import { newStatefulPodControl } from './pod-control.js';
import { member, statefulSet } from './testing/fixtures.js';
import type { PodObject } from './types.js';

function setup() {
  const client = newFakeClient();
  const events: RecordedEvent[] = [];
  const control = newStatefulPodControl(client, newRecordingEventRecorderFactory(events).recorderFor('statefulset-controller'));
  return { client, events, control, set: statefulSet() };
}
const said = (events: RecordedEvent[]) => events.map((e) => `${e.type} ${e.reason}: ${e.message}`);

describe('StatefulSet pod control', () => {
  it('creates with SuccessfulCreate; an existing pod is no error and no event; other errors give FailedCreate', async () => {
    const { client, events, control, set } = setup();
    assert.equal(await control.createPod(set, member(set, 0)), true);
    assert.equal(await control.createPod(set, member(set, 0)), false);
    client.injectError('create', 'pods', new Error('admission denied'));
    await assert.rejects(control.createPod(set, member(set, 1)), /admission denied/);
    assert.deepEqual(said(events), [
      'Normal SuccessfulCreate: create Pod web-0 in StatefulSet web successful',
      'Warning FailedCreate: create Pod web-1 in StatefulSet web failed error: admission denied',
    ]);
  });

  it('deletes by uid with SuccessfulDelete; a pod gone or replaced is no error; other errors give FailedDelete', async () => {
    const { client, events, control, set } = setup();
    const [pod] = client.seed(PODS, [member(set, 0)]);
    await control.deletePod(set, pod!);
    await control.deletePod(set, pod!);
    const [replaced] = client.seed(PODS, [{ ...member(set, 1), metadata: { ...member(set, 1).metadata, uid: 'new' } }]);
    await control.deletePod(set, { ...replaced!, metadata: { ...replaced!.metadata, uid: 'old' } });
    assert.ok(await client.resource(PODS).get('web-1', { namespace: 'ns' }), 'a newer pod of the same name is kept');
    client.injectError('delete', 'pods', new Error('etcd down'));
    await assert.rejects(control.deletePod(set, replaced!), /etcd down/);
    assert.deepEqual(said(events), [
      'Normal SuccessfulDelete: delete Pod web-0 in StatefulSet web successful',
      'Warning FailedDelete: delete Pod web-1 in StatefulSet web failed error: etcd down',
    ]);
  });

  it('repairs identity with SuccessfulUpdate, retrying a conflict once with a fresh read, then giving up', async () => {
    const { client, events, control, set } = setup();
    const drifted = member(set, 0);
    delete drifted.metadata.labels!['statefulset.kubernetes.io/pod-name'];
    const [stored] = client.seed(PODS, [drifted]);
    client.injectError('update', 'pods', conflict({ group: '', resource: 'pods' }, 'web-0'));
    await control.fixIdentity(set, stored!);
    const fixed = await client.resource<PodObject>(PODS).get('web-0', { namespace: 'ns' });
    assert.equal(fixed.metadata.labels?.['statefulset.kubernetes.io/pod-name'], 'web-0');
    client.injectError('update', 'pods', conflict({ group: '', resource: 'pods' }, 'web-0'), 2);
    await assert.rejects(control.fixIdentity(set, fixed), /modified/);
    assert.deepEqual(said(events).map((s) => s.split(':')[0]), ['Normal SuccessfulUpdate', 'Warning FailedUpdate']);
  });
});
