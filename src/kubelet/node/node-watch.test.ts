import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NODES } from '../../client/rest/resources.js';
import { newFakeClient } from '../../client/testing/fake-client.js';
import { newLogger } from '../../machinery/logger.js';
import type { Node } from '../types.js';
import { newNodeWatch } from './node-watch.js';

const logger = newLogger('test', { level: 'silent' });

async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('node watch', () => {
  it('follows its own Node only, tells the runtime the pod CIDR once, and retries the runtime on the next change after a failure', async () => {
    const client = newFakeClient();
    client.seed(NODES, [{ apiVersion: 'v1', kind: 'Node', metadata: { name: 'other' }, spec: { podCIDR: '10.0.9.0/24' } } as Node]);
    const cidrs: string[] = [];
    let fail = 1;
    const told: string[] = [];
    const watch = newNodeWatch({
      client,
      nodeName: 'node-a',
      logger,
      runtime: {
        updateRuntimeConfig: async ({ podCIDR }) => {
          cidrs.push(podCIDR);
          if (fail-- > 0) throw new Error('runtime busy');
        },
      },
      onPodCIDR: (cidr) => told.push(cidr),
    });
    watch.start();
    try {
      const nodes = client.resource<Node>(NODES);
      await nodes.create({ apiVersion: 'v1', kind: 'Node', metadata: { name: 'node-a' } } as Node);
      await until(() => watch.node?.metadata.name === 'node-a', 'the node');
      await nodes.patch('node-a', 'merge', { spec: { podCIDR: '127.244.1.0/24' } });
      await until(() => cidrs.length === 1, 'the first (failing) call');
      assert.deepEqual(told, []);
      await nodes.patch('node-a', 'merge', { metadata: { labels: { a: 'b' } } });
      await until(() => told.length === 1, 'the retry');
      await nodes.patch('node-a', 'merge', { metadata: { labels: { a: 'c' } } });
      await until(() => watch.node?.metadata.labels?.['a'] === 'c', 'the later change');
      assert.deepEqual(cidrs, ['127.244.1.0/24', '127.244.1.0/24'], 'told once it succeeded, never again for the same CIDR');
      // An older copy (say, from a slow status write) does not replace a newer one.
      const current = watch.node!;
      watch.observe({ ...current, metadata: { ...current.metadata, resourceVersion: '1', labels: {} } });
      assert.equal(watch.node?.metadata.labels?.['a'], 'c');
    } finally {
      watch.stop();
    }
  });
});
