/**
 * The labels the kubelet puts on every CRI sandbox and container, as
 * upstream's does (containerd's `crictl ps` shows them). Anything that must
 * find a pod's containers in the runtime (the pod workers after a restart, the
 * kubelet's log/exec/port-forward server) finds them by these labels only.
 */
export const POD_NAME_LABEL = 'io.kubernetes.pod.name';
export const POD_NAMESPACE_LABEL = 'io.kubernetes.pod.namespace';
export const POD_UID_LABEL = 'io.kubernetes.pod.uid';
/** On containers only. */
export const CONTAINER_NAME_LABEL = 'io.kubernetes.container.name';
/** Upstream marks the sandbox's labels with this too; value 'podsandbox' on sandboxes (set on sandbox labels). */
export const CONTAINER_TYPE_LABEL = 'io.kubernetes.container.type';

/** Container annotations upstream's kubelet records so that a restarted kubelet knows what it started. */
export const CONTAINER_HASH_ANNOTATION = 'io.kubernetes.container.hash';
export const CONTAINER_RESTART_COUNT_ANNOTATION = 'io.kubernetes.container.restartCount';
export const TERMINATION_GRACE_ANNOTATION = 'io.kubernetes.pod.terminationGracePeriod';
