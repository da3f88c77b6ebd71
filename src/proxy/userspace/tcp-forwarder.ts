/**
 * One TCP listener of the userspace proxy (a cluster IP, node port or external
 * IP of one Service port): each accepted connection is joined to a connection
 * to an endpoint the picker chooses; when that endpoint refuses (or does not
 * answer within connectTimeoutMs), the next one is tried, each at most once.
 * Half-closes pass through both ways. Closing the listener stops new
 * connections; connections already joined live on (as conntrack entries do
 * under iptables) until closeAll.
 *
 * This is the proxy's hot path (a connection per request is the costly case),
 * so it works on Node's stream handles (the libuv TCP handles that net.Socket
 * wraps) rather than on net.Server and net.Socket: a forwarded connection is
 * three small objects and two handles, with no stream state machines, events,
 * ticks or buffers of its own. Every handle reads into one shared buffer; a
 * read is copied only into the one write it makes, and the write request
 * object is reused whenever the kernel takes the bytes at once (nearly
 * always: only a full socket buffer makes a write wait). On bench:proxy this
 * took the forwarder from about 320 to about 190 µs of CPU per connection,
 * what is left being nearly all system calls: those net makes, less a
 * setsockopt (accepted sockets inherit the listener's TCP_NODELAY on Linux)
 * and an epoll_ctl (the endpoint side starts reading with its connect).
 *
 * The handles come from process.binding (deprecated as documentation only,
 * DEP0111), whose allow-list has kept tcp_wrap, stream_wrap and uv; the tests
 * beside this file take every path through them, including the failures,
 * so a Node that changes them fails there first.
 */
import { constants as osConstants } from 'node:os';
import { getSystemErrorMap } from 'node:util';
import type { Endpoint } from '../interface.js';
import { endpointAddress, type EndpointPicker } from './endpoint-picker.js';

export interface TcpForwarderOptions {
  readonly ip: string;
  readonly port: number;
  /** The endpoints of this listener's Service port and traffic policy (swappable). */
  picker: EndpointPicker;
  /** Default 1 s. */
  readonly connectTimeoutMs?: number;
}

// ---- Node's stream handles: the part of their interface used here.

/** @internal a libuv TCP handle (tcp_wrap.TCP); methods return 0 or a negative errno. */
export interface TcpHandle {
  /** Called with `this` the handle; the outcome is in streamBaseState[kReadBytesOrError]. */
  onread: (this: TcpHandle) => void;
  /** Listeners: called with a status and the accepted handle. */
  onconnection: (status: number, handle?: TcpHandle) => void;
  /** Ours: the side of a forwarded connection this handle is. */
  side?: Side;
  bind(ip: string, port: number): number;
  bind6(ip: string, port: number, flags: number): number;
  listen(backlog: number): number;
  connect(req: ConnectRequest, ip: string, port: number): number;
  connect6(req: ConnectRequest, ip: string, port: number): number;
  setNoDelay(on: boolean): number;
  getpeername(out: { address?: string }): number;
  useUserBuffer(buffer: Uint8Array): void;
  readStart(): number;
  readStop(): number;
  writeBuffer(req: WriteRequest, data: Uint8Array): number;
  shutdown(req: ShutdownRequest): number;
  close(): void;
}

/** A request's completion is called with `this` the request. */
export interface ConnectRequest {
  oncomplete: (this: ConnectRequest, status: number, handle: TcpHandle) => void;
  connection?: ForwardedConnection;
}
export interface WriteRequest {
  oncomplete: (this: WriteRequest, status: number) => void;
  side?: Side | undefined;
  /** Kept alive while the write is in flight. */
  buffer?: Uint8Array | undefined;
}
export interface ShutdownRequest {
  oncomplete: (this: ShutdownRequest, status: number) => void;
  side?: Side;
}

