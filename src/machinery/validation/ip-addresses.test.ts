import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { FieldPath, formatFieldError } from '../field-errors.js';
import {
  isValidCIDR,
  isValidCIDRForLegacyField,
  isValidInterfaceAddress,
  isValidIP,
  isValidIPForLegacyField,
  warningsForCIDR,
  warningsForIP,
} from './ip-addresses.js';

const path = FieldPath.root('spec').child('clusterIPs').index(0);
const texts = (errs: readonly Parameters<typeof formatFieldError>[0][]): string[] => errs.map(formatFieldError);
const at = (value: string, detail: string): string => `spec.clusterIPs[0]: Invalid value: ${JSON.stringify(value)}: ${detail}`;

const NOT_AN_IP = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
const NOT_A_CIDR = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

describe('isValidIP', () => {
  it('accepts canonical addresses', () => {
    for (const ok of ['1.2.3.4', '0.0.0.0', '255.255.255.255', '1234::abcd', '::', '::1', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '1:0:0:1::1', '::102:304']) {
      assert.deepEqual(texts(isValidIP(path, ok)), [], ok);
    }
  });
  it('asks for the canonical form of IPv6', () => {
    assert.deepEqual(texts(isValidIP(path, '0:0:0:0:0:0:0:0')), [at('0:0:0:0:0:0:0:0', 'must be in canonical form ("::")')]);
    assert.deepEqual(texts(isValidIP(path, '0001:002:03:4::')), [at('0001:002:03:4::', 'must be in canonical form ("1:2:3:4::")')]);
    assert.deepEqual(texts(isValidIP(path, '1234::ABCD')), [at('1234::ABCD', 'must be in canonical form ("1234::abcd")')]);
    assert.deepEqual(texts(isValidIP(path, '1:0:0:0:1:0:0:1')), [at('1:0:0:0:1:0:0:1', 'must be in canonical form ("1::1:0:0:1")')]);
    assert.deepEqual(texts(isValidIP(path, '1:0:1:0:1:0:1:0')), []);
  });
  it('rejects leading zeros and IPv4-mapped IPv6', () => {
    assert.deepEqual(texts(isValidIP(path, '1.1.1.01')), [at('1.1.1.01', 'must not have leading 0s')]);
    assert.deepEqual(texts(isValidIP(path, '::ffff:1.1.1.1')), [at('::ffff:1.1.1.1', 'must not be an IPv4-mapped IPv6 address')]);
    assert.deepEqual(texts(isValidIP(path, '::ffff:01.1.1.1')), [at('::ffff:01.1.1.1', 'must not have leading 0s')]);
    assert.deepEqual(texts(isValidIP(path, '00001::')), [at('00001::', 'must not have leading 0s')]);
  });
  it('rejects what is not an address', () => {
    for (const bad of ['', 'aaaaaaa', 'myhost.mydomain', '1.2.3.0/24', '1.2.3.400', '-1.0.0.0', '2001:db8::10005', '1.2.3.4:80', '[2001:db8::1]', '[2001:db8::1]:80', 'example.com:80', '1234::abcd%eth0', '169.254.0.0%eth0', '1.2.3', '1:2:3:4:5:6:7:8:9', '1::2::3', '1:2:3:4:5:6:7:8::', '::1.2.3.4.5', '1:2:3:4:5:6:7:1.2.3.4']) {
      assert.deepEqual(texts(isValidIP(path, bad)), [at(bad, NOT_AN_IP)], bad);
    }
  });
  it('accepts an embedded IPv4 tail in IPv6', () => {
    assert.deepEqual(texts(isValidIP(path, '1:2:3:4:5:6:1.2.3.4')), [at('1:2:3:4:5:6:1.2.3.4', 'must be in canonical form ("1:2:3:4:5:6:102:304")')]);
  });
});

