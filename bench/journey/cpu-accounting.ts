/**
 * Where the machine's CPU goes while the journey bench waits for its pods:
 * a snapshot holds every process's CPU time so far (utime + stime of
 * /proc/PID/stat, every thread) grouped by what the process is, and the
 * machine's busy time (/proc/stat); the difference of two snapshots is the
 * CPU each group used in between.
 *
 * Groups: each k8ts component by its subcommand (the server's and the agent's
 * kubelets together), the shim daemons, the containers (every process below a
 * shim daemon), kubectl, this bench, and `other`: the machine's busy time not
 * accounted to a process alive at both ends (processes that exited in between,
 * such as `kubectl apply`, kernel threads, anything else on the machine).
 *
 * On a machine the bench saturates, the makespan follows the total, so these
 * shares say which part a change must shrink.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** Clock ticks per second of /proc (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

export interface ProcessFacts {
  readonly pid: number;
  readonly ppid: number;
  /** The command line, one element per argument. */
  readonly argv: readonly string[];
  /** utime + stime, in clock ticks. */
  readonly ticks: number;
}

export interface CpuSnapshot {
  /** Ticks per process id, with the group each belongs to. */
  readonly processes: ReadonlyMap<number, { readonly group: string; readonly ticks: number }>;
  /** The machine's busy ticks (every CPU, idle and iowait excluded). */
  readonly machineTicks: number;
}

/** The k8ts subcommand a command line runs (`kubelet`, `apiserver`…), or undefined. */
function k8tsSubcommand(argv: readonly string[]): string | undefined {
  const script = argv.findIndex((a) => basename(a) === 'k8ts.js' || basename(a) === 'k8ts');
  return script >= 0 ? argv[script + 1] : undefined;
}

/** What a process is, from its command line and its ancestors' (see the groups above). */
export function groupOf(facts: ProcessFacts, byPid: ReadonlyMap<number, ProcessFacts>, benchPid: number): string {
  if (facts.pid === benchPid) return 'bench';
  const sub = k8tsSubcommand(facts.argv);
  if (sub !== undefined) return sub;
  if (facts.argv.some((a) => basename(a) === 'shimd.js')) return 'shimd';
  if (facts.argv[0] !== undefined && basename(facts.argv[0]).startsWith('kubectl')) return 'kubectl';
  // A container is any process below a shim daemon (its command, and what that command starts).
  const seen = new Set<number>();
  for (let p = byPid.get(facts.ppid); p !== undefined && !seen.has(p.pid); p = byPid.get(p.ppid)) {
    seen.add(p.pid);
    if (p.argv.some((a) => basename(a) === 'shimd.js')) return 'containers';
  }
  return 'other';
}

/** Parses /proc/PID/stat: the parent pid and utime + stime (the command, in parentheses, may hold spaces). */
export function parseProcStat(text: string): { ppid: number; ticks: number } | undefined {
  const close = text.lastIndexOf(')');
  if (close < 0) return undefined;
  const fields = text.slice(close + 2).trim().split(' ');
  // After the command: state(0) ppid(1) … utime(11) stime(12).
  const ppid = Number(fields[1]);
  const ticks = Number(fields[11]) + Number(fields[12]);
  return Number.isFinite(ppid) && Number.isFinite(ticks) ? { ppid, ticks } : undefined;
}

/** The machine's busy ticks from /proc/stat's first line: user nice system irq softirq steal. */
export function parseMachineTicks(text: string): number {
  const cpu = text.split('\n').find((l) => l.startsWith('cpu '));
  if (cpu === undefined) return Number.NaN;
  const [user, nice, system, , , irq, softirq, steal] = cpu.trim().split(/\s+/).slice(1).map(Number);
  return [user, nice, system, irq, softirq, steal].reduce<number>((t, v) => t + (v ?? 0), 0);
}

function readProcesses(): ProcessFacts[] {
  const out: ProcessFacts[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = parseProcStat(readFileSync(`/proc/${name}/stat`, 'utf8'));
      if (stat === undefined) continue;
      const argv = readFileSync(`/proc/${name}/cmdline`, 'utf8').split('\0').filter((a) => a !== '');
      out.push({ pid: Number(name), ppid: stat.ppid, argv, ticks: stat.ticks });
    } catch {
      // gone between the listing and the read
    }
  }
  return out;
}

/** A snapshot of the machine now; undefined where there is no /proc. */
export function cpuSnapshot(benchPid = process.pid): CpuSnapshot | undefined {
  let machineText: string;
  try {
    machineText = readFileSync('/proc/stat', 'utf8');
  } catch {
    return undefined;
  }
  const facts = readProcesses();
  const byPid = new Map(facts.map((f) => [f.pid, f]));
  const processes = new Map(facts.map((f) => [f.pid, { group: groupOf(f, byPid, benchPid), ticks: f.ticks }]));
  return { processes, machineTicks: parseMachineTicks(machineText) };
}

/**
 * CPU seconds per group between two snapshots, plus `machine` (all busy time)
 * and `other` (busy time not accounted to a process present at the end).
 * A process that started in between counts from zero.
 */
export function cpuSecondsBetween(before: CpuSnapshot, after: CpuSnapshot): Record<string, number> {
  const ticks: Record<string, number> = {};
  let accounted = 0;
  for (const [pid, now] of after.processes) {
    const used = now.ticks - (before.processes.get(pid)?.ticks ?? 0);
    if (used <= 0) continue;
    ticks[now.group] = (ticks[now.group] ?? 0) + used;
    accounted += used;
  }
  const machine = after.machineTicks - before.machineTicks;
  ticks.other = (ticks.other ?? 0) + Math.max(0, machine - accounted);
  ticks.machine = machine;
  return Object.fromEntries(Object.entries(ticks).map(([group, t]) => [group, t / TICKS_PER_SECOND]));
}
