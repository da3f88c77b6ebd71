import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from 'kubernetes-types/core/v1.js';
import { newBuiltinScheme } from '../../../../api/resources.js';
import type { KubeObject } from '../../../../machinery/meta.js';
import { StatusError } from '../../../../machinery/status.js';
import { newMemoryStorage } from '../../../../storage/memory/memory-storage.js';
import { registryLookup } from '../../../endpoints/installer.js';
import { builtinDefinitions } from '../../../registry/builtin.js';
import { ObjectStorage } from '../../../registry/generic/object-storage.js';
import { Registry } from '../../../registry/registry.js';
import { attributesFor } from '../testing/attributes.js';
import { newServiceAccount } from './service-account.js';

interface Setup {
  registry: Registry;
  plugin: ReturnType<typeof newServiceAccount>;
  sleeps: number[];
  addServiceAccount(sa: Record<string, unknown>): Promise<void>;
}

async function setup(accounts: Array<Record<string, unknown>> = [{ metadata: { name: 'default' } }], onSleep?: (registry: Registry) => Promise<void>): Promise<Setup> {
  const registry = new Registry({ scheme: newBuiltinScheme(), storage: new ObjectStorage(newMemoryStorage()), prefix: '/registry', definitions: builtinDefinitions(), watchCache: false });
  await registry.store('', 'v1', 'namespaces').create(undefined, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } } as unknown as KubeObject);
  const store = registry.store('', 'v1', 'serviceaccounts');
  const addServiceAccount = async (sa: Record<string, unknown>): Promise<void> => {
    const meta = sa.metadata as Record<string, unknown>;
    await store.create('default', { apiVersion: 'v1', kind: 'ServiceAccount', ...sa, metadata: { namespace: 'default', ...meta } } as unknown as KubeObject);
  };
  for (const sa of accounts) await addServiceAccount(sa);
  const sleeps: number[] = [];
  const plugin = newServiceAccount(
    { stores: registryLookup(registry), signal: new AbortController().signal },
    {
      sleep: async (ms) => {
        sleeps.push(ms);
        await onSleep?.(registry);
      },
      suffix: () => 'abcde',
    },
  );
  return { registry, plugin, sleeps, addServiceAccount };
}

function pod(spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'default', ...meta }, spec: { containers: [{ name: 'c', image: 'busybox' }], ...spec } } as unknown as KubeObject;
}

const create = (object: KubeObject, name = object.metadata.name ?? '') => attributesFor({ operation: 'CREATE', resource: 'pods', kind: 'Pod', object, name });
const specOf = (object: KubeObject): NonNullable<Pod['spec']> => (object as unknown as Pod).spec!;

async function admitted(s: Setup, object: KubeObject): Promise<KubeObject> {
  const a = create(object);
  await s.plugin.admit(a);
  await s.plugin.validate(a);
  return object;
}

async function refusal(action: Promise<void> | void): Promise<string> {
  try {
    await action;
  } catch (e: unknown) {
    assert.ok(e instanceof StatusError, String(e));
    assert.equal(e.code, 403);
    return e.message;
  }
  assert.fail('not refused');
}

