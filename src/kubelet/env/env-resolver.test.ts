import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CONFIG_SOURCE_ANNOTATION, type ContainerSpec, type Node, type Pod } from '../types.js';
import { FakeObjectSource } from '../volumes/testing/fake-object-source.js';
import { newEnvResolver } from './env-resolver.js';
import { EnvError, type EnvContext } from './interface.js';

const node: Node = { metadata: { name: 'node-1' }, status: { allocatable: { cpu: '4', memory: '8Gi', 'ephemeral-storage': '100Gi' } } };
const context: EnvContext = { podIPs: ['127.244.0.5', 'fd00::5'], hostIPs: ['127.0.0.1', '::1'], node };

function podWith(container: ContainerSpec, extra: Partial<Pod['spec']> = {}, metadata: Partial<Pod['metadata']> = {}): Pod {
  return {
    metadata: { name: 'web-1', namespace: 'app', uid: 'uid-1', labels: { app: 'web', tier: 'front' }, annotations: { note: 'say "hi"' }, ...metadata },
    spec: { nodeName: 'node-1', serviceAccountName: 'builder', containers: [container, { name: 'side', image: 'x', resources: { limits: { memory: '64Mi' } } }], ...extra },
  };
}

async function envOf(source: FakeObjectSource, pod: Pod, container = pod.spec?.containers[0] as ContainerSpec): Promise<Record<string, string>> {
  const list = await newEnvResolver({ source }).containerEnv(pod, container, context);
  return Object.fromEntries(list.map((kv) => [kv.key, kv.value]));
}

async function rejectsWith(promise: Promise<unknown>, message: string): Promise<void> {
  await assert.rejects(promise, (e: unknown) => {
    assert.ok(e instanceof EnvError, `an EnvError, not ${String(e)}`);
    assert.equal(e.message, message);
    return true;
  });
}

