/**
 * The field path of a container in its pod, as upstream's kubelet puts it in
 * the involvedObject of the Events about that container (kubectl get events
 * -o wide shows it as SUBOBJECT): `spec.containers{name}`,
 * `spec.initContainers{name}` or `spec.ephemeralContainers{name}`.
 */
import type { Pod } from 'kubernetes-types/core/v1.js';

/** The container's field path, or undefined for a name the pod does not have (the Event is then about the pod). */
export function containerFieldPath(pod: Pod, name: string): string | undefined {
  const spec = pod.spec;
  if (spec?.containers?.some((c) => c.name === name)) return `spec.containers{${name}}`;
  if (spec?.initContainers?.some((c) => c.name === name)) return `spec.initContainers{${name}}`;
  if (spec?.ephemeralContainers?.some((c) => c.name === name)) return `spec.ephemeralContainers{${name}}`;
  return undefined;
}
