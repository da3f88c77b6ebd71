/**
 * The pod's API status from the runtime (upstream's generateAPIPodStatus):
 * pod IPs from the sandbox (the node's for host-network pods), host IPs,
 * QoS class, container statuses with readiness and startup from the probes,
 * the phase (never leaving a terminal one), the kubelet's conditions after
 * the API's others (PodScheduled as the API has it), and the start time.
 * Conditions keep their lastTransitionTime while their status holds.
 * Terminated messages are cut to the pod's share (termination-message.ts).
 */
import type { ContainerStatus, PodCondition, PodStatus } from 'kubernetes-types/core/v1.js';
import { podQOSClass } from '../../api/core/v1/qos.js';
import { formatTime } from '../../machinery/meta.js';
import { isHostNetwork, sandboxChanged } from '../pod-workers/pod-actions.js';
import { sandboxIPs, type RuntimePod } from '../pod-workers/runtime-pod.js';
import { limitTerminationMessages } from '../pod-workers/termination-message.js';
import type { ContainerSpec, Pod } from '../types.js';
import { containersReadyCondition, initializedCondition, KUBELET_CONDITIONS, readyCondition, readyToStartContainersCondition } from './conditions.js';
import { convertContainerStatuses, type StartFailure } from './container-statuses.js';
import { podPhase, type PodPhase } from './pod-phase.js';

export interface GenerateStatusInput {
  readonly pod: Pod;
  readonly runtimePod: RuntimePod;
  /** The last status this kubelet generated for the pod, else the API's. */
  readonly oldStatus: PodStatus;
  /** The pod is stopping for good (deleted, or finished): its containers will not run again. */
  readonly podIsTerminal: boolean;
  readonly runtimeName: string;
  readonly nodeIPs: readonly string[];
  readonly failures: ReadonlyMap<string, StartFailure>;
  readonly isReady: (containerName: string) => boolean;
  readonly isStarted: (containerName: string) => boolean;
  readonly now: Date;
}

/** What the probes say of each container of one pod. */
export type ProbeState = Pick<GenerateStatusInput, 'isReady' | 'isStarted'>;

const isTerminalPhase = (phase: string | undefined): phase is 'Succeeded' | 'Failed' => phase === 'Succeeded' || phase === 'Failed';

export function withTransitionTime(condition: Omit<PodCondition, 'lastTransitionTime'>, old: readonly PodCondition[], now: Date): PodCondition {
  const previous = old.find((c) => c.type === condition.type);
  const lastTransitionTime = previous !== undefined && previous.status === condition.status && previous.lastTransitionTime !== undefined ? previous.lastTransitionTime : formatTime(now);
  return { ...condition, lastTransitionTime };
}

