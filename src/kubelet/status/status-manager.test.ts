import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { PodStatus } from 'kubernetes-types/core/v1.js';
import { PODS } from '../../client/rest/resources.js';
import { newFakeClient, type FakeClient } from '../../client/testing/fake-client.js';
import { waitFor } from '../../client/testing/wait-for.js';
import { newLogger } from '../../machinery/logger.js';
import { serviceUnavailable } from '../../machinery/status.js';
import type { Pod } from '../types.js';
import { StatusManager } from './status-manager.js';

const running: PodStatus = {
  phase: 'Running',
  conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:01Z' }],
  containerStatuses: [{ name: 'a', image: 'i', imageID: '', ready: true, restartCount: 0, state: { running: { startedAt: '2026-01-01T00:00:01Z' } } }],
};

describe('StatusManager', () => {
  let managers: StatusManager[] = [];
  afterEach(() => {
    for (const m of managers) m.stop();
    managers = [];
  });
  const setup = (): { client: FakeClient; manager: StatusManager; pod: Pod } => {
    const client = newFakeClient();
    const [pod] = client.seed<Pod>(PODS, [
      { metadata: { name: 'p', namespace: 'ns' }, spec: { nodeName: 'n', containers: [{ name: 'a', image: 'i' }] }, status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }] } } as Pod,
    ]);
    const manager = new StatusManager({ client, logger: newLogger('test', { level: 'silent' }), retryIntervalMs: 10 });
    managers.push(manager);
    return { client, manager, pod: pod! };
  };
  const stored = async (client: FakeClient): Promise<Pod> => client.resource<Pod>(PODS).get('p', { namespace: 'ns' });

  it('patches pods/status with the uid, once per change, keeping the conditions others own', async () => {
    const { client, manager, pod } = setup();
    manager.setPodStatus(pod, running);
    manager.setPodStatus(pod, structuredClone(running));
    await waitFor(() => manager.isSynced(pod.metadata.uid!));
    const patches = client.actionsOf('patch', 'pods/status');
    assert.equal(patches.length, 1);
    assert.equal(patches[0]!.patchType, 'strategic');
    assert.deepEqual((patches[0]!.body as { metadata: unknown }).metadata, { uid: pod.metadata.uid });
    const after = await stored(client);
    assert.equal(after.status?.phase, 'Running');
    assert.deepEqual(after.status?.conditions?.map((c) => c.type), ['PodScheduled', 'Ready']);
    assert.equal(client.actionsOf('update').length, 0);
  });

  it('retries a failed write until the API server answers', async () => {
    const { client, manager, pod } = setup();
    client.injectError('patch', 'pods/status', serviceUnavailable('etcd is down'), 3);
    manager.setPodStatus(pod, running);
    await waitFor(async () => (await stored(client)).status?.phase === 'Running');
    assert.equal(client.actionsOf('patch', 'pods/status').filter((a) => a.error !== undefined).length, 3);
  });

  it('writes again when the API shows a status that differs (someone else wrote it), but not for an older one', async () => {
    const { client, manager, pod } = setup();
    manager.setPodStatus(pod, running);
    await waitFor(() => manager.isSynced(pod.metadata.uid!));
    const written = await stored(client);
    // An older copy of the pod (from a lagging watch) is ignored.
    manager.observePod(pod);
    assert.equal(manager.isSynced(pod.metadata.uid!), true);
    const overwritten = await client.resource<Pod>(PODS).updateStatus({ ...written, status: { ...written.status, phase: 'Pending' } });
    manager.observePod(overwritten);
    await waitFor(async () => (await stored(client)).status?.phase === 'Running');
    assert.equal(client.actionsOf('patch', 'pods/status').length, 2);
  });

  it('gives up on a pod that is gone or replaced (uid precondition), and flush resolves', async () => {
    const { client, manager, pod } = setup();
    await client.resource<Pod>(PODS).delete('p', { namespace: 'ns', gracePeriodSeconds: 0 });
    manager.setPodStatus(pod, running);
    await manager.flush(pod.metadata.uid!, new AbortController().signal);
    assert.ok(client.actionsOf('patch', 'pods/status')[0]?.error !== undefined);
    const [other] = client.seed<Pod>(PODS, [{ metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [] }, status: { phase: 'Pending' } } as Pod]);
    assert.notEqual(other!.metadata.uid, pod.metadata.uid);
    manager.setPodStatus(pod, { ...running, phase: 'Failed' });
    manager.observePod(pod);
    await manager.flush(pod.metadata.uid!, new AbortController().signal);
    assert.equal((await stored(client)).status?.phase, 'Pending');
  });

  it("writes a static pod's status to its mirror pod, without a uid, once the mirror exists", async () => {
    const client = newFakeClient();
    const manager = new StatusManager({ client, logger: newLogger('test', { level: 'silent' }), retryIntervalMs: 10 });
    managers.push(manager);
    const staticPod = { metadata: { name: 'etcd', namespace: 'kube-system', uid: 'static-1', annotations: { 'kubernetes.io/config.source': 'file' } }, spec: { containers: [] } } as Pod;
    manager.setPodStatus(staticPod, running);
    await waitFor(() => client.actionsOf('patch', 'pods/status').length >= 2);
    const [mirror] = client.seed<Pod>(PODS, [
      { metadata: { name: 'etcd', namespace: 'kube-system', annotations: { 'kubernetes.io/config.mirror': 'static-1' } }, spec: { containers: [] }, status: { phase: 'Pending' } } as Pod,
    ]);
    manager.observePod(mirror!);
    await waitFor(async () => (await client.resource<Pod>(PODS).get('etcd', { namespace: 'kube-system' })).status?.phase === 'Running');
    for (const p of client.actionsOf('patch', 'pods/status')) assert.equal((p.body as { metadata?: unknown }).metadata, undefined);
  });

  it('flush ends when aborted while the API server is unreachable', async () => {
    const { client, manager, pod } = setup();
    client.injectError('patch', 'pods/status', serviceUnavailable('down'), 1000);
    manager.setPodStatus(pod, running);
    const abort = new AbortController();
    const flushed = manager.flush(pod.metadata.uid!, abort.signal);
    await waitFor(() => client.actionsOf('patch', 'pods/status').length >= 2);
    abort.abort();
    await flushed;
    assert.equal(manager.isSynced(pod.metadata.uid!), false);
  });
});
