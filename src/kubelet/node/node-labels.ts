/**
 * The labels a kubelet puts on its Node: upstream's default labels
 * (kubernetes.io/hostname, kubernetes.io/os, kubernetes.io/arch and their
 * beta.kubernetes.io twins) and the administrator's --node-labels, which, as
 * upstream's kubelet checks at start, may use the kubernetes.io and k8s.io
 * namespaces only for labels the NodeRestriction admission plugin lets a
 * kubelet set (node-role.kubernetes.io/… is the administrator's to set).
 */

export const LABEL_HOSTNAME = 'kubernetes.io/hostname';
export const LABEL_OS = 'kubernetes.io/os';
export const LABEL_ARCH = 'kubernetes.io/arch';
export const LABEL_BETA_OS = 'beta.kubernetes.io/os';
export const LABEL_BETA_ARCH = 'beta.kubernetes.io/arch';

/** The labels upstream's kubelet reconciles on an existing Node (updateDefaultLabels); k8ts sets no zone, region or instance type. */
export const DEFAULT_LABEL_KEYS: readonly string[] = [LABEL_HOSTNAME, LABEL_OS, LABEL_ARCH, LABEL_BETA_OS, LABEL_BETA_ARCH];

export function defaultNodeLabels(options: { readonly hostname: string; readonly os: string; readonly arch: string }): Record<string, string> {
  return {
    [LABEL_HOSTNAME]: options.hostname,
    [LABEL_OS]: options.os,
    [LABEL_ARCH]: options.arch,
    [LABEL_BETA_OS]: options.os,
    [LABEL_BETA_ARCH]: options.arch,
  };
}

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

const namespaceOf = (key: string): string => (key.includes('/') ? key.slice(0, key.indexOf('/')) : '');
const inDomain = (namespace: string, domain: string): boolean => namespace === domain || namespace.endsWith(`.${domain}`);

/** k8s.io/kubelet's IsKubeletLabel: a label a kubelet may set on its own Node. */
export function isKubeletLabel(key: string): boolean {
  return KUBELET_LABELS.has(key) || KUBELET_LABEL_NAMESPACES.some((d) => inDomain(namespaceOf(key), d));
}

/**
 * The check upstream's kubelet makes of --node-labels at start: labels in the
 * kubernetes.io or k8s.io namespaces must be kubelet labels. Returns the
 * error message (upstream's wording) or undefined.
 */
export function unknownKubernetesLabelsError(labels: Readonly<Record<string, string>>): string | undefined {
  const unknown = Object.keys(labels)
    .filter((key) => {
      const ns = namespaceOf(key);
      return (inDomain(ns, 'kubernetes.io') || inDomain(ns, 'k8s.io')) && !isKubeletLabel(key);
    })
    .sort();
  if (unknown.length === 0) return undefined;
  return (
    `unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [${unknown.join(' ')}]\n` +
    `--node-labels in the 'kubernetes.io' namespace must begin with an allowed prefix (${KUBELET_LABEL_NAMESPACES.join(', ')}) ` +
    `or be in the specifically allowed set (${[...KUBELET_LABELS].sort().join(', ')})`
  );
}
