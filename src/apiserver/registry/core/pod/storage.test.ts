import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBuiltinScheme } from '../../../../api/resources.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { isInvalid, StatusError } from '../../../../machinery/status.js';
import { newMemoryStorage } from '../../../../storage/memory/memory-storage.js';
import { builtinDefinitions } from '../../builtin.js';
import { ObjectStorage } from '../../generic/object-storage.js';
import { Registry } from '../../registry.js';
import { podGracePeriod } from './storage.js';

/** A registry over memory storage with the `default` namespace. */
async function newRegistry(): Promise<Registry> {
  const registry = new Registry({ scheme: newBuiltinScheme(), storage: new ObjectStorage(newMemoryStorage()), prefix: '/registry', definitions: builtinDefinitions() });
  await registry.store('', 'v1', 'namespaces').create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  return registry;
}

const podBody = (name = 'p'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name },
  spec: { containers: [{ name: 'c', image: 'nginx:1', resources: { limits: { cpu: '1', memory: '1Gi' } } }] },
});

const spec = (o: KubeObject): Record<string, unknown> => o.spec as Record<string, unknown>;

describe('pod storage', () => {
  it('creates a pod with defaults and a Pending status with its QoS class (admission defaults are the admission plugins\' business)', async () => {
    const pods = (await newRegistry()).store('', 'v1', 'pods');
    const created = await pods.create('default', podBody());
    assert.equal(spec(created).serviceAccountName, undefined);
    assert.equal(spec(created).restartPolicy, 'Always');
    assert.equal(spec(created).tolerations, undefined);
    assert.deepEqual(created.status, { phase: 'Pending', qosClass: 'Guaranteed' });
    // 1.33 (KEP-5067): generation 1 at create, whatever the client sent.
    assert.equal(created.metadata.generation, 1);
    assert.equal((await pods.create('default', { ...podBody('q'), metadata: { name: 'q', generation: 7 } })).metadata.generation, 1);
  });

  it('refuses an invalid pod with upstream messages, once each', async () => {
    const pods = (await newRegistry()).store('', 'v1', 'pods');
    const body = podBody('Bad_Name');
    (spec(body).containers as unknown[]).push({ name: 'c', image: '' });
    await assert.rejects(pods.create('default', body), (e: unknown) => {
      assert.ok(isInvalid(e));
      const causes = (e as StatusError).status.details?.causes?.map((c) => `${c.field}: ${c.message}`) ?? [];
      assert.equal(causes.filter((c) => c.startsWith('metadata.name')).length, 1);
      assert.ok(causes.includes('spec.containers[1].image: Required value'), causes.join('\n'));
      assert.ok(causes.includes('spec.containers[1].name: Duplicate value: "c"'), causes.join('\n'));
      return true;
    });
  });

  it('an update may change the image but not the rest of the spec; status only through /status', async () => {
    const registry = await newRegistry();
    const pods = registry.store('', 'v1', 'pods');
    await pods.create('default', podBody());
    const { object } = await pods.update('default', 'p', (current) => {
      const next = structuredClone(current!);
      (spec(next).containers as { image: string }[])[0]!.image = 'nginx:2';
      next.status = { phase: 'Running' };
      return next;
    });
    assert.equal((spec(object).containers as { image: string }[])[0]!.image, 'nginx:2');
    assert.equal((object.status as { phase: string }).phase, 'Pending');
    await assert.rejects(
      pods.update('default', 'p', (current) => ({ ...current!, spec: { ...spec(current!), nodeName: 'n1' } })),
      (e: unknown) => isInvalid(e) && /pod updates may not change fields other than/.test((e as Error).message),
    );
    const status = registry.lookup('', 'v1', 'pods')!.subresources.get('status')!.store;
    const updated = await status.update('default', 'p', (current) => ({ ...current!, status: { phase: 'Running' }, spec: { ...spec(current!), nodeName: 'n1' } }));
    assert.equal((updated.object.status as { phase: string }).phase, 'Running');
    assert.equal(spec(updated.object).nodeName, undefined);
  });

  it('counts generations as 1.33 does: +1 for a spec change and for graceful deletion, not for metadata or status', async () => {
    const registry = await newRegistry();
    const pods = registry.store('', 'v1', 'pods');
    await pods.create('default', { ...podBody(), spec: { ...spec(podBody()), nodeName: 'n1' } });
    const generation = async (): Promise<number | undefined> => (await pods.get('default', 'p')).metadata.generation;
    await pods.update('default', 'p', (current) => ({ ...current!, metadata: { ...current!.metadata, labels: { a: 'b' } } }));
    const status = registry.lookup('', 'v1', 'pods')!.subresources.get('status')!.store;
    await status.update('default', 'p', (current) => ({ ...current!, status: { phase: 'Running' } }));
    assert.equal(await generation(), 1);
    await pods.update('default', 'p', (current) => {
      const next = structuredClone(current!);
      (spec(next).containers as { image: string }[])[0]!.image = 'nginx:2';
      return next;
    });
    assert.equal(await generation(), 2);
    const { object, deleted } = await pods.delete('default', 'p', { gracePeriodSeconds: 30 });
    assert.equal(deleted, false);
    assert.equal(object.metadata.generation, 3);
    // A shorter grace period is no new generation.
    assert.equal((await pods.delete('default', 'p', { gracePeriodSeconds: 10 })).object.metadata.generation, 3);
  });
});

describe('podGracePeriod', () => {
  it('turns a negative requested period into 1, as upstream’s CheckGracefulDelete', () => {
    const scheduled = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'n', terminationGracePeriodSeconds: 30 } };
    assert.equal(podGracePeriod(scheduled, -5), 1);
    assert.equal(podGracePeriod(scheduled, 0), 0);
    assert.equal(podGracePeriod(scheduled, undefined), 30);
  });
});
