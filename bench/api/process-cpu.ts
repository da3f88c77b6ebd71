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
