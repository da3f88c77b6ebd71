import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { newBuiltinScheme } from '../../../../api/resources.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { newMemoryStorage } from '../../../../storage/memory/memory-storage.js';
import { builtinDefinitions } from '../../../registry/builtin.js';
import { ObjectStorage } from '../../../registry/generic/object-storage.js';
import { Registry } from '../../../registry/registry.js';
import { newAuthorizationPipeline, type AuthorizationPipeline } from '../../authorization-pipeline.js';
import { EscalationGuard } from '../rbac/escalation.js';

async function eventually(check: () => Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the Node mode over the server stores (Node,RBAC)', () => {
  let registry: Registry;
  let pipeline: AuthorizationPipeline;
  const node = { name: 'system:node:a', groups: ['system:nodes', 'system:authenticated'] };
  const getSecret = async (name: string) =>
    pipeline.authorizer.authorize({ user: node, verb: 'get', isResourceRequest: true, path: '', namespace: 'default', apiGroup: '', apiVersion: 'v1', resource: 'secrets', subresource: '', name });

  before(async () => {
    const escalation = new EscalationGuard();
    registry = new Registry({ scheme: newBuiltinScheme(), storage: new ObjectStorage(newMemoryStorage()), prefix: '/registry', definitions: builtinDefinitions({ escalation }) });
    for (const name of ['default', 'kube-system', 'kube-public']) {
      await registry.store('', 'v1', 'namespaces').create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    }
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'early' }, spec: { nodeName: 'a', containers: [{ name: 'c', image: 'i' }], volumes: [{ name: 'v', secret: { secretName: 'early-secret' } }] } };
    await registry.store('', 'v1', 'pods').create('default', pod as KubeObject);
    pipeline = await newAuthorizationPipeline({ registry, escalation, modes: ['Node', 'RBAC'] });
  });

  after(() => {
    pipeline.stop();
    registry.stop();
  });

  it('knows the pods that existed before it started', async () => {
    assert.equal((await getSecret('early-secret')).decision, 'Allow');
  });

  it('follows pods as they come and go, and gives upstream\'s reason when there is no relationship', async () => {
    const denied = await getSecret('s');
    assert.deepEqual(denied, { decision: 'NoOpinion', reason: "no relationship found between node 'a' and this object" });
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web' }, spec: { nodeName: 'a', containers: [{ name: 'c', image: 'i', env: [{ name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }] } };
    await registry.store('', 'v1', 'pods').create('default', pod as KubeObject);
    await eventually(async () => (await getSecret('s')).decision === 'Allow', 'the pod to reach the graph');
    await registry.store('', 'v1', 'pods').delete('default', 'web', { gracePeriodSeconds: 0 });
    await eventually(async () => (await getSecret('s')).decision === 'NoOpinion', 'the deleted pod to leave the graph');
  });

  it('takes a pod in when it is bound to the node (read from storage, where the binding writes nodeName)', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'later' }, spec: { containers: [{ name: 'c', image: 'i' }], volumes: [{ name: 'v', secret: { secretName: 'later-secret' } }] } };
    await registry.store('', 'v1', 'pods').create('default', pod as KubeObject);
    const source = registry.storageSource('', 'v1', 'pods')!;
    assert.equal(source.prefix, '/registry/pods/');
    const stored = (await source.storage.get(`${source.prefix}default/later`))!;
    // Unbound: no relationship yet (the graph skipped it).
    assert.equal((await getSecret('later-secret')).decision, 'NoOpinion');
    const bound = JSON.parse(Buffer.from(stored.value).toString('utf8')) as { spec: Record<string, unknown> };
    bound.spec.nodeName = 'a';
    await source.storage.update(stored.key, Buffer.from(JSON.stringify(bound)), stored.modRevision);
    await eventually(async () => (await getSecret('later-secret')).decision === 'Allow', 'the bound pod to reach the graph');
    await registry.store('', 'v1', 'pods').delete('default', 'later', { gracePeriodSeconds: 0 });
    await eventually(async () => (await getSecret('later-secret')).decision === 'NoOpinion', 'the deleted pod to leave the graph');
  });
});
