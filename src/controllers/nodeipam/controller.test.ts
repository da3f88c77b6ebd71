import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { NODES } from '../../client/rest/resources.js';
import { serviceUnavailable } from '../../machinery/status.js';
import type { NodeObject } from '../nodelifecycle/node-taints.js';
import { newTestContext, waitFor, type TestContext } from '../testing/test-context.js';
import { nodeIpamController, RangeAllocator } from './controller.js';

const node = (name: string, podCIDR?: string): NodeObject => ({ metadata: { name }, spec: podCIDR === undefined ? {} : { podCIDR, podCIDRs: [podCIDR] } });

describe('node IPAM controller', () => {
  let t: TestContext;
  afterEach(() => t?.stop());

  const cidrOf = async (name: string): Promise<string | undefined> => (await t.client.resource<NodeObject>(NODES).get(name)).spec?.podCIDR;

  it('gives each node the next free /24, keeping those nodes already have (rebuilt from the nodes on start)', async () => {
    t = newTestContext({ options: { clusterCidr: '10.244.0.0/16', nodeCidrMaskSize: 24 } });
    t.client.seed(NODES, [node('old', '10.244.0.0/24'), node('older', '10.244.2.0/24'), node('a'), node('b')]);
    await nodeIpamController.start(t.ctx);
    t.start();
    await waitFor(async () => (await cidrOf('a')) !== undefined && (await cidrOf('b')) !== undefined);
    const given = [await cidrOf('a'), await cidrOf('b')].sort();
    assert.deepEqual(given, ['10.244.1.0/24', '10.244.3.0/24']);
    const a = await t.client.resource<NodeObject>(NODES).get('a');
    assert.deepEqual(a.spec?.podCIDRs, [a.spec?.podCIDR]);
    assert.equal(t.client.actionsOf('patch', 'nodes').length, 2, 'one patch per node');
  });

  it('never gives a CIDR twice; a deleted node\'s CIDR is released; exhaustion is a CIDRNotAvailable Event', async () => {
    t = newTestContext({ options: { clusterCidr: '10.0.0.0/23', nodeCidrMaskSize: 24 } });
    await nodeIpamController.start(t.ctx);
    t.start();
    const nodes = t.client.resource<NodeObject>(NODES);
    await nodes.create(node('a'));
    await waitFor(async () => (await cidrOf('a')) === '10.0.0.0/24');
    await nodes.create(node('b'));
    await waitFor(async () => (await cidrOf('b')) === '10.0.1.0/24');
    await nodes.create(node('c'));
    await waitFor(() => t.events.some((e) => e.reason === 'CIDRNotAvailable'));
    const event = t.events.find((e) => e.reason === 'CIDRNotAvailable')!;
    assert.equal(event.message, 'Node c status is now: CIDRNotAvailable');
    assert.equal(event.component, 'cidrAllocator');
    assert.equal(await cidrOf('c'), undefined);
    await nodes.delete('a');
    // c is retried with backoff and gets a's CIDR once a is gone.
    await waitFor(async () => (await cidrOf('c')) === '10.0.0.0/24', { timeoutMs: 10_000 });
    assert.equal(await cidrOf('b'), '10.0.1.0/24');
  });

  it('ignores a podCIDR outside the cluster range (not ours to track) and still allocates', async () => {
    t = newTestContext({ options: { clusterCidr: '10.0.0.0/23', nodeCidrMaskSize: 24 } });
    t.client.seed(NODES, [node('foreign', '192.168.0.0/24'), node('a')]);
    await nodeIpamController.start(t.ctx);
    t.start();
    await waitFor(async () => (await cidrOf('a')) === '10.0.0.0/24');
    assert.equal(await cidrOf('foreign'), '192.168.0.0/24');
  });

  it('a failed patch releases the CIDR and records CIDRAssignmentFailed', async () => {
    t = newTestContext({ options: { clusterCidr: '10.0.0.0/24', nodeCidrMaskSize: 24 } });
    const informer = t.ctx.informers.informerFor<NodeObject>(NODES);
    t.client.seed(NODES, [node('a')]);
    t.start();
    await t.ctx.informers.waitForCacheSync();
    const allocator = new RangeAllocator(informer.indexer, t.client.resource<NodeObject>(NODES), t.ctx.events.recorderFor('cidrAllocator'), '10.0.0.0/24', 24);
    t.client.injectError('patch', 'nodes', serviceUnavailable('try later'));
    await assert.rejects(allocator.reconcile('a'), /try later/);
    assert.deepEqual(t.events.map((e) => e.reason), ['CIDRAssignmentFailed']);
    await allocator.reconcile('a');
    assert.equal(await cidrOf('a'), '10.0.0.0/24', 'the only CIDR was released and given again');
  });

  it('does nothing with --allocate-node-cidrs=false, and refuses a cluster CIDR the mask does not fit', async () => {
    t = newTestContext({ options: { allocateNodeCidrs: false } });
    t.client.seed(NODES, [node('a')]);
    await nodeIpamController.start(t.ctx);
    t.start();
    await t.ctx.informers.waitForCacheSync();
    assert.deepEqual(t.client.actionsOf(), []);
    t.stop();
    t = newTestContext({ options: { clusterCidr: '10.0.0.0/24', nodeCidrMaskSize: 16 } });
    assert.throws(() => nodeIpamController.start(t.ctx), /does not fit/);
  });

  it('gives one CIDR per family with a dual-stack --cluster-cidr (IPv6 ranges are /64 as upstream\'s default)', async () => {
    t = newTestContext({ options: { clusterCidr: '10.244.0.0/16,fd00:10:244::/56', nodeCidrMaskSize: 24 } });
    t.client.seed(NODES, [node('a')]);
    await nodeIpamController.start(t.ctx);
    t.start();
    await waitFor(async () => (await cidrOf('a')) !== undefined);
    const a = await t.client.resource<NodeObject>(NODES).get('a');
    assert.deepEqual(a.spec?.podCIDRs, ['10.244.0.0/24', 'fd00:10:244::/64']);
    assert.equal(a.spec?.podCIDR, '10.244.0.0/24');
  });
});
