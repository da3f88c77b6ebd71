/**
 * Runs the components of `k8ts server` as child processes of their own, each
 * logging to <data-dir>/logs/<component>.log: restarts one that crashes (with
 * a growing delay), and stops them all, gracefully, when asked.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, type WriteStream } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** bin/k8ts.js of this installation. */
const K8TS_BIN = fileURLToPath(new URL('../../../bin/k8ts.js', import.meta.url));

export interface ComponentSpec {
  readonly name: string;
  /** Arguments after `k8ts`, e.g. ['apiserver', '--secure-port', '6443']. */
  readonly args: readonly string[];
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
    const child = spawn(process.execPath, ['--enable-source-maps', K8TS_BIN, ...spec.args], { stdio: ['ignore', 'pipe', 'pipe'] });
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
