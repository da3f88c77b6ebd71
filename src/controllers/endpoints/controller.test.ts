import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { ENDPOINTS, PODS, SERVICES } from '../../client/rest/resources.js';
import { StatusError } from '../../machinery/status.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { endpointsController, HEADLESS_SERVICE_LABEL, LEADER_ELECTION_ANNOTATION, type EndpointsObject } from './controller.js';
import type { PodObject } from './pod-rules.js';
import { testPod, testService } from './testing/objects.js';
import { LAST_CHANGE_TRIGGER_TIME_ANNOTATION } from './trigger-time-tracker.js';

describe('endpoints controller', () => {
  let t: TestContext;
  afterEach(() => t.stop());

  const start = async (): Promise<void> => {
    await endpointsController.start(t.ctx);
    t.start();
  };
  const endpoints = (name: string): Promise<EndpointsObject> => t.client.resource<EndpointsObject>(ENDPOINTS).get(name, { namespace: 'default' });
  const endpointsOrUndefined = async (name: string): Promise<EndpointsObject | undefined> => {
    try {
      return await endpoints(name);
    } catch {
      return undefined;
    }
  };

  it('creates the Endpoints of a Service, then follows its pods’ readiness', async () => {
    t = newTestContext();
    t.client.seed(SERVICES, [testService('web', { labels: { tier: 'front' } })]);
    t.client.seed(PODS, [testPod('a', { ip: '10.0.0.1' }), testPod('b', { ip: '10.0.0.2' }), testPod('other', { ip: '10.0.0.3', labels: { app: 'db' } })]);
    await start();
    await waitFor(async () => (await endpointsOrUndefined('web')) !== undefined);
    const created = await endpoints('web');
    assert.deepEqual(created.subsets?.[0]?.addresses?.map((a) => a.ip), ['10.0.0.1', '10.0.0.2']);
    assert.deepEqual(created.metadata.labels, { tier: 'front' });
    assert.equal(created.metadata.annotations?.[LAST_CHANGE_TRIGGER_TIME_ANNOTATION], '2026-01-01T00:00:00Z');

    const pods = t.client.resource<PodObject>(PODS);
    const b = await pods.get('b', { namespace: 'default' });
    b.status!.conditions = [{ type: 'Ready', status: 'False', lastTransitionTime: '2026-01-01T00:05:00Z' }];
    await pods.updateStatus(b);
    await waitFor(async () => (await endpoints('web')).subsets?.[0]?.notReadyAddresses?.length === 1);
    const updated = await endpoints('web');
    assert.deepEqual(updated.subsets?.[0]?.addresses?.map((a) => a.ip), ['10.0.0.1']);
    assert.deepEqual(updated.subsets?.[0]?.notReadyAddresses?.map((a) => a.ip), ['10.0.0.2']);
    assert.equal(updated.metadata.annotations?.[LAST_CHANGE_TRIGGER_TIME_ANNOTATION], '2026-01-01T00:05:00Z');

    await pods.delete('a', { namespace: 'default', gracePeriodSeconds: 0 });
    await waitFor(async () => (await endpoints('web')).subsets?.[0]?.addresses === undefined);
  });

  it('labels the Endpoints of a headless Service', async () => {
    t = newTestContext();
    t.client.seed(SERVICES, [testService('h', { clusterIP: 'None' })]);
    await start();
    await waitFor(async () => (await endpointsOrUndefined('h')) !== undefined);
    assert.deepEqual((await endpoints('h')).metadata.labels, { [HEADLESS_SERVICE_LABEL]: '' });
  });

  it('deletes the Endpoints when the Service goes, and cleans up leftovers at start', async () => {
    t = newTestContext();
    t.client.seed(SERVICES, [testService('web')]);
    t.client.seed(ENDPOINTS, [
      { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'gone', namespace: 'default' } },
      { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'leader', namespace: 'default', annotations: { [LEADER_ELECTION_ANNOTATION]: '{}' } } },
    ]);
    await start();
    await waitFor(async () => (await endpointsOrUndefined('web')) !== undefined && (await endpointsOrUndefined('gone')) === undefined);
    assert.notEqual(await endpointsOrUndefined('leader'), undefined);
    await t.client.resource(SERVICES).delete('web', { namespace: 'default' });
    await waitFor(async () => (await endpointsOrUndefined('web')) === undefined);
  });

  it('leaves a Service without selector (and its user-managed Endpoints) alone', async () => {
    t = newTestContext();
    t.client.seed(SERVICES, [testService('manual', { selector: undefined }), testService('web')]);
    t.client.seed(ENDPOINTS, [{ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'manual', namespace: 'default' }, subsets: [{ addresses: [{ ip: '1.2.3.4' }] }] }]);
    await start();
    await waitFor(async () => (await endpointsOrUndefined('web')) !== undefined);
    assert.deepEqual((await endpoints('manual')).subsets, [{ addresses: [{ ip: '1.2.3.4' }] }]);
    assert.equal(t.client.actionsOf(undefined, 'endpoints').filter((a) => a.name === 'manual').length, 0);
  });

  it('recreates Endpoints deleted by hand', async () => {
    t = newTestContext();
    t.client.seed(SERVICES, [testService('web')]);
    await start();
    await waitFor(async () => (await endpointsOrUndefined('web')) !== undefined);
    await t.client.resource(ENDPOINTS).delete('web', { namespace: 'default' });
    await waitFor(() => t.client.actionsOf('create', 'endpoints').length === 2);
  });

  it('records FailedToCreateEndpoint and retries when the create fails', async () => {
    t = newTestContext();
    t.client.seed(SERVICES, [testService('web')]);
    t.client.injectError('create', 'endpoints', new StatusError({ code: 500, reason: 'InternalError', message: 'boom' }));
    await start();
    await waitFor(async () => (await endpointsOrUndefined('web')) !== undefined);
    const warning = t.events.find((e) => e.reason === 'FailedToCreateEndpoint');
    assert.equal(warning?.component, 'endpoint-controller');
    assert.equal(warning?.message, 'Failed to create endpoint for service default/web: boom');
  });

  it('writes nothing when nothing changed', async () => {
    t = newTestContext();
    t.client.seed(SERVICES, [testService('web')]);
    t.client.seed(PODS, [testPod('a', { ip: '10.0.0.1' })]);
    await start();
    await waitFor(async () => (await endpointsOrUndefined('web')) !== undefined);
    const pods = t.client.resource<PodObject>(PODS);
    const a = await pods.get('a', { namespace: 'default' });
    a.metadata.annotations = { unrelated: 'x' };
    await pods.update(a);
    await t.client.resource(SERVICES).patch('web', 'merge', { metadata: { annotations: { touch: '1' } } }, { namespace: 'default' });
    await waitFor(() => t.client.actionsOf('patch', 'services').length === 1);
    // A second service change is a barrier: once its sync ran, the earlier ones have too.
    await t.client.resource(SERVICES).patch('web', 'merge', { metadata: { labels: { v: '2' } } }, { namespace: 'default' });
    await waitFor(async () => (await endpoints('web')).metadata.labels?.v === '2');
    assert.equal(t.client.actionsOf('update', 'endpoints').length, 1);
  });
});
