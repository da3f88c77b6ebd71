/**
 * What one sync must do to make the runtime match the pod: upstream's
 * computePodActions (kuberuntime_manager.go) for pods without sidecar
 * (restartable) init containers. A pure function of the pod and what the
 * runtime holds, so that every decision is testable without a runtime.
 */
import type { ContainerSpec, Pod } from '../types.js';
import { hashContainer } from './container-hash.js';
import { latestContainer, type RuntimeContainer, type RuntimePod } from './runtime-pod.js';

export interface ContainerToKill {
  readonly id: string;
  readonly name: string;
  /** For the Killing event ("Container c definition changed, will be restarted"). */
  readonly message: string;
}

export interface PodActions {
  /** Stop every container and the sandbox (before a new sandbox, or because the pod is done). */
  readonly killPod: boolean;
  readonly createSandbox: boolean;
  /** The sandbox to keep (when not creating one) or the one being replaced. */
  readonly sandboxId: string;
  /** The attempt of the sandbox to create. */
  readonly attempt: number;
  /** Init containers to start, in order (one regular init container at a time; sidecars beside it). */
  readonly initContainersToStart: readonly ContainerSpec[];
  readonly containersToStart: readonly ContainerSpec[];
  readonly containersToKill: readonly ContainerToKill[];
  /** Ephemeral containers (kubectl debug) not started yet: each runs once and is never restarted. */
  readonly ephemeralContainersToStart: readonly ContainerSpec[];
}

export const restartPolicyOf = (pod: Pod): 'Always' | 'OnFailure' | 'Never' => {
  const policy = pod.spec?.restartPolicy;
  return policy === 'OnFailure' || policy === 'Never' ? policy : 'Always';
};

export const shouldRestartOnFailure = (pod: Pod): boolean => restartPolicyOf(pod) !== 'Never';

export const isHostNetwork = (pod: Pod): boolean => pod.spec?.hostNetwork === true;

/** upstream's PodSandboxChanged: [create a sandbox, its attempt, the current sandbox id]. */
export function sandboxChanged(pod: Pod, runtimePod: RuntimePod): { create: boolean; attempt: number; sandboxId: string } {
  const latest = runtimePod.sandboxes[0];
  if (latest === undefined) return { create: true, attempt: 0, sandboxId: '' };
  const ready = runtimePod.sandboxes.filter((s) => s.state === 'SANDBOX_READY').length;
  const next = { create: true, attempt: latest.metadata.attempt + 1, sandboxId: latest.id };
  if (ready > 1 || latest.state !== 'SANDBOX_READY') return next;
  if (!isHostNetwork(pod) && (latest.network?.ip ?? '') === '') return next;
  return { create: false, attempt: latest.metadata.attempt, sandboxId: latest.id };
}

const isExited = (c: RuntimeContainer | undefined): boolean => c?.state === 'CONTAINER_EXITED';

/** A sidecar: an init container with restartPolicy Always. */
export const isRestartableInit = (c: ContainerSpec): boolean => c.restartPolicy === 'Always';

/**
 * Init containers of a pod with sidecars, in order: a sidecar that is not
 * running is (re)started, and the next init container waits until it has
 * started; a regular init container runs to completion before the next (a
 * failed one runs again, or kills the pod under restartPolicy Never). Once an
 * app container exists, initialisation is done and only sidecars restart.
 * Returns whether the pod is initialised.
 */
function computeInitContainerActions(
  pod: Pod,
  runtimePod: RuntimePod,
  actions: { killPod: boolean; initContainersToStart: ContainerSpec[]; containersToKill: ContainerToKill[] },
  isStarted: (containerName: string) => boolean,
): boolean {
  const appNames = new Set((pod.spec?.containers ?? []).map((c) => c.name));
  const initialized = runtimePod.containers.some((c) => appNames.has(c.name));
  for (const init of pod.spec?.initContainers ?? []) {
    const status = latestContainer(runtimePod, init.name);
    if (isRestartableInit(init)) {
      if (status?.state === 'CONTAINER_RUNNING') {
        if (!initialized && !isStarted(init.name)) return false;
        continue;
      }
      actions.initContainersToStart.push(init);
      if (!initialized) return false;
      continue;
    }
    if (initialized) continue;
    if (status === undefined || status.state === 'CONTAINER_CREATED') {
      actions.initContainersToStart.push(init);
      return false;
    }
    if (status.state === 'CONTAINER_RUNNING') return false;
    if (status.state === 'CONTAINER_EXITED' && status.exitCode === 0) continue;
    if (status.state === 'CONTAINER_UNKNOWN') {
      actions.containersToKill.push({ id: status.id, name: init.name, message: `Init container is in "${status.state}" state, try killing it before restart` });
    } else if (!shouldRestartOnFailure(pod)) {
      actions.killPod = true;
      return false;
    }
    actions.initContainersToStart.push(init);
    return false;
  }
  return true;
}

/** An init container that failed (or is in an unknown state) and must run again or fail the pod. */
export const isInitContainerFailed = (c: RuntimeContainer): boolean =>
  (c.state === 'CONTAINER_EXITED' && c.exitCode !== 0) || c.state === 'CONTAINER_UNKNOWN';

/**
 * upstream's findNextInitContainerToRun: the status of the last failed init
 * container (if any), the next init container to run, and whether every init
 * container has succeeded.
 */
