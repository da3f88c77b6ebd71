import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { newBuiltinScheme } from '../../../api/resources.js';
import { newMemoryStorage } from '../../../storage/memory/memory-storage.js';
import { builtinDefinitions } from '../builtin.js';
import { Registry } from '../registry.js';
import { ObjectStorage } from './object-storage.js';

async function configmaps() {
  return (await newTestRegistry()).store('', 'v1', 'configmaps');
}

async function newTestRegistry(): Promise<Registry> {
  const registry = new Registry({
    scheme: newBuiltinScheme(),
    storage: new ObjectStorage(newMemoryStorage()),
    prefix: '/registry',
    definitions: builtinDefinitions(),
  });
  await registry.store('', 'v1', 'namespaces').create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  return registry;
}

describe('GenericStore delete', () => {
  it('marks an object held by a finalizer, and deletes it once the finalizer is removed', async () => {
    const store = await configmaps();
    await store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    const first = await store.delete('default', 'held');
    assert.equal(first.deleted, false);
    assert.ok(first.object.metadata.deletionTimestamp !== undefined, 'deletionTimestamp is set');
    assert.equal(first.object.metadata.deletionGracePeriodSeconds, 0);
    const marked = await store.get('default', 'held');
    assert.equal(marked.metadata.deletionTimestamp, first.object.metadata.deletionTimestamp);
    assert.deepEqual(marked.metadata.finalizers, ['example.com/hold']);

    // A second delete leaves the mark as it was.
    const second = await store.delete('default', 'held');
    assert.equal(second.object.metadata.deletionTimestamp, first.object.metadata.deletionTimestamp);

    // Removing the last finalizer finishes the deletion.
    await store.update('default', 'held', (current) => {
      const next = structuredClone(current!);
      delete next.metadata.finalizers;
      return next;
    });
    await assert.rejects(store.get('default', 'held'), (e: unknown) => (e as { code?: number }).code === 404);
  });

  it('bumps a set generation once when it marks an object for deletion, as upstream\'s markAsDeleting', async () => {
    const registry = await newTestRegistry();
    const store = registry.store('', 'v1', 'configmaps');
    await store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'plain', finalizers: ['example.com/hold'] } });
    assert.equal((await store.delete('default', 'plain')).object.metadata.generation, undefined);
    const deployments = registry.store('apps', 'v1', 'deployments');
    const labels = { app: 'd' };
    await deployments.create('default', {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'd', finalizers: ['example.com/hold'] },
      spec: { selector: { matchLabels: labels }, template: { metadata: { labels }, spec: { containers: [{ name: 'c', image: 'nginx:1' }] } } },
    });
    assert.equal((await deployments.delete('default', 'd')).object.metadata.generation, 2);
    assert.equal((await deployments.delete('default', 'd')).object.metadata.generation, 2, 'a second delete is no new generation');
  });

  it('refuses to create in a namespace that does not exist', async () => {
    const store = await configmaps();
    await assert.rejects(
      store.create('nowhere', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } }),
      (e: unknown) => (e as Error).message === 'namespaces "nowhere" not found',
    );
  });

  it('refuses to create in a namespace that is being deleted, with upstream\'s 403', async () => {
    const registry = new Registry({ scheme: newBuiltinScheme(), storage: new ObjectStorage(newMemoryStorage()), prefix: '/registry', definitions: builtinDefinitions() });
    const namespaces = registry.store('', 'v1', 'namespaces');
    await namespaces.create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'going', finalizers: ['example.com/hold'] } });
    await namespaces.delete(undefined, 'going');
    await assert.rejects(
      registry.store('', 'v1', 'configmaps').create('going', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'late' } }),
      (e: unknown) =>
        (e as { code?: number }).code === 403 &&
        (e as Error).message === 'configmaps "late" is forbidden: unable to create new content in namespace going because it is being terminated' &&
        JSON.stringify((e as { status: { details: { causes?: unknown } } }).status.details.causes) ===
          JSON.stringify([{ reason: 'NamespaceTerminating', message: 'namespace going is being terminated', field: 'metadata.namespace' }]),
    );
  });

  it('validates object metadata for every kind, each error once', async () => {
    const store = await configmaps();
    await assert.rejects(
      store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'labelled', labels: { 'bad key!': 'v' } } }),
      (e: unknown) => {
        const status = (e as { status?: { code: number; message: string; details?: { causes?: { field?: string }[] } } }).status;
        assert.equal(status?.code, 422);
        assert.match(status!.message, /^ConfigMap "labelled" is invalid: metadata.labels: Invalid value: "bad key!": name part must consist of alphanumeric characters/);
        assert.deepEqual(status!.details?.causes?.map((c) => c.field), ['metadata.labels']);
        return true;
      },
    );
    await store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owned' } });
    await assert.rejects(
      store.update('default', 'owned', (current) => ({ ...current!, metadata: { ...current!.metadata, labels: { 'a/b/c': 'x' } } })),
      (e: unknown) => (e as { status?: { code: number } }).status?.code === 422,
    );
  });

  it('a dry-run delete of an object held by a finalizer changes nothing', async () => {
    const store = await configmaps();
    await store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'held', finalizers: ['example.com/hold'] } });
    const result = await store.delete('default', 'held', { dryRun: true });
    assert.ok(result.object.metadata.deletionTimestamp !== undefined);
    const stored = await store.get('default', 'held');
    assert.equal(stored.metadata.deletionTimestamp, undefined);
  });
});

