/**
 * Shims started ahead of need. A shim is a Node.js process, and booting one
 * (tens of milliseconds on a quiet machine, far more on a busy one) was most
 * of a container's start. The pool keeps `size` shims booted and waiting
 * (`shim.js --idle`): a start hands one its container directory on its stdin
 * and closes it, and the shim then runs the container exactly as one started
 * with the directory on its command line. A start that finds the pool empty
 * (or a pool of size 0) boots a shim for the container at once.
 *
 * Every spawn happens on a worker thread (shim-spawner.ts), since a spawn
 * blocks its thread until the child has exec'd: the kubelet's own thread only
 * posts messages. Idle shims are detached (their own session), as every shim,
 * since once given a container they must outlive the kubelet; an idle shim
 * whose stdin closes without a directory (the runtime closed, the kubelet
 * died) exits. Refills happen once starts have paused (see shim-spawner.ts), off their critical path.
 */
import { Worker } from 'node:worker_threads';
import type { SpawnerData, SpawnerReport, SpawnerRequest } from './shim-spawner.js';

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

export class ShimPool {
  private readonly worker: Worker;
  private idle: number[] = [];
  private nextToken = 1;
  /** Launched shims not yet known to have exited, by token: their exit reason once reported. */
  private readonly launched = new Map<number, { exit: string | undefined }>();
  private workerError: string | undefined;
  private closed = false;
  private onClosed: (() => void) | undefined;

  constructor(options: ShimPoolOptions) {
    const data: SpawnerData = { script: options.script, size: options.size, idleLogFile: options.idleLogFile };
    this.worker = new Worker(new URL('./shim-spawner.js', import.meta.url), { workerData: data });
    this.worker.on('message', (report: SpawnerReport) => this.receive(report));
    this.worker.on('error', (e) => this.failAll(`the shim spawner failed: ${e.message}`));
    this.worker.on('exit', (code) => this.failAll(`the shim spawner exited (${code})`));
    // The kubelet must be free to exit (its idle shims then see their stdin close and exit too). After the listeners:
    // adding a 'message' listener refs the worker again.
    this.worker.unref();
  }

  /** Boots shims until `size` wait (no-op with size 0). */
  fill(): void {
    this.post({ type: 'fill' });
  }

  /** Starts a shim for the container in `dir`: an idle one if there is one, else a new one; `logFile` takes a new shim's own output. */
  launch(dir: string, logFile: string): LaunchedShim {
    const entry = { exit: this.workerError };
    if (entry.exit === undefined) {
      const token = this.nextToken++;
      this.launched.set(token, entry);
      this.post({ type: 'launch', token, dir, logFile });
    }
    return { exited: () => entry.exit };
  }

  /** The pids of the shims waiting, as the spawner last reported them (for tests and diagnostics). */
  idlePids(): number[] {
    return [...this.idle];
  }

  /**
   * Idle shims are told to exit (their stdin closes); shims running containers are not touched. The spawner thread
   * stays (unref'd, it keeps nobody alive): it reaps the shims it spawned when they exit, which would otherwise be
   * left as zombies until the kubelet exits.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.workerError !== undefined) return;
    // Waiting for the answer must keep the process alive.
    this.worker.ref();
    await new Promise<void>((resolve) => {
      this.onClosed = resolve;
      this.worker.once('exit', () => resolve());
      this.post({ type: 'close' });
    });
    this.worker.unref();
  }

  private post(request: SpawnerRequest): void {
    if (this.workerError === undefined) this.worker.postMessage(request);
  }

  private receive(report: SpawnerReport): void {
    if (report.type === 'closed') {
      this.onClosed?.();
      return;
    }
    if (report.type === 'idle') {
      this.idle = report.pids;
      return;
    }
    const entry = this.launched.get(report.token);
    if (entry === undefined) return;
    entry.exit = report.reason;
    this.launched.delete(report.token);
  }

  private failAll(reason: string): void {
    this.workerError ??= reason;
    this.idle = [];
    for (const entry of this.launched.values()) entry.exit ??= reason;
    this.launched.clear();
  }
}