describe('isValidIPForLegacyField', () => {
  it('accepts non-canonical forms, and leading zeros unless strict', () => {
    assert.deepEqual(isValidIPForLegacyField(path, '2001:DB8:0:0::1', { strict: true }), []);
    assert.deepEqual(isValidIPForLegacyField(path, '1.1.1.01', { strict: false }), []);
    assert.deepEqual(isValidIPForLegacyField(path, '::ffff:1.1.1.1', { strict: false }), []);
    assert.deepEqual(texts(isValidIPForLegacyField(path, '1.1.1.01', { strict: true })), [at('1.1.1.01', 'must not have leading 0s')]);
    assert.deepEqual(texts(isValidIPForLegacyField(path, 'x', { strict: false })), [at('x', NOT_AN_IP)]);
  });
  it('accepts the old value as it was', () => {
    assert.deepEqual(isValidIPForLegacyField(path, '1.1.1.01', { strict: true, validOld: ['1.1.1.01'] }), []);
    assert.deepEqual(isValidIPForLegacyField(path, 'junk', { strict: true, validOld: ['junk'] }), []);
  });
});

describe('warningsForIP', () => {
  it('warns about leading zeros, IPv4-mapped IPv6 and non-canonical IPv6', () => {
    assert.deepEqual(warningsForIP(path, '192.12.2.2'), []);
    assert.deepEqual(warningsForIP(path, '2001:db8::2'), []);
    assert.deepEqual(warningsForIP(path, '192.012.2.2'), [
      'spec.clusterIPs[0]: non-standard IP address "192.012.2.2" will be considered invalid in a future Kubernetes release: use "192.12.2.2"',
    ]);
    assert.deepEqual(warningsForIP(path, '::ffff:192.12.2.2'), [
      'spec.clusterIPs[0]: non-standard IP address "::ffff:192.12.2.2" will be considered invalid in a future Kubernetes release: use "192.12.2.2"',
    ]);
    assert.deepEqual(warningsForIP(FieldPath.root('spec').child('loadBalancerIP'), '2001:db8:0:0::2'), [
      'spec.loadBalancerIP: IPv6 address "2001:db8:0:0::2" should be in RFC 5952 canonical format ("2001:db8::2")',
    ]);
  });
});

describe('isValidCIDR', () => {
  it('accepts canonical subnets', () => {
    for (const ok of ['1.0.0.0/8', '0.0.0.0/0', '1.1.1.1/32', '2001:4860:4860::/48', '::/0', '::1/128']) {
      assert.deepEqual(texts(isValidCIDR(path, ok)), [], ok);
    }
  });
  it('asks for the canonical form of IPv6', () => {
    assert.deepEqual(texts(isValidCIDR(path, '2a00:79e0:2:0::/64')), [at('2a00:79e0:2:0::/64', 'must be in canonical form ("2a00:79e0:2::/64")')]);
    assert.deepEqual(texts(isValidCIDR(path, '2001:DB8::/64')), [at('2001:DB8::/64', 'must be in canonical form ("2001:db8::/64")')]);
  });
  it('rejects leading zeros, IPv4-mapped IPv6 and host bits', () => {
    const lead = 'must not have leading 0s in IP or prefix length';
    assert.deepEqual(texts(isValidCIDR(path, '1.1.01.0/24')), [at('1.1.01.0/24', lead)]);
    assert.deepEqual(texts(isValidCIDR(path, '192.168.0.0/016')), [at('192.168.0.0/016', lead)]);
    assert.deepEqual(texts(isValidCIDR(path, '1.2.3.4/00')), [at('1.2.3.4/00', lead)]);
    assert.deepEqual(texts(isValidCIDR(path, '::ffff:1.1.1.0/24')), [at('::ffff:1.1.1.0/24', 'must not have an IPv4-mapped IPv6 address')]);
    assert.deepEqual(texts(isValidCIDR(path, '::ffff:1.1.1.0/120')), [at('::ffff:1.1.1.0/120', 'must not have an IPv4-mapped IPv6 address')]);
    assert.deepEqual(texts(isValidCIDR(path, '1.2.3.4/24')), [at('1.2.3.4/24', 'must not have bits set beyond the prefix length')]);
    assert.deepEqual(texts(isValidCIDR(path, '2001:db8::1/64')), [at('2001:db8::1/64', 'must not have bits set beyond the prefix length')]);
  });
  it('rejects what is not a CIDR', () => {
    for (const bad of ['', 'aaaaaaa', '1.2.3.4', '192.168.0.1/healthz', '192.168.0.1/0/99', '192.168.0.0/-16', '192.168.0.0/+16', '10.0.0.0/33', '::/129', '10.0.0.0/', '/8', 'fe80::/64%eth0']) {
      assert.deepEqual(texts(isValidCIDR(path, bad)), [at(bad, NOT_A_CIDR)], bad);
    }
  });
});

