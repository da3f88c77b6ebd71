/**
 * k8s.io/kubelet's IsKubeletLabel: the labels in the kubernetes.io and k8s.io
 * namespaces that a kubelet may set on its own Node (hostname, zone, region,
 * instance type, os, arch, and the kubelet.kubernetes.io and
 * node.kubernetes.io namespaces). The kubelet checks its --node-labels with
 * it at start, and the NodeRestriction admission plugin the labels a node
 * writes: one list, so that the two can never disagree.
 */
export const KUBELET_LABELS: ReadonlySet<string> = new Set([
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
export const KUBELET_LABEL_NAMESPACES: readonly string[] = ['kubelet.kubernetes.io', 'node.kubernetes.io'];

/** The part of a label key before its `/` ('' for a key without one). */
export const labelNamespace = (key: string): string => {
  const slash = key.indexOf('/');
  return slash === -1 ? '' : key.slice(0, slash);
};

/** Whether a label namespace is `domain` or a subdomain of it. */
export const inLabelDomain = (namespace: string, domain: string): boolean => namespace === domain || namespace.endsWith(`.${domain}`);

/** A label in the kubernetes.io or k8s.io namespaces (the ones a kubelet may use only for kubelet labels). */
export const isKubernetesLabel = (key: string): boolean => {
  const namespace = labelNamespace(key);
  return inLabelDomain(namespace, 'kubernetes.io') || inLabelDomain(namespace, 'k8s.io');
};

export function isKubeletLabel(key: string): boolean {
  if (KUBELET_LABELS.has(key)) return true;
  const namespace = labelNamespace(key);
  return KUBELET_LABEL_NAMESPACES.some((allowed) => inLabelDomain(namespace, allowed));
}
