import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBuiltinScheme } from '../../../../api/resources.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { isInvalid } from '../../../../machinery/status.js';
import { newMemoryStorage } from '../../../../storage/memory/memory-storage.js';
import { builtinDefinitions } from '../../builtin.js';
import { ObjectStorage } from '../../generic/object-storage.js';
import { Registry } from '../../registry.js';
import { scaleOf } from './scale.js';

/** A registry over memory storage with the `default` namespace. */
async function newRegistry(): Promise<Registry> {
  const registry = new Registry({ scheme: newBuiltinScheme(), storage: new ObjectStorage(newMemoryStorage()), prefix: '/registry', definitions: builtinDefinitions() });
  await registry.store('', 'v1', 'namespaces').create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  return registry;
}

const deploymentBody = (labels: Record<string, string> = { app: 'web' }): KubeObject => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web' },
  spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
});

describe('deployment storage', () => {
  it('creates with defaults and an empty status; the generation moves with the spec only', async () => {
    const registry = await newRegistry();
    const deployments = registry.store('apps', 'v1', 'deployments');
    const created = await deployments.create('default', deploymentBody());
    assert.equal(created.metadata.generation, 1);
    assert.deepEqual(created.status, {});
    assert.equal((created.spec as { replicas: number }).replicas, 1);
    const labelled = await deployments.update('default', 'web', (c) => ({ ...c!, metadata: { ...c!.metadata, labels: { a: 'b' } } }));
    assert.equal(labelled.object.metadata.generation, 1);
    const scaled = await deployments.update('default', 'web', (c) => ({ ...c!, spec: { ...(c!.spec as object), replicas: 3 } }));
    assert.equal(scaled.object.metadata.generation, 2);
    assert.deepEqual(scaleOf(scaled.object).spec, { replicas: 3 });
    assert.deepEqual(scaleOf(scaled.object).status, { replicas: 0, selector: 'app=web' });
    const status = registry.lookup('apps', 'v1', 'deployments')!.subresources.get('status')!.store;
    const withStatus = await status.update('default', 'web', (c) => ({ ...c!, status: { replicas: 3 }, spec: { ...(c!.spec as object), replicas: 9 } }));
    assert.equal((withStatus.object.spec as { replicas: number }).replicas, 3);
    assert.deepEqual(withStatus.object.status, { replicas: 3 });
    assert.equal(withStatus.object.metadata.generation, 2);
  });

  it('lets a status write change annotations but not labels (upstream\'s deploymentStatusStrategy); a ReplicaSet\'s may change both, a Pod\'s neither', async () => {
    const registry = await newRegistry();
    const statusOf = (group: string, resource: string) => registry.lookup(group, 'v1', resource)!.subresources.get('status')!.store;
    await registry.store('apps', 'v1', 'deployments').create('default', { ...deploymentBody(), metadata: { name: 'web', labels: { tier: 'a' } } });
    const deployment = await statusOf('apps', 'deployments').update('default', 'web', (c) => ({
      ...c!,
      metadata: { ...c!.metadata, labels: { tier: 'b' }, annotations: { 'deployment.kubernetes.io/revision': '1' } },
    }));
    assert.deepEqual(deployment.object.metadata.annotations, { 'deployment.kubernetes.io/revision': '1' });
    assert.deepEqual(deployment.object.metadata.labels, { tier: 'a' });

    await registry.store('apps', 'v1', 'replicasets').create('default', {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name: 'web-1', labels: { tier: 'a' } },
      spec: { selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } } },
    });
    const replicaSet = await statusOf('apps', 'replicasets').update('default', 'web-1', (c) => ({ ...c!, metadata: { ...c!.metadata, labels: { tier: 'b' }, annotations: { a: '1' } } }));
    assert.deepEqual(replicaSet.object.metadata.labels, { tier: 'b' });
    assert.deepEqual(replicaSet.object.metadata.annotations, { a: '1' });

    await registry.store('', 'v1', 'pods').create('default', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', labels: { tier: 'a' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } });
    const pod = await statusOf('', 'pods').update('default', 'p', (c) => ({ ...c!, metadata: { ...c!.metadata, labels: { tier: 'b' }, annotations: { a: '1' } } }));
    assert.deepEqual(pod.object.metadata.labels, { tier: 'a' });
    assert.equal(pod.object.metadata.annotations, undefined);
  });

  it('refuses a selector that does not match the template', async () => {
    const deployments = (await newRegistry()).store('apps', 'v1', 'deployments');
    await assert.rejects(deployments.create('default', deploymentBody({ app: 'x' })), (e: unknown) => {
      assert.ok(isInvalid(e));
      assert.equal(
        (e as Error).message,
        'Deployment.apps "web" is invalid: spec.template.metadata.labels: Invalid value: map[string]string{"app":"x"}: `selector` does not match template `labels`',
      );
      return true;
    });
  });
});

describe('job storage', () => {
  it('generates the selector and pod labels from the uid at creation', async () => {
    const jobs = (await newRegistry()).store('batch', 'v1', 'jobs');
    const created = await jobs.create('default', {
      apiVersion: 'batch/v1',
      kind: 'Job',
      metadata: { name: 'pi' },
      spec: { template: { spec: { containers: [{ name: 'c', image: 'perl' }], restartPolicy: 'Never' } } },
    });
    const uid = created.metadata.uid!;
    const spec = created.spec as { selector: unknown; template: { metadata: { labels: Record<string, string> } } };
    assert.deepEqual(spec.selector, { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } });
    assert.equal(spec.template.metadata.labels['job-name'], 'pi');
    assert.equal(created.metadata.labels?.['batch.kubernetes.io/job-name'], 'pi');
    // An unconditional update keeps the generated fields valid.
    const { object } = await jobs.update('default', 'pi', (c) => ({ ...c!, metadata: { ...c!.metadata, resourceVersion: '' } }));
    assert.equal(object.metadata.uid, uid);
  });
});
