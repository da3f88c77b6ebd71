import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CidrSet } from './cidr-set.js';

describe('CidrSet', () => {
  it('hands out /24s of a /16 in order', () => {
    const set = new CidrSet('127.244.0.0/16', 24);
    assert.equal(set.capacity, 256n);
    assert.equal(set.allocateNext(), '127.244.0.0/24');
    assert.equal(set.allocateNext(), '127.244.1.0/24');
  });

  it('skips occupied subnets and does not hand a released one out again before the others', () => {
    const set = new CidrSet('10.0.0.0/22', 24);
    assert.ok(set.occupy('10.0.1.0/24'));
    assert.equal(set.allocateNext(), '10.0.0.0/24');
    assert.equal(set.allocateNext(), '10.0.2.0/24');
    set.release('10.0.0.0/24');
    assert.equal(set.allocateNext(), '10.0.3.0/24');
    assert.equal(set.allocateNext(), '10.0.0.0/24');
    assert.equal(set.allocateNext(), undefined, 'exhausted');
    assert.equal(set.allocatedCount, 4);
  });

  it('refuses CIDRs that are not its subnets, and masks that do not fit', () => {
    const set = new CidrSet('10.0.0.0/16', 24);
    assert.equal(set.occupy('10.1.0.0/24'), false);
    assert.equal(set.occupy('10.0.0.0/25'), false);
    assert.equal(set.occupy('not a cidr'), false);
    assert.equal(set.occupy('fd00::/120'), false);
    assert.throws(() => new CidrSet('10.0.0.0/16', 8), /does not fit/);
    assert.throws(() => new CidrSet('10.0.0.0', 24), /invalid CIDR/);
  });

  it('works for IPv6', () => {
    const set = new CidrSet('fd00:10:244::/56', 64);
    assert.equal(set.allocateNext(), 'fd00:10:244::/64');
    assert.equal(set.allocateNext(), 'fd00:10:244:1::/64');
  });
});