const binding = (name: string): unknown => (process as unknown as { binding(name: string): unknown }).binding(name);
const tcpWrap = binding('tcp_wrap') as {
  TCP: new (type: number) => TcpHandle;
  TCPConnectWrap: new () => ConnectRequest;
  constants: { SOCKET: number; SERVER: number };
};
const streamWrap = binding('stream_wrap') as {
  WriteWrap: new () => WriteRequest;
  ShutdownWrap: new () => ShutdownRequest;
  streamBaseState: Int32Array;
  kReadBytesOrError: number;
  kLastWriteWasAsync: number;
};
const UV_EOF = (binding('uv') as { UV_EOF: number }).UV_EOF;
const { TCP, TCPConnectWrap, constants } = tcpWrap;
const { WriteWrap, ShutdownWrap, streamBaseState, kReadBytesOrError, kLastWriteWasAsync } = streamWrap;

const UV_EINVAL = -osConstants.errno.EINVAL;
const isPort = (port: number): boolean => Number.isInteger(port) && port >= 0 && port <= 65535;

/** Accepted sockets inherit the listener's TCP_NODELAY on Linux; elsewhere each is set. */
const noDelayInherited = process.platform === 'linux';

/**
 * What every handle reads into. Each read's bytes are copied into the write
 * that forwards them before the read callback returns.
 */
const readBuffer = Buffer.allocUnsafe(64 * 1024);

/**
 * The write request for the next write. A write the kernel takes at once
 * leaves it unused, so it serves the next one; a write that has to wait keeps
 * it until done, and a new one takes its place.
 */
let spareWrite = newWriteRequest();

function newWriteRequest(): WriteRequest {
  const req = new WriteWrap();
  req.oncomplete = afterWrite;
  return req;
}

/** Like net's errors: code, errno, syscall, address and port, and the message naming them. */
function uvError(errno: number, syscall: string, address: string, port: number): Error & { code: string } {
  const [code, text] = getSystemErrorMap().get(errno) ?? [`Unknown system error ${errno}`, 'unknown error'];
  return Object.assign(new Error(`${syscall} ${code}: ${text} ${address}:${port}`), { code, errno, syscall, address, port });
}

export class TcpForwarder {
  picker: EndpointPicker;
  readonly connectTimeoutMs: number;
  private readonly connections = new Set<ForwardedConnection>();
  private listening = true;

  private constructor(
    private readonly options: TcpForwarderOptions,
    private readonly handle: TcpHandle,
  ) {
    this.picker = options.picker;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 1_000;
    handle.onconnection = this.accept;
  }

  /**
   * @internal the listener's callback, with an accepted connection's handle
   * (tests give it handles of their own to fail the paths a kernel seldom takes).
   */
  readonly accept = (status: number, client?: TcpHandle): void => {
    // An accept that failed (EMFILE…) leaves nothing to forward; libuv keeps listening.
    if (status !== 0 || client === undefined) return;
    if (!noDelayInherited) client.setNoDelay(true);
    const connection = new ForwardedConnection(this, client);
    this.connections.add(connection);
    connection.attempt();
  };

  /** Listen on ip:port; rejects with the listen error (EADDRINUSE, EADDRNOTAVAIL…), shaped as net's. */
  static async listen(options: TcpForwarderOptions): Promise<TcpForwarder> {
    const { ip, port } = options;
    if (!isPort(port)) throw Object.assign(new RangeError(`Port should be >= 0 and < 65536. Received ${String(port)}.`), { code: 'ERR_SOCKET_BAD_PORT' });
    const handle = new TCP(constants.SERVER);
    let err = ip.includes(':') ? handle.bind6(ip, port, 0) : handle.bind(ip, port);
    if (err === 0) err = handle.setNoDelay(true);
    if (err === 0) err = handle.listen(511);
    if (err !== 0) {
      handle.close();
      throw uvError(err, 'listen', ip, port);
    }
    return new TcpForwarder(options, handle);
  }

  /** Stop accepting connections (those already joined go on). */
  close(): void {
    if (!this.listening) return;
    this.listening = false;
    this.handle.close();
  }

  /** Stop accepting and cut every connection. */
  closeAll(): void {
    this.close();
    for (const connection of this.connections) connection.abort();
  }

  /** Connections accepted and not yet closed on both sides (tests). */
  get connectionCount(): number {
    return this.connections.size;
  }

