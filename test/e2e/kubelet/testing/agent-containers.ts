/**
 * Containers outlive the kubelet (and `k8ts server`), as upstream's and
 * k3s's do. A test that ran a kubelet with the process runtime ends the
 * containers it left with this (k3s has k3s-killall.sh for the same job):
 * every container of `<root-dir>/runtime` still running gets SIGKILL, its
 * process group and its shim too.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

interface ShimState {
  readonly shimPid?: number;
  readonly pid?: number;
  readonly finishedAt?: string;
}

const kill = (pid: number): void => {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // Gone already.
  }
};

/** SIGKILL every container still running under a kubelet root directory (`<data-dir>/kubelet` under `k8ts server`); resolves with how many. */
export async function killNodeContainers(kubeletRootDir: string): Promise<number> {
  const containers = join(kubeletRootDir, 'runtime', 'containers');
  let ids: string[];
  try {
    ids = await readdir(containers);
  } catch {
    return 0;
  }
  let killed = 0;
  for (const id of ids) {
    let state: ShimState;
    try {
      state = JSON.parse(await readFile(join(containers, id, 'state.json'), 'utf8')) as ShimState;
    } catch {
      continue;
    }
    if (state.finishedAt !== undefined) continue;
    if ((state.pid ?? 0) > 0) kill(-state.pid!);
    if ((state.shimPid ?? 0) > 0) kill(state.shimPid!);
    killed++;
  }
  return killed;
}
