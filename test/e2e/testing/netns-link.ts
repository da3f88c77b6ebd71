/**
 * TCP forwards between the machine's network namespace and one a test made,
 * so that a node living in its own namespace (containerd, its pods' bridge,
 * the kubelet) can reach the API server on the machine's loopback, and the
 * API server can reach that node's kubelet, without any route or address
 * outside 127.0.0.0/8: both ends of every forward are loopback addresses, one
 * in each namespace.
 *
 * How: a socket belongs to the namespace of the process that made it, and a
 * listening socket can be handed to another process over an IPC channel. A
 * small child (netns-link-child.ts) runs inside the namespace.
 * - outbound (namespace → machine): the child listens inside the namespace
 *   and hands the listener to us; we accept and connect on the machine.
 * - inbound (machine → namespace): we listen on the machine and hand the
 *   listener to the child; it accepts and connects inside the namespace.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { fileURLToPath } from 'node:url';

export type LinkRequest =
  | { readonly kind: 'listen'; readonly id: number; readonly host: string; readonly port: number }
  | { readonly kind: 'accept'; readonly id: number; readonly host: string; readonly port: number };

export type LinkReply =
  | { readonly kind: 'listening'; readonly id: number }
  | { readonly kind: 'accepting'; readonly id: number }
  | { readonly kind: 'failed'; readonly id: number; readonly message: string };

/** Pipe both ways; a reset on either side ends the other. */
export function splice(a: Socket, b: Socket): void {
  a.pipe(b);
  b.pipe(a);
  a.on('error', () => b.destroy());
  b.on('error', () => a.destroy());
  a.on('close', () => b.destroy());
  b.on('close', () => a.destroy());
}

const CHILD = fileURLToPath(new URL('./netns-link-child.js', import.meta.url));

export interface Forward {
  /** The address and port to listen on (in the namespace for outbound, on the machine for inbound). */
  readonly listenHost: string;
  readonly listenPort: number;
  /** Where each connection goes (on the machine for outbound, in the namespace for inbound). */
  readonly targetHost: string;
  readonly targetPort: number;
}

export interface NetnsLink {
  /** namespace → machine */
  outbound(forward: Forward): Promise<void>;
  /** machine → namespace */
  inbound(forward: Forward): Promise<void>;
  stop(): Promise<void>;
}

/** Start the child inside `/run/netns/<netns>`; add forwards with outbound/inbound. */
export async function startNetnsLink(netns: string): Promise<NetnsLink> {
  const child: ChildProcess = spawn('nsenter', [`--net=/run/netns/${netns}`, process.execPath, CHILD], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const servers: Server[] = [];
  const pending = new Map<number, { resolve: (handle: unknown) => void; reject: (e: Error) => void }>();
  let nextId = 1;
  let exited: string | undefined;
  // 'exit', not 'close': after disconnect() Node never emits 'close' for a child whose IPC channel we closed.
  const closed = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.once('error', (e) => (exited = e.message));
  child.once('exit', (code, signal) => {
    exited ??= `the netns link child exited (${signal ?? code})`;
    for (const p of pending.values()) p.reject(new Error(exited));
    pending.clear();
  });
  child.on('message', (reply: LinkReply, handle: unknown) => {
    const waiter = pending.get(reply.id);
    pending.delete(reply.id);
    if (reply.kind === 'failed') waiter?.reject(new Error(`netns ${netns}: ${reply.message}`));
    else waiter?.resolve(handle);
  });
  const ask = (request: LinkRequest, handle?: Server): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (exited !== undefined) return reject(new Error(exited));
      pending.set(request.id, { resolve, reject });
      if (handle === undefined) child.send(request);
      else child.send(request, handle);
    });

  return {
    async outbound(f) {
      const server = (await ask({ kind: 'listen', id: nextId++, host: f.listenHost, port: f.listenPort })) as Server;
      servers.push(server);
      server.on('connection', (socket) => splice(socket, connect(f.targetPort, f.targetHost)));
    },
    async inbound(f) {
      const server = createServer();
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(f.listenPort, f.listenHost, () => resolve());
      });
      try {
        await ask({ kind: 'accept', id: nextId++, host: f.targetHost, port: f.targetPort }, server);
      } finally {
        // The child holds its own copy now (or failed): ours must not accept.
        server.close();
      }
    },
    async stop() {
      for (const s of servers) s.close();
      if (child.exitCode === null && child.signalCode === null) {
        child.disconnect();
        const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
        await closed;
        clearTimeout(timer);
      }
    },
  };
}
