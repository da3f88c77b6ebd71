import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import type { WatchEvent } from '../../client/rest/interface.js';
import { ENDPOINT_SLICES, NODES, PODS, SERVICES } from '../../client/rest/resources.js';
import { StatusError } from '../../machinery/status.js';
import type { PodObject } from '../endpoints/pod-rules.js';
import { testPod, testService } from '../endpoints/testing/objects.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { endpointSliceController } from './controller.js';
import { SERVICE_NAME_LABEL, type EndpointSliceObject } from './slice-plan.js';

const rv = (o: { metadata: { resourceVersion?: string | undefined } }): bigint => BigInt(o.metadata.resourceVersion ?? '0');

describe('endpointslice controller', () => {
  let t: TestContext;
  afterEach(() => t.stop());

  const slices = async (): Promise<EndpointSliceObject[]> =>
    (await t.client.resource<EndpointSliceObject>(ENDPOINT_SLICES).list({ namespace: 'default', labelSelector: `${SERVICE_NAME_LABEL}=web` })).items;
  const start = async (): Promise<void> => {
    await endpointSliceController.start(t.ctx);
    t.start();
  };

  it('writes one slice per Service with its pods, then updates it in place', async () => {
    t = newTestContext();
    t.client.seed(NODES, [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', labels: { 'topology.kubernetes.io/zone': 'z1' } } }]);
    t.client.seed(SERVICES, [testService('web')]);
    t.client.seed(PODS, [testPod('a', { ip: '10.0.0.1', node: 'n1' })]);
    await start();
    await waitFor(async () => (await slices()).length === 1);
    const [slice] = await slices();
    assert.equal(slice!.endpoints[0]!.zone, 'z1');
    await t.client.resource<PodObject>(PODS).create(testPod('b', { ip: '10.0.0.2' }));
    await waitFor(async () => (await slices())[0]!.endpoints.length === 2);
    assert.equal((await slices())[0]!.metadata.name, slice!.metadata.name);
    assert.equal(t.client.actionsOf('create', 'endpointslices').length, 1);
  });

  it('the first slice written after a pod turns not ready marks its endpoint not ready (watch order)', async () => {
    t = newTestContext();
    t.client.seed(SERVICES, [testService('web')]);
    t.client.seed(PODS, Array.from({ length: 5 }, (_, i) => testPod(`p${i}`, { ip: `10.0.0.${i + 1}` })));
    const events: WatchEvent<EndpointSliceObject>[] = [];
    const watch = t.client.resource<EndpointSliceObject>(ENDPOINT_SLICES).watch({ namespace: 'default' });
    void (async () => {
      for await (const e of watch) events.push(e);
    })();
    await start();
    await waitFor(async () => (await slices())[0]?.endpoints.length === 5);
    const pods = t.client.resource<PodObject>(PODS);
    for (let i = 0; i < 5; i++) {
      const pod = await pods.get(`p${i}`, { namespace: 'default' });
      pod.status!.conditions = [{ type: 'Ready', status: 'False', lastTransitionTime: '2026-01-01T00:01:00Z' }];
      const written = await pods.updateStatus(pod);
      const after = (): WatchEvent<EndpointSliceObject>[] => events.filter((e) => rv(e.object) > rv(written) && e.object.endpoints.some((ep) => ep.targetRef?.name === `p${i}`));
      await waitFor(() => after().length > 0);
      const first = after()[0]!.object.endpoints.find((ep) => ep.targetRef?.name === `p${i}`)!;
      assert.deepEqual(first.conditions, { ready: false, serving: false, terminating: false }, `p${i}`);
    }
    watch.cancel();
  });

  it('recreates a slice deleted by hand and leaves Services without selector alone', async () => {
    t = newTestContext();
    t.client.seed(SERVICES, [testService('web'), testService('manual', { selector: undefined })]);
    await start();
    await waitFor(async () => (await slices()).length === 1);
    const [slice] = await slices();
    await t.client.resource(ENDPOINT_SLICES).delete(slice!.metadata.name!, { namespace: 'default' });
    await waitFor(async () => (await slices()).length === 1 && (await slices())[0]!.metadata.name !== slice!.metadata.name);
    assert.equal(t.client.actionsOf('create', 'endpointslices').length, 2);
    assert.equal(t.client.actionsOf('create', 'endpointslices').filter((a) => (a.body as EndpointSliceObject).metadata.labels?.[SERVICE_NAME_LABEL] === 'manual').length, 0);
  });

  it('retries a pod on a node not in the cache yet, and includes it once the node appears', async () => {
    t = newTestContext();
    t.client.seed(SERVICES, [testService('web')]);
    t.client.seed(PODS, [testPod('a', { ip: '10.0.0.1', node: 'late' })]);
    await start();
    await waitFor(async () => (await slices()).length === 1);
    assert.equal((await slices())[0]!.endpoints.length, 0);
    await t.client.resource(NODES).create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'late' } });
    await waitFor(async () => (await slices())[0]!.endpoints.length === 1, { timeoutMs: 10_000 });
  });

  it('records FailedToUpdateEndpointSlices and retries a failed write', async () => {
    t = newTestContext();
    t.client.seed(SERVICES, [testService('web')]);
    t.client.injectError('create', 'endpointslices', new StatusError({ code: 500, reason: 'InternalError', message: 'boom' }));
    await start();
    await waitFor(async () => (await slices()).length === 1);
    const warning = t.events.find((e) => e.reason === 'FailedToUpdateEndpointSlices');
    assert.equal(warning?.component, 'endpoint-slice-controller');
    assert.equal(warning?.message, 'Error updating Endpoint Slices for Service default/web: boom');
  });
});
