/**
 * The process runtime's side of the shim daemon (shimd.ts): finds the
 * daemon of its state directory, or starts one, and asks it to start
 * containers. One connection serves every start; it neither keeps the
 * kubelet's process alive nor is needed by running containers (a kubelet
 * killed with SIGKILL leaves the daemon and its containers running, and its
 * successor connects to the same daemon).
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { jsonLines, shimdSocketName, type ShimdReply } from './shimd-protocol.js';

export interface ShimdClientOptions {
  /** The daemon's script (shimd.js). */
  readonly script: string;
  readonly stateDir: string;
  /** Where a daemon started here writes its stdout and stderr. */
  readonly logFile: string;
  /** How long a start may wait for the daemon to accept connections (ms). */
  readonly connectTimeoutMs: number;
}

interface PendingStart {
  readonly resolve: () => void;
  readonly reject: (e: Error) => void;
}

/** The longest wait between two attempts to reach a daemon that is booting. */
const CONNECT_RETRY_MAX_MS = 100;

export class ShimdClient {
  private readonly socketName: string;
  private connection: Socket | undefined;
  private connecting: Promise<Socket> | undefined;
  /** Starts sent on the current connection and not yet answered, by container directory. */
  private readonly pending = new Map<string, PendingStart>();
  private closed = false;

  constructor(private readonly options: ShimdClientOptions) {
    this.socketName = shimdSocketName(options.stateDir);
  }

  /** Connects now (booting the daemon if none runs), so that the first start does not wait for the boot. */
  warmUp(): void {
    this.connect().catch(() => undefined);
  }

  /**
   * Starts the container whose directory is `dir`: resolves once its start is
   * recorded in its state.json (which may hold a StartError); rejects when the
   * daemon could not be reached, found nothing to start, or ended first.
   */
  async start(dir: string): Promise<void> {
    const socket = await this.connect();
    await new Promise<void>((resolve, reject) => {
      this.pending.set(dir, { resolve, reject });
      // While a start waits for its answer, the connection keeps the process alive.
      socket.ref();
      socket.write(`${JSON.stringify({ start: dir })}\n`);
    });
  }

  /** Ends the connection: a daemon with no container left then exits; one with containers goes on. */
  close(): void {
    this.closed = true;
    this.connection?.end();
  }

  private connect(): Promise<Socket> {
    if (this.connection !== undefined && !this.connection.destroyed) return Promise.resolve(this.connection);
    this.connecting ??= this.open().finally(() => (this.connecting = undefined));
    return this.connecting;
  }

  private async open(): Promise<Socket> {
    const deadline = Date.now() + this.options.connectTimeoutMs;
    let booted = false;
    let wait = 5;
    for (;;) {
      if (this.closed) throw new Error('the process runtime is closed');
      try {
        const socket = await this.tryConnect();
        this.use(socket);
        return socket;
      } catch (e: unknown) {
        // Nobody listens (ECONNREFUSED on an abstract socket): boot a daemon once, then wait for it to listen.
        if (!booted) {
          this.boot();
          booted = true;
        }
        if (Date.now() > deadline) {
          throw new Error(`the shim daemon did not accept a connection (${e instanceof Error ? e.message : String(e)}; see ${this.options.logFile})`);
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
        wait = Math.min(wait * 2, CONNECT_RETRY_MAX_MS);
      }
    }
  }

  private tryConnect(): Promise<Socket> {
    return new Promise((resolve, reject) => {
      const socket = connect(this.socketName);
      socket.once('connect', () => {
        socket.off('error', reject);
        resolve(socket);
      });
      socket.once('error', reject);
    });
  }

  private use(socket: Socket): void {
    this.connection = socket;
    socket.unref();
    socket.on('error', () => undefined);
    socket.on(
      'data',
      jsonLines<ShimdReply>(
        (reply) => {
          const start = this.pending.get(reply.dir);
          if (start === undefined) return;
          this.pending.delete(reply.dir);
          if (this.pending.size === 0) socket.unref();
          if (reply.error === undefined) start.resolve();
          else start.reject(new Error(reply.error));
        },
        () => undefined,
      ),
    );
    socket.on('close', () => {
      if (this.connection === socket) this.connection = undefined;
      for (const start of this.pending.values()) start.reject(new Error(`the shim daemon ended (see ${this.options.logFile})`));
      this.pending.clear();
    });
  }

  /**
   * Starts a daemon, detached (its own session) so that it outlives the
   * kubelet. spawn() blocks this thread until the daemon has exec'd: once per
   * kubelet start, and again only if a daemon died.
   */
  private boot(): void {
    const log = openSync(this.options.logFile, 'a');
    try {
      const child = spawn(process.execPath, [this.options.script, this.options.stateDir], { detached: true, stdio: ['ignore', log, log] });
      child.on('error', () => undefined);
      child.unref();
    } finally {
      closeSync(log);
    }
  }
}
