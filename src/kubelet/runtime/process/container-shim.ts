/**
 * One container, supervised inside the shim daemon (shimd.ts). It plays the
 * part of containerd's shim or conmon for that container:
 *
 * - starts the container's command in a process group of its own (stop signals
 *   the whole group),
 * - holds the command's pipes and writes stdout/stderr to the container's log
 *   in the CRI format,
 * - records the pid and start time, then the exit code and finish time, in
 *   state.json (see state-files.ts),
 * - serves attach clients on a unix socket (see shim-protocol.ts),
 * - is done once the command has exited and its output is written.
 *
 * `shimPid` in state.json is the daemon's pid: the runtime reads a container
 * whose shim pid is gone without a recorded exit as killed.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { constants } from 'node:os';
import { dirname } from 'node:path';
import { nowNanos } from '../clock.js';
import { lowerPriority } from './cpu-priority.js';
import { CriLogStreamSplitter, type LogStreamName } from './cri-log.js';
import { encodeFrame, FRAME_EXIT, FRAME_STDERR, FRAME_STDOUT, type AttachHeader } from './shim-protocol.js';
import { attachSocketPath, containerFile, readJsonIfExists, shimStateFile, writeJsonAtomic, type ContainerRecord, type ShimState } from './state-files.js';
import { startErrorMessage } from './start-error.js';

/** How long to wait for the pipes to close after the process exited (a daemonised grandchild may hold them). */
const PIPE_DRAIN_MS = 2000;

export interface SupervisionEvents {
  /** The start is recorded in state.json: the command runs, or it could not be started (a StartError). */
  readonly started: () => void;
  /** The exit is recorded (after `started`); the container needs nothing more. */
  readonly done: () => void;
}

/**
 * Starts the container recorded in `dir` and supervises it. Throws when the
 * directory holds no container to run; the command's own start errors
 * (ENOENT, EACCES, a bad cwd) are recorded in state.json as a StartError.
 * The events come later, never before this returns.
 */
export function superviseContainer(dir: string, events: SupervisionEvents): void {
  const record = readJsonIfExists<ContainerRecord>(containerFile(dir));
  if (!record) throw new Error(`no container.json in ${dir}`);
  const [file, ...args] = record.argv;
  if (file === undefined) throw new Error('empty command');
  // An empty logPath means no log (as in containerd).
  if (record.logPath !== '') mkdirSync(dirname(record.logPath), { recursive: true });
  const logFd = openSync(record.logPath !== '' ? record.logPath : '/dev/null', 'a');
  const log = { write: (b: string | Buffer): void => void (typeof b === 'string' ? writeSync(logFd, b) : writeSync(logFd, b)) };
  const env = Object.fromEntries(record.env.map((kv) => [kv.key, kv.value]));

  const child = spawn(file, args, {
    cwd: record.workingDir,
    env,
    detached: true,
    stdio: [record.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });
  if (record.nice !== undefined && child.pid !== undefined) {
    const failed = lowerPriority(child.pid, record.nice);
    // Into the daemon's own log (shimd.log), not the container's CRI log.
    if (failed !== undefined) process.stderr.write(`shim: could not lower the priority of ${dir} to nice ${record.nice}: ${failed.message}\n`);
  }

  const clients = new Set<Socket>();
  /** Every attach connection, including one whose header has not arrived yet (it is not in `clients`). */
  const connections = new Set<Socket>();
  const broadcast = (type: number, payload: Buffer): void => {
    const frame = encodeFrame(type, payload);
    for (const c of clients) c.write(frame);
  };
  const splitters: CriLogStreamSplitter[] = [];
  const capture = (stream: NodeJS.ReadableStream | null, name: LogStreamName): void => {
    if (!stream) return;
    // With a tty, stderr is merged into stdout (there is no pty here; see README).
    const shownAs: LogStreamName = record.tty ? 'stdout' : name;
    const splitter = new CriLogStreamSplitter(shownAs, log);
    splitters.push(splitter);
    stream.on('data', (chunk: Buffer) => {
      splitter.push(chunk);
      broadcast(shownAs === 'stdout' ? FRAME_STDOUT : FRAME_STDERR, chunk);
    });
    stream.on('end', () => splitter.end());
  };

  // Half-open: a client that ends its stdin still receives output.
  const server = createServer({ allowHalfOpen: true }, (socket) => {
    let header: AttachHeader | undefined;
    let pending = Buffer.alloc(0);
    connections.add(socket);
    socket.on('error', () => clients.delete(socket));
    const stdinDone = (): void => {
      if (header?.stdin && record.stdinOnce) child.stdin?.end();
    };
    socket.on('end', stdinDone);
    socket.on('close', () => {
      clients.delete(socket);
      connections.delete(socket);
      stdinDone();
    });
    socket.on('data', (chunk: Buffer) => {
      if (header === undefined) {
        pending = Buffer.concat([pending, chunk]);
        const nl = pending.indexOf(0x0a);
        if (nl < 0) return;
        try {
          header = JSON.parse(pending.subarray(0, nl).toString('utf8')) as AttachHeader;
        } catch {
          socket.destroy();
          return;
        }
        clients.add(socket);
        chunk = pending.subarray(nl + 1);
        if (chunk.length === 0) return;
      }
      if (header.stdin && child.stdin && !child.stdin.writableEnded) child.stdin.write(chunk);
    });
  });
  server.on('error', (e) => log.write(`shim: attach socket: ${e.message}\n`));

  child.stdin?.on('error', () => undefined);
  child.on('error', (e: Error) => {
    // The command could not be started (ENOENT, EACCES, a bad cwd): containerd's StartError.
    const now = nowNanos().toString();
    const startError = `unable to start container process: ${startErrorMessage(file, record.workingDir, e)}`;
    const state: ShimState = { shimPid: process.pid, pid: 0, startedAt: now, finishedAt: now, exitCode: 128, startError };
    writeJsonAtomic(shimStateFile(dir), state);
    closeSync(logFd);
    events.started();
    events.done();
  });
  child.on('spawn', () => {
    const started: ShimState = { shimPid: process.pid, pid: child.pid ?? 0, startedAt: nowNanos().toString() };
    // A unix socket is bound and listening when listen() returns, so once state.json says
    // "running", attach can connect.
    server.listen(attachSocketPath(record.id));
    writeJsonAtomic(shimStateFile(dir), started);
    events.started();
    capture(child.stdout, 'stdout');
    capture(child.stderr, 'stderr');

    let exit: { finishedAt: string; exitCode: number; signal?: string } | undefined;
    let finished = false;
    let drainTimer: NodeJS.Timeout | undefined;
    const finish = (): void => {
      if (finished || !exit) return;
      finished = true;
      clearTimeout(drainTimer);
      child.stdout?.destroy();
      child.stderr?.destroy();
      child.stdin?.destroy();
      for (const s of splitters) s.end();
      closeSync(logFd);
      const final: ShimState = { ...started, ...exit };
      writeJsonAtomic(shimStateFile(dir), final);
      // Every connection gets the exit code and its end, also one accepted just before the exit whose
      // header was still on its way: left open, it would wait for a container that is gone.
      const exitFrame = encodeFrame(FRAME_EXIT, Buffer.from(String(exit.exitCode)));
      for (const c of connections) c.end(exitFrame);
      server.close();
      events.done();
    };
    child.on('exit', (code, signal) => {
      const exitCode = code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
      exit = { finishedAt: nowNanos().toString(), exitCode, ...(signal ? { signal } : {}) };
      drainTimer = setTimeout(finish, PIPE_DRAIN_MS);
    });
    child.on('close', finish);
  });
}
