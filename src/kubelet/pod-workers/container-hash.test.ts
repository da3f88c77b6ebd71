import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ContainerSpec } from '../types.js';
import { fnv32a, hashContainer } from './container-hash.js';

describe('hashContainer', () => {
  const container = (image: string): ContainerSpec => ({ name: 'app', image, ports: [{ containerPort: 80 }], resources: { limits: { cpu: '1' } } });

  it('is FNV-1a of the canonical JSON without resources', () => {
    assert.equal(hashContainer(container('nginx:1')), fnv32a('{"image":"nginx:1","name":"app","ports":[{"containerPort":80}]}').toString(16));
  });

  it('gives a container object the same hash each time, and equal specs in other objects (a new pod from the API) the same hash', () => {
    const a = container('nginx:1');
    const first = hashContainer(a);
    assert.equal(hashContainer(a), first);
    assert.equal(hashContainer(container('nginx:1')), first);
    assert.equal(hashContainer({ ...a, resources: { limits: { cpu: '2' } } }), first, 'resources are left out');
  });

  it('gives a changed spec, as the new object a changed pod comes in, its own hash', () => {
    const before = container('nginx:1');
    const old = hashContainer(before);
    const after = container('nginx:2');
    assert.notEqual(hashContainer(after), old);
    assert.equal(hashContainer(before), old, 'the old object keeps its hash');
  });
});
