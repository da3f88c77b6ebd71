import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { formatAddr, formatIPBytes, formatNetwork, hasHostBits, is4In6, parseCIDR, parseIP } from './ip-parse.js';

describe('parseIP', () => {
  it('chooses the family by the first . or :', () => {
    assert.equal(parseIP('1.2.3.4')?.v4Literal, true);
    assert.equal(parseIP('::1')?.v4Literal, false);
    assert.equal(parseIP('abc'), undefined);
    assert.equal(parseIP('1.2.3.4:80'), undefined);
  });
  it('accepts leading zeros sloppily and marks them not strict', () => {
    const ip = parseIP('010.001.000.255');
    assert.ok(ip);
    assert.equal(ip.strict, false);
    assert.equal(formatIPBytes(ip.bytes), '10.1.0.255');
    assert.equal(parseIP('0.0.0.0')?.strict, true);
    assert.equal(parseIP('00000001::')?.strict, false);
    assert.equal(parseIP('0000::')?.strict, true);
  });
  it('holds IPv4 as IPv4-mapped IPv6 bytes', () => {
    assert.deepEqual(Array.from(parseIP('1.2.3.4')!.bytes), [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 1, 2, 3, 4]);
  });
  it('expands :: anywhere, once, for at least one group', () => {
    assert.equal(formatIPBytes(parseIP('1::')!.bytes), '1::');
    assert.equal(formatIPBytes(parseIP('::2:3')!.bytes), '::2:3');
    assert.equal(parseIP('1:2:3:4::5:6:7:8'), undefined);
    assert.equal(parseIP('1:::2'), undefined);
    assert.equal(parseIP(':1::'), undefined);
    assert.equal(parseIP('1:'), undefined);
  });
  it('places an IPv4 tail only last', () => {
    assert.equal(formatIPBytes(parseIP('::1.2.3.4')!.bytes), '::102:304');
    assert.equal(parseIP('1.2.3.4::'), undefined);
    assert.equal(parseIP('1:2:3:4:5:1.2.3.4'), undefined);
  });
});

describe('formatting', () => {
  it('prints IPv6 as RFC 5952: the first longest zero run becomes ::', () => {
    assert.equal(formatIPBytes(parseIP('1:0:0:1:0:0:0:1')!.bytes), '1:0:0:1::1');
    assert.equal(formatIPBytes(parseIP('1:0:0:1:0:0:1:1')!.bytes), '1::1:0:0:1:1');
    assert.equal(formatIPBytes(parseIP('1:0:1:1:1:1:1:1')!.bytes), '1:0:1:1:1:1:1:1');
    assert.equal(formatIPBytes(parseIP('ABCD:0:0:0:0:0:0:0')!.bytes), 'abcd::');
  });
  it('prints IPv4-mapped as IPv4 (net.IP) or as IPv6 (netip)', () => {
    const ip = parseIP('::FFFF:1.2.3.4')!;
    assert.equal(is4In6(ip), true);
    assert.equal(formatIPBytes(ip.bytes), '1.2.3.4');
    assert.equal(formatAddr(ip), '::ffff:1.2.3.4');
    assert.equal(is4In6(parseIP('1.2.3.4')!), false);
  });
});

describe('parseCIDR', () => {
  it('parses and masks', () => {
    const c = parseCIDR('10.1.2.3/8')!;
    assert.equal(c.bits, 8);
    assert.equal(hasHostBits(c), true);
    assert.equal(formatNetwork(c), '10.0.0.0/8');
    assert.equal(formatNetwork(parseCIDR('2001:db8::1/32')!), '2001:db8::/32');
    assert.equal(formatNetwork(parseCIDR('::ffff:1.2.3.4/64')!), '::/64');
    assert.equal(formatNetwork(parseCIDR('::ffff:255.2.3.4/100')!), '240.0.0.0/4');
  });
  it('rejects bad prefixes and marks leading zeros not strict', () => {
    assert.equal(parseCIDR('1.2.3.4/33'), undefined);
    assert.equal(parseCIDR('1.2.3.4'), undefined);
    assert.equal(parseCIDR('1.2.3.4/a'), undefined);
    assert.equal(parseCIDR('1.2.3.4/024')?.strict, false);
    assert.equal(parseCIDR('1.2.3.4/0')?.strict, true);
    assert.equal(parseCIDR('::/128')?.bits, 128);
  });
});
