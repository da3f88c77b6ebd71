import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { container, run, specWith } from '../../testing/pods.js';
import { sysctls_1_0, sysctls_1_27, sysctls_1_29, sysctls_1_32 } from './sysctls.js';

const withSysctls = (...names: string[]) => specWith([container('a')], { securityContext: { sysctls: names.map((name) => ({ name, value: '1' })) } });

describe('sysctls check', () => {
  it('allows the safe set', () => {
    assert.equal(run(sysctls_1_0, withSysctls('kernel.shm_rmid_forced', 'net.ipv4.ip_unprivileged_port_start')).allowed, true);
  });
  it('names the forbidden sysctls in the order given', () => {
    assert.deepEqual(run(sysctls_1_32, withSysctls('vm.swappiness', 'kernel.shm_rmid_forced', 'kernel.msgmax')), {
      allowed: false,
      forbiddenReason: 'forbidden sysctls',
      forbiddenDetail: 'vm.swappiness, kernel.msgmax',
    });
  });
  it('grows the safe set with the version', () => {
    const reserved = withSysctls('net.ipv4.ip_local_reserved_ports');
    assert.equal(run(sysctls_1_0, reserved).allowed, false);
    assert.equal(run(sysctls_1_27, reserved).allowed, true);
    const keepalive = withSysctls('net.ipv4.tcp_keepalive_time');
    assert.equal(run(sysctls_1_27, keepalive).allowed, false);
    assert.equal(run(sysctls_1_29, keepalive).allowed, true);
    const rmem = withSysctls('net.ipv4.tcp_rmem');
    assert.equal(run(sysctls_1_29, rmem).allowed, false);
    assert.equal(run(sysctls_1_32, rmem).allowed, true);
  });
});
