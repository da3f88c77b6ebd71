/**
 * Which labels a kubelet may set on its own Node (upstream's
 * getForbiddenLabels with k8s.io/kubelet's IsKubeletLabel): labels under
 * node-restriction.kubernetes.io/ are the administrator's, never the node's;
 * other kubernetes.io and k8s.io labels only when they are kubelet labels
 * (hostname, zone, region, instance type, os, arch, and the kubelet.kubernetes.io
 * and node.kubernetes.io namespaces); anything else is the node's to set.
 */
const KUBELET_LABELS: ReadonlySet<string> = new Set([
  'kubernetes.io/hostname',
  'topology.kubernetes.io/zone',
  'topology.kubernetes.io/region',
  'failure-domain.beta.kubernetes.io/zone',
  'failure-domain.beta.kubernetes.io/region',
  'beta.kubernetes.io/instance-type',
  'node.kubernetes.io/instance-type',
  'kubernetes.io/os',
  'kubernetes.io/arch',
  'beta.kubernetes.io/os',
  'beta.kubernetes.io/arch',
]);
const KUBELET_LABEL_NAMESPACES = ['kubelet.kubernetes.io', 'node.kubernetes.io'];
const NODE_RESTRICTION_NAMESPACE = 'node-restriction.kubernetes.io';

const labelNamespace = (key: string): string => {
  const slash = key.indexOf('/');
  return slash === -1 ? '' : key.slice(0, slash);
};
const inNamespace = (namespace: string, domain: string): boolean => namespace === domain || namespace.endsWith(`.${domain}`);

export function isKubeletLabel(key: string): boolean {
  if (KUBELET_LABELS.has(key)) return true;
  const namespace = labelNamespace(key);
  return KUBELET_LABEL_NAMESPACES.some((allowed) => inNamespace(namespace, allowed));
}

const isKubernetesLabel = (key: string): boolean => {
  const namespace = labelNamespace(key);
  return inNamespace(namespace, 'kubernetes.io') || inNamespace(namespace, 'k8s.io');
};

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
    .filter((key) => inNamespace(labelNamespace(key), NODE_RESTRICTION_NAMESPACE) || (isKubernetesLabel(key) && !isKubeletLabel(key)))
    .sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
}
