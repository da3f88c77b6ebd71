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

const NO_SECONDS = Object.freeze({});

/** The DefaultTolerationSeconds plugin (seconds: --default-not-ready-toleration-seconds and --default-unreachable-toleration-seconds). */
export function admitDefaultTolerationSeconds(pod: Pod, seconds: { notReady?: number; unreachable?: number } = NO_SECONDS): void {
  const spec = (pod.spec ??= { containers: [] });
  const tolerations = spec.tolerations ?? [];
  const notReady = !tolerations.some(takesKey, TAINT_NODE_NOT_READY);
  const unreachable = !tolerations.some(takesKey, TAINT_NODE_UNREACHABLE);
  if (!notReady && !unreachable) return;
  // A new list: the one the pod had is left as it was.
  const all = tolerations.slice();
  if (notReady) all.push({ key: TAINT_NODE_NOT_READY, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds.notReady ?? DEFAULT_TOLERATION_SECONDS });
  if (unreachable) all.push({ key: TAINT_NODE_UNREACHABLE, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: seconds.unreachable ?? DEFAULT_TOLERATION_SECONDS });
  spec.tolerations = all;
}

/** Whether a toleration takes NoExecute taints with the key `this` (for some(): no closure per key). */
function takesKey(this: string, t: Toleration): boolean {
  return (t.effect === undefined || t.effect === '' || t.effect === 'NoExecute') && (t.key === this || (t.key ?? '') === '');
}
