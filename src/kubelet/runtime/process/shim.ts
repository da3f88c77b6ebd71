/**
 * The container shim: `node shim.js <container dir>`, started detached (its own
 * session and process group) by the process runtime's startContainer, so that
 * it outlives the kubelet. It plays the part of containerd's shim or conmon:
 *
 * - starts the container's command in a process group of its own (stop signals
 *   the whole group),
 * - holds the command's pipes and writes stdout/stderr to the container's log
 *   in the CRI format,
 * - records the pid and start time, then the exit code and finish time, in
 *   state.json (see state-files.ts),
 * - serves attach clients on a unix socket (see shim-protocol.ts),
 * - exits once the command has exited and its output is written.
 */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { constants } from 'node:os';
import { dirname } from 'node:path';
import { nowNanos } from '../clock.js';
import { CriLogStreamSplitter, type LogStreamName } from './cri-log.js';
import { encodeFrame, FRAME_EXIT, FRAME_STDERR, FRAME_STDOUT, type AttachHeader } from './shim-protocol.js';
import {
  attachSocketPath,
  containerFile,
  readJsonIfExists,
  shimLogFile,
  shimStateFile,
  writeJsonAtomic,
  type ContainerRecord,
  type ShimState,
} from './state-files.js';

/** How long to wait for the pipes to close after the process exited (a daemonised grandchild may hold them). */
const PIPE_DRAIN_MS = 2000;

function main(dir: string): void {
  const record = readJsonIfExists<ContainerRecord>(containerFile(dir));
  if (!record) throw new Error(`no container.json in ${dir}`);
  // An empty logPath means no log (as in containerd).
  if (record.logPath !== '') mkdirSync(dirname(record.logPath), { recursive: true });
  const logFd = record.logPath !== '' ? openSync(record.logPath, 'a') : openSync('/dev/null', 'a');
  const log = { write: (b: string | Buffer): void => void (typeof b === 'string' ? writeSync(logFd, b) : writeSync(logFd, b)) };
  const env = Object.fromEntries(record.env.map((kv) => [kv.key, kv.value]));
  const [file, ...args] = record.argv;
  if (file === undefined) throw new Error('empty command');

  const child = spawn(file, args, {
    cwd: record.workingDir,
    env,
    detached: true,
    stdio: [record.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
  });

  const clients = new Set<Socket>();
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
    socket.on('error', () => clients.delete(socket));
    const stdinDone = (): void => {
      if (header?.stdin && record.stdinOnce) child.stdin?.end();
    };
    socket.on('end', stdinDone);
    socket.on('close', () => {
      clients.delete(socket);
      stdinDone();
    });
    socket.on('data', (chunk: Buffer) => {
      if (header === undefined) {
        pending = Buffer.concat([pending, chunk]);
        const nl = pending.indexOf(0x0a);
        if (nl < 0) return;
        header = JSON.parse(pending.subarray(0, nl).toString('utf8')) as AttachHeader;
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
    const state: ShimState = { shimPid: process.pid, pid: 0, startedAt: now, finishedAt: now, exitCode: 128, startError: e.message };
    writeJsonAtomic(shimStateFile(dir), state);
    closeSync(logFd);
    process.exit(0);
  });
  child.on('spawn', () => {
    const started: ShimState = { shimPid: process.pid, pid: child.pid ?? 0, startedAt: nowNanos().toString() };
    // A unix socket is bound and listening when listen() returns, so once state.json says
    // "running", attach can connect.
    server.listen(attachSocketPath(record.id));
    writeJsonAtomic(shimStateFile(dir), started);
    capture(child.stdout, 'stdout');
    capture(child.stderr, 'stderr');

    let exit: { finishedAt: string; exitCode: number; signal?: string } | undefined;
    let finished = false;
    const finish = (): void => {
      if (finished || !exit) return;
      finished = true;
      child.stdout?.destroy();
      child.stderr?.destroy();
      for (const s of splitters) s.end();
      closeSync(logFd);
      const final: ShimState = { ...started, ...exit };
      writeJsonAtomic(shimStateFile(dir), final);
      broadcast(FRAME_EXIT, Buffer.from(String(exit.exitCode)));
      for (const c of clients) c.end();
      server.close();
      process.exit(0);
    };
    child.on('exit', (code, signal) => {
      const exitCode = code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 0);
      exit = { finishedAt: nowNanos().toString(), exitCode, ...(signal ? { signal } : {}) };
      setTimeout(finish, PIPE_DRAIN_MS);
    });
    child.on('close', finish);
  });
}

/**
 * `--idle` (shim-pool.ts): booted ahead of need, the shim waits for its
 * container directory on stdin; it exits if stdin closes without one. Its
 * output so far went to the pool's log, so what follows goes to the
 * container's shim.log, as for a shim started with the directory.
 */
function waitForDirectory(): void {
  let input = '';
  const onData = (chunk: Buffer): void => {
    input += chunk.toString('utf8');
    const nl = input.indexOf('\n');
    if (nl < 0) return;
    process.stdin.off('data', onData);
    process.stdin.off('end', onEnd);
    process.stdin.destroy();
    const dir = input.slice(0, nl);
    process.chdir(dir);
    const shimLog = openSync(shimLogFile(dir), 'a');
    process.on('uncaughtException', (e) => {
      writeSync(shimLog, `${e.stack ?? String(e)}\n`);
      process.exit(1);
    });
    main(dir);
  };
  const onEnd = (): void => process.exit(0);
  process.stdin.on('data', onData);
  process.stdin.on('end', onEnd);
}

const dir = process.argv[2];
if (dir === '--idle') waitForDirectory();
else if (!dir) {
  process.stderr.write('usage: shim.js <container dir> | --idle\n');
  process.exit(2);
} else main(dir);
