import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deepCopy } from './meta.js';

describe('deepCopy', () => {
  it('copies a JSON value all the way down, sharing nothing with it', () => {
    const pod = { metadata: { name: 'a', labels: { app: 'x' } }, spec: { containers: [{ name: 'c', ports: [{ containerPort: 80 }] }] }, n: 1, t: true, z: null };
    const copy = deepCopy(pod);
    assert.deepEqual(copy, pod);
    assert.notEqual(copy.metadata, pod.metadata);
    assert.notEqual(copy.spec.containers, pod.spec.containers);
    assert.notEqual(copy.spec.containers[0]!.ports[0], pod.spec.containers[0]!.ports[0]);
    copy.spec.containers[0]!.ports[0]!.containerPort = 81;
    assert.equal(pod.spec.containers[0]!.ports[0]!.containerPort, 80);
  });

  it('keeps keys whose value is undefined, and primitives as they are', () => {
    const copy = deepCopy({ a: undefined, b: [undefined, 1] });
    assert.ok(Object.hasOwn(copy, 'a'));
    assert.deepEqual(copy.b, [undefined, 1]);
    assert.equal(deepCopy('s'), 's');
    assert.equal(deepCopy(null), null);
    assert.equal(deepCopy(undefined), undefined);
  });

  it('keeps a __proto__ key an own property (as a decoded request body may have it), never a prototype', () => {
    const body = JSON.parse('{"metadata":{"__proto__":{"polluted":true}}}') as { metadata: Record<string, unknown> };
    const copy = deepCopy(body);
    assert.ok(Object.hasOwn(copy.metadata, '__proto__'));
    assert.equal(Object.getPrototypeOf(copy.metadata), Object.prototype);
    assert.equal((copy.metadata as { polluted?: boolean }).polluted, undefined);
    assert.deepEqual(Object.keys(copy.metadata), ['__proto__']);
  });

  it('copies what is not a plain object or array (dates, bytes) as structuredClone does', () => {
    const value = { when: new Date(0), bytes: new Uint8Array([1, 2]) };
    const copy = deepCopy(value);
    assert.ok(copy.when instanceof Date);
    assert.equal(copy.when.getTime(), 0);
    assert.notEqual(copy.when, value.when);
    assert.ok(copy.bytes instanceof Uint8Array);
    assert.deepEqual([...copy.bytes], [1, 2]);
    assert.notEqual(copy.bytes, value.bytes);
  });
});
