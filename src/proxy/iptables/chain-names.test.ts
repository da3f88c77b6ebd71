import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import {
  endpointChainName,
  endpointString,
  isServiceChainName,
  portProtoHash,
  serviceChainNames,
  servicePortNameString,
} from './chain-names.js';

const p80 = { namespace: 'ns1', name: 'svc1', port: 'p80', protocol: 'TCP' as const };

/** Reference base32 (RFC 4648, with padding) to check the hand-written prefix encoder. */
function base32(bytes: Uint8Array): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const b of bytes) bits += b.toString(2).padStart(8, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[parseInt(bits.slice(i, i + 5).padEnd(5, '0'), 2)];
  return out;
}

describe('chain names', () => {
  it('match upstream\'s names for ns1/svc1:p80 (values from upstream\'s proxier tests)', () => {
    assert.equal(serviceChainNames(p80).cluster, 'KUBE-SVC-XPGD46QRK7WJZT7O');
    assert.equal(serviceChainNames(p80).local, 'KUBE-SVL-XPGD46QRK7WJZT7O');
    assert.equal(serviceChainNames(p80).external, 'KUBE-EXT-XPGD46QRK7WJZT7O');
    assert.equal(endpointChainName(p80, '10.180.0.1:80'), 'KUBE-SEP-SXIVWICOYRO3J4NJ');
  });

  it('hash the lower-case protocol, so UDP and TCP ports of one name differ', () => {
    const udp = { ...p80, protocol: 'UDP' as const };
    assert.notEqual(serviceChainNames(udp).cluster, serviceChainNames(p80).cluster);
    assert.equal(serviceChainNames(udp).cluster, `KUBE-SVC-${portProtoHash('ns1/svc1:p80', 'udp')}`);
  });

  it('encode the first 80 bits of SHA-256 as RFC 4648 base32', () => {
    for (const input of ['', 'a', 'ns/x:y' + 'tcp', 'default/kubernetes:httpstcp']) {
      const digest = createHash('sha256').update(input).digest();
      assert.equal(portProtoHash(input, ''), base32(digest).slice(0, 16));
    }
  });

  it('name an unnamed port without a colon, as upstream\'s ServicePortName.String()', () => {
    assert.equal(servicePortNameString({ namespace: 'default', name: 'web', port: '', protocol: 'TCP' }), 'default/web');
    assert.equal(servicePortNameString(p80), 'ns1/svc1:p80');
  });

  it('join host and port as Go does, with brackets for IPv6', () => {
    assert.equal(endpointString('10.0.0.1', 80), '10.0.0.1:80');
    assert.equal(endpointString('fd00::1', 80), '[fd00::1]:80');
  });

  it('know which chains are per-Service or per-endpoint', () => {
    for (const c of ['KUBE-SVC-X', 'KUBE-SVL-X', 'KUBE-EXT-X', 'KUBE-FW-X', 'KUBE-SEP-X']) assert.ok(isServiceChainName(c), c);
    for (const c of ['KUBE-SERVICES', 'KUBE-NODEPORTS', 'KUBE-MARK-MASQ', 'PREROUTING', 'DOCKER']) assert.ok(!isServiceChainName(c), c);
  });
});
