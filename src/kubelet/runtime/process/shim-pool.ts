/**
 * Shims started ahead of need. A shim is a Node.js process, and booting one
 * (tens of milliseconds on a quiet machine, far more on a busy one) was most
 * of a container's start. The pool keeps `size` shims booted and waiting
 * (`shim.js --idle`): a start hands one its container directory on its stdin
 * and closes it, and the shim then runs the container exactly as one started
 * with the directory on its command line. A pool-less start, or one that finds
 * the pool empty, boots a shim for the container at once, as before.
 *
 * Idle shims are detached (their own session), as every shim, since once
 * given a container they must outlive the kubelet; an idle shim whose stdin
 * closes without a directory (the runtime closed, the kubelet died) exits.
 * Refills happen after a start, off its critical path.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { Socket } from 'node:net';

export interface ShimPoolOptions {
  /** The shim's script (shim.js). */
  readonly script: string;
  /** How many booted shims to keep waiting; 0 boots each shim when its container starts. */
  readonly size: number;
  /** Where idle shims write what they print before they are given a container. */
  readonly idleLogFile: string;
}

/** A shim given its container: `exited` is set if it dies (before or after it started the command). */
export interface LaunchedShim {
  /** Why the shim process ended, once it has; undefined while it runs. */
  exited(): string | undefined;
}

interface IdleShim {
  readonly child: ChildProcess;
  /** Set when handed a container; until then an exit just drops it from the pool. */
  exit: string | undefined;
}

export class ShimPool {
  private readonly idle: IdleShim[] = [];
  private closed = false;

  constructor(private readonly options: ShimPoolOptions) {}

  /** Boots shims until `size` wait (no-op with size 0). */
  fill(): void {
    while (!this.closed && this.idle.length < this.options.size) {
      const shim = this.boot(this.options.idleLogFile, ['--idle']);
      if (shim === undefined) return;
      this.idle.push(shim);
    }
  }

  /**
   * Starts a shim for the container in `dir`: an idle one if there is one,
   * else a new one; `logFile` takes a new shim's own output.
   */
  launch(dir: string, logFile: string): LaunchedShim {
    for (;;) {
      const shim = this.idle.shift();
      if (shim === undefined) break;
      const stdin = shim.child.stdin;
      if (shim.exit !== undefined || stdin === null || stdin.destroyed) continue;
      stdin.end(`${dir}\n`);
      return { exited: () => shim.exit };
    }
    const fresh = this.boot(logFile, [dir], dir);
    if (fresh === undefined) return { exited: () => 'the shim could not be spawned' };
    return { exited: () => fresh.exit };
  }

  /** The pids of the shims waiting (for tests and diagnostics). */
  idlePids(): number[] {
    return this.idle.flatMap((shim) => (shim.child.pid !== undefined && shim.exit === undefined ? [shim.child.pid] : []));
  }

  /** Idle shims are told to exit (their stdin closes); shims running containers are not touched. */
  close(): void {
    this.closed = true;
    for (const shim of this.idle.splice(0)) shim.child.stdin?.end();
  }

  private boot(logFile: string, args: readonly string[], cwd?: string): IdleShim | undefined {
    const log = openSync(logFile, 'a');
    try {
      const idle = args[0] === '--idle';
      const child = spawn(process.execPath, [this.options.script, ...args], {
        detached: true,
        stdio: [idle ? 'pipe' : 'ignore', log, log],
        ...(cwd !== undefined ? { cwd } : {}),
      });
      const shim: IdleShim = { child, exit: undefined };
      child.on('error', (e) => (shim.exit ??= e.message));
      child.on('exit', (code, signal) => {
        shim.exit ??= `the shim exited (${signal ?? code})`;
        const at = this.idle.indexOf(shim);
        if (at >= 0) this.idle.splice(at, 1);
      });
      if (child.stdin !== null) {
        child.stdin.on('error', () => undefined);
        // The pipe must not keep the kubelet (or a test) alive.
        (child.stdin as Socket).unref();
      }
      child.unref();
      return shim;
    } finally {
      closeSync(log);
    }
  }
}
