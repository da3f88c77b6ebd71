/**
 * DefaultTolerationSeconds (upstream's plugin): every new pod that does not
 * already tolerate them gets
 *   node.kubernetes.io/not-ready:NoExecute   for 300 s (--default-not-ready-toleration-seconds)
 *   node.kubernetes.io/unreachable:NoExecute for 300 s (--default-unreachable-toleration-seconds)
 * so that when its node fails, the taint eviction controller evicts it after
 * five minutes rather than at once.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { admitDefaultTolerationSeconds } from '../../../../api/core/v1/admission-defaults.js';
import type { MutatingAdmissionPlugin } from '../../interfaces.js';

export const NAME = 'DefaultTolerationSeconds';

export interface DefaultTolerationSecondsOptions {
  readonly notReadySeconds?: number;
  readonly unreachableSeconds?: number;
}

export function newDefaultTolerationSeconds(options: DefaultTolerationSecondsOptions = {}): MutatingAdmissionPlugin {
  const seconds = {
    ...(options.notReadySeconds !== undefined ? { notReady: options.notReadySeconds } : {}),
    ...(options.unreachableSeconds !== undefined ? { unreachable: options.unreachableSeconds } : {}),
  };
  return {
    name: NAME,
    handles: (operation) => operation === 'CREATE',
    admit(a) {
      if (a.resource.group !== '' || a.resource.resource !== 'pods' || a.subresource !== '' || a.object === undefined) return;
      admitDefaultTolerationSeconds(a.object as unknown as Pod, seconds);
    },
  };
}
