/**
 * The shim daemon: `node shimd.js STATE_DIR [CONNECT_WAIT_MS]`, one per process-runtime state
 * directory (one per node), started detached (its own session) by the runtime
 * (shimd-client.ts) so that it outlives the kubelet, as containerd does. It
 * supervises every container of the node (container-shim.ts): the containers
 * are its children, their pipes and logs are its, and their exits are
 * recorded by it.
 *
 * Why one process per node rather than a shim process per container: a shim
 * is mostly a Node.js boot (tens of milliseconds of CPU on a quiet machine,
 * well over 100 ms on a busy one) and tens of megabytes of memory, for each
 * container; thirty pods starting at once paid for thirty boots on the
 * critical path. The daemon boots once, when the kubelet starts.
 *
 * It exits once no runtime is connected and no container is left to
 * supervise (or when no runtime connects within CONNECT_WAIT_MS of its start),
 * and at once if another daemon already holds the state directory's socket.
 * An error in one container's handling is written to the daemon's log (its
 * stdout and stderr) and does not end the others' supervision.
 */
import { appendFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { superviseContainer } from './container-shim.js';
import { jsonLines, shimdSocketName, type ShimdReply, type ShimdRequest } from './shimd-protocol.js';
import { shimLogFile } from './state-files.js';

const [stateDir, connectWaitText = '10000'] = process.argv.slice(2);
/** How long a daemon nobody connects to waits before it exits. */
const CONNECT_WAIT_MS = Number(connectWaitText);
if (!stateDir || !Number.isFinite(CONNECT_WAIT_MS)) {
  process.stderr.write('usage: shimd.js STATE_DIR [CONNECT_WAIT_MS]\n');
  process.exit(2);
}

let supervised = 0;
const runtimes = new Set<Socket>();
const exitIfUnused = (): void => {
  if (supervised === 0 && runtimes.size === 0) process.exit(0);
};
const noConnection = setTimeout(exitIfUnused, CONNECT_WAIT_MS);

process.on('uncaughtException', (e) => {
  process.stderr.write(`${new Date().toISOString()} shimd: ${e.stack ?? String(e)}\n`);
});

/** Starts the container in `dir`; `reply` once its start (or why there is none) is recorded. */
function start(dir: string, reply: (message: ShimdReply) => void): void {
  try {
    superviseContainer(dir, {
      started: () => reply({ dir }),
      done: () => {
        supervised--;
        exitIfUnused();
      },
    });
    supervised++;
  } catch (e: unknown) {
    const message = e instanceof Error ? e.message : String(e);
    try {
      appendFileSync(shimLogFile(dir), `${new Date().toISOString()} ${message}\n`);
    } catch {
      // no such directory: the reply says it all
    }
    reply({ dir, error: message });
  }
}

const server = createServer((socket) => {
  clearTimeout(noConnection);
  runtimes.add(socket);
  socket.on('error', () => undefined);
  socket.on('close', () => {
    runtimes.delete(socket);
    exitIfUnused();
  });
  socket.on(
    'data',
    jsonLines<ShimdRequest>(
      (request) => {
        if (typeof request.start !== 'string') return;
        start(request.start, (reply) => {
          if (!socket.destroyed) socket.write(`${JSON.stringify(reply)}\n`);
        });
      },
      (line) => process.stderr.write(`shimd: not a request: ${line.slice(0, 200)}\n`),
    ),
  );
});
server.on('error', (e: NodeJS.ErrnoException) => {
  // Another daemon holds this state directory: it supervises the node.
  if (e.code === 'EADDRINUSE') process.exit(0);
  process.stderr.write(`shimd: ${e.message}\n`);
  process.exit(1);
});
server.listen(shimdSocketName(stateDir));
