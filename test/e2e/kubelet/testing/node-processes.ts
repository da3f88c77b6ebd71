/**
 * What a resilience test needs to see of a `k8ts server`'s node from the
 * outside: the pids its supervisor printed for each component (`NAME: started
 * (pid N)`), and a container's process as the process runtime's shim records
 * it (<kubelet-root>/runtime/containers/<id>/state.json), so that a test can
 * tell a container that kept running from one made again.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { K8tsProcess } from '../../testing/k8ts-process.js';

/** Every pid the server printed for component `name`, oldest first (a crashed component is started again). */
export function componentPids(server: K8tsProcess, name: string): number[] {
  const pattern = new RegExp(`^${name}: started \\(pid (\\d+)\\)$`);
  return server
    .output()
    .split('\n')
    .map((line) => pattern.exec(line)?.[1])
    .filter((pid): pid is string => pid !== undefined)
    .map(Number);
}

/** The pid the server printed last for component `name`; throws when it printed none. */
export function componentPid(server: K8tsProcess, name: string): number {
  const pid = componentPids(server, name).at(-1);
  if (pid === undefined) throw new Error(`the server printed no "${name}: started (pid N)" line:\n${server.output()}`);
  return pid;
}

export interface ContainerProcess {
  /** The container's process (its process group too). */
  readonly pid: number;
  readonly finishedAt?: string;
}

/** The shim's record of a container (`k8ts-process://ID` or a bare ID) under a kubelet root directory. */
export async function containerProcess(kubeletRootDir: string, containerID: string): Promise<ContainerProcess> {
  const id = containerID.replace(/^[a-z0-9-]+:\/\//, '');
  return JSON.parse(await readFile(join(kubeletRootDir, 'runtime', 'containers', id, 'state.json'), 'utf8')) as ContainerProcess;
}

/** True while a process with this pid exists. */
export function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e: unknown) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
