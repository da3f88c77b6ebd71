/**
 * Helpers for tests of the example app (examples/hello/hello.js): start a
 * process that serves it (node on the file, or an image's launcher), wait for
 * its log lines, and talk HTTP to it without keep-alive.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { request } from 'node:http';
import { fileURLToPath } from 'node:url';

/** examples/hello/hello.js of this checkout (the compiled tests run from dist/test/e2e/examples/testing). */
export const HELLO_JS = fileURLToPath(new URL('../../../../../examples/hello/hello.js', import.meta.url));

export interface HelloProcess {
  readonly child: ChildProcess;
  output(): string;
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** Resolves with the exit code (or the signal's name) once the process has exited. */
  exited(): Promise<number | string>;
}

/** Starts `command args` with `env` added to this process's environment (POD_IP, PORT, …). */
export function startHelloProcess(command: string, args: readonly string[], env: Readonly<Record<string, string>>): HelloProcess {
  const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const listeners = new Set<() => void>();
  const onData = (c: Buffer): void => {
    text += c.toString();
    for (const l of listeners) l();
  };
  child.stdout!.on('data', onData);
  child.stderr!.on('data', onData);
  const exit = new Promise<number | string>((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal ?? -1)));
  return {
    child,
    output: () => text,
    exited: () => exit,
    waitForLine: (pattern, timeoutMs = 10_000) =>
      new Promise((resolve, reject) => {
        const check = (): boolean => {
          const line = text.split('\n').find((l) => pattern.test(l));
          if (line === undefined) return false;
          cleanup();
          resolve(line);
          return true;
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no line matching ${pattern} within ${timeoutMs} ms; output:\n${text}`));
        }, timeoutMs);
        const onExit = (): void => {
          if (check()) return;
          cleanup();
          reject(new Error(`exited before a line matching ${pattern}; output:\n${text}`));
        };
        const cleanup = (): void => {
          clearTimeout(timer);
          listeners.delete(listener);
          child.off('exit', onExit);
        };
        const listener = (): void => void check();
        if (check()) return;
        listeners.add(listener);
        child.on('exit', onExit);
      }),
  };
}

export interface HttpAnswer {
  readonly status: number;
  readonly body: string;
}

/** One request on a connection of its own. */
export function httpRequest(options: { host: string; port: number; method?: string; path: string }): Promise<HttpAnswer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: options.host, port: options.port, method: options.method ?? 'GET', path: options.path, agent: false }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** Runs a command to its end, with its output. */
export function runToEnd(command: string, args: readonly string[], env: Readonly<Record<string, string>>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}