  /** @internal a connection whose handles are both closed. */
  forget(connection: ForwardedConnection): void {
    this.connections.delete(connection);
  }

  get address(): string {
    return `${this.options.ip}:${this.options.port}`;
  }
}

/**
 * One socket of a forwarded connection: what it has read to the end, what is
 * still being written to it, and whether its reading waits for the other
 * side's writes.
 */
class Side {
  /** The other socket: where this one's bytes go. Set right after both are made. */
  peer!: Side;
  /** Read to the end (its FIN received). */
  readEnded = false;
  /** Writes to this socket the kernel has not taken yet. */
  writes = 0;
  /** Reading stopped until the peer's writes are taken. */
  paused = false;
  closed = false;

  constructor(
    readonly connection: ForwardedConnection,
    public handle: TcpHandle,
  ) {}

  /** Start reading (the connection is joined). */
  read(): void {
    const err = this.handle.readStart();
    if (err !== 0) this.connection.abort();
  }

  /** This socket's bytes, in readBuffer: into one write to the peer; stop reading if it has to wait. */
  forward(length: number): void {
    const to = this.peer;
    if (to.closed) return;
    const chunk = Buffer.allocUnsafe(length);
    readBuffer.copy(chunk, 0, 0, length);
    const req = spareWrite;
    const err = to.handle.writeBuffer(req, chunk);
    if (err !== 0) {
      this.connection.abort();
      return;
    }
    if (streamBaseState[kLastWriteWasAsync] === 0) return;
    spareWrite = newWriteRequest();
    req.side = to;
    req.buffer = chunk;
    to.writes++;
    if (!this.paused) {
      this.paused = true;
      this.handle.readStop();
    }
  }

  /** A write to this socket is done: once none is left, the peer reads again, and this socket may be finished. */
  written(status: number): void {
    this.writes--;
    if (this.connection.closed) return;
    if (status < 0) {
      this.connection.abort();
      return;
    }
    if (this.writes > 0) return;
    const from = this.peer;
    if (from.paused && !from.closed) {
      from.paused = false;
      from.read();
    }
    this.closeIfFinished();
  }

  /**
   * This socket sent its FIN: pass it on. A peer that has already sent its
   * own FIN and has nothing left to write is closed (the close sends the same
   * FIN a shutdown would, in one step); otherwise it is shut down for
   * writing, after whatever is still queued for it.
   */
  ended(): void {
    this.readEnded = true;
    const to = this.peer;
    if (!to.closeIfFinished() && !to.closed && !to.readEnded) {
      const req = new ShutdownWrap();
      req.oncomplete = afterShutdown;
      req.side = to;
      if (to.handle.shutdown(req) !== 0) {
        this.connection.abort();
        return;
      }
    }
    this.closeIfFinished();
  }

  /** Close this socket if both ways are over: it read its FIN, the peer read its own, and every write to it is taken. */
  closeIfFinished(): boolean {
    if (this.closed || !this.readEnded || !this.peer.readEnded || this.writes > 0) return false;
    this.close();
    return true;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.handle.close();
    if (this.peer.closed) this.connection.finished();
  }
}

/** Every handle's read callback: `this` is the handle, the outcome in streamBaseState. */
function onRead(this: TcpHandle): void {
  const side = this.side!;
  const nread = streamBaseState[kReadBytesOrError]!;
  if (nread > 0) side.forward(nread);
  else if (nread === UV_EOF) side.ended();
  else if (nread < 0) side.connection.abort();
}

function afterWrite(this: WriteRequest, status: number): void {
  const side = this.side!;
  this.side = undefined;
  this.buffer = undefined;
  side.written(status);
}

function afterShutdown(this: ShutdownRequest, status: number): void {
  const side = this.side!;
  if (status < 0 && !side.closed) side.connection.abort();
}

function afterConnect(this: ConnectRequest, status: number, handle: TcpHandle): void {
  this.connection!.connected(status, handle);
}

/**
 * One accepted connection and its endpoint connection: first the attempts
 * (each endpoint at most once), then the copying both ways with back-pressure
 * and half-closes.
 */
