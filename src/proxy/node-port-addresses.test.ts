import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NodePortAddressesError, nodePortAddresses } from './node-port-addresses.js';

describe('nodePortAddresses', () => {
  it('defaults to the node IPs', () => {
    assert.deepEqual(nodePortAddresses([], ['127.0.0.1']), ['127.0.0.1']);
  });
  it('selects node IPs by CIDR, takes bare IPs as given, and knows primary', () => {
    assert.deepEqual(nodePortAddresses(['127.0.0.0/8'], ['127.0.0.2', '10.0.0.1']), ['127.0.0.2']);
    assert.deepEqual(nodePortAddresses(['10.0.0.0/24', '127.0.0.9'], ['127.0.0.2', '10.0.0.1']), ['10.0.0.1', '127.0.0.9']);
    assert.deepEqual(nodePortAddresses(['0.0.0.0/0'], ['127.0.0.2', '::1']), ['127.0.0.2']);
    assert.deepEqual(nodePortAddresses(['primary'], ['127.0.0.2', '10.0.0.1']), ['127.0.0.2']);
    assert.deepEqual(nodePortAddresses(['192.168.0.0/16'], ['127.0.0.2']), []);
  });
  it('refuses what is no CIDR', () => {
    assert.throws(() => nodePortAddresses(['nope/8'], ['127.0.0.1']), NodePortAddressesError);
    assert.throws(() => nodePortAddresses(['127.0.0.0/33'], ['127.0.0.1']), /bad prefix length/);
  });
});
