/**
 * Start the real `k8ts` command (bin/k8ts.js from the checkout) as a child
 * process, wait for lines of its output, and always stop it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** bin/k8ts.js of this checkout (the compiled tests run from dist/test/e2e/testing). */
export const K8TS_BIN = fileURLToPath(new URL('../../../../bin/k8ts.js', import.meta.url));
export const CHECKOUT = fileURLToPath(new URL('../../../../', import.meta.url));

export interface K8tsProcess {
  readonly child: ChildProcess;
  /** Everything printed so far (stdout and stderr interleaved). */
  output(): string;
  /** Resolve with the first line matching `pattern`, or reject at the deadline or if the process exits first. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** SIGTERM, then wait for the exit; resolves with the exit code (or the signal's name). */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<number | string>;
}

/** Every k8ts this test process started that has not exited yet. */
const running = new Set<K8tsProcess>();
let stopsOnSignal = false;

/**
 * When the test runner stops a test file (SIGTERM at its timeout, or SIGINT), its `after` hooks do not run: stop the
 * clusters it started before going, so that they do not run on, unseen, through the rest of the suite. (A `k8ts
 * server` whose parent is gone cannot even print its way through its own shutdown.)
 */
function stopAllOnSignal(): void {
  stopsOnSignal = true;
  for (const [signal, code] of [['SIGTERM', 143], ['SIGINT', 130]] as const) {
    process.once(signal, () => {
      void Promise.allSettled([...running].map((p) => p.stop('SIGTERM', 10_000))).then(() => process.exit(code));
    });
  }
  process.once('exit', () => {
    for (const p of running) p.child.kill('SIGTERM');
  });
}

export interface StartOptions {
  readonly cwd?: string;
  /** Run inside this network namespace (a name under /run/netns): `nsenter --net` execs k8ts, so the pid stays k8ts's. */
  readonly netns?: string;
  /** Node's and V8's flags for the k8ts process (before bin/k8ts.js). */
  readonly nodeArgs?: readonly string[];
}

export function startK8ts(args: readonly string[], options: StartOptions = {}): K8tsProcess {
  if (!stopsOnSignal) stopAllOnSignal();
  const argv = [process.execPath, ...(options.nodeArgs ?? []), K8TS_BIN, ...args];
  if (options.netns !== undefined) argv.unshift('nsenter', `--net=/run/netns/${options.netns}`);
  const child = spawn(argv[0]!, argv.slice(1), {
    cwd: options.cwd ?? CHECKOUT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let text = '';
  const listeners = new Set<() => void>();
  const onData = (chunk: Buffer): void => {
    text += chunk.toString('utf8');
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exited = new Promise<number | string>((resolve) => {
    child.on('close', (code, signal) => {
      resolve(code ?? signal ?? 'unknown');
      for (const l of listeners) l();
    });
  });

  const waitForLine = (pattern: RegExp, timeoutMs = 30_000): Promise<string> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const line = text.split('\n').find((l) => pattern.test(l));
        if (line !== undefined) {
          done();
          resolve(line);
        } else if (child.exitCode !== null || child.signalCode !== null) {
          done();
          reject(new Error(`k8ts exited before printing ${pattern}; output:\n${text}`));
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${pattern}; output:\n${text}`));
      }, timeoutMs);
      const done = (): void => {
        clearTimeout(timer);
        listeners.delete(check);
      };
      listeners.add(check);
      check();
    });

  const stop = async (signal: NodeJS.Signals = 'SIGTERM', timeoutMs = 15_000): Promise<number | string> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`k8ts did not exit within ${timeoutMs} ms of ${signal}`));
      }, timeoutMs);
    });
    try {
      return await Promise.race([exited, deadline]);
    } finally {
      clearTimeout(timer);
    }
  };

  const proc: K8tsProcess = { child, output: () => text, waitForLine, stop };
  running.add(proc);
  child.on('close', () => running.delete(proc));
  return proc;
}

/** Run `k8ts ARGS` to completion and return its exit code and output. */
export async function runK8ts(args: readonly string[], timeoutMs = 30_000): Promise<{ code: number | string; output: string }> {
  const proc = startK8ts(args);
  const code = await new Promise<number | string>((resolve, reject) => {
    const timer = setTimeout(() => {
      proc.child.kill('SIGKILL');
      reject(new Error(`k8ts ${args.join(' ')} did not finish within ${timeoutMs} ms:\n${proc.output()}`));
    }, timeoutMs);
    proc.child.on('close', (c, s) => {
      clearTimeout(timer);
      resolve(c ?? s ?? 'unknown');
    });
  });
  return { code, output: proc.output() };
}
