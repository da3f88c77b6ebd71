import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isProxyableIP } from './proxyable-ip.js';

describe('isProxyableIP', () => {
  it('allows unicast addresses, loopback included (process-runtime pods live there)', () => {
    for (const ip of ['10.244.1.5', '192.168.0.1', '127.244.3.7', '127.0.0.1', '2001:db8::1', '::1', 'fd00::5']) assert.equal(isProxyableIP(ip), true, ip);
  });

  it('refuses no address, unspecified, link-local, multicast and broadcast ones', () => {
    for (const ip of ['', 'web', '0.0.0.0', '169.254.169.254', '224.0.0.1', '255.255.255.255', '::', 'fe80::1', 'ff02::1', '10.0.0']) assert.equal(isProxyableIP(ip), false, ip);
  });
});
