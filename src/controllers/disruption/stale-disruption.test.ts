import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { PODS } from '../../client/rest/resources.js';
import { formatTime, type KubeObject } from '../../machinery/meta.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { StaleDisruptionCleaner, staleDisruptionIn } from './stale-disruption.js';

type PodObject = KubeObject & Pod;
const T0 = Date.parse('2026-01-01T00:00:00Z');

const marked = (name: string, extra: { reason?: string; phase?: string; deleting?: boolean } = {}): PodObject => ({
  metadata: { name, namespace: 'default', ...(extra.deleting === true ? { deletionTimestamp: formatTime(new Date(T0)) } : {}) },
  spec: { containers: [{ name: 'c', image: 'i' }] },
  status: {
    phase: extra.phase ?? 'Running',
    conditions: [{ type: 'DisruptionTarget', status: 'True', reason: extra.reason ?? 'EvictionByEvictionAPI', message: 'Eviction API: evicting', lastTransitionTime: formatTime(new Date(T0)) }],
  },
});

describe('stale DisruptionTarget conditions', () => {
  let t: TestContext;
  afterEach(() => t?.stop());

  it('knows which conditions can go stale and when', () => {
    assert.equal(staleDisruptionIn(marked('a'), T0 + 30_000), 90_000);
    assert.equal(staleDisruptionIn(marked('a'), T0 + 200_000), 0);
    assert.equal(staleDisruptionIn(marked('a', { reason: 'TerminationByKubelet' }), T0), undefined);
    assert.equal(staleDisruptionIn(marked('a', { phase: 'Failed' }), T0), undefined);
    assert.equal(staleDisruptionIn(marked('a', { deleting: true }), T0), undefined);
    assert.equal(staleDisruptionIn({ status: { conditions: [] } }, T0), undefined);
  });

  it('turns a condition False once it is two minutes old and the pod is still not being deleted', async () => {
    t = newTestContext();
    const informer = t.ctx.informers.informerFor<PodObject>(PODS);
    t.client.seed(PODS, [marked('a')]);
    t.start();
    await t.ctx.informers.waitForCacheSync();
    await waitFor(() => informer.indexer.size === 1);
    let now = T0 + 60_000;
    const cleaner = new StaleDisruptionCleaner(informer.indexer, t.client.resource<PodObject>(PODS), () => now);
    assert.deepEqual(await cleaner.reconcile('default/a'), { requeueAfterMs: 60_000 });
    assert.deepEqual(t.client.actionsOf(), []);
    now = T0 + 120_000;
    await cleaner.reconcile('default/a');
    const pod = await t.client.resource<PodObject>(PODS).get('a', { namespace: 'default' });
    const condition = pod.status?.conditions?.find((c) => c.type === 'DisruptionTarget');
    assert.equal(condition?.status, 'False');
    assert.equal(condition?.lastTransitionTime, formatTime(new Date(now)));
    assert.equal(await cleaner.reconcile('default/gone'), undefined);
  });
});
