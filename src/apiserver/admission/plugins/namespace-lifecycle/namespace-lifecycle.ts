/**
 * NamespaceLifecycle (upstream's plugin of that name), in two halves:
 * - creating content needs a namespace that exists (404) and is not being
 *   deleted (403 `unable to create new content in namespace X because it is
 *   being terminated`): the registry makes that check inside the store
 *   (registry.ts, checkNamespace) because it must see the namespace as the
 *   store does; the registry's `namespaceLifecycle` option is this plugin's
 *   enablement, so disabling the plugin disables it, as upstream;
 * - the namespaces the cluster itself lives in (default, kube-system,
 *   kube-public) may not be deleted: this plugin.
 */
import { forbidden } from '../../../../machinery/status.js';
import type { ValidatingAdmissionPlugin } from '../../interfaces.js';

export const NAME = 'NamespaceLifecycle';

/** Upstream's immortal namespaces. */
export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

export function newNamespaceLifecycle(): ValidatingAdmissionPlugin {
  return {
    name: NAME,
    handles: (operation) => operation === 'DELETE',
    validate(a) {
      if (a.resource.group !== '' || a.resource.resource !== 'namespaces' || a.subresource !== '') return;
      if (IMMORTAL_NAMESPACES.has(a.name)) throw forbidden({ group: '', resource: 'namespaces' }, a.name, 'this namespace may not be deleted');
    },
  };
}
