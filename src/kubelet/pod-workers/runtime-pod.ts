/**
 * What the runtime holds for one pod (upstream's kubecontainer.PodStatus):
 * its sandboxes and containers, found by the pod-UID label only, newest first,
 * with the restart count and spec hash the kubelet recorded on each container.
 */
import {
  isRuntimeNotFound,
  type ContainerStatus,
  type PodSandboxStatus,
  type RuntimeService,
} from '../runtime/interface.js';
import { CONTAINER_HASH_ANNOTATION, CONTAINER_NAME_LABEL, CONTAINER_RESTART_COUNT_ANNOTATION, POD_UID_LABEL } from '../runtime/labels.js';

export interface RuntimeContainer extends ContainerStatus {
  /** The container's name in the pod spec (label io.kubernetes.container.name). */
  readonly name: string;
  readonly restartCount: number;
  readonly hash: string;
}

export interface RuntimePod {
  readonly uid: string;
  /** Newest first. */
  readonly sandboxes: readonly PodSandboxStatus[];
  /** Newest first. */
  readonly containers: readonly RuntimeContainer[];
}

const newestFirst = <T extends { readonly createdAt: bigint }>(a: T, b: T): number => (a.createdAt > b.createdAt ? -1 : a.createdAt < b.createdAt ? 1 : 0);

export async function readRuntimePod(runtime: RuntimeService, uid: string): Promise<RuntimePod> {
  const selector = { [POD_UID_LABEL]: uid };
  const [sandboxList, containerList] = await Promise.all([
    runtime.listPodSandbox({ labelSelector: selector }),
    runtime.listContainers({ labelSelector: selector }),
  ]);
  const sandboxes = (
    await Promise.all(sandboxList.map((s) => runtime.podSandboxStatus(s.id).catch((e: unknown) => (isRuntimeNotFound(e) ? undefined : Promise.reject(e)))))
  ).filter((s): s is PodSandboxStatus => s !== undefined);
  const containers = (
    await Promise.all(containerList.map((c) => runtime.containerStatus(c.id).catch((e: unknown) => (isRuntimeNotFound(e) ? undefined : Promise.reject(e)))))
  )
    .filter((c): c is ContainerStatus => c !== undefined)
    .map((c): RuntimeContainer => {
      const restartCount = Number.parseInt(c.annotations[CONTAINER_RESTART_COUNT_ANNOTATION] ?? '0', 10);
      return {
        ...c,
        name: c.labels[CONTAINER_NAME_LABEL] ?? c.metadata.name,
        restartCount: Number.isFinite(restartCount) ? restartCount : 0,
        hash: c.annotations[CONTAINER_HASH_ANNOTATION] ?? '',
      };
    });
  return { uid, sandboxes: [...sandboxes].sort(newestFirst), containers: containers.sort(newestFirst) };
}

/** The newest container of this name (upstream's FindContainerStatusByName). */
export const latestContainer = (pod: RuntimePod, name: string): RuntimeContainer | undefined => pod.containers.find((c) => c.name === name);

export const runningContainers = (pod: RuntimePod): RuntimeContainer[] => pod.containers.filter((c) => c.state === 'CONTAINER_RUNNING');

/** The pod's IPs: those of its newest sandbox while it is ready (none for host-network pods, whose IP is the node's). */
export function sandboxIPs(pod: RuntimePod): string[] {
  const sandbox = pod.sandboxes[0];
  if (sandbox === undefined || sandbox.state !== 'SANDBOX_READY' || sandbox.network === undefined || sandbox.network.ip === '') return [];
  return [sandbox.network.ip, ...sandbox.network.additionalIps];
}

export const nanosToMs = (ns: bigint): number => Number(ns / 1_000_000n);
