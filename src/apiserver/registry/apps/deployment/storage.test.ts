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
