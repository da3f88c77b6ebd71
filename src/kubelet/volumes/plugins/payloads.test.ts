import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Pod } from '../../types.js';
import type { FileProjection } from '../atomic-writer.js';
import { configMapPayload } from './config-map.js';
import { downwardApiPayload } from './downward-api.js';
import { secretPayload } from './secret.js';

const text = (payload: Map<string, FileProjection>): Record<string, [string, string]> =>
  Object.fromEntries([...payload].map(([path, f]) => [path, [f.data.toString('utf8'), f.mode.toString(8)]]));

describe('configMap payload', () => {
  const configMap = { metadata: { name: 'cfg', namespace: 'ns' }, data: { a: 'A', b: 'B' }, binaryData: { bin: Buffer.from([0, 1, 2]).toString('base64') } };

  it('projects every key with defaultMode (0644 when unset), binaryData decoded', () => {
    const payload = configMapPayload({ configMap, items: undefined, defaultMode: undefined, optional: false });
    assert.deepEqual(text(payload), { a: ['A', '644'], b: ['B', '644'], bin: ['\u0000\u0001\u0002', '644'] });
    assert.deepEqual(payload.get('bin')?.data, Buffer.from([0, 1, 2]));
    assert.deepEqual(text(configMapPayload({ configMap, items: [], defaultMode: 0o400, optional: false })).a, ['A', '400']);
  });

  it('projects items at their paths with their modes', () => {
    const payload = configMapPayload({ configMap, items: [{ key: 'a', path: 'dir/a.txt', mode: 0o600 }, { key: 'bin', path: 'b' }], defaultMode: 0o440, optional: false });
    assert.deepEqual(text(payload), { 'dir/a.txt': ['A', '600'], b: ['\u0000\u0001\u0002', '440'] });
  });

  it('fails on a missing item key unless optional; an absent optional ConfigMap is empty', () => {
    assert.throws(() => configMapPayload({ configMap, items: [{ key: 'k', path: 'k' }], defaultMode: undefined, optional: false }), /^Error: configmap references non-existent config key: k$/);
    assert.deepEqual(text(configMapPayload({ configMap, items: [{ key: 'k', path: 'k' }, { key: 'a', path: 'a' }], defaultMode: undefined, optional: true })), { a: ['A', '644'] });
    assert.deepEqual(text(configMapPayload({ configMap: undefined, items: [{ key: 'k', path: 'k' }], defaultMode: undefined, optional: true })), {});
  });
});

describe('secret payload', () => {
  const secret = { metadata: { name: 's', namespace: 'ns' }, data: { user: Buffer.from('admin').toString('base64'), pass: Buffer.from('pw').toString('base64') } };

  it('projects decoded keys, or items with modes', () => {
    assert.deepEqual(text(secretPayload({ secret, items: undefined, defaultMode: 0o400, optional: false })), { user: ['admin', '400'], pass: ['pw', '400'] });
    assert.deepEqual(text(secretPayload({ secret, items: [{ key: 'pass', path: 'p/w', mode: 0o600 }], defaultMode: undefined, optional: false })), { 'p/w': ['pw', '600'] });
  });

  it('fails on a missing item key unless optional', () => {
    assert.throws(() => secretPayload({ secret, items: [{ key: 'k', path: 'k' }], defaultMode: undefined, optional: false }), /^Error: references non-existent secret key: k$/);
    assert.deepEqual(text(secretPayload({ secret: undefined, items: [{ key: 'k', path: 'k' }], defaultMode: undefined, optional: true })), {});
  });
});

describe('downwardAPI payload', () => {
  const pod: Pod = {
    metadata: { name: 'web', namespace: 'ns', uid: 'u1', labels: { b: '2', a: '1' }, annotations: { 'x/y': 'line\nbreak' } },
    spec: { containers: [{ name: 'main', image: 'x', resources: { requests: { memory: '32Mi' } } }], initContainers: [{ name: 'init', image: 'x', resources: { limits: { cpu: '100m' } } }] },
  };

  it('projects metadata fields and container resources', () => {
    const payload = downwardApiPayload({
      pod,
      defaultMode: undefined,
      allocatable: { cpu: '2', memory: '1Gi' },
      items: [
        { path: 'name', fieldRef: { fieldPath: 'metadata.name' } },
        { path: 'labels', fieldRef: { fieldPath: 'metadata.labels' }, mode: 0o600 },
        { path: 'annotations', fieldRef: { fieldPath: 'metadata.annotations' } },
        { path: 'label-a', fieldRef: { fieldPath: "metadata.labels['a']" } },
        { path: 'uid', fieldRef: { fieldPath: 'metadata.uid' } },
        { path: 'mem-request', resourceFieldRef: { containerName: 'main', resource: 'requests.memory', divisor: '1Mi' } },
        { path: 'cpu-limit', resourceFieldRef: { containerName: 'main', resource: 'limits.cpu' } },
        { path: 'init-cpu', resourceFieldRef: { containerName: 'init', resource: 'limits.cpu', divisor: '1m' } },
      ],
    });
    assert.deepEqual(text(payload), {
      name: ['web', '644'],
      labels: ['a="1"\nb="2"', '600'],
      annotations: ['x/y="line\\nbreak"', '644'],
      'label-a': ['1', '644'],
      uid: ['u1', '644'],
      'mem-request': ['32', '644'],
      'cpu-limit': ['2', '644'],
      'init-cpu': ['100', '644'],
    });
  });

  it('reports every failing item, aggregated as upstream', () => {
    assert.throws(
      () => downwardApiPayload({ pod, defaultMode: undefined, allocatable: undefined, items: [{ path: 'n', fieldRef: { fieldPath: 'spec.nodeName' } }] }),
      (e: unknown) => (e as Error).message === 'unsupported fieldPath: spec.nodeName',
    );
    assert.throws(
      () =>
        downwardApiPayload({
          pod,
          defaultMode: undefined,
          allocatable: undefined,
          items: [
            { path: 'n', fieldRef: { fieldPath: 'spec.nodeName' } },
            { path: 'c', resourceFieldRef: { containerName: 'ghost', resource: 'limits.cpu' } },
            { path: 'ok', fieldRef: { fieldPath: 'metadata.name' } },
          ],
        }),
      (e: unknown) => (e as Error).message === '[unsupported fieldPath: spec.nodeName, container ghost not found]',
    );
  });
});
