import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { deepCopy, formatTime } from './meta.js';

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

describe('formatTime', () => {
  it('writes RFC 3339 to the second, in UTC', () => {
    assert.equal(formatTime(new Date(Date.UTC(2024, 0, 2, 3, 4, 5, 678))), '2024-01-02T03:04:05Z');
    assert.equal(formatTime(new Date(0)), '1970-01-01T00:00:00Z');
    // Before the epoch the second is the one that began earlier.
    assert.equal(formatTime(new Date(-500)), '1969-12-31T23:59:59Z');
    assert.equal(formatTime(new Date(Date.UTC(10000, 0, 1))), '+010000-01-01T00:00:00Z');
  });

  it('answers each call for its own date, within a second and across a second boundary', () => {
    const base = Date.UTC(2024, 5, 30, 23, 59, 59);
    const times = [base, base + 1, base + 999, base + 1000, base + 999, base + 1999, base + 2000, base - 1, base];
    for (const ms of times) {
      assert.equal(formatTime(new Date(ms)), new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z'), String(ms));
    }
    assert.equal(formatTime(new Date(base + 1000)), '2024-07-01T00:00:00Z');
    assert.equal(formatTime(new Date(base + 999)), '2024-06-30T23:59:59Z');
  });

  it('throws a RangeError for an invalid date, as toISOString does, before and after a valid one', () => {
    assert.throws(() => formatTime(new Date(Number.NaN)), RangeError);
    assert.equal(formatTime(new Date(1_000)), '1970-01-01T00:00:01Z');
    assert.throws(() => formatTime(new Date('not a date')), RangeError);
    assert.throws(() => formatTime(new Date(Number.NaN)), RangeError);
    assert.equal(formatTime(new Date(1_500)), '1970-01-01T00:00:01Z');
  });
});
