/**
 * `k8ts apiserver --workers N`: one API server in N processes, so that it uses
 * more than one core (Node runs JavaScript on one thread; upstream's Go server
 * uses every core). The API server holds no state of its own, which is what
 * makes this possible, as it makes several upstream API servers behind a load
 * balancer possible:
 *
 * - The primary process (the one started) holds the store, binds the port and
 *   serves its share of the connections. Each accepted connection goes, in a
 *   weighted turn, to the primary itself or, still unread, to a worker (the
 *   socket is handed over on the IPC channel); TLS and HTTP/2 run in the
 *   process that got it, so one client's requests stay in one process.
 * - Each worker is a child process running the same command with the same
 *   flags (and the V8 flags of apiserver-v8-flags.ts, unless the primary was
 *   started with its own). With the embedded sqlite store, which one process
 *   must hold, its storage is a {@link RemoteStorage} on a socket pair to the
 *   primary, which serves it ({@link serveStorage}); with etcd, a worker opens
 *   etcd itself. Its caches (watch cache, informers of admission and
 *   authorization) are its own, fed by storage watches, as another upstream
 *   API server's would be.
 * - The primary takes one share of the connections and each worker two: the
 *   primary also does every worker's storage work.
 * - A worker that exits is started again; the primary stops its workers
 *   before itself; a worker whose primary is gone stops.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { Socket } from 'node:net';
import type { Logger } from '../machinery/logger.js';
import { API_SERVER_V8_FLAGS, withFlags } from './apiserver-v8-flags.js';
import type { Storage } from '../storage/interface.js';
import { RemoteStorage } from '../storage/remote/remote-storage.js';
import { serveStorage } from '../storage/remote/storage-server.js';

/** The environment variable that makes a `k8ts apiserver` process a worker (its value: the worker's number). */
export const WORKER_ENV = 'K8TS_APISERVER_WORKER';
/** The child's file descriptor of the storage socket pair. */
const STORAGE_FD = 4;
/** Primary → worker, with the socket: { [CONNECTION]: id }; worker → primary once it serves it: { [ACCEPTED]: id }. */
const CONNECTION = 'k8ts:connection';
const ACCEPTED = 'k8ts:accepted';
const READY_MESSAGE = 'k8ts:ready';
/** Connection shares: the primary's and each worker's. */
const PRIMARY_SHARE = 1;
const WORKER_SHARE = 2;
const RESTART_DELAY_MS = 1000;
const STOP_DEADLINE_MS = 20_000;

/** This process's worker number when it is a worker of another `k8ts apiserver`, else undefined. */
export function workerNumber(): number | undefined {
  const value = process.env[WORKER_ENV];
  return value === undefined || process.send === undefined ? undefined : Number(value);
}

/** A worker's storage: the primary's store, over the socket pair the primary opened. */
export function primaryStorage(): Storage {
  return new RemoteStorage(new Socket({ fd: STORAGE_FD, readable: true, writable: true }));
}

/**
 * The worker's side of the IPC channel, once its API server runs: it tells the
 * primary it is ready; connections then arrive through `accept`, and `stop`
 * runs when the primary is gone.
 */
export function serveHandedConnections(accept: (socket: Socket) => void, stop: () => void): void {
  process.on('message', (message: unknown, socket: unknown) => {
    const id = (message as Record<string, unknown> | null)?.[CONNECTION];
    if (typeof id !== 'number' || !(socket instanceof Socket)) return;
    accept(socket);
    process.send?.({ [ACCEPTED]: id });
  });
  process.on('disconnect', stop);
  process.send?.(READY_MESSAGE);
}

interface Worker {
  readonly number: number;
  child: ChildProcess;
  ready: boolean;
  /**
   * Sockets handed over and not yet acknowledged, with who serves them if the
   * worker dies first. The primary keeps its copy of each until then: a worker
   * killed while the socket was on its way would otherwise take the client's
   * connection with it, unanswered.
   */
  readonly handing: Map<number, { socket: Socket; serveHere: (socket: Socket) => void }>;
}

