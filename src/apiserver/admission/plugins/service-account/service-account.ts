/**
 * ServiceAccount (upstream's plugin), its defaulting half: a new pod that
 * names no service account runs as `default` (static pods' mirrors are left
 * alone). Upstream's plugin also refuses a pod whose service account does not
 * exist and mounts the projected API token volume (kube-api-access-*); both
 * belong with the kubelet that uses the token (issue 8) and are not done yet.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';
import { admitServiceAccount } from '../../../../api/core/v1/admission-defaults.js';
import type { MutatingAdmissionPlugin } from '../../interfaces.js';

export const NAME = 'ServiceAccount';

export function newServiceAccount(): MutatingAdmissionPlugin {
  return {
    name: NAME,
    handles: (operation) => operation === 'CREATE',
    admit(a) {
      if (a.resource.group !== '' || a.resource.resource !== 'pods' || a.subresource !== '' || a.object === undefined) return;
      admitServiceAccount(a.object as unknown as Pod);
    },
  };
}
