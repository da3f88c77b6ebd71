/** Baseline: only the namespaced, isolated ("safe") sysctls, a set that grows with the version. */
import { majorMinor } from '../../api/level-version.js';
import { ALLOWED, forbiddenResult, type Check, type CheckPodFn } from '../check.js';

const SAFE_1_0 = ['kernel.shm_rmid_forced', 'net.ipv4.ip_local_port_range', 'net.ipv4.tcp_syncookies', 'net.ipv4.ping_group_range', 'net.ipv4.ip_unprivileged_port_start'];
const SAFE_1_27 = [...SAFE_1_0, 'net.ipv4.ip_local_reserved_ports'];
const SAFE_1_29 = [...SAFE_1_27, 'net.ipv4.tcp_keepalive_time', 'net.ipv4.tcp_fin_timeout', 'net.ipv4.tcp_keepalive_intvl', 'net.ipv4.tcp_keepalive_probes'];
const SAFE_1_32 = [...SAFE_1_29, 'net.ipv4.tcp_rmem', 'net.ipv4.tcp_wmem'];

function sysctls(safe: readonly string[]): CheckPodFn {
  const allowed = new Set(safe);
  return (_meta, spec) => {
    const forbidden = (spec.securityContext?.sysctls ?? []).map((s) => s.name).filter((name) => !allowed.has(name));
    return forbidden.length === 0 ? ALLOWED : forbiddenResult('forbidden sysctls', forbidden.join(', '));
  };
}

export const sysctls_1_0 = sysctls(SAFE_1_0);
export const sysctls_1_27 = sysctls(SAFE_1_27);
export const sysctls_1_29 = sysctls(SAFE_1_29);
export const sysctls_1_32 = sysctls(SAFE_1_32);

export const CHECK_SYSCTLS: Check = {
  id: 'sysctls',
  level: 'baseline',
  versions: [
    { minimumVersion: majorMinor(1, 0), checkPod: sysctls_1_0 },
    { minimumVersion: majorMinor(1, 27), checkPod: sysctls_1_27 },
    { minimumVersion: majorMinor(1, 29), checkPod: sysctls_1_29 },
    { minimumVersion: majorMinor(1, 32), checkPod: sysctls_1_32 },
  ],
};
