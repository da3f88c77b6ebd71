/**
 * Finding a pod's sandbox and containers in the runtime by the labels the
 * kubelet puts on them (runtime/labels.ts): the newest ready sandbox of
 * namespace/name (else the newest at all), and a container's attempts,
 * newest first, across every sandbox of the pod.
 */
import { CONTAINER_NAME_LABEL, POD_NAME_LABEL, POD_NAMESPACE_LABEL } from '../runtime/labels.js';
import type { Container, ContainerRuntime, PodSandbox } from '../runtime/interface.js';

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
