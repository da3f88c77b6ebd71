import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { addressAt, contains, formatAddress, parseAddress, parseCidr } from './cidr.js';

describe('cidr', () => {
  it('parses IPv4 ranges and finds addresses in them', () => {
    const r = parseCidr('127.96.0.0/12');
    assert.equal(r.size, 1n << 20n);
    assert.equal(addressAt(r, 1n), '127.96.0.1');
    assert.equal(addressAt(r, r.size - 1n), '127.111.255.255');
    assert.ok(contains(r, '127.100.1.2'));
    assert.ok(!contains(r, '127.112.0.0'));
    assert.equal(addressAt(parseCidr('10.96.5.7/12'), 1n), '10.96.0.1', 'host bits are cleared');
  });

  it('parses and prints IPv6', () => {
    const r = parseCidr('fd00:10:96::/112');
    assert.equal(addressAt(r, 1n), 'fd00:10:96::1');
    assert.equal(formatAddress(6, parseAddress('2001:db8:0:0:1:0:0:1')!.value), '2001:db8::1:0:0:1');
    assert.equal(formatAddress(6, 0n), '::');
  });

  it('rejects malformed ranges', () => {
    for (const bad of ['10.0.0.0', '10.0.0.0/33', 'x/8', '10.0.0.0/-1', '::/129']) assert.throws(() => parseCidr(bad), /invalid CIDR/, bad);
  });
});
