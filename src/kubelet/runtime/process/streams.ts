/**
 * Stream sessions of the process runtime.
 *
 * - exec: a child process in the container's environment, with pipes. There is
 *   no pty: with `tty` the command's stderr is merged into stdout and resize is
 *   ignored, so programs that test isatty() see pipes.
 * - attach: a connection to the shim's socket (see shim-protocol.ts).
 *
 * `exit` resolves with the command's or container's exit code (128 + signal
 * number when a signal ended it), or -1 when the session was closed first.
 */
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { constants } from 'node:os';
import { PassThrough } from 'node:stream';
import { RuntimeError, type StreamSession } from '../interface.js';
import { FrameDecoder, FRAME_EXIT, FRAME_STDERR, FRAME_STDOUT } from './shim-protocol.js';
import { startErrorMessage } from './start-error.js';

export interface ProcessContext {
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
}

export const exitCodeOf = (code: number | null, signal: NodeJS.Signals | null): number =>
  code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0);

/** Signals a process group, ignoring a group that is already gone. */
export function killGroup(pgid: number, signal: NodeJS.Signals): void {
  if (pgid <= 0) return;
  try {
    process.kill(-pgid, signal);
  } catch (e: unknown) {
    if ((e as NodeJS.ErrnoException).code !== 'ESRCH') throw e;
  }
}

export interface ExecStreamOptions {
  readonly cmd: readonly string[];
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tty: boolean;
}

export async function startExecSession(ctx: ProcessContext, options: ExecStreamOptions): Promise<StreamSession> {
  const [file, ...args] = options.cmd;
  if (file === undefined) throw new RuntimeError('InvalidArgument', 'exec: empty command');
  const wantStderr = options.stderr && !options.tty;
  const child = spawn(file, args, {
    cwd: ctx.cwd,
    env: ctx.env,
    detached: true,
    stdio: [options.stdin ? 'pipe' : 'ignore', options.stdout ? 'pipe' : 'ignore', wantStderr || (options.tty && options.stdout) ? 'pipe' : 'ignore'],
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', resolve);
    child.once('error', (e) => reject(new RuntimeError('Unknown', `exec failed: unable to start container process: ${startErrorMessage(file, ctx.cwd, e)}`, { cause: e })));
  });
  const stdout = options.stdout ? new PassThrough() : undefined;
  const stderr = wantStderr ? new PassThrough() : undefined;
  if (stdout && child.stdout) {
    if (options.tty && child.stderr) {
      // Merge both pipes into one stream; end it when both have ended.
      let open = 2;
      const done = (): void => void (--open === 0 && stdout.end());
      child.stdout.on('data', (c: Buffer) => stdout.write(c)).on('end', done);
      child.stderr.on('data', (c: Buffer) => stdout.write(c)).on('end', done);
    } else {
      child.stdout.pipe(stdout);
    }
  }
  if (stderr && child.stderr) child.stderr.pipe(stderr);
  child.stdin?.on('error', () => undefined);
  let closed = false;
  const exit = new Promise<number>((resolve) => {
    child.once('close', (code, signal) => resolve(closed ? -1 : exitCodeOf(code, signal)));
  });
  return {
    ...(child.stdin ? { stdin: child.stdin } : {}),
    ...(stdout ? { stdout } : {}),
    ...(stderr ? { stderr } : {}),
    resize: () => undefined,
    exit,
    close: () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      closed = true;
      killGroup(child.pid ?? 0, 'SIGKILL');
    },
  };
}

export interface AttachOptions {
  readonly socketPath: string;
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tty: boolean;
  /** The container's exit code if it has exited, read when the shim goes away without saying. */
  readonly exitCodeAfterClose: () => number | undefined;
}

export async function startAttachSession(options: AttachOptions): Promise<StreamSession> {
  const socket = connect(options.socketPath);
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', resolve);
    socket.once('error', (e) => reject(new RuntimeError('Unavailable', `attach: the container's shim does not answer: ${e.message}`, { cause: e })));
  });
  socket.write(`${JSON.stringify({ stdin: options.stdin })}\n`);
  const stdout = options.stdout ? new PassThrough() : undefined;
  const stderr = options.stderr && !options.tty ? new PassThrough() : undefined;
  let exitCode: number | undefined;
  let closed = false;
  const decoder = new FrameDecoder((type, payload) => {
    if (type === FRAME_STDOUT || (type === FRAME_STDERR && options.tty)) stdout?.write(payload);
    else if (type === FRAME_STDERR) stderr?.write(payload);
    else if (type === FRAME_EXIT) exitCode = Number(payload.toString('utf8'));
  });
  socket.on('data', (c: Buffer) => decoder.push(c));
  socket.on('error', () => undefined);
  const exit = new Promise<number>((resolve) => {
    socket.once('close', () => {
      stdout?.end();
      stderr?.end();
      resolve(exitCode ?? (closed ? -1 : (options.exitCodeAfterClose() ?? -1)));
    });
  });
  let stdin: PassThrough | undefined;
  if (options.stdin) {
    stdin = new PassThrough();
    stdin.on('data', (c: Buffer) => socket.write(c));
    stdin.on('end', () => socket.end());
  }
  return {
    ...(stdin ? { stdin } : {}),
    ...(stdout ? { stdout } : {}),
    ...(stderr ? { stderr } : {}),
    resize: () => undefined,
    exit,
    close: () => {
      closed = true;
      socket.destroy();
    },
  };
}