describe('env resolver', () => {
  it('orders service links, envFrom, env; env overrides envFrom and expands against what came before', async () => {
    const source = new FakeObjectSource();
    source.addService('default', 'kubernetes', '10.96.0.1', [{ name: 'https', port: 443 }]);
    source.addService('app', 'db', '10.96.0.7', [{ port: 5432 }]);
    source.addConfigMap('app', 'cfg', { MODE: 'fast', HOST: 'from-cm' });
    source.addSecret('app', 'creds', { PASSWORD: 's3cret' });
    const pod = podWith({
      name: 'main',
      image: 'x',
      envFrom: [{ configMapRef: { name: 'cfg' } }, { secretRef: { name: 'creds' }, prefix: 'DB_' }],
      env: [
        { name: 'HOST', value: 'from-env' },
        { name: 'URL', value: 'postgres://$(DB_PASSWORD)@$(DB_SERVICE_HOST):$(DB_SERVICE_PORT)/$(MODE)?$(LATER)&$$(HOST)' },
        { name: 'LATER', value: 'late' },
        { name: 'EMPTY' },
      ],
    });
    const list = await newEnvResolver({ source }).containerEnv(pod, pod.spec?.containers[0] as ContainerSpec, context);
    const keys = list.map((kv) => kv.key);
    assert.ok(keys.indexOf('KUBERNETES_SERVICE_HOST') < keys.indexOf('MODE'));
    assert.ok(keys.indexOf('DB_PORT') < keys.indexOf('MODE'));
    assert.ok(keys.indexOf('MODE') < keys.indexOf('DB_PASSWORD'));
    assert.ok(keys.indexOf('DB_PASSWORD') < keys.indexOf('URL'));
    assert.equal(new Set(keys).size, keys.length);
    const env = Object.fromEntries(list.map((kv) => [kv.key, kv.value]));
    assert.equal(env.KUBERNETES_SERVICE_HOST, '10.96.0.1');
    assert.equal(env.KUBERNETES_SERVICE_PORT_HTTPS, '443');
    assert.equal(env.HOST, 'from-env');
    assert.equal(env.URL, 'postgres://s3cret@10.96.0.7:5432/fast?$(LATER)&$(HOST)');
    assert.equal(env.LATER, 'late');
    assert.equal(env.EMPTY, '');
  });

  it('keeps only default/kubernetes with enableServiceLinks false', async () => {
    const source = new FakeObjectSource();
    source.addService('default', 'kubernetes', '10.96.0.1', [{ name: 'https', port: 443 }]);
    source.addService('app', 'db', '10.96.0.7', [{ port: 5432 }]);
    const env = await envOf(source, podWith({ name: 'main', image: 'x' }, { enableServiceLinks: false }));
    assert.equal(env.KUBERNETES_SERVICE_HOST, '10.96.0.1');
    assert.equal(env.DB_SERVICE_HOST, undefined);
  });

  it('resolves fieldRefs', async () => {
    const source = new FakeObjectSource();
    const fields = ['metadata.name', 'metadata.namespace', 'metadata.uid', "metadata.labels['app']", "metadata.annotations['note']", "metadata.labels['none']", 'metadata.labels', 'spec.nodeName', 'spec.host', 'spec.serviceAccountName', 'status.hostIP', 'status.hostIPs', 'status.podIP', 'status.podIPs'];
    const env = await envOf(source, podWith({ name: 'main', image: 'x', env: fields.map((fieldPath, i) => ({ name: `F${i}`, valueFrom: { fieldRef: { fieldPath } } })) }));
    assert.deepEqual(
      fields.map((_, i) => env[`F${i}`]),
      ['web-1', 'app', 'uid-1', 'web', 'say "hi"', '', 'app="web"\ntier="front"', 'node-1', 'node-1', 'builder', '127.0.0.1', '127.0.0.1,::1', '127.244.0.5', '127.244.0.5,fd00::5'],
    );
  });

  it('fails on unsupported field paths with upstream messages', async () => {
    const source = new FakeObjectSource();
    const one = (fieldPath: string, apiVersion?: string): Promise<unknown> =>
      envOf(source, podWith({ name: 'main', image: 'x', env: [{ name: 'F', valueFrom: { fieldRef: { fieldPath, ...(apiVersion !== undefined ? { apiVersion } : {}) } } }] }));
    await rejectsWith(one('spec.containers'), 'field label not supported: spec.containers');
    await rejectsWith(one("spec.nodeName['x']"), "field label does not support subscript: spec.nodeName['x']");
    await rejectsWith(one('metadata.name', 'v2'), 'unsupported pod version: v2');
    await rejectsWith(one('status.phase'), 'unsupported fieldPath: status.phase');
    await assert.rejects(one("metadata.labels['bad key!']"), (e: unknown) => e instanceof EnvError && e.message.startsWith("invalid key subscript in metadata.labels['bad key!']: "));
    const noHost = newEnvResolver({ source }).containerEnv(podWith({ name: 'main', image: 'x', env: [{ name: 'H', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } }] }), { name: 'main', image: 'x', env: [{ name: 'H', valueFrom: { fieldRef: { fieldPath: 'status.hostIP' } } }] }, { podIPs: [], hostIPs: [], node: undefined });
    await rejectsWith(noHost, 'host IP unknown; known addresses: []');
  });

  it('resolves resourceFieldRefs with divisors, rounding up, and the node allocatable for unset limits', async () => {
    const source = new FakeObjectSource();
    const container: ContainerSpec = {
      name: 'main',
      image: 'x',
      resources: { requests: { cpu: '250m', memory: '100Mi' }, limits: { cpu: '1500m' } },
      env: [
        { name: 'LCPU', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
        { name: 'LCPU_M', valueFrom: { resourceFieldRef: { resource: 'limits.cpu', divisor: '1m' } } },
        { name: 'RCPU', valueFrom: { resourceFieldRef: { resource: 'requests.cpu' } } },
        { name: 'RMEM_MI', valueFrom: { resourceFieldRef: { resource: 'requests.memory', divisor: '1Mi' } } },
        { name: 'LMEM', valueFrom: { resourceFieldRef: { resource: 'limits.memory' } } },
        { name: 'LEPH_GI', valueFrom: { resourceFieldRef: { resource: 'limits.ephemeral-storage', divisor: '1Gi' } } },
        { name: 'REPH', valueFrom: { resourceFieldRef: { resource: 'requests.ephemeral-storage' } } },
        { name: 'SIDE_MEM', valueFrom: { resourceFieldRef: { containerName: 'side', resource: 'limits.memory', divisor: '1Mi' } } },
        { name: 'SIDE_CPU', valueFrom: { resourceFieldRef: { containerName: 'side', resource: 'limits.cpu', divisor: '0' } } },
      ],
    };
    const env = await envOf(source, podWith(container), container);
    assert.deepEqual(
      [env.LCPU, env.LCPU_M, env.RCPU, env.RMEM_MI, env.LMEM, env.LEPH_GI, env.REPH, env.SIDE_MEM, env.SIDE_CPU],
      ['2', '1500', '1', '100', String(8 * 1024 ** 3), '100', '0', '64', '4'],
    );
  });

  it('fails on a bad resourceFieldRef', async () => {
    const source = new FakeObjectSource();
    const one = (resource: string, containerName?: string): Promise<unknown> =>
      envOf(source, podWith({ name: 'main', image: 'x', env: [{ name: 'R', valueFrom: { resourceFieldRef: { resource, ...(containerName !== undefined ? { containerName } : {}) } } }] }));
    await rejectsWith(one('limits.gpu'), 'unsupported container resource : limits.gpu');
    await rejectsWith(one('cpu'), 'unsupported container resource : cpu');
    await rejectsWith(one('limits.cpu', 'ghost'), 'container ghost not found');
  });

  it('reports missing ConfigMaps, Secrets and keys with upstream messages', async () => {
    const source = new FakeObjectSource();
    source.addConfigMap('app', 'cfg', { A: '1' });
    source.addSecret('app', 'creds', { B: '2' });
    const withEnv = (env: NonNullable<ContainerSpec['env']>, envFrom?: ContainerSpec['envFrom']): Promise<unknown> => envOf(source, podWith({ name: 'main', image: 'x', env, ...(envFrom !== undefined ? { envFrom } : {}) }));
    await rejectsWith(withEnv([{ name: 'X', valueFrom: { configMapKeyRef: { name: 'nope', key: 'A' } } }]), 'configmap "nope" not found');
    await rejectsWith(withEnv([{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k' } } }]), "couldn't find key k in ConfigMap app/cfg");
    await rejectsWith(withEnv([{ name: 'X', valueFrom: { secretKeyRef: { name: 's', key: 'B' } } }]), 'secret "s" not found');
    await rejectsWith(withEnv([{ name: 'X', valueFrom: { secretKeyRef: { name: 'creds', key: 'k' } } }]), "couldn't find key k in Secret app/creds");
    await rejectsWith(withEnv([], [{ configMapRef: { name: 'nope' } }]), 'configmap "nope" not found');
    await rejectsWith(withEnv([], [{ secretRef: { name: 'nope' } }]), 'secret "nope" not found');
  });

  it('skips optional references whose object or key is missing', async () => {
    const source = new FakeObjectSource();
    source.addConfigMap('app', 'cfg', { A: '1' });
    source.addSecret('app', 'creds', { B: '2' });
    const env = await envOf(
      source,
      podWith({
        name: 'main',
        image: 'x',
        envFrom: [{ configMapRef: { name: 'nope', optional: true } }, { secretRef: { name: 'nope', optional: true } }],
        env: [
          { name: 'A', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'A' } } },
          { name: 'B', valueFrom: { secretKeyRef: { name: 'creds', key: 'B' } } },
          { name: 'C', valueFrom: { configMapKeyRef: { name: 'nope', key: 'A', optional: true } } },
          { name: 'D', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'k', optional: true } } },
          { name: 'E', valueFrom: { secretKeyRef: { name: 'nope', key: 'B', optional: true } } },
          { name: 'F', valueFrom: { secretKeyRef: { name: 'creds', key: 'k', optional: true } } },
        ],
      }),
    );
    assert.equal(env.A, '1');
    assert.equal(env.B, '2');
    for (const name of ['C', 'D', 'E', 'F']) assert.equal(name in env, false, name);
  });

  it('keeps envFrom keys that are not C identifiers (relaxed names, upstream 1.30+) and applies the prefix', async () => {
    const source = new FakeObjectSource();
    source.addConfigMap('app', 'cfg', { '1st': 'a', 'app.mode': 'b' });
    const env = await envOf(source, podWith({ name: 'main', image: 'x', envFrom: [{ configMapRef: { name: 'cfg' } }, { configMapRef: { name: 'cfg' }, prefix: 'P_' }] }));
    assert.deepEqual([env['1st'], env['app.mode'], env.P_1st, env['P_app.mode']], ['a', 'b', 'a', 'b']);
  });

  it('wraps source failures: an API pod fails, a static pod starts without service variables', async () => {
    const source = new FakeObjectSource();
    source.fail = new Error('connect ECONNREFUSED 127.0.0.1:6443');
    const container: ContainerSpec = { name: 'main', image: 'x', env: [{ name: 'A', value: 'a' }] };
    await rejectsWith(envOf(source, podWith(container)), 'failed to list services when setting up env vars');
    const staticPod = podWith(container, {}, { annotations: { [CONFIG_SOURCE_ANNOTATION]: 'file' } });
    assert.deepEqual(await envOf(source, staticPod), { A: 'a' });
    source.fail = undefined;
    const failing = new FakeObjectSource();
    failing.configMap = async () => {
      throw new Error('configmaps "cfg" is forbidden: no relationship found between node and this object');
    };
    await rejectsWith(envOf(failing, podWith({ name: 'main', image: 'x', envFrom: [{ configMapRef: { name: 'cfg' } }] })), 'configmaps "cfg" is forbidden: no relationship found between node and this object');
  });

  it('reads each ConfigMap once per container and accepts the source alone (the NewEnvResolver type)', async () => {
    const source = new FakeObjectSource();
    source.addConfigMap('app', 'cfg', { A: '1', B: '2' });
    let reads = 0;
    const read = source.configMap.bind(source);
    source.configMap = async (ns, name) => {
      reads++;
      return read(ns, name);
    };
    const container: ContainerSpec = {
      name: 'main',
      image: 'x',
      envFrom: [{ configMapRef: { name: 'cfg' } }],
      env: [{ name: 'X', valueFrom: { configMapKeyRef: { name: 'cfg', key: 'B' } } }],
    };
    const list = await newEnvResolver(source).containerEnv(podWith(container), container, context);
    assert.equal(reads, 1);
    assert.deepEqual(list.filter((kv) => !kv.key.startsWith('KUBERNETES')), [{ key: 'A', value: '1' }, { key: 'B', value: '2' }, { key: 'X', value: '2' }]);
  });
});
