/**
 * A probe result reaching the pod's status at once (upstream's status
 * manager SetContainerReadiness and SetContainerStartup): the last status
 * generated for the pod, with each running container's `started` and `ready`
 * taken from the probes again and the ContainersReady and Ready conditions
 * that follow from them. Without this a readiness change would wait for a
 * whole sync of the pod — volumes, runtime reads, sometimes a container
 * start — before the endpoints controller could see it.
 */
import type { PodStatus } from 'kubernetes-types/core/v1.js';
import type { Pod } from '../types.js';
import { containersReadyCondition, readyCondition } from './conditions.js';
import { setReadiness, withTransitionTime, type ProbeState } from './generate-status.js';
import type { PodPhase } from './pod-phase.js';
import { deepCopy } from '../../machinery/meta.js';

/** The status with the probes' newest state, or undefined when that changes nothing (or the pod has finished). */
export function withProbeState(pod: Pod, status: PodStatus, probes: ProbeState, now: Date): PodStatus | undefined {
  const phase = status.phase as PodPhase | undefined;
  if (phase === undefined || phase === 'Succeeded' || phase === 'Failed') return undefined;
  const containerStatuses = deepCopy(status.containerStatuses ?? []);
  const initContainerStatuses = deepCopy(status.initContainerStatuses ?? []);
  setReadiness(containerStatuses, pod, probes, false);
  setReadiness(initContainerStatuses, pod, probes, true);
  const flags = (s: PodStatus['containerStatuses']): string => JSON.stringify((s ?? []).map((c) => [c.started, c.ready]));
  if (flags(containerStatuses) === flags(status.containerStatuses) && flags(initContainerStatuses) === flags(status.initContainerStatuses)) return undefined;

  const all = [...containerStatuses, ...initContainerStatuses];
  const old = status.conditions ?? [];
  const conditions = old.map((c) => {
    if (c.type === 'ContainersReady') return withTransitionTime(containersReadyCondition(pod, all, phase), old, now);
    if (c.type === 'Ready') return withTransitionTime(readyCondition(pod, old, all, phase), old, now);
    return c;
  });
  return {
    ...status,
    conditions,
    containerStatuses,
    ...(status.initContainerStatuses !== undefined ? { initContainerStatuses } : {}),
  };
}