export interface WorkerPool {
  /** Hand `socket` to a ready worker when it is the workers' turn, else (or when the handover fails) to `serveHere`. */
  route(socket: Socket, serveHere: (socket: Socket) => void): void;
  /** Stop every worker (SIGTERM; SIGKILL after a deadline) and wait for their exits. */
  stop(): Promise<void>;
}

export interface WorkerPoolOptions {
  /** Workers besides the primary. */
  readonly count: number;
  /** The command line a worker runs: this process's own, with the port it bound. */
  readonly args: readonly string[];
  /** The store to serve to workers; undefined when they open it themselves (etcd). */
  readonly storage: Storage | undefined;
  readonly log: Logger;
}

export function startWorkerPool(options: WorkerPoolOptions): WorkerPool {
  const workers: Worker[] = [];
  let stopping = false;
  let turn = 0;
  let handovers = 0;

  const spawnWorker = (number: number): ChildProcess => {
    const child = spawn(process.execPath, [...withFlags(process.execArgv, API_SERVER_V8_FLAGS), ...options.args], {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc', 'pipe'],
      env: { ...process.env, [WORKER_ENV]: String(number) },
    });
    const storageSocket = child.stdio[STORAGE_FD] as Socket;
    if (options.storage !== undefined) serveStorage(options.storage, storageSocket);
    return child;
  };

  const watch = (worker: Worker): void => {
    worker.child.on('message', (message: unknown) => {
      const accepted = (message as Record<string, unknown> | null)?.[ACCEPTED];
      if (typeof accepted === 'number') {
        // The worker has its own copy of the socket now: close this process's (a close, not a shutdown).
        worker.handing.get(accepted)?.socket.destroy();
        worker.handing.delete(accepted);
      } else if (message === READY_MESSAGE) {
        worker.ready = true;
        options.log.info({ worker: worker.number, workerPid: worker.child.pid }, 'API server worker ready');
      }
    });
    worker.child.on('error', (error) => options.log.error({ err: error, worker: worker.number }, 'API server worker failed to start'));
    worker.child.once('exit', (code, signal) => {
      worker.ready = false;
      for (const { socket, serveHere } of worker.handing.values()) {
        if (stopping) socket.destroy();
        else serveHere(socket);
      }
      worker.handing.clear();
      if (stopping) return;
      options.log.error({ worker: worker.number, code, signal }, 'API server worker exited; starting it again');
      setTimeout(() => {
        if (stopping) return;
        worker.child = spawnWorker(worker.number);
        watch(worker);
      }, RESTART_DELAY_MS).unref();
    });
  };

  for (let n = 1; n <= options.count; n++) {
    const worker: Worker = { number: n, child: spawnWorker(n), ready: false, handing: new Map() };
    workers.push(worker);
    watch(worker);
  }

  return {
    route(socket, serveHere) {
      const ready = workers.filter((w) => w.ready && w.child.connected);
      const slot = turn++ % (PRIMARY_SHARE + WORKER_SHARE * ready.length);
      if (stopping || slot < PRIMARY_SHARE) return serveHere(socket);
      const worker = ready[Math.floor((slot - PRIMARY_SHARE) / WORKER_SHARE)]!;
      const id = ++handovers;
      const child = worker.child;
      worker.handing.set(id, { socket, serveHere });
      child.send({ [CONNECTION]: id }, socket, { keepOpen: true }, (error) => {
        // The worker went away before it got the socket (its exit is not reported yet): serve it here.
        if (error !== null && worker.child === child && worker.handing.delete(id)) serveHere(socket);
      });
    },
    async stop() {
      stopping = true;
      await Promise.all(
        workers.map(async (w) => {
          const child = w.child;
          if (child.exitCode !== null || child.signalCode !== null) return;
          const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
          child.kill('SIGTERM');
          const kill = setTimeout(() => child.kill('SIGKILL'), STOP_DEADLINE_MS);
          await exited;
          clearTimeout(kill);
        }),
      );
    },
  };
}
