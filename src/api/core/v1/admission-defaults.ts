/**
 * What every pod gets at creation from the admission plugins a default
 * upstream cluster runs, not from API defaulting:
 *
 * - ServiceAccount: `spec.serviceAccountName: default` (and the deprecated
 *   `spec.serviceAccount` mirroring it). Upstream's plugin also mounts the
 *   projected token volume `kube-api-access-*`; that part waits for the
 *   token machinery.
 * - DefaultTolerationSeconds: tolerate `node.kubernetes.io/not-ready` and
 *   `node.kubernetes.io/unreachable` (NoExecute) for 300 s unless the pod
 *   already tolerates them.
 * - Priority: `priority: 0` and `preemptionPolicy: PreemptLowerPriority` when
 *   the pod names no priority class (with a class, the plugin resolves it from
 *   the PriorityClass object: that part waits for the admission chain).
 *
 * The admission plugins of those names (apiserver/admission/plugins/) call
 * these functions on every new pod; they live here, beside the pod's API
 * defaulting, because they are what a pod object gets, and tests of the pod
 * API apply them as a cluster would (`applyPodAdmissionDefaults`).
 */
import type { Pod, Toleration } from 'kubernetes-types/core/v1.js';

export const DEFAULT_SERVICE_ACCOUNT_NAME = 'default';
/** Upstream's --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds. */
export const DEFAULT_TOLERATION_SECONDS = 300;
export const TAINT_NODE_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_NODE_UNREACHABLE = 'node.kubernetes.io/unreachable';

/** All three plugins, in upstream's order (ServiceAccount, Priority, DefaultTolerationSeconds). */
export function applyPodAdmissionDefaults(pod: Pod): void {
  admitServiceAccount(pod);
  admitPriority(pod);
  admitDefaultTolerationSeconds(pod);
}

/** The ServiceAccount plugin's defaulting: a pod without a service account runs as `default`. */
export function admitServiceAccount(pod: Pod): void {
  const spec = (pod.spec ??= { containers: [] });
  // Static (mirror) pods are left alone upstream.
  if (pod.metadata?.annotations?.['kubernetes.io/config.mirror'] !== undefined) return;
  if (!spec.serviceAccountName) spec.serviceAccountName = spec.serviceAccount || DEFAULT_SERVICE_ACCOUNT_NAME;
  // The deprecated field is kept equal to the new one, as upstream's conversion does.
  spec.serviceAccount = spec.serviceAccountName;
}

/** The Priority plugin without a PriorityClass: priority 0, preempting lower priorities. */
export function admitPriority(pod: Pod): void {
  const spec = (pod.spec ??= { containers: [] });
  if (spec.priorityClassName) return;
  spec.priority ??= 0;
  spec.preemptionPolicy ??= 'PreemptLowerPriority';
}

/** The DefaultTolerationSeconds plugin (seconds: --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds). */
export function admitDefaultTolerationSeconds(pod: Pod, seconds: { notReady?: number; unreachable?: number } = {}): void {
  const spec = (pod.spec ??= { containers: [] });
  const tolerations = spec.tolerations ?? [];
  const tolerates = (key: string): boolean =>
    tolerations.some((t) => (t.effect === undefined || t.effect === '' || t.effect === 'NoExecute') && (t.key === key || (t.key ?? '') === ''));
  const added: Toleration[] = [];
  const defaults: Array<[string, number]> = [
    [TAINT_NODE_NOT_READY, seconds.notReady ?? DEFAULT_TOLERATION_SECONDS],
    [TAINT_NODE_UNREACHABLE, seconds.unreachable ?? DEFAULT_TOLERATION_SECONDS],
  ];
  for (const [key, tolerationSeconds] of defaults) {
    if (!tolerates(key)) added.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds });
  }
  if (added.length > 0) spec.tolerations = [...tolerations, ...added];
}
