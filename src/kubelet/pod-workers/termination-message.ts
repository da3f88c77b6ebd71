/**
 * Container termination messages, as upstream's kubelet makes and reads them
 * (kuberuntime_container.go makeMounts and getTerminationMessage):
 *
 * - Before a container is created, the kubelet makes an empty file of its own
 *   under `<root>/pods/<uid>/containers/<name>/<random id>` (mode 0666) and
 *   mounts it at the container's terminationMessagePath.
 * - Once the container has exited, the last 4096 bytes of that file (found
 *   through the container's mount at terminationMessagePath) become its
 *   terminated message, after the runtime's own message and ": ".
 * - With terminationMessagePolicy FallbackToLogsOnError, a container that
 *   failed (exit code not 0, reason not ContainerCannotRun) and left the file
 *   empty or absent gets the last 80 lines of its log, at most their last
 *   2048 bytes, instead.
 * - The pod's whole status keeps at most 12 KiB of messages: each container's
 *   is cut to 12 KiB / (number of containers), as upstream's status manager
 *   does (normalizeStatus).
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { ContainerStatus, PodStatus } from 'kubernetes-types/core/v1.js';
import type { Mount } from '../runtime/interface.js';
import { readCriLog } from '../server/cri-log-reader.js';
import type { ContainerSpec, Pod } from '../types.js';
import type { RuntimeContainer, RuntimePod } from './runtime-pod.js';

/** upstream's MaxContainerTerminationMessageLength. */
export const MAX_CONTAINER_TERMINATION_MESSAGE_LENGTH = 4096;
/** upstream's MaxContainerTerminationMessageLogLength. */
export const MAX_CONTAINER_TERMINATION_MESSAGE_LOG_LENGTH = 2048;
/** upstream's MaxContainerTerminationMessageLogLines. */
export const MAX_CONTAINER_TERMINATION_MESSAGE_LOG_LINES = 80;
/** upstream's MaxPodTerminationMessageLogLength. */
export const MAX_POD_TERMINATION_MESSAGE_LOG_LENGTH = 12 * 1024;

export const TERMINATION_MESSAGE_PATH_ANNOTATION = 'io.kubernetes.container.terminationMessagePath';
export const TERMINATION_MESSAGE_POLICY_ANNOTATION = 'io.kubernetes.container.terminationMessagePolicy';

/** `<root>/pods/<uid>/containers/<name>` (upstream's getPodContainerDir). */
export const podContainerDir = (rootDir: string, podUid: string, containerName: string): string => join(rootDir, 'pods', podUid, 'containers', containerName);

/**
 * Makes the empty termination-message file of one container start and returns
 * its mount; undefined when the container has no terminationMessagePath.
 */
export async function terminationMessageMount(rootDir: string, pod: Pod, container: ContainerSpec): Promise<Mount | undefined> {
  const containerPath = container.terminationMessagePath ?? '';
  if (containerPath === '') return undefined;
  const dir = podContainerDir(rootDir, pod.metadata.uid ?? '', container.name);
  await mkdir(dir, { recursive: true });
  const hostPath = join(dir, randomBytes(4).toString('hex'));
  await writeFile(hostPath, '');
  // writeFile's mode is masked by the umask; the container may run as any user.
  await chmod(hostPath, 0o666);
  return { containerPath, hostPath, readonly: false };
}

