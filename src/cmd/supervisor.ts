/**
 * Runs the components of `k8ts server` and `k8ts agent` as child processes of
 * their own, each logging to <data-dir>/logs/<component>.log: restarts one
 * that crashes (with a growing delay), and stops them all, gracefully, when
 * asked.
 *
 * Each child also gets a lifeline: one end of a pipe (fd 3, named by
 * K8TS_LIFELINE_FD) whose other end only this process holds. When this
 * process dies, even by SIGKILL, the kernel closes that end; the child sees
 * the pipe end and stops itself as on SIGTERM ({@link exitWithParent}), so no
 * component outlives the process that supervised it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { Socket } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { withFlags } from './apiserver-v8-flags.js';

/** bin/k8ts.js of this installation. */
const K8TS_BIN = fileURLToPath(new URL('../../../bin/k8ts.js', import.meta.url));

/** V8's own interrupt budget: how much bytecode a function runs between two looks at whether to optimise it. */
const V8_DEFAULT_INTERRUPT_BUDGET = 67_584;

/** Replaces {@link DEFAULT_COMPONENT_V8_FLAGS} (whitespace-separated; empty for V8's defaults). */
export const COMPONENT_V8_FLAGS_ENV = 'K8TS_COMPONENT_V8_FLAGS';

/**
 * The V8 flags every component runs with. V8 recompiles a function with
 * TurboFan once it has run its interrupt budget of bytecode a few times over.
 * The components' work comes in bursts of code paths that have not run
 * before: thirty pods applied at once bring pod creates, bindings, status
 * patches and events, each a few hundred times. At V8's budget they compile
 * (and, as new shapes of objects come, recompile) those paths while the burst
 * lasts: a third of the API server's CPU in a bench:journey run went to V8's
 * helper threads, and single compiles took up to 200 ms. At 16 times the
 * budget only the paths that keep running get optimised: in eight interleaved
 * pairs of bench:journey runs the API server spent 22% less CPU in the
 * window, the kubelets 10% less and the machine about 5% less, for 2% off
 * apply → all Ready (the apps' own start is most of it). The price is a
 * slower warm-up under sustained load: `k8ts apiserver` with this budget spent
 * about 30% more CPU per create over its first 20 s of 64 concurrent creates.
 * bench:api measures `k8ts apiserver` as started alone, with V8's defaults.
 */
export const DEFAULT_COMPONENT_V8_FLAGS: readonly string[] = [`--interrupt-budget=${16 * V8_DEFAULT_INTERRUPT_BUDGET}`];

/** The V8 flags of the components: {@link COMPONENT_V8_FLAGS_ENV} when set, else the defaults. */
export function componentV8Flags(env: NodeJS.ProcessEnv = process.env): string[] {
  const given = env[COMPONENT_V8_FLAGS_ENV];
  if (given === undefined) return [...DEFAULT_COMPONENT_V8_FLAGS];
  return given.split(/\s+/).filter((flag) => flag !== '');
}

export interface ComponentSpec {
  readonly name: string;
  /** Arguments after `k8ts`, e.g. ['apiserver', '--secure-port', '6443']. */
  readonly args: readonly string[];
  /** This component's own V8 flags, after the components' ({@link componentV8Flags}), which win when they set the same one. */
  readonly v8Flags?: readonly string[];
}

export interface SupervisorEvents {
  onExit?(name: string, code: number | null, signal: NodeJS.Signals | null, restartInMs: number | undefined): void;
  onStart?(name: string, pid: number): void;
}

interface Running {
  spec: ComponentSpec;
  child: ChildProcess;
  log: WriteStream;
  restarts: number;
  timer?: NodeJS.Timeout;
}

export class Supervisor {
  private readonly running = new Map<string, Running>();
  private stopping = false;

  constructor(
    private readonly logDir: string,
    private readonly events: SupervisorEvents = {},
  ) {
    mkdirSync(logDir, { recursive: true });
  }

