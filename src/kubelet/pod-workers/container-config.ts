/**
 * The CRI config of one container (upstream's generateContainerConfig):
 * image, command and args with $(VAR) expanded against the container's env,
 * working directory, env, mounts, log path `<name>/<restartCount>.log`, the
 * kubelet's labels and annotations (spec hash, restart count, grace period),
 * and linux resources from requests and limits.
 */
import { totalmem } from 'node:os';
import { podQOSClass } from '../../api/core/v1/qos.js';
import { quantityMilliValue, quantityValue } from '../../machinery/quantity.js';
import type { ContainerConfig, KeyValue, LinuxContainerResources, Mount } from '../runtime/interface.js';
import {
  CONTAINER_HASH_ANNOTATION,
  CONTAINER_NAME_LABEL,
  CONTAINER_RESTART_COUNT_ANNOTATION,
  TERMINATION_GRACE_ANNOTATION,
} from '../runtime/labels.js';
import type { ContainerSpec, Node, Pod } from '../types.js';
import { hashContainer } from './container-hash.js';
import { podLabels } from './sandbox-config.js';

const MIN_SHARES = 2;
const MAX_SHARES = 262_144;
const SHARES_PER_CPU = 1024;
const QUOTA_PERIOD = 100_000;
const MIN_QUOTA_PERIOD = 1000;
const GUARANTEED_OOM_SCORE_ADJ = -997;
const BEST_EFFORT_OOM_SCORE_ADJ = 1000;

/** upstream's milliCPUToShares. */
export function milliCPUToShares(milliCPU: number): number {
  if (milliCPU === 0) return MIN_SHARES;
  const shares = Math.floor((milliCPU * SHARES_PER_CPU) / 1000);
  return Math.min(Math.max(shares, MIN_SHARES), MAX_SHARES);
}

/** upstream's milliCPUToQuota (period 100 ms); 0 means no limit. */
export function milliCPUToQuota(milliCPU: number): number {
  if (milliCPU === 0) return 0;
  return Math.max(Math.floor((milliCPU * QUOTA_PERIOD) / 1000), MIN_QUOTA_PERIOD);
}

function resourceOf(list: Record<string, unknown> | undefined, name: string, unit: 'milli' | 'value'): number {
  const text = list?.[name];
  if (typeof text !== 'string' && typeof text !== 'number') return 0;
  return (unit === 'milli' ? quantityMilliValue(String(text)) : quantityValue(String(text))) ?? 0;
}

/** upstream's GetContainerOOMScoreAdjust. */
export function oomScoreAdjust(pod: Pod, container: ContainerSpec, memoryCapacity: number): number {
  const qos = podQOSClass(pod);
  if (qos === 'Guaranteed') return GUARANTEED_OOM_SCORE_ADJ;
  if (qos === 'BestEffort') return BEST_EFFORT_OOM_SCORE_ADJ;
  const request = resourceOf(container.resources?.requests as Record<string, unknown> | undefined, 'memory', 'value');
  const adjust = 1000 - Math.floor((1000 * request) / Math.max(memoryCapacity, 1));
  if (adjust < 1000 + GUARANTEED_OOM_SCORE_ADJ) return 1000 + GUARANTEED_OOM_SCORE_ADJ;
  if (adjust === BEST_EFFORT_OOM_SCORE_ADJ) return adjust - 1;
  return adjust;
}

export function containerResources(pod: Pod, container: ContainerSpec, node: Node | undefined): LinuxContainerResources {
  const requests = container.resources?.requests as Record<string, unknown> | undefined;
  const limits = container.resources?.limits as Record<string, unknown> | undefined;
  const cpuRequest = resourceOf(requests, 'cpu', 'milli');
  const cpuLimit = resourceOf(limits, 'cpu', 'milli');
  const memoryLimit = resourceOf(limits, 'memory', 'value');
  const capacity = resourceOf(node?.status?.capacity as Record<string, unknown> | undefined, 'memory', 'value') || totalmem();
  return {
    cpuShares: milliCPUToShares(cpuRequest === 0 && cpuLimit !== 0 ? cpuLimit : cpuRequest),
    ...(cpuLimit !== 0 ? { cpuQuota: milliCPUToQuota(cpuLimit), cpuPeriod: QUOTA_PERIOD } : {}),
    ...(memoryLimit !== 0 ? { memoryLimitInBytes: memoryLimit } : {}),
    oomScoreAdj: oomScoreAdjust(pod, container, capacity),
  };
}