class ForwardedConnection {
  readonly client: Side;
  /** The endpoint connection: the attempt in flight, then the joined one. */
  readonly upstream: Side;
  private upstreamEndpoint: Endpoint | undefined;
  private joined = false;
  /** An attempt's handle is open (before the connection is joined). */
  private connecting = false;
  closed = false;
  private timer: NodeJS.Timeout | undefined;
  /** Endpoints that refused this connection (made on the first refusal). */
  private tried: Set<string> | undefined;
  /** The client's IP, read only when the picker keeps session affinity. */
  private clientIP: string | undefined;

  constructor(
    private readonly forwarder: TcpForwarder,
    clientHandle: TcpHandle,
  ) {
    this.client = new Side(this, clientHandle);
    this.upstream = new Side(this, clientHandle); // its handle is set by each attempt
    this.client.peer = this.upstream;
    this.upstream.peer = this.client;
    clientHandle.side = this.client;
    clientHandle.onread = onRead;
    clientHandle.useUserBuffer(readBuffer);
  }

  /** Connect to the next endpoint the picker gives, or close the client when none is left. */
  attempt(): void {
    for (;;) {
      if (this.closed) return;
      const picker = this.forwarder.picker;
      if (this.clientIP === undefined && picker.sessionAffinity) {
        const peer: { address?: string } = {};
        this.client.handle.getpeername(peer);
        this.clientIP = peer.address ?? '';
      }
      const endpoint = picker.pick(this.clientIP ?? '', this.tried);
      if (endpoint === undefined) {
        this.abort();
        return;
      }
      this.upstreamEndpoint = endpoint;
      const handle = new TCP(constants.SOCKET);
      handle.side = this.upstream;
      handle.onread = onRead;
      handle.useUserBuffer(readBuffer);
      this.upstream.handle = handle;
      const req = new TCPConnectWrap();
      req.oncomplete = afterConnect;
      req.connection = this;
      const { ip, port } = endpoint;
      let err = handle.setNoDelay(true);
      // The handle's connect aborts the process on a port that is not a uint32 (net checks it first, and so must we).
      if (err === 0) err = !isPort(port) ? UV_EINVAL : ip.includes(':') ? handle.connect6(req, ip, port) : handle.connect(req, ip, port);
      this.connecting = true;
      // Reading starts with the attempt, so that libuv watches the socket for both at once (an epoll_ctl less than starting it once connected).
      if (err === 0) err = handle.readStart();
      if (err === 0) {
        this.timer = setTimeout(this.onConnectTimeout, this.forwarder.connectTimeoutMs);
        return;
      }
      // Refused at once (a bad address): the next endpoint.
      this.failed();
    }
  }

  /** An attempt's outcome; an abandoned attempt's (timed out, or the connection cut) is ignored. */
  connected(status: number, handle: TcpHandle): void {
    if (this.closed || this.joined || handle !== this.upstream.handle) return;
    clearTimeout(this.timer);
    if (status !== 0) {
      // Refused or unreachable: the next endpoint.
      this.failed();
      this.attempt();
      return;
    }
    this.joined = true;
    this.connecting = false;
    this.client.read();
  }

  /** The attempt in flight failed: close its handle and remember its endpoint. */
  private failed(): void {
    this.connecting = false;
    this.upstream.handle.close();
    (this.tried ??= new Set()).add(endpointAddress(this.upstreamEndpoint!));
  }

  private readonly onConnectTimeout = (): void => {
    if (this.closed || this.joined) return;
    this.failed();
    this.attempt();
  };

  /** Cut both sides (an error on either, no endpoint left, closeAll). */
  abort(): void {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.closed = true;
    if (!this.client.closed) {
      this.client.closed = true;
      this.client.handle.close();
    }
    if (this.joined ? !this.upstream.closed : this.connecting) {
      this.connecting = false;
      this.upstream.closed = true;
      this.upstream.handle.close();
    }
    this.forwarder.forget(this);
  }

  /** Both sockets closed in order. */
  finished(): void {
    this.closed = true;
    this.forwarder.forget(this);
  }
}
