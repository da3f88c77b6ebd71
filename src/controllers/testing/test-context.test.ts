import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { objectKey } from '../../client/cache/interfaces.js';
import { CONFIG_MAPS } from '../../client/rest/resources.js';
import type { KubeObject } from '../../machinery/meta.js';
import { startReconcileLoop, terminalError } from '../reconcile-loop.js';
import { newTestContext, waitFor } from './test-context.js';

describe('controller test context', () => {
  it('runs a reconcile loop end to end: informer handler → queue → reconcile → write, retrying errors but not terminal ones', async () => {
    const t = newTestContext({ options: { concurrentSyncs: () => 2 } });
    const informer = t.ctx.informers.informerFor(CONFIG_MAPS);
    const attempts = new Map<string, number>();
    const loop = startReconcileLoop(t.ctx, {
      name: 'example',
      reconcile: async (key) => {
        const n = (attempts.get(key) ?? 0) + 1;
        attempts.set(key, n);
        const cm = informer.indexer.get(key);
        if (cm === undefined) return;
        if (cm.metadata.name === 'flaky' && n < 3) throw new Error('transient');
        if (cm.metadata.name === 'bad') throw terminalError('bad data');
        if (cm.metadata.labels?.done === 'yes') return;
        await t.client.resource(CONFIG_MAPS).patch(cm.metadata.name ?? '', 'merge', { metadata: { labels: { done: 'yes' } } }, { namespace: cm.metadata.namespace ?? '' });
        t.ctx.events.recorderFor('example-controller').event(cm, 'Normal', 'Done', `Marked ${cm.metadata.name ?? ''}`);
      },
    });
    informer.addEventHandler({
      onAdd: (o: KubeObject) => loop.enqueue(objectKey(o)),
      onUpdate: (_a, b) => loop.enqueue(objectKey(b)),
    });
    t.client.seed(CONFIG_MAPS, [{ metadata: { name: 'plain', namespace: 'ns' } }, { metadata: { name: 'flaky', namespace: 'ns' } }, { metadata: { name: 'bad', namespace: 'ns' } }]);
    t.start();
    await waitFor(() => t.events.length === 2 && (attempts.get('ns/flaky') ?? 0) >= 3, { timeoutMs: 10_000 });
    assert.equal(attempts.get('ns/bad'), 1, 'a terminal error is not retried');
    assert.equal(t.client.actionsOf('patch', 'configmaps').length, 2, 'exactly one write per object');
    assert.deepEqual(
      t.events.map((e) => `${e.component} ${e.object.kind} ${e.object.namespace}/${e.object.name} ${e.type} ${e.reason}`).sort(),
      ['example-controller ConfigMap ns/flaky Normal Done', 'example-controller ConfigMap ns/plain Normal Done'],
    );
    t.stop();
    await loop.stopped;
  });

  it('uses upstream defaults with the overrides, a silent logger, and aborts the signal on stop', () => {
    const t = newTestContext({ options: { nodeMonitorGracePeriodMs: 100 } });
    assert.equal(t.ctx.options.nodeMonitorGracePeriodMs, 100);
    assert.equal(t.ctx.options.nodeMonitorPeriodMs, 5000);
    assert.equal(t.ctx.logger.level, 'silent');
    assert.equal(t.ctx.signal.aborted, false);
    t.stop();
    assert.equal(t.ctx.signal.aborted, true);
  });

  it('waitFor fails with a clear message at its deadline', async () => {
    await assert.rejects(waitFor(() => false, { timeoutMs: 20, description: 'never' }), /waitFor: never did not hold within 20 ms/);
  });
});
