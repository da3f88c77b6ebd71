import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BUILTIN_RESOURCES } from '../../api/resources.js';
import { defaultPod } from '../../api/core/v1/defaults.js';
import type { KubeObject } from '../../machinery/meta.js';
import { trackWrite } from './for-resource.js';

const pods = BUILTIN_RESOURCES.find((r) => r.group === '' && r.resource === 'pods')!;
const target = { resource: pods, subresource: undefined, defaults: (o: KubeObject) => defaultPod(o as never) };
const pod = (): KubeObject =>
  ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'ns' }, spec: { containers: [{ name: 'c', image: 'i' }] } }) as unknown as KubeObject;

describe('trackWrite', () => {
  it('leaves the object it is given as it is', () => {
    const next = pod();
    const tracked = trackWrite(target, undefined, next, 'm');
    assert.deepEqual(next, pod());
    assert.equal((tracked.metadata.managedFields as unknown[]).length, 1);
    assert.notEqual((tracked as unknown as { spec: unknown }).spec, (next as unknown as { spec: unknown }).spec);
  });

  it('gives the same object when the caller hands its object over (no copy)', () => {
    const kept = trackWrite(target, undefined, pod(), 'm');
    const given = pod();
    const handedOver = trackWrite(target, undefined, given, 'm', { handOver: true });
    assert.equal(handedOver, given);
    // managedFields carry the time of the write: compare without it.
    const withoutTimes = (o: KubeObject): unknown => JSON.parse(JSON.stringify(o).replace(/"time":"[^"]*"/g, '"time":""'));
    assert.deepEqual(withoutTimes(handedOver), withoutTimes(kept));
  });
});
