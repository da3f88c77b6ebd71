import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LEASES } from '../../client/rest/resources.js';
import { newFakeClient } from '../../client/testing/fake-client.js';
import { newLogger } from '../../machinery/logger.js';
import { serviceUnavailable } from '../../machinery/status.js';
import type { Node } from '../types.js';
import { newNodeLease, NODE_LEASE_NAMESPACE, type LeaseObject } from './node-lease.js';

const logger = newLogger('test', { level: 'silent' });
const node: Node = { apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a', uid: 'node-uid' } };

async function until(condition: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('node lease', () => {
  it('creates kube-node-lease/<node> held by the node, owned by the Node, and renews it every quarter of its duration', async () => {
    const client = newFakeClient();
    let now = 1_000_000;
    // 0.04 s lease: renewed every 10 ms.
    const lease = newNodeLease({ client, nodeName: 'node-a', leaseDurationSeconds: 0.04, node: () => node, logger, now: () => now });
    const abort = new AbortController();
    const running = lease.run(abort.signal);
    const leases = client.resource<LeaseObject>(LEASES);
    await until(async () => (await leases.list({ namespace: NODE_LEASE_NAMESPACE })).items.length === 1, 'the lease');
    const first = await leases.get('node-a', { namespace: NODE_LEASE_NAMESPACE });
    assert.equal(first.spec?.holderIdentity, 'node-a');
    assert.equal(first.spec?.leaseDurationSeconds, 0.04);
    assert.deepEqual(first.metadata.ownerReferences, [{ apiVersion: 'v1', kind: 'Node', name: 'node-a', uid: 'node-uid' }]);
    now += 5_000;
    await until(async () => (await leases.get('node-a', { namespace: NODE_LEASE_NAMESPACE })).spec?.renewTime === new Date(now).toISOString().replace('Z', '000Z'), 'a renewal');
    abort.abort();
    await running;
  });

  it('takes the Lease again after someone else changed or deleted it, and keeps trying through failures', async () => {
    const client = newFakeClient();
    const lease = newNodeLease({ client, nodeName: 'node-a', leaseDurationSeconds: 0.04, node: () => undefined, logger });
    const abort = new AbortController();
    const running = lease.run(abort.signal);
    const leases = client.resource<LeaseObject>(LEASES);
    await until(() => lease.latest !== undefined, 'the first lease');
    assert.equal(lease.latest?.metadata.ownerReferences, undefined, 'no owner before the Node is known');
    await leases.delete('node-a', { namespace: NODE_LEASE_NAMESPACE });
    client.injectError('update', 'leases', serviceUnavailable('down'), 3);
    await until(async () => (await leases.list({ namespace: NODE_LEASE_NAMESPACE })).items.length === 1, 'the lease made again');
    abort.abort();
    await running;
  });
});
