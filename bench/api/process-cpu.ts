/** CPU time of a process, for the benchmarks' CPU-per-operation figures. */
import { readFileSync } from 'node:fs';

/**
 * CPU time (user + system, every thread) of a process so far, in µs, from
 * /proc/PID/stat; NaN where there is no /proc or no such process.
 */
export function cpuMicros(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime and stime are fields 14 and 15 of the line (11 and 12 after the command), in clock ticks (USER_HZ, 100 on Linux).
    return ((Number(fields[11]) + Number(fields[12])) * 1e6) / 100;
  } catch {
    return Number.NaN;
  }
}

/** This process's own CPU time so far (user + system), in µs. */
export function ownCpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** The process's direct children (Linux /proc; empty elsewhere): an API server's `--workers`. */
export function childPids(pid: number | undefined): number[] {
  if (pid === undefined) return [];
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter((s) => s !== '').map(Number);
  } catch {
    return [];
  }
}

/** CPU time of a process and its direct children so far, in µs (see {@link cpuMicros}). */
export function treeCpuMicros(pid: number | undefined): number {
  return [pid, ...childPids(pid)].reduce<number>((sum, p) => sum + cpuMicros(p), 0);
}

/** CPU time (user + system) of this process's children that have ended and been waited for, in µs (Linux /proc; NaN elsewhere). */
export function endedChildrenCpuMicros(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // cutime and cstime are fields 16 and 17 of the line (13 and 14 after the command).
    return ((Number(fields[13]) + Number(fields[14])) * 1e6) / 100;
  } catch {
    return Number.NaN;
  }
}