describe('isValidCIDRForLegacyField', () => {
  it('accepts interface addresses, and leading zeros unless strict', () => {
    assert.deepEqual(isValidCIDRForLegacyField(path, '1.2.3.4/24', { strict: false }), []);
    assert.deepEqual(isValidCIDRForLegacyField(path, '192.168.0.0/016', { strict: false }), []);
    assert.deepEqual(isValidCIDRForLegacyField(path, '2001:DB8::/64', { strict: true }), []);
    assert.deepEqual(texts(isValidCIDRForLegacyField(path, '1.2.3.4/24', { strict: true })), [at('1.2.3.4/24', 'must not have bits set beyond the prefix length')]);
    assert.deepEqual(isValidCIDRForLegacyField(path, '1.2.3.4/24', { strict: true, validOld: ['1.2.3.4/24'] }), []);
  });
});

describe('warningsForCIDR', () => {
  const lb = FieldPath.root('spec').child('loadBalancerSourceRanges').index(0);
  it('warns about ambiguity, non-standard and non-canonical forms', () => {
    assert.deepEqual(warningsForCIDR(lb, '192.12.2.0/24'), []);
    assert.deepEqual(warningsForCIDR(lb, '2001:db8::/64'), []);
    assert.deepEqual(warningsForCIDR(lb, '192.12.2.0/024'), [
      'spec.loadBalancerSourceRanges[0]: non-standard CIDR value "192.12.2.0/024" will be considered invalid in a future Kubernetes release: use "192.12.2.0/24"',
    ]);
    assert.deepEqual(warningsForCIDR(lb, '::ffff:192.12.2.0/120'), [
      'spec.loadBalancerSourceRanges[0]: non-standard CIDR value "::ffff:192.12.2.0/120" will be considered invalid in a future Kubernetes release: use "192.12.2.0/24"',
    ]);
    assert.deepEqual(warningsForCIDR(lb, '192.12.2.1/24'), [
      'spec.loadBalancerSourceRanges[0]: CIDR value "192.12.2.1/24" is ambiguous in this context (should be "192.12.2.0/24" or "192.12.2.1/32"?)',
    ]);
    assert.deepEqual(warningsForCIDR(lb, '::ffff:1.2.3.4/120'), [
      'spec.loadBalancerSourceRanges[0]: CIDR value "::ffff:1.2.3.4/120" is ambiguous in this context (should be "1.2.3.0/24" or "1.2.3.4/128"?)',
      'spec.loadBalancerSourceRanges[0]: non-standard CIDR value "::ffff:1.2.3.4/120" will be considered invalid in a future Kubernetes release: use "1.2.3.0/24"',
    ]);
    assert.deepEqual(warningsForCIDR(lb, '2001:DB8::/64'), [
      'spec.loadBalancerSourceRanges[0]: IPv6 CIDR value "2001:DB8::/64" should be in RFC 5952 canonical format ("2001:db8::/64")',
    ]);
    assert.deepEqual(warningsForCIDR(lb, 'junk'), []);
  });
});

describe('isValidInterfaceAddress', () => {
  it('wants an address and its prefix length in canonical form', () => {
    assert.deepEqual(isValidInterfaceAddress(path, '192.168.1.5/24'), []);
    assert.deepEqual(isValidInterfaceAddress(path, '2001:db8::1/64'), []);
    assert.deepEqual(texts(isValidInterfaceAddress(path, '2001:DB8::1/64')), [at('2001:DB8::1/64', 'must be in canonical form ("2001:db8::1/64")')]);
    assert.deepEqual(texts(isValidInterfaceAddress(path, '::ffff:192.168.0.1/120')), [at('::ffff:192.168.0.1/120', 'must be in canonical form ("192.168.0.1/24")')]);
    assert.deepEqual(texts(isValidInterfaceAddress(path, '010.0.0.1/8')), [at('010.0.0.1/8', 'must be in canonical form ("10.0.0.1/8")')]);
    assert.deepEqual(texts(isValidInterfaceAddress(path, '1.2.3.4')), [
      at('1.2.3.4', 'must be a valid address in CIDR form, (e.g. 10.9.8.7/24 or 2001:db8::1/64)'),
    ]);
  });
});
