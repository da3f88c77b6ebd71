/**
 * The warnings a namespace gets when its enforce level is tightened
 * (upstream's EvaluatePodsInNamespace): existing pods are evaluated against
 * the new level, at most `maxPodsToCheck` of them and for at most
 * `timeoutMs`, one pod per controller first; pods with the same reasons are
 * grouped under the lexically first pod's name.
 */
import { levelVersionString, type LevelVersion } from '../api/level-version.js';
import { aggregateCheckResults, forbiddenReason, type Evaluator } from '../policy/evaluator.js';
import type { PodMetaView, PodSpecView } from '../policy/pod-view.js';

export interface ExistingPod {
  readonly metadata: PodMetaView & { readonly ownerReferences?: readonly { readonly uid: string; readonly controller?: boolean }[] | null | undefined };
  readonly spec?: PodSpecView | null;
}

export interface NamespacePodCheckOptions {
  readonly evaluator: Evaluator;
  readonly exemptRuntimeClasses: ReadonlySet<string>;
  readonly maxPodsToCheck: number;
  readonly timeoutMs: number;
  readonly now: () => number;
}

/** Pods of distinct controllers (and pods without one) first, then the other replicas; exempt runtime classes left out. */
export function prioritizePods(pods: readonly ExistingPod[], exemptRuntimeClasses: ReadonlySet<string>): ExistingPod[] {
  const first: ExistingPod[] = [];
  const duplicates: ExistingPod[] = [];
  const seen = new Set<string>();
  for (const pod of pods) {
    const runtimeClass = pod.spec?.runtimeClassName ?? '';
    if (runtimeClass !== '' && exemptRuntimeClasses.has(runtimeClass)) continue;
    const controller = (pod.metadata.ownerReferences ?? []).find((r) => r.controller === true);
    if (controller === undefined) first.push(pod);
    else if (seen.has(controller.uid)) duplicates.push(pod);
    else {
      seen.add(controller.uid);
      first.push(pod);
    }
  }
  return [...first, ...duplicates];
}

export function evaluatePodsInNamespace(namespace: string, enforce: LevelVersion, pods: readonly ExistingPod[], o: NamespacePodCheckOptions): string[] {
  const deadline = o.now() + o.timeoutMs;
  const prioritized = prioritizePods(pods, o.exemptRuntimeClasses);
  const total = prioritized.length;
  const toCheck = prioritized.slice(0, o.maxPodsToCheck);
  let checked = toCheck.length;
  const order: string[] = [];
  const counts = new Map<string, { podName: string; count: number }>();
  for (let i = 0; i < toCheck.length; i++) {
    const pod = toCheck[i]!;
    const result = aggregateCheckResults(o.evaluator.evaluatePod(enforce, pod.metadata, pod.spec ?? {}));
    if (!result.allowed) {
      const warning = forbiddenReason(result);
      const name = pod.metadata.name ?? '';
      const c = counts.get(warning);
      if (c === undefined) {
        order.push(warning);
        counts.set(warning, { podName: name, count: 1 });
      } else {
        if (name < c.podName) c.podName = name;
        c.count++;
      }
    }
    if (o.now() >= deadline) {
      checked = i + 1;
      break;
    }
  }
  const warnings: string[] = [];
  if (checked < total) warnings.push(`new PodSecurity enforce level only checked against the first ${checked} of ${total} existing pods`);
  if (order.length > 0) warnings.push(`existing pods in namespace "${namespace}" violate the new PodSecurity enforce level "${levelVersionString(enforce)}"`);
  const podWarnings = order.map((warning) => {
    const c = counts.get(warning)!;
    if (c.count === 1) return `${c.podName}: ${warning}`;
    if (c.count === 2) return `${c.podName} (and 1 other pod): ${warning}`;
    return `${c.podName} (and ${c.count - 1} other pods): ${warning}`;
  });
  podWarnings.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return [...warnings, ...podWarnings];
}
