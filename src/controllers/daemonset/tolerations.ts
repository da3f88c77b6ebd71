/**
 * The tolerations every DaemonSet pod gets (upstream's
 * AddOrUpdateDaemonPodTolerations): a node's problems must not evict or keep
 * out the pods that often exist to deal with them (network plugins, log
 * shippers). Without a tolerationSeconds, so they tolerate forever.
 */
import type { PodSpec, Toleration } from 'kubernetes-types/core/v1.js';

const EXISTS = 'Exists';

const ALWAYS: readonly Toleration[] = [
  { key: 'node.kubernetes.io/not-ready', operator: EXISTS, effect: 'NoExecute' },
  { key: 'node.kubernetes.io/unreachable', operator: EXISTS, effect: 'NoExecute' },
  { key: 'node.kubernetes.io/disk-pressure', operator: EXISTS, effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/memory-pressure', operator: EXISTS, effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/pid-pressure', operator: EXISTS, effect: 'NoSchedule' },
  { key: 'node.kubernetes.io/unschedulable', operator: EXISTS, effect: 'NoSchedule' },
];

const HOST_NETWORK: Toleration = { key: 'node.kubernetes.io/network-unavailable', operator: EXISTS, effect: 'NoSchedule' };

/** Same key, operator, value and effect (upstream's Toleration.MatchToleration; an empty operator is Equal). */
function sameToleration(a: Toleration, b: Toleration): boolean {
  return (
    (a.key ?? '') === (b.key ?? '') &&
    (a.operator || 'Equal') === (b.operator || 'Equal') &&
    (a.value ?? '') === (b.value ?? '') &&
    (a.effect ?? '') === (b.effect ?? '')
  );
}

/** Add the toleration, or replace one that matches it but differs (e.g. in tolerationSeconds). */
function addOrUpdateToleration(spec: PodSpec, toleration: Toleration): void {
  const tolerations = (spec.tolerations ??= []);
  const index = tolerations.findIndex((t) => sameToleration(t, toleration));
  if (index < 0) tolerations.push({ ...toleration });
  else tolerations[index] = { ...toleration };
}

/** Mutates spec: adds the automatic DaemonSet tolerations. */
export function addDaemonPodTolerations(spec: PodSpec): void {
  for (const toleration of ALWAYS) addOrUpdateToleration(spec, toleration);
  if (spec.hostNetwork === true) addOrUpdateToleration(spec, HOST_NETWORK);
}
