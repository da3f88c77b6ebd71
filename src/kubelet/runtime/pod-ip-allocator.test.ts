import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allocatePodIp, formatIpv4, parseIpv4, parseIpv4Cidr } from './pod-ip-allocator.js';

describe('pod IP allocator', () => {
  it('hands out the lowest free address from .2, never the broadcast', () => {
    const cidr = parseIpv4Cidr('127.244.1.0/24');
    assert.equal(allocatePodIp(cidr, new Set()), '127.244.1.2');
    assert.equal(allocatePodIp(cidr, new Set(['127.244.1.2', '127.244.1.4'])), '127.244.1.3');
    const small = parseIpv4Cidr('127.244.1.7/30'); // normalised to .4/30: only .6 is usable
    assert.equal(allocatePodIp(small, new Set()), '127.244.1.6');
    assert.equal(allocatePodIp(small, new Set(['127.244.1.6'])), undefined);
  });

  it('parses and formats addresses and rejects bad CIDRs', () => {
    assert.equal(formatIpv4(parseIpv4('10.0.255.1')!), '10.0.255.1');
    assert.equal(parseIpv4('1.2.3'), undefined);
    assert.equal(parseIpv4('1.2.3.256'), undefined);
    for (const bad of ['127.0.0.0', '127.0.0.0/31', 'x/24', '127.0.0.0/2a', '::1/64']) assert.throws(() => parseIpv4Cidr(bad), /invalid pod CIDR/);
  });
});