describe('GenericStore create with generateName', () => {
  /** Math.random giving `values` in turn, then the real one again. */
  function scriptedRandom(values: number[]): () => void {
    const real = Math.random;
    Math.random = () => values.shift() ?? real();
    return () => void (Math.random = real);
  }
  const sameSuffix = (n: number): number[] => Array.from({ length: 5 * n }, () => 0);

  it('generates the name again when the generated one is taken (upstream RetryGenerateName)', async () => {
    const store = await configmaps();
    const restore = scriptedRandom([...sameSuffix(1), ...sameSuffix(1), 0.5, 0.5, 0.5, 0.5, 0.5]);
    try {
      const first = await store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'cm-' } });
      assert.equal(first.metadata.name, 'cm-bbbbb');
      const second = await store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'cm-' } });
      assert.notEqual(second.metadata.name, 'cm-bbbbb');
      assert.match(second.metadata.name!, /^cm-[bcdfghjklmnpqrstvwxz2456789]{5}$/);
    } finally {
      restore();
    }
  });

  it('gives up with AlreadyExists after 8 attempts, and never retries a name the client chose', async () => {
    const store = await configmaps();
    const restore = scriptedRandom(sameSuffix(9));
    try {
      await store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'cm-' } });
      await assert.rejects(
        store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { generateName: 'cm-' } }),
        (e: unknown) => (e as { code?: number }).code === 409 && (e as Error).message === 'configmaps "cm-bbbbb" already exists',
      );
    } finally {
      restore();
    }
    await assert.rejects(
      store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm-bbbbb', generateName: 'cm-' } }),
      (e: unknown) => (e as { code?: number }).code === 409,
    );
  });
});

