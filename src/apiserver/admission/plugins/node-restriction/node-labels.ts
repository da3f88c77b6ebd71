/**
 * Which labels a kubelet may set on its own Node (upstream's
 * getForbiddenLabels with k8s.io/kubelet's IsKubeletLabel): labels under
 * node-restriction.kubernetes.io/ are the administrator's, never the node's;
 * other kubernetes.io and k8s.io labels only when they are kubelet labels
 * (hostname, zone, region, instance type, os, arch, and the kubelet.kubernetes.io
 * and node.kubernetes.io namespaces); anything else is the node's to set.
 */
import { inLabelDomain, isKubeletLabel, isKubernetesLabel, labelNamespace } from '../../../../machinery/kubelet-labels.js';

const NODE_RESTRICTION_NAMESPACE = 'node-restriction.kubernetes.io';

/** The keys added, removed or changed between two label maps. */
export function modifiedLabels(next: Readonly<Record<string, string>> | undefined, previous: Readonly<Record<string, string>> | undefined): string[] {
  const a = next ?? {};
  const b = previous ?? {};
  const out = new Set<string>();
  for (const [k, v] of Object.entries(a)) if (b[k] !== v) out.add(k);
  for (const [k, v] of Object.entries(b)) if (a[k] !== v) out.add(k);
  return [...out];
}

/** The modified labels a node may not set, sorted (upstream lists them so). */
export function forbiddenLabels(modified: readonly string[]): string[] {
  return modified
    .filter((key) => inLabelDomain(labelNamespace(key), NODE_RESTRICTION_NAMESPACE) || (isKubernetesLabel(key) && !isKubeletLabel(key)))
    .sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
}
