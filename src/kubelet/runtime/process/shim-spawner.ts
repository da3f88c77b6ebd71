/**
 * The shim pool's worker thread: every shim is spawned here, never on the
 * kubelet's own thread.
 *
 * Why: Node.js's spawn() is synchronous. It returns only once the child has
 * called exec, and on a busy machine (30 pods starting on 2 cores) the child
 * waits its turn for a CPU first: a spawn then blocks its thread for tens of
 * milliseconds, and a burst of starts (plus the pool's refills) blocked the
 * kubelet for seconds, with its status writes, probes and watches waiting
 * behind. Here the wait blocks only this thread.
 *
 * The messages (see shim-pool.ts, which posts and receives them):
 *   in:  { fill }  { launch, token, dir, logFile }  { close }
 *   out: { idle: pids }  { exited: token, reason }  { closed }
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import type { Socket } from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';

export interface SpawnerData {
  /** The shim's script (shim.js). */
  readonly script: string;
  /** How many booted shims to keep waiting. */
  readonly size: number;
  /** Where idle shims write what they print before they are given a container. */
  readonly idleLogFile: string;
}

export type SpawnerRequest =
  | { readonly type: 'fill' }
  | { readonly type: 'launch'; readonly token: number; readonly dir: string; readonly logFile: string }
  | { readonly type: 'close' };

export type SpawnerReport =
  | { readonly type: 'idle'; readonly pids: number[] }
  | { readonly type: 'exited'; readonly token: number; readonly reason: string }
  | { readonly type: 'closed' };

interface Shim {
  readonly child: ChildProcess;
  /** Set when the shim is handed a container: its exit is then reported. */
  token: number | undefined;
  exit: string | undefined;
}

/**
 * A refill waits until no container has started for this long. During a burst of starts, booting replacement idle
 * shims would only compete for the CPU with the containers starting (and with the fresh shims the burst boots once
 * the pool is empty); the pool is refilled once the burst is over.
 */
const REFILL_QUIET_MS = 500;

class Spawner {
  private readonly idle: Shim[] = [];
  private closed = false;
  private lastLaunchAt = 0;
  private refill: NodeJS.Timeout | undefined;

  constructor(
    private readonly data: SpawnerData,
    private readonly report: (message: SpawnerReport) => void,
  ) {}

  handle(request: SpawnerRequest): void {
    if (request.type === 'fill') this.fill();
    else if (request.type === 'launch') this.launch(request.token, request.dir, request.logFile);
    else this.close();
  }

  private fill(): void {
    const quietAt = this.lastLaunchAt + REFILL_QUIET_MS;
    if (Date.now() < quietAt) {
      clearTimeout(this.refill);
      this.refill = setTimeout(() => this.fill(), quietAt - Date.now());
      return;
    }
    this.refill = undefined;
    let booted = false;
    while (!this.closed && this.idle.length < this.data.size) {
      const shim = this.boot(this.data.idleLogFile, ['--idle']);
      if (shim === undefined) break;
      this.idle.push(shim);
      booted = true;
    }
    if (booted) this.reportIdle();
  }

  private launch(token: number, dir: string, logFile: string): void {
    this.lastLaunchAt = Date.now();
    for (;;) {
      const shim = this.idle.shift();
      if (shim === undefined) break;
      const stdin = shim.child.stdin;
      if (shim.exit !== undefined || stdin === null || stdin.destroyed) continue;
      shim.token = token;
      stdin.end(`${dir}\n`);
      this.reportIdle();
      return;
    }
    const fresh = this.boot(logFile, [dir], dir);
    if (fresh === undefined) this.report({ type: 'exited', token, reason: 'the shim could not be spawned' });
    else fresh.token = token;
  }

  private close(): void {
    this.closed = true;
    clearTimeout(this.refill);
    for (const shim of this.idle.splice(0)) shim.child.stdin?.end();
    this.reportIdle();
    this.report({ type: 'closed' });
  }

  private reportIdle(): void {
    this.report({ type: 'idle', pids: this.idle.flatMap((s) => (s.child.pid !== undefined && s.exit === undefined ? [s.child.pid] : [])) });
  }

  private boot(logFile: string, args: readonly string[], cwd?: string): Shim | undefined {
    let log: number;
    try {
      log = openSync(logFile, 'a');
    } catch {
      return undefined;
    }
    try {
      const idle = args[0] === '--idle';
      const child = spawn(process.execPath, [this.data.script, ...args], {
        detached: true,
        stdio: [idle ? 'pipe' : 'ignore', log, log],
        ...(cwd !== undefined ? { cwd } : {}),
      });
      const shim: Shim = { child, token: undefined, exit: undefined };
      const ended = (reason: string): void => {
        if (shim.exit !== undefined) return;
        shim.exit = reason;
        const at = this.idle.indexOf(shim);
        if (at >= 0) {
          this.idle.splice(at, 1);
          this.reportIdle();
        }
        if (shim.token !== undefined) this.report({ type: 'exited', token: shim.token, reason });
      };
      child.on('error', (e) => ended(e.message));
      child.on('exit', (code, signal) => ended(`the shim exited (${signal ?? code})`));
      if (child.stdin !== null) {
        child.stdin.on('error', () => undefined);
        // The pipe must not keep this thread alive.
        (child.stdin as Socket).unref();
      }
      child.unref();
      return shim;
    } finally {
      closeSync(log);
    }
  }
}

if (parentPort !== null) {
  const port = parentPort;
  const spawner = new Spawner(workerData as SpawnerData, (message) => port.postMessage(message));
  port.on('message', (request: SpawnerRequest) => spawner.handle(request));
}
