/**
 * A long-running client process (`kubectl get -w`, a `kubectl delete` that
 * waits): its output is read line by line as it comes, a test waits for the
 * line it expects with a deadline, and the process is stopped by its pid.
 */
import { spawn, type ChildProcess } from 'node:child_process';

export interface ExitStatus {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export interface LongRunning {
  readonly pid: number;
  /** Complete stdout lines so far. */
  lines(): string[];
  stdout(): string;
  stderr(): string;
  /**
   * Resolve with the index of the first stdout line at or after `from` that
   * matches; reject at the deadline or when the process ends without it.
   */
  waitForLine(pattern: RegExp, options?: { from?: number; timeoutMs?: number; stream?: 'stdout' | 'stderr' }): Promise<number>;
  /** Resolve when the process exits; reject (and kill it) at the deadline. */
  waitForExit(timeoutMs?: number): Promise<ExitStatus>;
  /** SIGTERM by pid, then SIGKILL if it lingers; resolves once it is gone. */
  stop(): Promise<void>;
}

export function startLongRunning(command: string, args: readonly string[], env: NodeJS.ProcessEnv): LongRunning {
  const child: ChildProcess = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  const pid = child.pid;
  let out = '';
  let err = '';
  let exit: ExitStatus | undefined;
  const listeners = new Set<() => void>();
  const notify = (): void => {
    for (const l of [...listeners]) l();
  };
  child.stdout!.on('data', (c: Buffer) => {
    out += c.toString('utf8');
    notify();
  });
  child.stderr!.on('data', (c: Buffer) => {
    err += c.toString('utf8');
    notify();
  });
  child.on('close', (code, signal) => {
    exit = { code, signal };
    notify();
  });
  const completeLines = (text: string): string[] => {
    const parts = text.split('\n');
    parts.pop();
    return parts;
  };
  const describe = (): string => `stdout:\n${out}\nstderr:\n${err}`;

  const waitFor = <T>(check: () => T | undefined, what: string, timeoutMs: number): Promise<T> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        listeners.delete(test);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what} from ${command} ${args.join(' ')}\n${describe()}`));
      }, timeoutMs);
      const test = (): void => {
        const value = check();
        if (value !== undefined) {
          clearTimeout(timer);
          listeners.delete(test);
          resolve(value);
        } else if (exit !== undefined) {
          clearTimeout(timer);
          listeners.delete(test);
          reject(new Error(`${command} ${args.join(' ')} exited (${exit.code ?? exit.signal}) before ${what}\n${describe()}`));
        }
      };
      listeners.add(test);
      test();
    });

  return {
    pid,
    lines: () => completeLines(out),
    stdout: () => out,
    stderr: () => err,
    waitForLine: (pattern, options = {}) =>
      waitFor(
        () => {
          const lines = completeLines(options.stream === 'stderr' ? err : out);
          for (let i = options.from ?? 0; i < lines.length; i++) if (pattern.test(lines[i]!)) return i;
          return undefined;
        },
        `a line matching ${pattern}`,
        options.timeoutMs ?? 20_000,
      ),
    waitForExit: async (timeoutMs = 30_000) => {
      if (exit !== undefined) return exit;
      return new Promise<ExitStatus>((resolve, reject) => {
        const timer = setTimeout(() => {
          listeners.delete(test);
          killPid(pid, 'SIGKILL');
          reject(new Error(`${command} ${args.join(' ')} did not exit within ${timeoutMs} ms\n${describe()}`));
        }, timeoutMs);
        const test = (): void => {
          if (exit === undefined) return;
          clearTimeout(timer);
          listeners.delete(test);
          resolve(exit);
        };
        listeners.add(test);
      });
    },
    stop: async () => {
      if (exit !== undefined) return;
      killPid(pid, 'SIGTERM');
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => killPid(pid, 'SIGKILL'), 5_000);
        const test = (): void => {
          if (exit === undefined) return;
          clearTimeout(timer);
          listeners.delete(test);
          resolve();
        };
        listeners.add(test);
        test();
      });
    },
  };
}

function killPid(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // already gone
  }
}

/** Every process a test file started, so that its `after` hook stops them all. */
export class ProcessGroup {
  private readonly running = new Set<LongRunning>();

  start(command: string, args: readonly string[], env: NodeJS.ProcessEnv): LongRunning {
    const p = startLongRunning(command, args, env);
    this.running.add(p);
    return p;
  }

  async stopAll(): Promise<void> {
    const all = [...this.running];
    this.running.clear();
    await Promise.all(all.map((p) => p.stop()));
  }
}
