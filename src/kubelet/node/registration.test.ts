import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NODES } from '../../client/rest/resources.js';
import { newFakeClient } from '../../client/testing/fake-client.js';
import { newLogger } from '../../machinery/logger.js';
import { serviceUnavailable } from '../../machinery/status.js';
import type { Node } from '../types.js';
import { defaultNodeLabels } from './node-labels.js';
import { initialNode, registerNode } from './registration.js';

const logger = newLogger('test', { level: 'silent' });
const labels = { ...defaultNodeLabels({ hostname: 'node-a', os: 'linux', arch: 'amd64' }), 'example.com/rack': 'r1' };

describe('node registration', () => {
  it('creates the Node with the default labels, --node-labels, taints and the attach-detach annotation', async () => {
    const client = newFakeClient();
    const node = await registerNode({
      client,
      node: initialNode({ nodeName: 'node-a', labels, taints: [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }] }),
      logger,
      signal: new AbortController().signal,
    });
    assert.ok(node?.metadata.uid);
    const stored = await client.resource<Node>(NODES).get('node-a');
    assert.deepEqual(stored.metadata.labels, {
      'kubernetes.io/hostname': 'node-a',
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      'beta.kubernetes.io/os': 'linux',
      'beta.kubernetes.io/arch': 'amd64',
      'example.com/rack': 'r1',
    });
    assert.deepEqual(stored.spec?.taints, [{ key: 'dedicated', value: 'infra', effect: 'NoSchedule' }]);
    assert.equal(stored.metadata.annotations?.['volumes.kubernetes.io/controller-managed-attach-detach'], 'true');
  });

  it('on AlreadyExists patches only the default labels that differ, leaving the rest as the administrator left it', async () => {
    const client = newFakeClient();
    client.seed(NODES, [
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: 'node-a', uid: 'u1', labels: { 'kubernetes.io/hostname': 'old', 'kubernetes.io/os': 'linux', 'team': 'x' } },
        spec: { taints: [{ key: 'k', effect: 'NoExecute' }] },
      } as Node,
    ]);
    const node = await registerNode({ client, node: initialNode({ nodeName: 'node-a', labels, taints: [] }), logger, signal: new AbortController().signal });
    assert.equal(node?.metadata.uid, 'u1');
    assert.deepEqual(node?.metadata.labels, {
      'kubernetes.io/hostname': 'node-a',
      'kubernetes.io/os': 'linux',
      'kubernetes.io/arch': 'amd64',
      'beta.kubernetes.io/os': 'linux',
      'beta.kubernetes.io/arch': 'amd64',
      team: 'x',
    });
    assert.deepEqual(node?.spec?.taints, [{ key: 'k', effect: 'NoExecute' }]);
    assert.equal(client.actionsOf('patch', 'nodes').length, 1);
    // Registering again changes nothing.
    await registerNode({ client, node: initialNode({ nodeName: 'node-a', labels, taints: [] }), logger, signal: new AbortController().signal });
    assert.equal(client.actionsOf('patch', 'nodes').length, 1);
  });

  it('retries while the API server fails, and gives up only when cancelled', async () => {
    const client = newFakeClient();
    client.injectError('create', 'nodes', serviceUnavailable('down'), 2);
    const node = await registerNode({ client, node: initialNode({ nodeName: 'node-a', labels, taints: [] }), logger, signal: new AbortController().signal, initialBackoffMs: 1 });
    assert.equal(node?.metadata.name, 'node-a');
    assert.equal(client.actionsOf('create', 'nodes').length, 3);

    const failing = newFakeClient();
    failing.injectError('create', 'nodes', serviceUnavailable('down'), 1000);
    const abort = new AbortController();
    const pending = registerNode({ client: failing, node: initialNode({ nodeName: 'node-a', labels, taints: [] }), logger, signal: abort.signal, initialBackoffMs: 1 });
    abort.abort();
    assert.equal(await pending, undefined);
  });
});
