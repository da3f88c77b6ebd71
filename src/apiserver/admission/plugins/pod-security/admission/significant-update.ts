/**
 * Which pod updates PodSecurity evaluates (upstream's isSignificantPodUpdate):
 * only those that add or remove containers or change an image; the rest of
 * a pod's spec is immutable, and metadata, tolerations, activeDeadlineSeconds
 * and status updates are not evaluated. An added ephemeral container is.
 */
import type { ContainerView, PodSpecView } from '../policy/pod-view.js';

const imageChanged = (a: ContainerView, b: ContainerView): boolean => (a.image ?? '') !== (b.image ?? '');

export function isSignificantPodUpdate(spec: PodSpecView, oldSpec: PodSpecView): boolean {
  const containers = spec.containers ?? [];
  const oldContainers = oldSpec.containers ?? [];
  const inits = spec.initContainers ?? [];
  const oldInits = oldSpec.initContainers ?? [];
  if (containers.length !== oldContainers.length || inits.length !== oldInits.length) return true;
  if (containers.some((c, i) => imageChanged(c, oldContainers[i]!))) return true;
  if (inits.some((c, i) => imageChanged(c, oldInits[i]!))) return true;
  const oldEphemeral = oldSpec.ephemeralContainers ?? [];
  for (const c of spec.ephemeralContainers ?? []) {
    const old = oldEphemeral.find((o) => o.name === c.name);
    if (old === undefined || imageChanged(c, old)) return true;
  }
  return false;
}
