/**
 * Finding a pod's sandbox and containers in the runtime by the labels the
 * kubelet puts on them (runtime/labels.ts): the newest ready sandbox of
 * namespace/name (else the newest at all), and a container's attempts,
 * newest first, across every sandbox of the pod.
 */
import { CONTAINER_NAME_LABEL, POD_NAME_LABEL, POD_NAMESPACE_LABEL } from '../runtime/labels.js';
import type { Container, ContainerRuntime, PodSandbox } from '../runtime/interface.js';
import type { Pod } from '../types.js';

export async function findSandbox(runtime: ContainerRuntime, namespace: string, name: string): Promise<PodSandbox | undefined> {
  const sandboxes = await runtime.runtime.listPodSandbox({ labelSelector: { [POD_NAMESPACE_LABEL]: namespace, [POD_NAME_LABEL]: name } });
  const newestFirst = [...sandboxes].sort((a, b) => (a.createdAt < b.createdAt ? 1 : a.createdAt > b.createdAt ? -1 : 0));
  return newestFirst.find((s) => s.state === 'SANDBOX_READY') ?? newestFirst[0];
}

/** Every container of that name in the pod, newest first. */
export async function findContainers(runtime: ContainerRuntime, namespace: string, pod: string, container: string): Promise<Container[]> {
  const containers = await runtime.runtime.listContainers({
    labelSelector: { [POD_NAMESPACE_LABEL]: namespace, [POD_NAME_LABEL]: pod, [CONTAINER_NAME_LABEL]: container },
  });
  return [...containers].sort((a, b) => {
    if (a.createdAt !== b.createdAt) return a.createdAt < b.createdAt ? 1 : -1;
    return b.metadata.attempt - a.metadata.attempt;
  });
}

/**
 * What the pod's status in the API says of a container's last terminated
 * attempt: its runtime id (after the `<runtime>://` of containerID), `null`
 * when the container has a status but no lastState.terminated, undefined when
 * the status does not say (no status for that container yet).
 */
export type LastTerminated = string | null | undefined;

export function lastTerminatedOf(pod: Pod, container: string): LastTerminated {
  const status = pod.status;
  const all = [...(status?.containerStatuses ?? []), ...(status?.initContainerStatuses ?? []), ...(status?.ephemeralContainerStatuses ?? [])];
  const entry = all.find((s) => s.name === container);
  if (entry === undefined) return undefined;
  const id = entry.lastState?.terminated?.containerID ?? '';
  return id === '' ? null : id.slice(id.indexOf('://') + 3);
}

/**
 * Why a container waits, as the pod's status in the API says (`PodInitializing`
 * while init containers run, `ContainerCreating`, `CrashLoopBackOff`, …):
 * upstream's kubelet names it in the error of a logs request for a container
 * that has not started. Undefined when the status does not say.
 */
export function waitingReasonOf(pod: Pod, container: string): string | undefined {
  const status = pod.status;
  const all = [...(status?.containerStatuses ?? []), ...(status?.initContainerStatuses ?? []), ...(status?.ephemeralContainerStatuses ?? [])];
  const reason = all.find((s) => s.name === container)?.state?.waiting?.reason;
  return reason === undefined || reason === '' ? undefined : reason;
}

/**
 * The attempt `previous` logs read, as upstream's kubelet picks it: the one
 * the pod's status names as lastState.terminated (while a crashed container
 * waits out its back-off, that is the newest attempt, not the one before it);
 * when the status does not say, the attempt before the newest. When the
 * attempt the status names is gone, the newest exited one: the kubelet removes
 * an exited attempt only once a newer one has exited, and the status read may
 * be from just before it said so (a crash loop restarts every second or two).
 */
export function previousAttempt(attempts: readonly Container[], lastTerminated: LastTerminated): Container | undefined {
  if (lastTerminated === null) return undefined;
  if (lastTerminated === undefined) return attempts[1];
  return attempts.find((c) => c.id === lastTerminated) ?? attempts.find((c) => c.state === 'CONTAINER_EXITED');
}