/**
 * $(VAR) expansion as upstream's expansion.Expand: `$(NAME)` becomes the
 * variable's value when it is defined and stays as written otherwise; `$$`
 * is a literal `$`.
 */
export function expandVariables(input: string, env: ReadonlyMap<string, string>): string {
  let out = '';
  for (let i = 0; i < input.length; i++) {
    const ch = input[i]!;
    if (ch !== '$' || i + 1 >= input.length) {
      out += ch;
      continue;
    }
    const next = input[i + 1]!;
    if (next === '$') {
      out += '$';
      i++;
      continue;
    }
    if (next === '(') {
      const close = input.indexOf(')', i + 2);
      if (close !== -1) {
        const name = input.slice(i + 2, close);
        const value = env.get(name);
        out += value ?? `$(${name})`;
        i = close;
        continue;
      }
    }
    out += ch;
  }
  return out;
}

/** The grace period of a pod being stopped: deletionGracePeriodSeconds, else terminationGracePeriodSeconds, else 30. */
export function podGracePeriodSeconds(pod: Pod): number {
  return pod.metadata.deletionGracePeriodSeconds ?? pod.spec?.terminationGracePeriodSeconds ?? 30;
}

export interface ContainerConfigInput {
  readonly pod: Pod;
  readonly container: ContainerSpec;
  readonly restartCount: number;
  readonly envs: readonly KeyValue[];
  readonly mounts: readonly Mount[];
  readonly node: Node | undefined;
  /** An ephemeral container's target (targetContainerName), running: its processes are shared (pid namespace TARGET). */
  readonly targetContainerId?: string;
}

export function containerConfig(input: ContainerConfigInput): ContainerConfig {
  const { pod, container, restartCount, envs, mounts } = input;
  const env = new Map(envs.map((kv) => [kv.key, kv.value]));
  const security = container.securityContext;
  const podSecurity = pod.spec?.securityContext;
  const runAsUser = security?.runAsUser ?? podSecurity?.runAsUser;
  const runAsGroup = security?.runAsGroup ?? podSecurity?.runAsGroup;
  return {
    metadata: { name: container.name, attempt: restartCount },
    image: container.image ?? '',
    command: (container.command ?? []).map((s) => expandVariables(s, env)),
    args: (container.args ?? []).map((s) => expandVariables(s, env)),
    ...(container.workingDir !== undefined && container.workingDir !== '' ? { workingDir: container.workingDir } : {}),
    envs,
    mounts,
    labels: { ...podLabels(pod), [CONTAINER_NAME_LABEL]: container.name },
    annotations: {
      [CONTAINER_HASH_ANNOTATION]: hashContainer(container),
      [CONTAINER_RESTART_COUNT_ANNOTATION]: String(restartCount),
      [TERMINATION_GRACE_ANNOTATION]: String(pod.spec?.terminationGracePeriodSeconds ?? 30),
      'io.kubernetes.container.terminationMessagePath': container.terminationMessagePath ?? '/dev/termination-log',
      'io.kubernetes.container.terminationMessagePolicy': container.terminationMessagePolicy ?? 'File',
    },
    logPath: `${container.name}/${restartCount}.log`,
    stdin: container.stdin === true,
    stdinOnce: container.stdinOnce === true,
    tty: container.tty === true,
    linux: {
      resources: containerResources(pod, container, input.node),
      ...(runAsUser !== undefined ? { runAsUser } : {}),
      ...(runAsGroup !== undefined ? { runAsGroup } : {}),
      ...(security?.privileged === true ? { privileged: true } : {}),
      ...(security?.readOnlyRootFilesystem === true ? { readonlyRootfs: true } : {}),
      namespaceOptions: {
        network: pod.spec?.hostNetwork === true ? 'NODE' : 'POD',
        ...(input.targetContainerId !== undefined
          ? { pid: 'TARGET' as const, targetId: input.targetContainerId }
          : { pid: pod.spec?.shareProcessNamespace === true ? ('POD' as const) : pod.spec?.hostPID === true ? ('NODE' as const) : ('CONTAINER' as const) }),
        ipc: pod.spec?.hostIPC === true ? 'NODE' : 'POD',
      },
    },
  };
}
