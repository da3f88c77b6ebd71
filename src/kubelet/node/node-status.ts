/**
 * The node's status as upstream's kubelet computes it (pkg/kubelet/nodestatus
 * setters): addresses (InternalIP, Hostname), capacity and allocatable from the
 * machine (allocatable less upstream's default hard eviction thresholds,
 * memory.available<100Mi and nodefs.available<10%), nodeInfo, the kubelet's
 * endpoint, the images the runtime holds, and the conditions MemoryPressure,
 * DiskPressure, PIDPressure and Ready. A condition's lastTransitionTime moves
 * only when its status changes; lastHeartbeatTime is the time of this status.
 */
import type { ContainerImage, NodeCondition, NodeStatus } from 'kubernetes-types/core/v1.js';
import type { Image, RuntimeStatus, VersionInfo } from '../runtime/interface.js';
import type { MachineInfo } from './machine-info.js';

/** The kubelet version a Node reports: the API server's served version (k8ts cannot import the API server's constant across DESIGN §1). */
export const KUBELET_VERSION = 'v1.33.0-k8ts.0';

/** Upstream's default hard eviction thresholds that allocatable subtracts. */
const EVICTION_HARD_MEMORY_BYTES = 100 * 1024 * 1024;
const EVICTION_HARD_NODEFS_FRACTION = 0.1;
/** Upstream reports at most this many images (--node-status-max-images). */
const MAX_IMAGES = 50;

export interface NodeStatusInputs {
  readonly nodeIP: string;
  readonly hostname: string;
  readonly machine: MachineInfo;
  readonly maxPods: number;
  readonly kubeletPort: number;
  /** undefined when the runtime could not be asked. */
  readonly runtimeVersion: VersionInfo | undefined;
  /** An Error when the runtime's status call failed. */
  readonly runtimeStatus: RuntimeStatus | Error;
  readonly images: readonly Image[];
}

const memoryQuantity = (bytes: number): string => (bytes % 1024 === 0 ? `${bytes / 1024}Ki` : String(bytes));

/** Why the node is not Ready (upstream's runtimeState errors joined with ","), or [] when it is. */
export function notReadyReasons(status: RuntimeStatus | Error): string[] {
  if (status instanceof Error) return ['container runtime is down'];
  const errors: string[] = [];
  const describe = (type: string): string | undefined => {
    const c = status.conditions.find((x) => x.type === type);
    if (c === undefined) return `<nil>`;
    return c.status ? undefined : `${c.type}=false reason:${c.reason} message:${c.message}`;
  };
  const runtime = describe('RuntimeReady');
  if (runtime !== undefined) errors.push(`container runtime not ready: ${runtime}`);
  const network = describe('NetworkReady');
  if (network !== undefined) errors.push(`container runtime network not ready: ${network}`);
  return errors;
}

function condition(type: string, status: 'True' | 'False', reason: string, message: string, now: string, previous: readonly NodeCondition[]): NodeCondition {
  const before = previous.find((c) => c.type === type);
  const lastTransitionTime = before !== undefined && before.status === status && before.lastTransitionTime !== undefined ? before.lastTransitionTime : now;
  return { type, status, reason, message, lastHeartbeatTime: now, lastTransitionTime };
}

export function nodeConditions(status: RuntimeStatus | Error, now: string, previous: readonly NodeCondition[]): NodeCondition[] {
  const notReady = notReadyReasons(status);
  return [
    condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available', now, previous),
    condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure', now, previous),
    condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available', now, previous),
    notReady.length === 0
      ? condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status', now, previous)
      : condition('Ready', 'False', 'KubeletNotReady', notReady.join(','), now, previous),
  ];
}

function nodeImages(images: readonly Image[]): ContainerImage[] {
  return [...images]
    .sort((a, b) => b.size - a.size)
    .slice(0, MAX_IMAGES)
    .map((i) => {
      const names = [...i.repoDigests, ...i.repoTags];
      return { names: names.length > 0 ? names : [i.id], sizeBytes: i.size };
    });
}

export function buildNodeStatus(inputs: NodeStatusInputs, now: string, previousConditions: readonly NodeCondition[]): NodeStatus {
  const m = inputs.machine;
  const capacity: Record<string, string> = {
    cpu: String(m.cpus),
    memory: memoryQuantity(m.memoryBytes),
    pods: String(inputs.maxPods),
    'ephemeral-storage': memoryQuantity(m.ephemeralStorageBytes),
  };
  const allocatable: Record<string, string> = {
    cpu: String(m.cpus),
    memory: memoryQuantity(Math.max(0, m.memoryBytes - EVICTION_HARD_MEMORY_BYTES)),
    pods: String(inputs.maxPods),
    'ephemeral-storage': String(Math.floor(m.ephemeralStorageBytes * (1 - EVICTION_HARD_NODEFS_FRACTION))),
  };
  const v = inputs.runtimeVersion;
  return {
    addresses: [
      { type: 'InternalIP', address: inputs.nodeIP },
      { type: 'Hostname', address: inputs.hostname },
    ],
    capacity,
    allocatable,
    conditions: nodeConditions(inputs.runtimeStatus, now, previousConditions),
    daemonEndpoints: { kubeletEndpoint: { Port: inputs.kubeletPort } },
    nodeInfo: {
      machineID: m.machineID,
      systemUUID: m.systemUUID,
      bootID: m.bootID,
      kernelVersion: m.kernelVersion,
      osImage: m.osImage,
      containerRuntimeVersion: v === undefined ? '' : `${v.runtimeName}://${v.runtimeVersion}`,
      kubeletVersion: KUBELET_VERSION,
      kubeProxyVersion: '',
      operatingSystem: m.operatingSystem,
      architecture: m.architecture,
    },
    images: nodeImages(inputs.images),
  };
}

/** The status without heartbeat times, to tell a change worth writing from a mere heartbeat. */
export function withoutHeartbeats(status: NodeStatus): NodeStatus {
  return { ...status, conditions: (status.conditions ?? []).map(({ lastHeartbeatTime: _ignored, ...rest }) => rest) };
}
