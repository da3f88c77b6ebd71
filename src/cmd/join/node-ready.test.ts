import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NODES } from '../../client/rest/resources.js';
import { newFakeClient } from '../../client/testing/fake-client.js';
import { waitForNodeReady } from './node-ready.js';

describe('waiting for a node to be Ready', () => {
  it('waits for the node to exist and report Ready', async () => {
    const client = newFakeClient();
    const waiting = waitForNodeReady(client, 'n1', { timeoutMs: 5000, intervalMs: 5 });
    const node = await client.resource(NODES).create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1' } });
    await client.resource(NODES).updateStatus({ ...node, status: { conditions: [{ type: 'Ready', status: 'False' }] } });
    const latest = await client.resource(NODES).get('n1');
    await client.resource(NODES).updateStatus({ ...latest, status: { conditions: [{ type: 'Ready', status: 'True' }] } });
    assert.equal(await waiting, 'ready');
  });

  it('gives up at the deadline, or when cancelled', async () => {
    const client = newFakeClient();
    assert.equal(await waitForNodeReady(client, 'n1', { timeoutMs: 30, intervalMs: 5 }), 'timeout');
    assert.equal(await waitForNodeReady(client, 'n1', { timeoutMs: 5000, intervalMs: 5, cancelled: () => true }), 'cancelled');
  });
});