describe('GenericStore delete with a propagation policy', () => {
  it('lets the policy of a later delete replace the garbage-collection finalizer of an earlier one, as upstream', async () => {
    const store = await configmaps();
    await store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner', finalizers: ['example.com/hold'] } });
    const orphan = await store.delete('default', 'owner', { propagationPolicy: 'Orphan' });
    assert.deepEqual(orphan.object.metadata.finalizers, ['example.com/hold', 'orphan']);
    const foreground = await store.delete('default', 'owner', { propagationPolicy: 'Foreground' });
    assert.deepEqual(foreground.object.metadata.finalizers, ['example.com/hold', 'foregroundDeletion']);
    const background = await store.delete('default', 'owner', { propagationPolicy: 'Background' });
    assert.deepEqual(background.object.metadata.finalizers, ['example.com/hold']);
    const unnamed = await store.delete('default', 'owner');
    assert.deepEqual(unnamed.object.metadata.finalizers, ['example.com/hold'], 'no policy: the finalizers stay as they are');
  });

  it('deletes an object at once when a Background delete removes the only finalizer an Orphan delete had added', async () => {
    const store = await configmaps();
    await store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'owner' } });
    const orphan = await store.delete('default', 'owner', { propagationPolicy: 'Orphan' });
    assert.equal(orphan.deleted, false);
    assert.deepEqual(orphan.object.metadata.finalizers, ['orphan']);
    const background = await store.delete('default', 'owner', { orphanDependents: false });
    assert.equal(background.deleted, true);
    await assert.rejects(store.get('default', 'owner'), (e: unknown) => (e as { code?: number }).code === 404);
  });
});

describe('GenericStore update and metadata.uid', () => {
  it('keeps the uid when the client sends none, and refuses another one as immutable (upstream BeforeUpdate)', async () => {
    const store = await configmaps();
    const created = await store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'mine' } });
    const uid = created.metadata.uid;
    assert.ok(uid);
    const kept = await store.update('default', 'mine', (current) => {
      const next = structuredClone(current!);
      delete next.metadata.uid;
      (next as { data?: Record<string, string> }).data = { a: 'b' };
      return next;
    });
    assert.equal(kept.object.metadata.uid, uid);
    await assert.rejects(
      store.update('default', 'mine', (current) => ({ ...structuredClone(current!), metadata: { ...current!.metadata, uid: 'someone-else' } })),
      (e: unknown) => (e as { code?: number }).code === 422 && /metadata\.uid: Invalid value: "someone-else": field is immutable/.test((e as Error).message),
    );
  });
});

describe('GenericStore update of a kind that refuses unconditional updates', () => {
  it('creates a Lease on PUT, then answers an update without resourceVersion with upstream\'s 422', async () => {
    const registry = new Registry({ scheme: newBuiltinScheme(), storage: new ObjectStorage(newMemoryStorage()), prefix: '/registry', definitions: builtinDefinitions() });
    await registry.store('', 'v1', 'namespaces').create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    const leases = registry.store('coordination.k8s.io', 'v1', 'leases');
    const lease = { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'l', namespace: 'default' }, spec: {} };
    const first = await leases.update('default', 'l', () => structuredClone(lease));
    assert.equal(first.created, true);
    await assert.rejects(leases.update('default', 'l', () => structuredClone(lease)), (e: unknown) => {
      const status = (e as { status: { message: string; details: unknown } }).status;
      assert.equal(status.message, 'leases.coordination.k8s.io "l" is invalid: metadata.resourceVersion: Invalid value: 0x0: must be specified for an update');
      assert.deepEqual(status.details, {
        name: 'l',
        group: 'coordination.k8s.io',
        kind: 'leases',
        causes: [{ reason: 'FieldValueInvalid', message: 'Invalid value: 0x0: must be specified for an update', field: 'metadata.resourceVersion' }],
      });
      return true;
    });
    const rv = first.object.metadata.resourceVersion;
    const second = await leases.update('default', 'l', () => ({ ...structuredClone(lease), metadata: { name: 'l', namespace: 'default', resourceVersion: rv } }));
    assert.equal(second.created, false);
  });
});

describe('GenericStore watch with sendInitialEvents (watch-list)', () => {
  it('starts at the current revision without the state when false, sends the state when true, and refuses a future resourceVersion with 504', async () => {
    const store = await configmaps();
    const created = await store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'w1' } });
    const current = await store.currentRevision();
    for (const resourceVersion of ['', '0']) {
      const quiet = await store.watch('default', { resourceVersion, sendInitialEvents: false });
      assert.deepEqual([quiet.initialEvents, quiet.startRevision], [0, current], `resourceVersion "${resourceVersion}"`);
      quiet.cancel();
      const legacy = await store.watch('default', { resourceVersion });
      assert.equal(legacy.initialEvents, 1);
      legacy.cancel();
    }
    const state = await store.watch('default', { resourceVersion: created.metadata.resourceVersion ?? '', sendInitialEvents: true });
    assert.deepEqual([state.initialEvents, state.startRevision], [1, current]);
    state.cancel();
    await assert.rejects(store.watch('default', { resourceVersion: String(current + 100), sendInitialEvents: true }), (e: unknown) => {
      const status = (e as { status: { code: number; reason: string; message: string } }).status;
      assert.deepEqual([status.code, status.reason, status.message], [504, 'Timeout', `Too large resource version: ${current + 100}, current: ${current}`]);
      return true;
    });
  });
});

