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
 * so a forwarded connection is one object with a fixed set of listeners, and
 * the endpoint side reads into one shared buffer (net's onread) instead of a
 * fresh 64 KiB buffer and a stream 'data' event per read.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
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

/**
 * What every endpoint connection reads into. Each read's bytes are copied out
 * before its callback returns (a write may hold its chunk until the socket
 * drains), so one buffer serves every connection of the process.
 */
const endpointReadBuffer = Buffer.allocUnsafe(64 * 1024);

export class TcpForwarder {
  picker: EndpointPicker;
  readonly connectTimeoutMs: number;
  private readonly server: Server;
  private readonly connections = new Set<ForwardedConnection>();

  private constructor(private readonly options: TcpForwarderOptions) {
    this.picker = options.picker;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 1_000;
    this.server = createServer({ allowHalfOpen: true, pauseOnConnect: true, noDelay: true }, (client) => {
      const connection = new ForwardedConnection(this, client);
      this.connections.add(connection);
      connection.attempt();
    });
  }

  /** Listen on ip:port; rejects with the listen error (EADDRINUSE, EADDRNOTAVAIL…). */
  static async listen(options: TcpForwarderOptions): Promise<TcpForwarder> {
    const forwarder = new TcpForwarder(options);
    await new Promise<void>((resolve, reject) => {
      forwarder.server.once('error', reject);
      forwarder.server.listen({ host: options.ip, port: options.port, exclusive: true }, () => {
        forwarder.server.off('error', reject);
        resolve();
      });
    });
    return forwarder;
  }

  /** Stop accepting connections (those already joined go on). */
  close(): void {
    this.server.close();
  }

  /** Stop accepting and cut every connection. */
  closeAll(): void {
    this.server.close();
    for (const connection of this.connections) connection.destroy();
  }

  /** Connections accepted and not yet closed on both sides (tests). */
  get connectionCount(): number {
    return this.connections.size;
  }

  /** @internal a connection whose sockets have both closed. */
  forget(connection: ForwardedConnection): void {
    this.connections.delete(connection);
  }

  get address(): string {
    return `${this.options.ip}:${this.options.port}`;
  }
}

/**
 * One accepted connection and its endpoint connection: first the attempts
 * (each endpoint at most once), then the copying both ways with back-pressure
 * and half-closes. The listeners are fields, made once per connection.
 */
class ForwardedConnection {
  /** The endpoint connection: the attempt in flight, then the joined one. */
  private upstream: Socket | undefined;
  private upstreamEndpoint: Endpoint | undefined;
  private joined = false;
  private clientClosed = false;
  private upstreamClosed = false;
  private timer: NodeJS.Timeout | undefined;
  /** Endpoints that refused this connection (made on the first refusal). */
  private tried: Set<string> | undefined;
  /** The client's IP, read only when the picker keeps session affinity. */
  private clientIP: string | undefined;

  constructor(
    private readonly forwarder: TcpForwarder,
    private readonly client: Socket,
  ) {
    client.on('error', this.onClientError);
    client.on('close', this.onClientClose);
  }

  /** Connect to the next endpoint the picker gives, or close the client when none is left. */
  attempt(): void {
    if (this.client.destroyed) return;
    const picker = this.forwarder.picker;
    if (this.clientIP === undefined && picker.sessionAffinity) this.clientIP = this.client.remoteAddress ?? '';
    const endpoint = picker.pick(this.clientIP ?? '', this.tried);
    if (endpoint === undefined) {
      this.client.destroy();
      return;
    }
    this.upstreamEndpoint = endpoint;
    const upstream = connect({
      host: endpoint.ip,
      port: endpoint.port,
      allowHalfOpen: true,
      noDelay: true,
      onread: { buffer: endpointReadBuffer, callback: this.onUpstreamData },
    });
    this.upstream = upstream;
    upstream.on('error', this.onUpstreamError);
    upstream.once('connect', this.onUpstreamConnect);
    this.timer = setTimeout(this.onConnectTimeout, this.forwarder.connectTimeoutMs);
  }

  /** Cut both sides (closeAll). */
  destroy(): void {
    this.client.destroy();
    this.upstream?.destroy();
  }

  private readonly onConnectTimeout = (): void => {
    this.upstream?.destroy(new Error('connect timeout'));
  };

  private readonly onUpstreamConnect = (): void => {
    clearTimeout(this.timer);
    this.joined = true;
    const upstream = this.upstream!;
    upstream.on('end', this.onUpstreamEnd);
    upstream.on('close', this.onUpstreamClose);
    this.client.on('data', this.onClientData);
    this.client.on('end', this.onClientEnd);
    this.client.resume();
  };

  private readonly onUpstreamError = (): void => {
    if (this.joined) {
      this.client.destroy();
      return;
    }
    // Refused, unreachable or timed out: the next endpoint.
    clearTimeout(this.timer);
    this.upstream!.destroy();
    this.upstream = undefined;
    (this.tried ??= new Set()).add(endpointAddress(this.upstreamEndpoint!));
    this.attempt();
  };

  private readonly onClientData = (chunk: Buffer): void => {
    if (this.upstream!.write(chunk)) return;
    this.client.pause();
    this.upstream!.once('drain', this.resumeClient);
  };

  /** The endpoint's bytes, in the shared buffer: copied, then written to the client. */
  private readonly onUpstreamData = (length: number, buffer: Uint8Array): boolean => {
    const chunk = Buffer.allocUnsafe(length);
    chunk.set(length === buffer.length ? buffer : buffer.subarray(0, length));
    if (this.client.write(chunk)) return true;
    this.client.once('drain', this.resumeUpstream);
    return false; // stops reading until the client drains
  };

  private readonly resumeClient = (): void => {
    this.client.resume();
  };

  private readonly resumeUpstream = (): void => {
    this.upstream!.resume();
  };

  /**
   * The client half-closed: pass it on. When the endpoint has already
   * finished sending and every byte is handed to the kernel, closing the
   * socket sends the same FIN as a shutdown would, in one step.
   */
  private readonly onClientEnd = (): void => {
    const upstream = this.upstream!;
    if (upstream.readableEnded && upstream.writableLength === 0) upstream.destroy();
    else upstream.end();
  };

  /** The endpoint half-closed: pass it on (closing at once when the client had already finished, as above). */
  private readonly onUpstreamEnd = (): void => {
    if (this.client.readableEnded && this.client.writableLength === 0) this.client.destroy();
    else this.client.end();
  };

  private readonly onClientError = (): void => {
    clearTimeout(this.timer);
    this.upstream?.destroy();
  };

  /** The client is gone: an endpoint connection not given its FIN is cut (a pending attempt is abandoned). */
  private readonly onClientClose = (): void => {
    this.clientClosed = true;
    clearTimeout(this.timer);
    const upstream = this.upstream;
    if (upstream === undefined || !this.joined) {
      upstream?.destroy();
      this.forwarder.forget(this);
      return;
    }
    if (!upstream.writableEnded) upstream.destroy();
    if (this.upstreamClosed) this.forwarder.forget(this);
  };

  /** The endpoint connection is gone: a client not given its FIN is cut. */
  private readonly onUpstreamClose = (): void => {
    this.upstreamClosed = true;
    if (!this.client.writableEnded) this.client.destroy();
    if (this.clientClosed) this.forwarder.forget(this);
  };
}
