/**
 * The CPU time of one process and everything it starts from now on (for
 * containerd: its shims, runc and the CNI plugins; not the containers, which
 * runc moves to cgroups of their own), through a cgroup of our own:
 * cpuacct.usage on cgroup v1, cpu.stat usage_usec on v2. Needs root; where
 * the cgroup cannot be made, read() is NaN.
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface ProcessTreeCpu {
  /** CPU ms used in the cgroup since it was made (NaN when there is none). */
  read(): number;
  /** Remove the cgroup (once its processes are gone); false when it stays (busy) or never existed. */
  remove(): boolean;
  /** Why there is no cgroup, when there is none. */
  readonly unavailable: string | undefined;
}

export function trackProcessTreeCpu(pid: number, name: string): ProcessTreeCpu {
  const v1 = '/sys/fs/cgroup/cpuacct';
  const v2 = existsSync('/sys/fs/cgroup/cgroup.controllers');
  const dir = v2 ? join('/sys/fs/cgroup', name) : join(v1, name);
  const usage = (): number =>
    v2
      ? Number(/^usage_usec (\d+)$/m.exec(readFileSync(join(dir, 'cpu.stat'), 'utf8'))?.[1] ?? Number.NaN) / 1000
      : Number(readFileSync(join(dir, 'cpuacct.usage'), 'utf8')) / 1e6;
  try {
    if (!v2 && !existsSync(v1)) throw new Error('no cpuacct hierarchy');
    mkdirSync(dir);
    writeFileSync(join(dir, 'cgroup.procs'), String(pid));
    const start = usage();
    return {
      read: () => usage() - start,
      remove: () => {
        try {
          rmdirSync(dir);
          return true;
        } catch {
          return false;
        }
      },
      unavailable: undefined,
    };
  } catch (e: unknown) {
    try {
      rmdirSync(dir);
    } catch {
      // never made
    }
    return { read: () => Number.NaN, remove: () => false, unavailable: e instanceof Error ? e.message : String(e) };
  }
}
