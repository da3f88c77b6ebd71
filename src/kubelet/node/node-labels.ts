/**
 * The labels a kubelet puts on its Node: upstream's default labels
 * (kubernetes.io/hostname, kubernetes.io/os, kubernetes.io/arch and their
 * beta.kubernetes.io twins) and the administrator's --node-labels, which, as
 * upstream's kubelet checks at start, may use the kubernetes.io and k8s.io
 * namespaces only for labels the NodeRestriction admission plugin lets a
 * kubelet set (node-role.kubernetes.io/… is the administrator's to set).
 */
import { isKubeletLabel, isKubernetesLabel, KUBELET_LABEL_NAMESPACES, KUBELET_LABELS } from '../../machinery/kubelet-labels.js';

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

/**
 * The check upstream's kubelet makes of --node-labels at start: labels in the
 * kubernetes.io or k8s.io namespaces must be kubelet labels. Returns the
 * error message (upstream's wording) or undefined.
 */
export function unknownKubernetesLabelsError(labels: Readonly<Record<string, string>>): string | undefined {
  const unknown = Object.keys(labels)
    .filter((key) => {
      return isKubernetesLabel(key) && !isKubeletLabel(key);
    })
    .sort();
  if (unknown.length === 0) return undefined;
  return (
    `unknown 'kubernetes.io' or 'k8s.io' labels specified with --node-labels: [${unknown.join(' ')}]\n` +
    `--node-labels in the 'kubernetes.io' namespace must begin with an allowed prefix (${KUBELET_LABEL_NAMESPACES.join(', ')}) ` +
    `or be in the specifically allowed set (${[...KUBELET_LABELS].sort().join(', ')})`
  );
}
