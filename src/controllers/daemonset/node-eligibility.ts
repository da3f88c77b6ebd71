/**
 * Whether a DaemonSet wants a pod on a node (upstream's NodeShouldRunDaemonPod):
 * the pod's node name, nodeSelector and required node affinity must fit the
 * node, and every NoSchedule/NoExecute taint must be tolerated (with the
 * automatic DaemonSet tolerations added). A pod already there may stay on a
 * node it no longer fits only because of a NoSchedule taint.
 */
import type { NodeSelectorRequirement, NodeSelectorTerm, PodSpec, Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { deepCopy } from '../../machinery/meta.js';
import { addDaemonPodTolerations } from './tolerations.js';
import type { DaemonSetObject, NodeObject } from './types.js';
import { toleratesTaint } from '../../api/core/v1/toleration.js';

export interface NodeVerdict {
  /** A pod should be created on the node if none runs there. */
  readonly shouldRun: boolean;
  /** A pod already on the node may keep running. */
  readonly shouldContinueRunning: boolean;
}

function requirementMatches(requirement: NodeSelectorRequirement, value: string | undefined): boolean {
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
      return value !== undefined && values.includes(value);
    case 'NotIn':
      return value === undefined || !values.includes(value);
    case 'Exists':
      return value !== undefined;
    case 'DoesNotExist':
      return value === undefined;
    case 'Gt':
    case 'Lt': {
      if (value === undefined || values.length !== 1 || !/^-?\d+$/.test(value) || !/^-?\d+$/.test(values[0]!)) return false;
      const have = BigInt(value);
      const bound = BigInt(values[0]!);
      return requirement.operator === 'Gt' ? have > bound : have < bound;
    }
    default:
      return false;
  }
}

/** One term: every label expression and every field expression (only metadata.name exists) holds; an empty term matches nothing. */
function termMatches(term: NodeSelectorTerm, node: NodeObject): boolean {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return false;
  const labels = node.metadata.labels ?? {};
  for (const e of expressions) if (!requirementMatches(e, Object.hasOwn(labels, e.key) ? labels[e.key] : undefined)) return false;
  for (const f of fields) {
    if (f.key !== 'metadata.name' || (f.operator !== 'In' && f.operator !== 'NotIn')) return false;
    if (!requirementMatches(f, node.metadata.name)) return false;
  }
  return true;
}

/** The pod's nodeSelector and required node affinity both admit the node (upstream's GetRequiredNodeAffinity(pod).Match). */
export function fitsNodeAffinity(spec: PodSpec, node: NodeObject): boolean {
  const labels = node.metadata.labels ?? {};
  for (const [key, value] of Object.entries(spec.nodeSelector ?? {})) if (labels[key] !== value) return false;
  const required = spec.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  if (required === undefined) return true;
  return (required.nodeSelectorTerms ?? []).some((term) => termMatches(term, node));
}

/** The first taint with one of the effects that no toleration tolerates. */
export function untoleratedTaint(taints: readonly Taint[], tolerations: readonly Toleration[], effects: readonly string[]): Taint | undefined {
  return taints.find((taint) => effects.includes(taint.effect) && !tolerations.some((t) => toleratesTaint(t, taint)));
}

/** Specs already computed, per DaemonSet object (objects from the cache never change, so the key is safe). */
const specs = new WeakMap<DaemonSetObject, PodSpec>();

/** The spec a DaemonSet pod for the node would have: the template's, with the automatic tolerations (shared: do not mutate). */
export function daemonPodSpec(ds: DaemonSetObject): PodSpec {
  let spec = specs.get(ds);
  if (spec === undefined) {
    spec = deepCopy(ds.spec?.template.spec ?? { containers: [] });
    addDaemonPodTolerations(spec);
    specs.set(ds, spec);
  }
  return spec;
}

export function nodeShouldRunDaemonPod(node: NodeObject, ds: DaemonSetObject): NodeVerdict {
  const spec = daemonPodSpec(ds);
  const no: NodeVerdict = { shouldRun: false, shouldContinueRunning: false };
  if (spec.nodeName && spec.nodeName !== node.metadata.name) return no;
  if (!fitsNodeAffinity(spec, node)) return no;
  const taints = node.spec?.taints ?? [];
  const tolerations = spec.tolerations ?? [];
  if (untoleratedTaint(taints, tolerations, ['NoSchedule', 'NoExecute']) === undefined) return { shouldRun: true, shouldContinueRunning: true };
  return { shouldRun: false, shouldContinueRunning: untoleratedTaint(taints, tolerations, ['NoExecute']) === undefined };
}
