import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { newBuiltinScheme } from '../../../../api/resources.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { newMemoryStorage } from '../../../../storage/memory/memory-storage.js';
import { builtinDefinitions } from '../../../registry/builtin.js';
import { ObjectStorage } from '../../../registry/generic/object-storage.js';
import { Registry } from '../../../registry/registry.js';
import { newWebhookSource, type WebhookSource } from './configuration-source.js';

const config = (name: string, ...hooks: string[]): KubeObject =>
  ({
    apiVersion: 'admissionregistration.k8s.io/v1',
    kind: 'ValidatingWebhookConfiguration',
    metadata: { name },
    webhooks: hooks.map((h) => ({
      name: h,
      clientConfig: { url: 'https://127.0.0.1:1/' },
      rules: [{ operations: ['CREATE'], apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }],
      sideEffects: 'None',
      admissionReviewVersions: ['v1'],
    })),
  }) as KubeObject;

async function until(what: string, source: WebhookSource, expected: string[]): Promise<void> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const got = source.webhooks().map((h) => h.key);
    if (JSON.stringify(got) === JSON.stringify(expected)) return;
    if (Date.now() > deadline) assert.fail(`${what}: webhooks ${JSON.stringify(got)}, expected ${JSON.stringify(expected)}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('newWebhookSource', () => {
  const controller = new AbortController();
  after(() => controller.abort());

  it('lists, then follows the watch, sorted by configuration name then webhook order', async () => {
    const registry = new Registry({ scheme: newBuiltinScheme(), storage: new ObjectStorage(newMemoryStorage()), prefix: '/registry', definitions: builtinDefinitions(), watchCache: false });
    const store = registry.store('admissionregistration.k8s.io', 'v1', 'validatingwebhookconfigurations');
    await store.create(undefined, config('m', 'one.example.com', 'two.example.com'));
    const source = newWebhookSource({ store, signal: controller.signal });
    await source.ready();
    assert.deepEqual(source.webhooks().map((h) => [h.key, h.webhook.name]), [['m/0', 'one.example.com'], ['m/1', 'two.example.com']]);
    assert.equal(source.webhooks()[0]!.webhook.failurePolicy, 'Fail', 'stored with defaults');
    await store.create(undefined, config('a', 'first.example.com'));
    await until('after a create', source, ['a/0', 'm/0', 'm/1']);
    await store.delete(undefined, 'm');
    await until('after a delete', source, ['a/0']);
  });
});