/** The last `max` bytes of a file (upstream's tail.ReadAtMost); undefined when it does not exist. */
async function readTail(path: string, max: number): Promise<Buffer | undefined> {
  let handle;
  try {
    handle = await open(path, 'r');
  } catch (e: unknown) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  try {
    const { size } = await handle.stat();
    const length = Math.min(size, max);
    const buffer = Buffer.alloc(length);
    const { bytesRead } = await handle.read(buffer, 0, length, size - length);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** The last 80 lines of a container's log, at most their last 2048 bytes (upstream's readLastStringFromContainerLogs). */
export async function lastLogLines(logPath: string): Promise<string> {
  const chunks: Buffer[] = [];
  const out = new Writable({
    write(chunk: Buffer, _encoding, done) {
      chunks.push(chunk);
      done();
    },
  });
  try {
    await readCriLog(logPath, out, { timestamps: false, tailLines: MAX_CONTAINER_TERMINATION_MESSAGE_LOG_LINES, follow: false, exited: async () => true });
  } catch (e: unknown) {
    return `Error on reading termination message from logs: ${e instanceof Error ? e.message : String(e)}`;
  }
  const all = Buffer.concat(chunks);
  return all.subarray(Math.max(0, all.length - MAX_CONTAINER_TERMINATION_MESSAGE_LOG_LENGTH)).toString();
}

/** What an exited container leaves as its termination message (upstream's getTerminationMessage plus the log fallback). */
export async function readTerminationMessage(c: RuntimeContainer): Promise<string> {
  const path = c.annotations[TERMINATION_MESSAGE_PATH_ANNOTATION] ?? '';
  const fallbackToLogs = c.annotations[TERMINATION_MESSAGE_POLICY_ANNOTATION] === 'FallbackToLogsOnError' && c.exitCode !== 0 && c.reason !== 'ContainerCannotRun';
  let checkLogs = fallbackToLogs;
  let message = '';
  const mount = path === '' ? undefined : c.mounts.find((m) => m.containerPath === path);
  if (mount !== undefined) {
    try {
      const data = await readTail(mount.hostPath, MAX_CONTAINER_TERMINATION_MESSAGE_LENGTH);
      message = data?.toString() ?? '';
      checkLogs = fallbackToLogs && message === '';
    } catch (e: unknown) {
      message = `Error on reading termination log ${mount.hostPath}: ${e instanceof Error ? e.message : String(e)}`;
      checkLogs = false;
    }
  }
  if (checkLogs && c.logPath !== '') message = await lastLogLines(c.logPath);
  return message;
}

/**
 * The pod's containers with each exited one's termination message after the
 * runtime's message. `known` caches messages by container id: an exited
 * container's message never changes.
 */
export async function withTerminationMessages(runtimePod: RuntimePod, known: Map<string, string>): Promise<RuntimePod> {
  const containers = await Promise.all(
    runtimePod.containers.map(async (c): Promise<RuntimeContainer> => {
      if (c.state !== 'CONTAINER_EXITED') return c;
      let message = known.get(c.id);
      if (message === undefined) {
        message = await readTerminationMessage(c);
        known.set(c.id, message);
      }
      if (message === '') return c;
      return { ...c, message: c.message === '' ? message : `${c.message}: ${message}` };
    }),
  );
  for (const id of known.keys()) if (!runtimePod.containers.some((c) => c.id === id)) known.delete(id);
  return { ...runtimePod, containers };
}

/** Cuts every terminated message of the status to 12 KiB / (containers + init containers), as upstream's status manager does. */
export function limitTerminationMessages(pod: Pod, status: PodStatus): void {
  const count = (pod.spec?.containers ?? []).length + (pod.spec?.initContainers ?? []).length;
  const perContainer = count > 0 ? Math.floor(MAX_POD_TERMINATION_MESSAGE_LOG_LENGTH / count) : MAX_POD_TERMINATION_MESSAGE_LOG_LENGTH;
  const cut = (s: ContainerStatus): void => {
    for (const state of [s.state, s.lastState]) {
      const terminated = state?.terminated;
      if (terminated?.message !== undefined && Buffer.byteLength(terminated.message) > perContainer) {
        terminated.message = Buffer.from(terminated.message).subarray(0, perContainer).toString();
      }
    }
  };
  for (const s of [...(status.containerStatuses ?? []), ...(status.initContainerStatuses ?? []), ...(status.ephemeralContainerStatuses ?? [])]) cut(s);
}
