/**
 * The taints the node controllers put on and take off nodes, as upstream's
 * templates (node.kubernetes.io/…), and the index of pods by node that both
 * the node lifecycle and the taint eviction controllers read.
 */
import type { Node, NodeCondition, Taint } from 'kubernetes-types/core/v1.js';
import type { SharedIndexInformer } from '../../client/cache/interfaces.js';
import { formatTime, type KubeObject } from '../../machinery/meta.js';

export const TAINT_NOT_READY = 'node.kubernetes.io/not-ready';
export const TAINT_UNREACHABLE = 'node.kubernetes.io/unreachable';
export const TAINT_UNSCHEDULABLE = 'node.kubernetes.io/unschedulable';
export const TAINT_MEMORY_PRESSURE = 'node.kubernetes.io/memory-pressure';
export const TAINT_DISK_PRESSURE = 'node.kubernetes.io/disk-pressure';
export const TAINT_NETWORK_UNAVAILABLE = 'node.kubernetes.io/network-unavailable';
export const TAINT_PID_PRESSURE = 'node.kubernetes.io/pid-pressure';

/** The NoSchedule taints the controller owns, by the condition (status) that calls for each (upstream's nodeConditionToTaintKeyStatusMap). */
const NO_SCHEDULE_BY_CONDITION: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  Ready: { False: TAINT_NOT_READY, Unknown: TAINT_UNREACHABLE },
  MemoryPressure: { True: TAINT_MEMORY_PRESSURE },
  DiskPressure: { True: TAINT_DISK_PRESSURE },
  NetworkUnavailable: { True: TAINT_NETWORK_UNAVAILABLE },
  PIDPressure: { True: TAINT_PID_PRESSURE },
};
const NO_SCHEDULE_KEYS = new Set([...Object.values(NO_SCHEDULE_BY_CONDITION).flatMap((m) => Object.values(m)), TAINT_UNSCHEDULABLE]);

export type NodeObject = KubeObject & Node;

export const nodeCondition = (node: Node, type: string): NodeCondition | undefined => node.status?.conditions?.find((c) => c.type === type);

/** The NoSchedule taint keys the node's conditions (and spec.unschedulable) call for. */
export function wantedNoScheduleKeys(node: Node): Set<string> {
  const keys = new Set<string>();
  for (const condition of node.status?.conditions ?? []) {
    const key = NO_SCHEDULE_BY_CONDITION[condition.type]?.[condition.status];
    if (key !== undefined) keys.add(key);
  }
  if (node.spec?.unschedulable === true) keys.add(TAINT_UNSCHEDULABLE);
  return keys;
}

/** The NoExecute taint key for a Ready status: not-ready for False, unreachable for Unknown (or no condition), none for True. */
export function noExecuteKeyFor(readyStatus: string | undefined): string | undefined {
  if (readyStatus === 'True') return undefined;
  return readyStatus === 'False' ? TAINT_NOT_READY : TAINT_UNREACHABLE;
}

export const hasTaint = (taints: readonly Taint[] | undefined, key: string, effect: string): boolean =>
  (taints ?? []).some((t) => t.key === key && t.effect === effect);

/**
 * The node's taints with the controller's NoSchedule taints set to `noSchedule`
 * and its NoExecute ones (not-ready, unreachable) set to `noExecute`; other
 * taints are kept as they are, new ones get timeAdded.
 */
export function withControllerTaints(taints: readonly Taint[] | undefined, wanted: { noSchedule: ReadonlySet<string>; noExecute: ReadonlySet<string> }, now: Date): Taint[] {
  const kept = (taints ?? []).filter((t) => {
    if (t.effect === 'NoSchedule' && NO_SCHEDULE_KEYS.has(t.key)) return wanted.noSchedule.has(t.key);
    if (t.effect === 'NoExecute' && (t.key === TAINT_NOT_READY || t.key === TAINT_UNREACHABLE)) return wanted.noExecute.has(t.key);
    return true;
  });
  const add = (key: string, effect: string): void => {
    if (!hasTaint(kept, key, effect)) kept.push({ key, effect, timeAdded: formatTime(now) });
  };
  for (const key of wanted.noSchedule) add(key, 'NoSchedule');
  for (const key of wanted.noExecute) add(key, 'NoExecute');
  return kept;
}

/** Name of the pods index by spec.nodeName that both node controllers use. */
export const POD_NODE_NAME_INDEX = 'podsByNodeName';

/** The index function (one module-level function, so controllers sharing the pods informer may each add it). */
export const podNodeNameIndexFunc = (pod: KubeObject): string[] => {
  const nodeName = (pod.spec as { nodeName?: string } | undefined)?.nodeName;
  return nodeName === undefined || nodeName === '' ? [] : [nodeName];
};

/** Add the pods-by-node index to a (shared) pods informer. */
export function ensurePodNodeNameIndex(informer: SharedIndexInformer): void {
  informer.indexer.addIndexers({ [POD_NODE_NAME_INDEX]: podNodeNameIndexFunc });
}
