/**
 * CPU priority for a runtime without cgroups. On containerd a container's
 * cpu_shares (from its CPU request; 2, the minimum, for a BestEffort pod)
 * become its cgroup's cpu.shares, the weight the kernel's fair scheduler
 * gives it against everything else on the node: a node's own daemons (kubelet,
 * API server) run at 1024 and are served long before thirty BestEffort pods.
 * A host process has no cgroup of its own, so the process runtime turns the
 * same weight into a nice value, which is a weight of the same scheduler:
 * nice 0 weighs 1024 and each step down weighs about 1.25 times less
 * (Linux's sched_prio_to_weight), to nice 19 (weight 15) at the most.
 */
import { getPriority, setPriority } from 'node:os';

const NICE_0_WEIGHT = 1024;
const WEIGHT_STEP = 1.25;
const MAX_NICE = 19;

/** The nice value whose scheduler weight is closest to `cpuShares` (0 when none is given: no change). */
export function niceForCpuShares(cpuShares: number | undefined): number {
  if (cpuShares === undefined || cpuShares <= 0 || cpuShares >= NICE_0_WEIGHT) return 0;
  const nice = Math.round(Math.log(NICE_0_WEIGHT / cpuShares) / Math.log(WEIGHT_STEP));
  return Math.min(nice, MAX_NICE);
}

/**
 * Lowers process `pid` to `nice`. Never raises a priority (that needs root, and
 * a container must not outrank the shim that started it); errors are returned,
 * not thrown: a process that keeps its priority still runs.
 */
export function lowerPriority(pid: number, nice: number): Error | undefined {
  try {
    const current = getPriority(pid);
    if (nice > current) setPriority(pid, nice);
    return undefined;
  } catch (e: unknown) {
    return e instanceof Error ? e : new Error(String(e));
  }
}
