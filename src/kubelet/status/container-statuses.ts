/**
 * API container statuses from what the runtime holds (upstream's
 * convertToAPIContainerStatuses): the newest container of each name gives
 * the state, the one before it lastState; a container that must start again
 * shows Waiting with the reason of its last failed start (CrashLoopBackOff,
 * CreateContainerConfigError, ErrImageNeverPull, …); one never started shows
 * Waiting ContainerCreating (PodInitializing while init containers run).
 */
import type { ContainerState, ContainerStatus } from 'kubernetes-types/core/v1.js';
import { deepCopy, formatTime } from '../../machinery/meta.js';
import { latestContainer, type RuntimeContainer, type RuntimePod } from '../pod-workers/runtime-pod.js';
import { shouldContainerBeRestarted } from '../pod-workers/pod-actions.js';
import type { ContainerSpec, Pod } from '../types.js';

/** Why a container's last start failed, shown as its Waiting reason and message. */
export interface StartFailure {
  readonly reason: string;
  readonly message: string;
}

export const nanosToTime = (ns: bigint): string => formatTime(new Date(Number(ns / 1_000_000n)));

export interface ConvertInput {
  readonly pod: Pod;
  readonly runtimePod: RuntimePod;
  readonly previous: readonly ContainerStatus[];
  readonly containers: readonly ContainerSpec[];
  readonly isInit: boolean;
  readonly runtimeName: string;
  /** Last start failure by container name. */
  readonly failures: ReadonlyMap<string, StartFailure>;
}

function convert(c: RuntimeContainer, old: ContainerStatus | undefined, runtimeName: string): ContainerStatus {
  const containerID = `${runtimeName}://${c.id}`;
  const base = { name: c.name, restartCount: c.restartCount, image: c.image, imageID: c.imageRef, containerID, ready: false };
  switch (c.state) {
    case 'CONTAINER_RUNNING':
      return { ...base, state: { running: { startedAt: nanosToTime(c.startedAt) } } };
    case 'CONTAINER_CREATED':
      return { ...base, state: { waiting: {} } };
    case 'CONTAINER_EXITED':
      return {
        ...base,
        state: {
          terminated: {
            exitCode: c.exitCode,
            ...(c.reason !== '' ? { reason: c.reason } : {}),
            ...(c.message !== '' ? { message: c.message } : {}),
            startedAt: nanosToTime(c.startedAt),
            finishedAt: nanosToTime(c.finishedAt),
            containerID,
          },
        },
      };
    default:
      if (old?.state?.running !== undefined) {
        return {
          ...base,
          restartCount: old.restartCount + 1,
          state: { terminated: { reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was terminated', exitCode: 137 } },
        };
      }
      return { ...base, state: { waiting: {} } };
  }
}

export function convertContainerStatuses(input: ConvertInput): ContainerStatus[] {
  const { pod, runtimePod, containers, isInit } = input;
  const hasInit = (pod.spec?.initContainers ?? []).length > 0;
  const oldByName = new Map(input.previous.map((s) => [s.name, s]));
  const defaultWaiting = (): ContainerState => ({ waiting: { reason: hasInit ? 'PodInitializing' : 'ContainerCreating' } });
  const statuses = new Map<string, ContainerStatus>();
  for (const container of containers) {
    const old = oldByName.get(container.name);
    let status: ContainerStatus = { name: container.name, image: container.image ?? '', imageID: '', ready: false, restartCount: 0, state: defaultWaiting() };
    if (old !== undefined) {
      if (old.state?.terminated !== undefined) status = deepCopy(old);
      else status = { ...status, restartCount: old.restartCount, ...(old.lastState !== undefined ? { lastState: deepCopy(old.lastState) } : {}) };
    }
    statuses.set(container.name, status);
  }

  // A container that was running and is gone from the runtime terminated somehow: say so rather than go back to Pending.
  for (const container of containers) {
    if (runtimePod.containers.some((c) => c.name === container.name)) continue;
    const old = oldByName.get(container.name);
    const status = statuses.get(container.name)!;
    if (old === undefined || old.state?.terminated !== undefined || old.state?.running === undefined) continue;
    const reason = status.state?.waiting?.reason;
    if (reason !== (hasInit ? 'PodInitializing' : 'ContainerCreating') || status.lastState?.terminated !== undefined) continue;
    status.lastState = {
      terminated: { reason: 'ContainerStatusUnknown', message: 'The container could not be located when the pod was deleted.  The container used to be Running', exitCode: 137 },
    };
    if (pod.metadata.deletionTimestamp === undefined) status.restartCount += 1;
  }

  const seen = new Map<string, number>();
  for (const c of runtimePod.containers) {
    if (!statuses.has(c.name)) continue;
    const count = seen.get(c.name) ?? 0;
    if (count >= 2) continue;
    const converted = convert(c, oldByName.get(c.name), input.runtimeName);
    if (count === 0) statuses.set(c.name, converted);
    else statuses.get(c.name)!.lastState = converted.state!;
    seen.set(c.name, count + 1);
  }

  for (const container of containers) {
    if (isInit) {
      const latest = latestContainer(runtimePod, container.name);
      if (latest?.state === 'CONTAINER_EXITED' && latest.exitCode === 0) continue;
    }
    if (!shouldContainerBeRestarted(container, pod, runtimePod)) continue;
    const failure = input.failures.get(container.name);
    if (failure === undefined) continue;
    const status = statuses.get(container.name)!;
    if (status.state?.terminated !== undefined) status.lastState = status.state;
    status.state = { waiting: { reason: failure.reason, ...(failure.message !== '' ? { message: failure.message } : {}) } };
  }

  const list = containers.map((c) => statuses.get(c.name)!);
  if (!isInit) list.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return list;
}
