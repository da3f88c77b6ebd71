/** Baseline: no sharing of the host's network, PID or IPC namespaces. */
import { majorMinor } from '../../api/level-version.js';
import { ALLOWED, forbiddenResult, type Check, type CheckPodFn } from '../check.js';

export const hostNamespaces_1_0: CheckPodFn = (_meta, spec) => {
  const shared: string[] = [];
  if (spec.hostNetwork === true) shared.push('hostNetwork=true');
  if (spec.hostPID === true) shared.push('hostPID=true');
  if (spec.hostIPC === true) shared.push('hostIPC=true');
  return shared.length === 0 ? ALLOWED : forbiddenResult('host namespaces', shared.join(', '));
};

export const CHECK_HOST_NAMESPACES: Check = { id: 'hostNamespaces', level: 'baseline', versions: [{ minimumVersion: majorMinor(1, 0), checkPod: hostNamespaces_1_0 }] };
