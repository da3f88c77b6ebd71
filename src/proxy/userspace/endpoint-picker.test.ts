import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EndpointPicker } from './endpoint-picker.js';
import { endpoint } from './testing/backends.js';

describe('EndpointPicker', () => {
  it('round-robins and skips endpoints already tried', () => {
    const picker = new EndpointPicker();
    picker.update([endpoint(1), endpoint(2), endpoint(3)], undefined);
    assert.deepEqual([1, 2, 3, 4].map(() => picker.pick('c')!.port), [1, 2, 3, 1]);
    assert.equal(picker.pick('c', new Set(['127.0.0.1:2']))!.port, 3);
    assert.equal(picker.pick('c', new Set(['127.0.0.1:1', '127.0.0.1:2', '127.0.0.1:3'])), undefined);
    picker.update([], undefined);
    assert.equal(picker.pick('c'), undefined);
  });

  it('keeps a client on its endpoint until the affinity times out, the endpoint goes, or it refused', () => {
    let now = 0;
    const picker = new EndpointPicker({ now: () => now });
    picker.update([endpoint(1), endpoint(2)], 10);
    assert.equal(picker.pick('c')!.port, 1);
    now = 9_000;
    assert.equal(picker.pick('c')!.port, 1);
    now = 18_000; // 9 s after the last use: still stuck
    assert.equal(picker.pick('c')!.port, 1);
    now = 28_001; // idle longer than 10 s
    assert.equal(picker.pick('c')!.port, 2);
    picker.update([endpoint(1)], 10);
    assert.equal(picker.pick('c')!.port, 1);
    picker.update([endpoint(1), endpoint(3)], 10);
    assert.equal(picker.pick('c', new Set(['127.0.0.1:1']))!.port, 3);
    assert.equal(picker.pick('c')!.port, 3);
  });

  it('says whether it keeps session affinity (the forwarder reads the client IP only then)', () => {
    const picker = new EndpointPicker();
    picker.update([endpoint(1)], undefined);
    assert.equal(picker.sessionAffinity, false);
    picker.update([endpoint(1)], 10);
    assert.equal(picker.sessionAffinity, true);
    picker.update([endpoint(1)], undefined);
    assert.equal(picker.sessionAffinity, false);
  });

  it('round-robins the same way whether or not a tried set is passed', () => {
    const picker = new EndpointPicker();
    picker.update([endpoint(1), endpoint(2), endpoint(3)], undefined);
    assert.equal(picker.pick('')!.port, 1);
    assert.equal(picker.pick('', new Set())!.port, 2);
    assert.equal(picker.pick('', new Set(['127.0.0.1:1']))!.port, 3);
    assert.equal(picker.pick('', new Set(['127.0.0.1:1']))!.port, 2);
    picker.update([endpoint(1)], undefined); // shorter: the position wraps
    assert.equal(picker.pick('')!.port, 1);
  });
});
