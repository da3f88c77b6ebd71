/**
 * A pod's phase from its container statuses, as upstream's getPhase
 * (kubelet_pods.go) without the alpha ContainerRestartRules gate: Pending
 * while an init container has not succeeded or any container waits to
 * start, Running while one runs, and once all have stopped Succeeded or
 * Failed by their exit codes — unless restartPolicy would restart them
 * (Always; OnFailure after a failure), or the pod is not yet terminal.
 */
import type { ContainerStatus } from 'kubernetes-types/core/v1.js';
import { isStaticPod, type Pod } from '../types.js';

export type PodPhase = 'Pending' | 'Running' | 'Succeeded' | 'Failed';

const statusOf = (statuses: readonly ContainerStatus[], name: string): ContainerStatus | undefined => statuses.find((s) => s.name === name);
const isRestartableInit = (c: { restartPolicy?: string }): boolean => c.restartPolicy === 'Always';

export function podPhase(pod: Pod, statuses: readonly ContainerStatus[], podIsTerminal: boolean, podHasInitialized: boolean): PodPhase {
  const spec = pod.spec;
  const restartPolicy = spec?.restartPolicy ?? 'Always';
  let pendingRegularInit = 0;
  let pendingRestartableInit = 0;
  let failedInitialization = 0;
  for (const c of spec?.initContainers ?? []) {
    if (isRestartableInit(c)) continue;
    const s = statusOf(statuses, c.name);
    if (s === undefined || s.state?.running !== undefined) pendingRegularInit++;
    else if (s.state?.terminated !== undefined) {
      if (s.state.terminated.exitCode !== 0) failedInitialization++;
    } else if (s.state?.waiting !== undefined) {
      if (s.lastState?.terminated !== undefined) {
        if (s.lastState.terminated.exitCode !== 0) failedInitialization++;
      } else pendingRegularInit++;
    } else pendingRegularInit++;
  }

  let unknown = 0;
  let running = 0;
  let waiting = 0;
  let stopped = 0;
  let succeeded = 0;
  for (const c of spec?.initContainers ?? []) {
    if (!isRestartableInit(c)) continue;
    const s = statusOf(statuses, c.name);
    if (s === undefined) unknown++;
    else if (s.state?.running !== undefined) {
      if (s.started !== true) pendingRestartableInit++;
      running++;
    } else if (s.state?.terminated !== undefined) {
      // not counted
    } else if (s.state?.waiting !== undefined) {
      if (s.lastState?.terminated === undefined) {
        pendingRestartableInit++;
        waiting++;
      }
    } else {
      pendingRestartableInit++;
      unknown++;
    }
  }
  for (const c of spec?.containers ?? []) {
    const s = statusOf(statuses, c.name);
    if (s === undefined) unknown++;
    else if (s.state?.running !== undefined) running++;
    else if (s.state?.terminated !== undefined) {
      stopped++;
      if (s.state.terminated.exitCode === 0) succeeded++;
    } else if (s.state?.waiting !== undefined) {
      if (s.lastState?.terminated !== undefined) stopped++;
      else waiting++;
    } else unknown++;
  }

  if (failedInitialization > 0 && restartPolicy === 'Never') return 'Failed';
  if (pendingRegularInit > 0 || (pendingRestartableInit > 0 && !podHasInitialized) || waiting > 0) return 'Pending';
  if (running > 0 && unknown === 0) return 'Running';
  if (running === 0 && stopped > 0 && unknown === 0) {
    // Upstream does not give static pods a terminal phase here (its TODO #116484).
    if (podIsTerminal && !isStaticPod(pod)) return stopped === succeeded ? 'Succeeded' : 'Failed';
    if (restartPolicy === 'Always') return 'Running';
    if (stopped === succeeded) return 'Succeeded';
    if (restartPolicy === 'Never') return 'Failed';
    return 'Running';
  }
  return 'Pending';
}
