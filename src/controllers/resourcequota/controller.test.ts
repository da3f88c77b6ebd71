import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { CONFIG_MAPS, DEPLOYMENTS, NAMESPACES, PODS } from '../../client/rest/resources.js';
import type { KubeObject } from '../../machinery/meta.js';
import { conflict } from '../../machinery/status.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { RESOURCE_QUOTAS, resourceQuotaController, type QuotaObject } from './controller.js';

describe('resourcequota controller', () => {
  let t: TestContext;
  afterEach(() => t.stop());

  const ns = (name: string) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name }, status: { phase: 'Active' } });
  const pod = (name: string, cpu?: string, extra: Record<string, unknown> = {}): KubeObject => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'team' },
    spec: { containers: [{ name: 'c', image: 'nginx', ...(cpu !== undefined ? { resources: { requests: { cpu } } } : {}) }], ...extra },
  });
  const quota = (name: string, hard: Record<string, string>, spec: Record<string, unknown> = {}): QuotaObject =>
    ({ apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name, namespace: 'team' }, spec: { hard, ...spec } }) as QuotaObject;
  const statusOf = async (name: string) => ((await t.client.resource<QuotaObject>(RESOURCE_QUOTAS).get(name, { namespace: 'team' })).status ?? {}) as { hard?: Record<string, string>; used?: Record<string, string> };
  const start = async (): Promise<void> => {
    await resourceQuotaController.start(t.ctx);
    t.start();
  };

  it('is upstream\'s resourcequota, on by default', () => {
    t = newTestContext();
    assert.equal(resourceQuotaController.name, 'resourcequota');
    assert.equal(resourceQuotaController.enabledByDefault, true);
  });

  it('sets status.hard from spec.hard and counts the live objects in scope, zero for what nothing uses', async () => {
    t = newTestContext();
    t.client.seed(NAMESPACES, [ns('team')]);
    t.client.seed(PODS, [pod('a', '500m'), pod('b', '1'), pod('done', '2', {}), pod('be')]);
    await t.client.resource(PODS).updateStatus({ ...pod('done', '2'), status: { phase: 'Succeeded' } }).catch(() => undefined);
    t.client.seed(CONFIG_MAPS, [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x', namespace: 'team' } }]);
    t.client.seed(RESOURCE_QUOTAS, [
      quota('compute', { pods: '10', 'requests.cpu': '4', 'count/configmaps': '5', 'count/deployments.apps': '2', services: '3', 'bogus.example/thing': '1' }),
      quota('best-effort', { pods: '3' }, { scopes: ['BestEffort'] }),
    ]);
    await start();
    await waitFor(async () => (await statusOf('compute')).used !== undefined && (await statusOf('best-effort')).used !== undefined);
    const compute = await statusOf('compute');
    assert.deepEqual(compute.hard, { pods: '10', 'requests.cpu': '4', 'count/configmaps': '5', 'count/deployments.apps': '2', services: '3', 'bogus.example/thing': '1' });
    assert.deepEqual(compute.used, { pods: '3', 'requests.cpu': '1500m', 'count/configmaps': '1', 'count/deployments.apps': '0', services: '0' });
    assert.deepEqual((await statusOf('best-effort')).used, { pods: '1' });
  });

  it('recounts when a charged object is deleted, a pod finishes, and the spec changes; not on its own status writes', async () => {
    t = newTestContext();
    t.client.seed(NAMESPACES, [ns('team')]);
    t.client.seed(PODS, [pod('a'), pod('b'), pod('c')]);
    t.client.seed(RESOURCE_QUOTAS, [quota('q', { pods: '5' })]);
    await start();
    await waitFor(async () => (await statusOf('q')).used?.pods === '3');
    await t.client.resource(PODS).delete('a', { namespace: 'team' });
    await waitFor(async () => (await statusOf('q')).used?.pods === '2');
    const b = await t.client.resource(PODS).get('b', { namespace: 'team' });
    await t.client.resource(PODS).updateStatus({ ...b, status: { phase: 'Failed' } });
    await waitFor(async () => (await statusOf('q')).used?.pods === '1');
    const q = await t.client.resource<QuotaObject>(RESOURCE_QUOTAS).get('q', { namespace: 'team' });
    await t.client.resource<QuotaObject>(RESOURCE_QUOTAS).update({ ...q, spec: { hard: { pods: '5', 'count/deployments.apps': '1' } } });
    await waitFor(async () => (await statusOf('q')).hard?.['count/deployments.apps'] === '1');
    assert.deepEqual((await statusOf('q')).used, { pods: '1', 'count/deployments.apps': '0' });
    const writes = t.client.actionsOf('update', 'resourcequotas').length;
    // Four recounts and the test's own spec update: none for the controller's own status writes.
    assert.ok(writes <= 5, `status writes: ${writes}`);
  });

  it('recounts every --resource-quota-sync-period (an object it was not told about)', async () => {
    t = newTestContext({ options: { resourceQuotaSyncPeriodMs: 50 } });
    t.client.seed(NAMESPACES, [ns('team')]);
    t.client.seed(RESOURCE_QUOTAS, [quota('q', { 'count/deployments.apps': '5' })]);
    await start();
    await waitFor(async () => (await statusOf('q')).used?.['count/deployments.apps'] === '0');
    t.client.seed(DEPLOYMENTS, [{ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'd', namespace: 'team' }, spec: {} }]);
    await waitFor(async () => (await statusOf('q')).used?.['count/deployments.apps'] === '1');
  });

  it('retries a status write that conflicts with an admission charge', async () => {
    t = newTestContext();
    t.client.seed(NAMESPACES, [ns('team')]);
    t.client.seed(RESOURCE_QUOTAS, [quota('q', { 'count/configmaps': '5' })]);
    t.client.injectError('update', 'resourcequotas', conflict({ group: '', resource: 'resourcequotas' }, 'q'));
    await start();
    await waitFor(async () => (await statusOf('q')).used?.['count/configmaps'] === '0');
  });
});