const TOKEN_VOLUME = {
  name: 'kube-api-access-abcde',
  projected: {
    defaultMode: 420,
    sources: [
      { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
      { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
      { downwardAPI: { items: [{ path: 'namespace', fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.namespace' } }] } },
    ],
  },
};
const TOKEN_MOUNT = { name: 'kube-api-access-abcde', readOnly: true, mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };

describe('ServiceAccount', () => {
  it('answers without a promise once memory holds the account (the usual create), and the same as from the store', async () => {
    const s = await setup();
    const early = create(pod());
    // Before the index has listed the accounts: the store is asked.
    const pending = s.plugin.admit(early);
    assert.ok(pending instanceof Promise);
    await pending;
    await s.plugin.validate(early);
    const deadline = Date.now() + 10_000;
    for (;;) {
      const a = create(pod());
      const result = s.plugin.admit(a);
      if (result === undefined) {
        assert.equal(s.plugin.validate(a), undefined);
        assert.deepEqual(specOf(a.object!), specOf(early.object!));
        break;
      }
      await result;
      if (Date.now() > deadline) assert.fail('the index never answered');
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    // A refusal found at once is still a rejected promise.
    const refused = s.plugin.validate(attributesFor({ operation: 'UPDATE', resource: 'pods', subresource: 'ephemeralcontainers', kind: 'Pod', object: pod({ serviceAccountName: '' }) }));
    assert.ok(refused instanceof Promise);
    assert.match(await refusal(refused), /no service account specified/);
  });

  it('runs a pod that names no service account as default, and keeps one that names its own', async () => {
    const s = await setup([{ metadata: { name: 'default' } }, { metadata: { name: 'robot' } }]);
    const plain = await admitted(s, pod());
    assert.equal(specOf(plain).serviceAccountName, 'default');
    assert.equal(specOf(plain).serviceAccount, 'default');
    const own = await admitted(s, pod({ serviceAccountName: 'robot' }));
    assert.equal(specOf(own).serviceAccount, 'robot');
  });

  it("refuses a pod whose service account does not exist, in upstream's words", async () => {
    const s = await setup();
    const message = await refusal(s.plugin.admit(create(pod({ serviceAccountName: 'ghost' }))));
    assert.equal(message, 'pods "web" is forbidden: error looking up service account default/ghost: serviceaccount "ghost" not found');
    assert.deepEqual(s.sleeps, [], 'a named account is looked up once');
    const generated = pod({ serviceAccountName: 'ghost' }, { name: undefined, generateName: 'web-' });
    assert.match(await refusal(s.plugin.admit(create(generated, ''))), /^pods "web-" is forbidden: error looking up/);
  });

  it('looks a missing default up ten times, 100 to 200 ms apart, then refuses', async () => {
    const s = await setup([]);
    const message = await refusal(s.plugin.admit(create(pod())));
    assert.equal(message, 'pods "web" is forbidden: error looking up service account default/default: serviceaccount "default" not found');
    assert.equal(s.sleeps.length, 9);
    assert.ok(s.sleeps.every((ms) => ms >= 100 && ms < 200 && ms === s.sleeps[0]));
  });

  it('admits the pod once the default account appears while it is being looked up', async () => {
    let created = false;
    const s = await setup([], async (registry) => {
      if (created) return;
      created = true;
      await registry.store('', 'v1', 'serviceaccounts').create('default', { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: 'default' } } as unknown as KubeObject);
    });
    const object = await admitted(s, pod());
    assert.equal(specOf(object).serviceAccountName, 'default');
    assert.equal(s.sleeps.length, 1);
  });

  it('mounts the projected token volume into every container and init container', async () => {
    const s = await setup();
    const object = await admitted(s, pod({ initContainers: [{ name: 'init', image: 'busybox' }], containers: [{ name: 'a', image: 'x' }, { name: 'b', image: 'y', volumeMounts: [{ name: 'data', mountPath: '/data' }] }], volumes: [{ name: 'data', emptyDir: {} }] }));
    const spec = specOf(object);
    assert.deepEqual(spec.volumes, [{ name: 'data', emptyDir: {} }, TOKEN_VOLUME]);
    assert.deepEqual(spec.initContainers?.[0]?.volumeMounts, [TOKEN_MOUNT]);
    assert.deepEqual(spec.containers[0]?.volumeMounts, [TOKEN_MOUNT]);
    assert.deepEqual(spec.containers[1]?.volumeMounts, [{ name: 'data', mountPath: '/data' }, TOKEN_MOUNT]);
  });

  it('leaves containers that mount something at the token path alone, and adds no volume when none needs it', async () => {
    const s = await setup();
    const own = { name: 'mine', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' };
    const object = await admitted(s, pod({ containers: [{ name: 'c', image: 'x', volumeMounts: [own] }], volumes: [{ name: 'mine', emptyDir: {} }] }));
    assert.deepEqual(specOf(object).containers[0]?.volumeMounts, [own]);
    assert.deepEqual(specOf(object).volumes, [{ name: 'mine', emptyDir: {} }]);
  });

  it('reuses an existing kube-api-access-* volume', async () => {
    const s = await setup();
    const existing = { name: 'kube-api-access-zzzzz', emptyDir: {} };
    const object = await admitted(s, pod({ volumes: [existing] }));
    assert.deepEqual(specOf(object).volumes, [existing]);
    assert.deepEqual(specOf(object).containers[0]?.volumeMounts, [{ ...TOKEN_MOUNT, name: 'kube-api-access-zzzzz' }]);
  });

  it("follows automountServiceAccountToken: the pod's choice first, then the account's", async () => {
    const s = await setup([{ metadata: { name: 'default' } }, { metadata: { name: 'quiet' }, automountServiceAccountToken: false }]);
    assert.equal(specOf(await admitted(s, pod({ automountServiceAccountToken: false }))).volumes, undefined);
    assert.equal(specOf(await admitted(s, pod({ serviceAccountName: 'quiet' }))).volumes, undefined);
    assert.deepEqual(specOf(await admitted(s, pod({ serviceAccountName: 'quiet', automountServiceAccountToken: true }))).volumes, [TOKEN_VOLUME]);
  });

  it("gives the pod the account's image pull secrets when it has none", async () => {
    const s = await setup([{ metadata: { name: 'default' }, imagePullSecrets: [{ name: 'registry' }, { name: 'mirror' }] }]);
    assert.deepEqual(specOf(await admitted(s, pod())).imagePullSecrets, [{ name: 'registry' }, { name: 'mirror' }]);
    assert.deepEqual(specOf(await admitted(s, pod({ imagePullSecrets: [{ name: 'own' }] }))).imagePullSecrets, [{ name: 'own' }]);
  });

  it('leaves mirror pods unchanged, and refuses them when they name a service account, a secret or a token projection', async () => {
    const s = await setup();
    const mirror = { annotations: { 'kubernetes.io/config.mirror': 'hash' } };
    const plain = pod({}, mirror);
    await admitted(s, plain);
    assert.deepEqual(specOf(plain), { containers: [{ name: 'c', image: 'busybox' }] });
    assert.equal(await refusal(s.plugin.admit(create(pod({ serviceAccountName: 'default' }, mirror)))), 'pods "web" is forbidden: a mirror pod may not reference service accounts');
    const secretEnv = pod({ containers: [{ name: 'c', image: 'x', env: [{ name: 'A', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } }] }] }, mirror);
    assert.equal(await refusal(s.plugin.admit(create(secretEnv))), 'pods "web" is forbidden: a mirror pod may not reference secrets');
    const secretVolume = pod({ volumes: [{ name: 'v', secret: { secretName: 's' } }] }, mirror);
    assert.equal(await refusal(s.plugin.validate(create(secretVolume))), 'pods "web" is forbidden: a mirror pod may not reference secrets');
    const pull = pod({ imagePullSecrets: [{ name: 'r' }] }, mirror);
    assert.equal(await refusal(s.plugin.admit(create(pull))), 'pods "web" is forbidden: a mirror pod may not reference secrets');
    const token = pod({ volumes: [{ name: 'v', projected: { sources: [{ serviceAccountToken: { path: 't' } }] } }] }, mirror);
    assert.equal(await refusal(s.plugin.admit(create(token))), 'pods "web" is forbidden: a mirror pod may not use ServiceAccountToken volume projections');
  });

  it('limits pods to the secrets an account annotated enforce-mountable-secrets lists', async () => {
    const s = await setup([
      { metadata: { name: 'default' } },
      { metadata: { name: 'strict', annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } }, secrets: [{ name: 'ok' }], imagePullSecrets: [{ name: 'pull' }] },
    ]);
    const strict = (spec: Record<string, unknown>) => pod({ serviceAccountName: 'strict', automountServiceAccountToken: false, ...spec });
    await admitted(s, strict({ volumes: [{ name: 'v', secret: { secretName: 'ok' } }] }));
    assert.match(await refusal(admitted(s, strict({ volumes: [{ name: 'v', secret: { secretName: 'no' } }] })).then(() => undefined)), /volume with secret\.secretName="no" is not allowed because service account strict does not reference that secret$/);
    assert.match(
      await refusal(admitted(s, strict({ initContainers: [{ name: 'i', image: 'x', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: 'no', key: 'k' } } }] }] })).then(() => undefined)),
      /init container i with envVar E referencing secret\.secretName="no" is not allowed because service account strict does not reference that secret$/,
    );
    assert.match(
      await refusal(admitted(s, strict({ containers: [{ name: 'c', image: 'x', envFrom: [{ secretRef: { name: 'no' } }] }] })).then(() => undefined)),
      /container c with envFrom referencing secret\.secretName="no" is not allowed/,
    );
    assert.match(
      await refusal(admitted(s, strict({ imagePullSecrets: [{ name: 'pull' }, { name: 'other' }] })).then(() => undefined)),
      /imagePullSecrets\[1\]\.name="other" is not allowed because service account strict does not reference that imagePullSecret$/,
    );
    // Without the annotation, anything goes.
    await admitted(s, pod({ volumes: [{ name: 'v', secret: { secretName: 'no' } }] }));
  });

  it('checks ephemeral containers added through their subresource against the account', async () => {
    const s = await setup([{ metadata: { name: 'strict', annotations: { 'kubernetes.io/enforce-mountable-secrets': 'true' } }, secrets: [{ name: 'ok' }] }]);
    const update = (object: KubeObject) => attributesFor({ operation: 'UPDATE', resource: 'pods', subresource: 'ephemeralcontainers', kind: 'Pod', object, name: 'web' });
    const debug = (secret: string) => pod({ serviceAccountName: 'strict', ephemeralContainers: [{ name: 'debug', image: 'x', env: [{ name: 'E', valueFrom: { secretKeyRef: { name: secret, key: 'k' } } }] }] });
    await s.plugin.validate(update(debug('ok')));
    assert.match(await refusal(s.plugin.validate(update(debug('no')))), /ephemeral container debug with envVar E referencing secret\.secretName="no" is not allowed/);
    assert.equal(await refusal(s.plugin.validate(update(pod({ serviceAccountName: 'gone' })))), 'pods "web" is forbidden: error looking up service account default/gone: serviceaccount "gone" not found');
  });

  it('ignores other resources, subresources and operations', async () => {
    const s = await setup([]);
    const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'x' } } as unknown as KubeObject;
    await s.plugin.admit(attributesFor({ operation: 'CREATE', resource: 'configmaps', kind: 'ConfigMap', object: cm }));
    await s.plugin.validate(attributesFor({ operation: 'UPDATE', resource: 'pods', kind: 'Pod', object: pod({ serviceAccountName: 'ghost' }) }));
    await s.plugin.validate(attributesFor({ operation: 'CREATE', resource: 'pods', subresource: 'binding', kind: 'Pod', object: pod() }));
    assert.equal(s.plugin.handles('DELETE'), false);
  });
});