describe('GenericStore list at a compacted revision', () => {
  it('answers upstream\'s 410 Expired "The resourceVersion for the provided list is too old."', async () => {
    const storage = newMemoryStorage();
    const registry = new Registry({ scheme: newBuiltinScheme(), storage: new ObjectStorage(storage), prefix: '/registry', definitions: builtinDefinitions() });
    await registry.store('', 'v1', 'namespaces').create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
    const store = registry.store('', 'v1', 'configmaps');
    const first = await store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'old' } });
    await store.create('default', { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'new' } });
    await storage.compact(await store.currentRevision());
    for (const params of [{ resourceVersion: first.metadata.resourceVersion!, resourceVersionMatch: 'Exact' }, { resourceVersion: first.metadata.resourceVersion!, limit: 1 }]) {
      await assert.rejects(store.list('default', params), (e: unknown) => {
        const status = (e as { status: { code: number; reason: string; message: string } }).status;
        assert.deepEqual([status.code, status.reason, status.message], [410, 'Expired', 'The resourceVersion for the provided list is too old.']);
        return true;
      });
    }
  });
});

describe('GenericStore strategy warnings', () => {
  it('hands the strategy warnings of a validated create and of a spec update to `warn`, and none for /status', async () => {
    const registry = await newTestRegistry();
    const store = registry.store('networking.k8s.io', 'v1', 'networkpolicies');
    const warnings: string[] = [];
    const warn = (w: string) => warnings.push(w);
    const policy = (cidr: string) => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: 'p' }, spec: { podSelector: {}, egress: [{ to: [{ ipBlock: { cidr } }] }] } });
    await store.create('default', policy('10.0.0.1/8'), { warn });
    assert.deepEqual(warnings, ['spec.egress[0].to[0].ipBlock.cidr: CIDR value "10.0.0.1/8" is ambiguous in this context (should be "10.0.0.0/8" or "10.0.0.1/32"?)']);
    warnings.length = 0;
    await store.update('default', 'p', (current) => ({ ...current!, metadata: { ...current!.metadata, labels: { a: 'b' } } }), { warn });
    assert.deepEqual(warnings, [], 'no warning when the spec is unchanged');
    await assert.rejects(store.create('default', { ...policy('10.0.0.1/8'), metadata: { name: 'bad' }, spec: { podSelector: {}, policyTypes: ['Nope'] } }, { warn }));
    assert.deepEqual(warnings, [], 'no warning for an object that does not validate');

    const ingresses = registry.store('networking.k8s.io', 'v1', 'ingresses');
    const backend = { service: { name: 'web', port: { number: 80 } } };
    const legacy = { apiVersion: 'networking.k8s.io/v1', kind: 'Ingress', metadata: { name: 'i', annotations: { 'kubernetes.io/ingress.class': 'x' } }, spec: { defaultBackend: backend } };
    await ingresses.create('default', legacy, { warn });
    assert.equal(warnings.length, 1);
    // /status is the same object through the status strategy: a status write gives no warning.
    const status = registry.lookup('networking.k8s.io', 'v1', 'ingresses')!.subresources.get('status')!.store;
    await status.update('default', 'i', (current) => ({ ...current!, status: { loadBalancer: { ingress: [{ ip: '10.0.0.1' }] } } }), { warn });
    assert.equal(warnings.length, 1);
  });
});
