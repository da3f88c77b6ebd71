import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { NODES, PODS } from '../../client/rest/resources.js';
import type { KubeObject } from '../../machinery/meta.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { newPodGcController } from './controller.js';

type PodObject = KubeObject & Pod;

const pod = (name: string, nodeName: string, phase: string, extra: Partial<PodObject['metadata']> = {}, reason?: string): PodObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'default', creationTimestamp: '2026-12-01T10:00:00Z', ...extra },
  spec: { ...(nodeName !== '' ? { nodeName } : {}), containers: [{ name: 'c', image: 'busybox' }] },
  status: { phase, ...(reason !== undefined ? { reason } : {}) },
});
const node = (name: string): KubeObject => ({ apiVersion: 'v1', kind: 'Node', metadata: { name } });

describe('podgc controller', () => {
  let t: TestContext;
  let now = 0;
  afterEach(() => t.stop());

  const setUp = async (pods: PodObject[], nodes: KubeObject[], threshold = 12500): Promise<void> => {
    now = Date.parse('2026-12-01T11:00:00Z');
    t = newTestContext({ options: { terminatedPodGcThreshold: threshold } });
    t.client.seed(PODS, pods);
    t.client.seed(NODES, nodes);
    await newPodGcController({ now: () => now, checkPeriodMs: 10, quarantineMs: 40_000 }).start(t.ctx);
    t.start();
  };
  const deleted = (): string[] => t.client.actionsOf('delete', 'pods').map((a) => a.name).sort();
  /** Waits until the collector has made `passes` more passes than it had when called. */
  const morePasses = async (passes: number): Promise<void> => {
    const target = t.reconciled('podgc') + passes;
    await waitFor(() => t.reconciled('podgc') >= target);
  };

  it('force-deletes the pods of a node that is gone after the quarantine, marking them Failed with DisruptionTarget first', async () => {
    await setUp([pod('on-gone', 'gone', 'Running'), pod('done-on-gone', 'gone', 'Succeeded'), pod('on-live', 'live', 'Running')], [node('live')]);
    // Within the quarantine nothing happens, however often the collector looks.
    await morePasses(3);
    assert.deepEqual(deleted(), []);
    now += 40_000;
    await waitFor(() => deleted().length === 2);
    assert.deepEqual(deleted(), ['done-on-gone', 'on-gone']);
    const applies = t.client.actionsOf('patch', 'pods');
    assert.deepEqual(
      applies.map((a) => [a.name, a.subresource]),
      [['on-gone', 'status']],
      'a pod already Succeeded keeps its phase',
    );
    const status = (applies[0]!.body as { status: Pod['status'] }).status!;
    assert.equal(status.phase, 'Failed');
    assert.deepEqual(
      status.conditions?.map((c) => [c.type, c.status, c.reason, c.message]),
      [['DisruptionTarget', 'True', 'DeletionByPodGC', 'PodGC: node no longer exists']],
    );
    for (const d of t.client.actionsOf('delete', 'pods')) assert.equal((d.body as { gracePeriodSeconds?: number }).gracePeriodSeconds, 0);
  });

  it('keeps the pods of a node that is only missing from its cache', async () => {
    await setUp([pod('p', 'late', 'Running')], []);
    await morePasses(1);
    // The node exists on the API server: the informer just has not seen it.
    await t.client.resource(NODES).create(node('late'));
    now += 60_000;
    await morePasses(3);
    assert.deepEqual(deleted(), []);
  });

  it('deletes unscheduled pods that are being deleted, and the oldest terminated pods over the threshold, evicted ones first', async () => {
    await setUp(
      [
        pod('unscheduled-going', '', 'Pending', { deletionTimestamp: '2026-12-01T10:30:00Z' }),
        pod('unscheduled', '', 'Pending'),
        pod('old-done', 'live', 'Succeeded', { creationTimestamp: '2026-12-01T09:00:00Z' }),
        pod('evicted', 'live', 'Failed', { creationTimestamp: '2026-12-01T10:30:00Z' }, 'Evicted'),
        pod('new-done', 'live', 'Failed', { creationTimestamp: '2026-12-01T10:45:00Z' }),
        pod('running', 'live', 'Running'),
      ],
      [node('live')],
      1,
    );
    await waitFor(() => deleted().length === 3);
    await morePasses(2);
    assert.deepEqual(deleted(), ['evicted', 'old-done', 'unscheduled-going']);
  });
});