/** Each container's started and ready from the probes (an init container that is not a sidecar: ready once it exited 0). */
export function setReadiness(statuses: ContainerStatus[], pod: Pod, input: ProbeState, isInit: boolean): void {
  const sidecars = new Set((pod.spec?.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  for (const s of statuses) {
    const running = s.state?.running !== undefined;
    if (isInit && !sidecars.has(s.name)) {
      s.ready = s.state?.terminated !== undefined && s.state.terminated.exitCode === 0;
      s.started = running;
      continue;
    }
    s.started = running && input.isStarted(s.name);
    s.ready = s.started && input.isReady(s.name);
  }
}

export function generatePodStatus(input: GenerateStatusInput): PodStatus {
  const { pod, runtimePod, oldStatus, now } = input;
  const apiStatus = pod.status ?? {};
  let podIPs: string[] = isHostNetwork(pod) ? (input.nodeIPs[0] !== undefined ? [input.nodeIPs[0]] : []) : sandboxIPs(runtimePod);
  // A pod whose sandbox has stopped keeps reporting the address it had (upstream's status manager does the same).
  if (podIPs.length === 0 && (oldStatus.podIPs ?? []).length > 0) podIPs = (oldStatus.podIPs ?? []).flatMap((p) => (p.ip !== undefined ? [p.ip] : []));

  const containerStatuses = convertContainerStatuses({
    pod,
    runtimePod,
    previous: oldStatus.containerStatuses ?? [],
    containers: pod.spec?.containers ?? [],
    isInit: false,
    runtimeName: input.runtimeName,
    failures: input.failures,
  });
  const initContainerStatuses = convertContainerStatuses({
    pod,
    runtimePod,
    previous: oldStatus.initContainerStatuses ?? [],
    containers: pod.spec?.initContainers ?? [],
    isInit: true,
    runtimeName: input.runtimeName,
    failures: input.failures,
  });
  // Ephemeral containers as upstream reports them: like init containers (never restarted, in spec order), never ready.
  const ephemeralContainerStatuses = convertContainerStatuses({
    pod,
    runtimePod,
    previous: oldStatus.ephemeralContainerStatuses ?? [],
    containers: (pod.spec?.ephemeralContainers ?? []) as ContainerSpec[],
    isInit: true,
    runtimeName: input.runtimeName,
    failures: input.failures,
  });
  setReadiness(containerStatuses, pod, input, false);
  setReadiness(initContainerStatuses, pod, input, true);

  const all = [...containerStatuses, ...initContainerStatuses];
  const regularStarted = runtimePod.containers.some((c) => (pod.spec?.containers ?? []).some((s) => s.name === c.name));
  let phase: PodPhase = podPhase(pod, all, input.podIsTerminal, regularStarted);
  if (!isTerminalPhase(phase)) {
    if (isTerminalPhase(oldStatus.phase)) phase = oldStatus.phase;
    else if (isTerminalPhase(apiStatus.phase)) phase = apiStatus.phase;
  }
  // Pods never leave a terminal phase the API server shows.
  if (isTerminalPhase(apiStatus.phase)) phase = apiStatus.phase;

  const status: PodStatus = { phase };
  if (phase === oldStatus.phase) {
    const reason = oldStatus.reason ?? apiStatus.reason;
    const message = oldStatus.message ?? apiStatus.message;
    if (reason !== undefined && reason !== '') status.reason = reason;
    if (message !== undefined && message !== '') status.message = message;
  }

  const oldConditions = [...(oldStatus.conditions ?? []), ...(apiStatus.conditions ?? [])];
  const others = (apiStatus.conditions ?? []).filter((c) => !KUBELET_CONDITIONS.has(c.type) && c.type !== 'PodScheduled');
  const sandboxReady = !sandboxChanged(pod, runtimePod).create;
  const conditions: PodCondition[] = [...others];
  conditions.push(withTransitionTime(readyToStartContainersCondition(sandboxReady), oldConditions, now));
  conditions.push(withTransitionTime(initializedCondition(pod, all, phase), oldConditions, now));
  conditions.push(withTransitionTime(readyCondition(pod, conditions, all, phase), oldConditions, now));
  conditions.push(withTransitionTime(containersReadyCondition(pod, all, phase), oldConditions, now));
  const scheduled = (apiStatus.conditions ?? []).find((c) => c.type === 'PodScheduled');
  conditions.push(scheduled ?? withTransitionTime({ type: 'PodScheduled', status: 'True' }, oldConditions, now));
  status.conditions = conditions;

  if (input.nodeIPs.length > 0) {
    status.hostIP = input.nodeIPs[0]!;
    status.hostIPs = input.nodeIPs.slice(0, 2).map((ip) => ({ ip }));
  }
  if (podIPs.length > 0) {
    status.podIP = podIPs[0]!;
    status.podIPs = podIPs.map((ip) => ({ ip }));
  }
  status.startTime = oldStatus.startTime ?? apiStatus.startTime ?? formatTime(now);
  if (initContainerStatuses.length > 0) status.initContainerStatuses = initContainerStatuses;
  status.containerStatuses = containerStatuses;
  if (ephemeralContainerStatuses.length > 0) status.ephemeralContainerStatuses = ephemeralContainerStatuses;
  status.qosClass = podQOSClass(pod);
  if (apiStatus.nominatedNodeName !== undefined) status.nominatedNodeName = apiStatus.nominatedNodeName;
  limitTerminationMessages(pod, status);
  return status;
}