export function findNextInitContainerToRun(
  pod: Pod,
  runtimePod: RuntimePod,
): { lastFailed: RuntimeContainer | undefined; next: ContainerSpec | undefined; done: boolean } {
  const inits = pod.spec?.initContainers ?? [];
  if (inits.length === 0) return { lastFailed: undefined, next: undefined, done: true };
  for (const c of pod.spec?.containers ?? []) {
    if (latestContainer(runtimePod, c.name)?.state === 'CONTAINER_RUNNING') return { lastFailed: undefined, next: undefined, done: true };
  }
  for (let i = inits.length - 1; i >= 0; i--) {
    const status = latestContainer(runtimePod, inits[i]!.name);
    if (status !== undefined && isInitContainerFailed(status)) return { lastFailed: status, next: inits[i], done: false };
  }
  for (let i = inits.length - 1; i >= 0; i--) {
    const status = latestContainer(runtimePod, inits[i]!.name);
    if (status === undefined) continue;
    if (status.state === 'CONTAINER_RUNNING') return { lastFailed: undefined, next: undefined, done: false };
    if (status.state === 'CONTAINER_EXITED') {
      if (i === inits.length - 1) return { lastFailed: undefined, next: undefined, done: true };
      return { lastFailed: undefined, next: inits[i + 1], done: false };
    }
  }
  return { lastFailed: undefined, next: inits[0], done: false };
}

/** upstream's ShouldContainerBeRestarted. */
export function shouldContainerBeRestarted(container: ContainerSpec, pod: Pod, runtimePod: RuntimePod): boolean {
  if (pod.metadata.deletionTimestamp !== undefined) return false;
  const status = latestContainer(runtimePod, container.name);
  if (status === undefined) return true;
  if (status.state === 'CONTAINER_RUNNING') return false;
  if (status.state === 'CONTAINER_UNKNOWN' || status.state === 'CONTAINER_CREATED') return true;
  const policy = isRestartableInit(container) ? 'Always' : restartPolicyOf(pod);
  if (policy === 'Never') return false;
  if (policy === 'OnFailure' && status.exitCode === 0) return false;
  return true;
}

/**
 * @param isStarted whether a running container has passed its startup probe (the next init
 *   container waits for a sidecar to have started)
 */
export function computePodActions(pod: Pod, runtimePod: RuntimePod, isStarted: (containerName: string) => boolean = () => true): PodActions {
  const sandbox = sandboxChanged(pod, runtimePod);
  const containers = pod.spec?.containers ?? [];
  const inits = pod.spec?.initContainers ?? [];
  let actions: {
    killPod: boolean;
    createSandbox: boolean;
    sandboxId: string;
    attempt: number;
    initContainersToStart: ContainerSpec[];
    containersToStart: ContainerSpec[];
    containersToKill: ContainerToKill[];
    ephemeralContainersToStart: ContainerSpec[];
  } = {
    killPod: sandbox.create,
    createSandbox: sandbox.create,
    sandboxId: sandbox.sandboxId,
    attempt: sandbox.attempt,
    initContainersToStart: [],
    containersToStart: [],
    containersToKill: [],
    ephemeralContainersToStart: [],
  };

  if (sandbox.create) {
    // A pod that must not restart and has run before is done: no new sandbox.
    if (!shouldRestartOnFailure(pod) && sandbox.attempt !== 0 && runtimePod.containers.length !== 0) {
      return { ...actions, createSandbox: false };
    }
    const toStart = containers.filter((c) => {
      const latest = latestContainer(runtimePod, c.name);
      return !(restartPolicyOf(pod) === 'OnFailure' && isExited(latest) && latest?.exitCode === 0);
    });
    if (toStart.length === 0 && findNextInitContainerToRun(pod, runtimePod).done) return { ...actions, createSandbox: false };
    if (inits.length > 0) return { ...actions, initContainersToStart: [inits[0]!] };
    return { ...actions, containersToStart: toStart };
  }

  // In a running sandbox, even before initialization is done (so that a stuck init container can be debugged).
  for (const ephemeral of pod.spec?.ephemeralContainers ?? []) {
    if (latestContainer(runtimePod, ephemeral.name) === undefined) actions.ephemeralContainersToStart.push(ephemeral as ContainerSpec);
  }

  if (inits.some(isRestartableInit)) {
    const initialized = computeInitContainerActions(pod, runtimePod, actions, isStarted);
    if (actions.killPod || !initialized) return actions;
  } else {
    const init = findNextInitContainerToRun(pod, runtimePod);
    if (!init.done) {
    if (init.next !== undefined) {
      const failed = init.lastFailed !== undefined && isInitContainerFailed(init.lastFailed);
      if (failed && !shouldRestartOnFailure(pod)) {
        actions = { ...actions, killPod: true };
      } else {
        if (init.lastFailed?.state === 'CONTAINER_UNKNOWN') {
          actions.containersToKill.push({
            id: init.lastFailed.id,
            name: init.next.name,
            message: `Init container is in "${init.lastFailed.state}" state, try killing it before restart`,
          });
        }
        actions.initContainersToStart.push(init.next);
      }
    }
    return actions;
    }
  }

  let keepCount = 0;
  for (const container of containers) {
    const status = latestContainer(runtimePod, container.name);
    if (status === undefined || status.state !== 'CONTAINER_RUNNING') {
      if (shouldContainerBeRestarted(container, pod, runtimePod)) {
        actions.containersToStart.push(container);
        if (status?.state === 'CONTAINER_UNKNOWN') {
          actions.containersToKill.push({ id: status.id, name: container.name, message: `Container is in "${status.state}" state, try killing it before restart` });
        }
      }
      continue;
    }
    if (status.hash !== '' && status.hash !== hashContainer(container)) {
      // The spec changed (a new image): restart whatever the restart policy says.
      actions.containersToStart.push(container);
      actions.containersToKill.push({ id: status.id, name: container.name, message: `Container ${container.name} definition changed, will be restarted` });
      continue;
    }
    keepCount++;
  }
  if (keepCount === 0 && actions.containersToStart.length === 0) actions.killPod = true;
  return actions;
}
