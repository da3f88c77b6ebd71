/**
 * How a DaemonSet pod is tied to its node (upstream 1.12+): not by setting
 * spec.nodeName, but by a required node affinity on the node's metadata.name
 * (matchFields), so that the scheduler binds it and its preemption and
 * resource accounting apply; before binding, the target node is read back
 * from that affinity.
 */
import type { Affinity } from 'kubernetes-types/core/v1.js';
import { deepCopy } from '../../machinery/meta.js';
import type { PodObject } from './types.js';

/** A copy of the affinity whose required node affinity selects exactly this node (the rest of the affinity kept). */
export function affinityForNode(affinity: Affinity | undefined, nodeName: string): Affinity {
  const term = { matchFields: [{ key: 'metadata.name', operator: 'In', values: [nodeName] }] };
  const copy: Affinity = affinity === undefined ? {} : deepCopy(affinity);
  const nodeAffinity = (copy.nodeAffinity ??= {});
  nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution = { nodeSelectorTerms: [term] };
  return copy;
}

/** The node a DaemonSet pod is for: spec.nodeName once bound, else the one its node affinity names (undefined when neither says). */
export function targetNodeName(pod: PodObject): string | undefined {
  if (pod.spec?.nodeName) return pod.spec.nodeName;
  const terms = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution?.nodeSelectorTerms ?? [];
  for (const term of terms) {
    for (const field of term.matchFields ?? []) {
      if (field.key === 'metadata.name' && field.operator === 'In') return field.values?.length === 1 ? field.values[0] : undefined;
    }
  }
  return undefined;
}
