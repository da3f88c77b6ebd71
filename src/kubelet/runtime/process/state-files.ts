/**
 * The process runtime's state directory, shared by the runtime and its shims.
 *
 *   <stateDir>/sandboxes/<id>/sandbox.json     written once by runPodSandbox, rewritten on stop
 *   <stateDir>/containers/<id>/container.json  written once by createContainer: what the shim runs
 *   <stateDir>/containers/<id>/state.json      written only by the shim: pid, start, exit
 *   <stateDir>/containers/<id>/shim.log        the shim's own diagnostics
 *
 * Every file is replaced atomically (write a temporary file, then rename), so a
 * reader never sees half a file, and everything a runtime knows is on disk:
 * a new runtime over the same directory (a restarted kubelet) adopts it all.
 * Timestamps are decimal strings of nanoseconds (JSON has no bigint).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { KeyValue, Mount, NamespaceOptions, PodSandboxMetadata, PodSandboxState } from '../interface.js';

export interface SandboxRecord {
  readonly id: string;
  readonly metadata: PodSandboxMetadata;
  readonly hostname: string;
  readonly logDirectory: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly namespaceOptions?: NamespaceOptions;
  /** '' for host-network sandboxes. */
  readonly ip: string;
  readonly state: PodSandboxState;
  readonly createdAt: string;
}

/** What createContainer resolved: everything the shim needs to start the process. */
export interface ContainerRecord {
  readonly id: string;
  readonly podSandboxId: string;
  readonly metadata: { readonly name: string; readonly attempt: number };
  readonly image: string;
  readonly imageRef: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly mounts: readonly Mount[];
  /** Absolute. */
  readonly logPath: string;
  readonly argv: readonly string[];
  readonly env: readonly KeyValue[];
  readonly workingDir: string;
  readonly stdin: boolean;
  readonly stdinOnce: boolean;
  readonly tty: boolean;
  readonly createdAt: string;
  /** The nice value the shim gives the process, from the container's CPU shares (cpu-priority.ts); absent: unchanged. */
  readonly nice?: number;
}

/** Written by the shim: once when the process started (or failed to), once when it exited. */
export interface ShimState {
  readonly shimPid: number;
  /** The container process; also its process group id. 0 when the start failed. */
  readonly pid: number;
  readonly startedAt: string;
  readonly finishedAt?: string;
  readonly exitCode?: number;
  /** The signal that ended the process, if one did. */
  readonly signal?: string;
  /** Set when the command could not be started (containerd's StartError). */
  readonly startError?: string;
}

export const sandboxesDir = (stateDir: string): string => join(stateDir, 'sandboxes');
export const containersDir = (stateDir: string): string => join(stateDir, 'containers');
export const sandboxFile = (stateDir: string, id: string): string => join(sandboxesDir(stateDir), id, 'sandbox.json');
export const containerDir = (stateDir: string, id: string): string => join(containersDir(stateDir), id);
export const containerFile = (dir: string): string => join(dir, 'container.json');
export const shimStateFile = (dir: string): string => join(dir, 'state.json');
export const shimLogFile = (dir: string): string => join(dir, 'shim.log');

/** The shim's attach socket, in Linux's abstract namespace (no path length limit, nothing to clean up). */
export const attachSocketPath = (containerId: string): string => `\0k8ts-process-shim-${containerId}`;

export function writeJsonAtomic(path: string, value: unknown): void {
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(value));
  renameSync(tmp, path);
}

/** The parsed file, or undefined when it does not exist. */
export function readJsonIfExists<T>(path: string): T | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (e: unknown) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw e;
  }
  return JSON.parse(text) as T;
}