  start(spec: ComponentSpec): ChildProcess {
    const log = createWriteStream(join(this.logDir, `${spec.name}.log`), { flags: 'a' });
    const entry: Running = { spec, child: this.spawn(spec, log), log, restarts: 0 };
    this.running.set(spec.name, entry);
    return entry.child;
  }

  pid(name: string): number | undefined {
    return this.running.get(name)?.child.pid;
  }

  private spawn(spec: ComponentSpec, log: WriteStream): ChildProcess {
    const child = spawn(process.execPath, ['--enable-source-maps', ...withFlags(componentV8Flags(), spec.v8Flags ?? []), K8TS_BIN, ...spec.args], {
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      env: { ...process.env, [LIFELINE_ENV]: String(LIFELINE_FD) },
    });
    // Our end of the lifeline: held open, never read or written, and not keeping this process alive.
    const lifeline = child.stdio[LIFELINE_FD];
    if (lifeline instanceof Socket) {
      lifeline.on('error', () => undefined);
      lifeline.unref();
    }
    child.stdout?.pipe(log, { end: false });
    child.stderr?.pipe(log, { end: false });
    if (child.pid !== undefined) this.events.onStart?.(spec.name, child.pid);
    child.on('exit', (code, signal) => this.exited(spec.name, child, code, signal));
    return child;
  }

  private exited(name: string, child: ChildProcess, code: number | null, signal: NodeJS.Signals | null): void {
    const entry = this.running.get(name);
    if (entry === undefined || entry.child !== child) return;
    if (this.stopping) {
      this.events.onExit?.(name, code, signal, undefined);
      return;
    }
    // Restart with a delay that doubles up to 10 s, as a kubelet backs off a crashing container.
    const delay = Math.min(10_000, 250 * 2 ** entry.restarts);
    entry.restarts++;
    this.events.onExit?.(name, code, signal, delay);
    entry.timer = setTimeout(() => {
      if (this.stopping) return;
      entry.child = this.spawn(entry.spec, entry.log);
    }, delay);
  }

  /** SIGTERM every component, then wait for each to exit (SIGKILL after the deadline). */
  async stop(deadlineMs = 15_000): Promise<void> {
    this.stopping = true;
    await Promise.all(
      [...this.running.values()].map(async (entry) => {
        clearTimeout(entry.timer);
        const child = entry.child;
        if (child.exitCode === null && child.signalCode === null) {
          const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
          child.kill('SIGCONT'); // a stopped process cannot handle SIGTERM
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), deadlineMs);
          await exited;
          clearTimeout(timer);
        }
        await new Promise<void>((resolve) => entry.log.end(() => resolve()));
      }),
    );
  }
}

/** The environment variable that names a child's lifeline fd. */
export const LIFELINE_ENV = 'K8TS_LIFELINE_FD';
const LIFELINE_FD = 3;

/**
 * In a supervised child (K8TS_LIFELINE_FD set): when the supervisor's end of
 * the lifeline closes, send this process SIGTERM, so that its own shutdown
 * runs, and exit anyway after `forceAfterMs`. Does nothing in a process
 * nobody supervises. Removes the variable, so that this process's own
 * children (pods) do not see it.
 */
export function exitWithParent(forceAfterMs = 15_000): void {
  const value = process.env[LIFELINE_ENV];
  delete process.env[LIFELINE_ENV];
  const fd = Number(value);
  if (value === undefined || !Number.isInteger(fd) || fd < 3) return;
  let socket: Socket;
  try {
    socket = new Socket({ fd, readable: true, writable: false });
  } catch {
    return;
  }
  let fired = false;
  const parentGone = (): void => {
    if (fired) return;
    fired = true;
    setTimeout(() => process.exit(1), forceAfterMs).unref();
    process.kill(process.pid, 'SIGTERM');
  };
  socket.on('end', parentGone);
  socket.on('close', parentGone);
  socket.on('error', parentGone);
  socket.resume();
  socket.unref();
}
