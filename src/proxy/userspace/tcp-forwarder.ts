/**
 * One TCP listener of the userspace proxy (a cluster IP, node port or external
 * IP of one Service port): each accepted connection is joined to a connection
 * to an endpoint the picker chooses; when that endpoint refuses (or does not
 * answer within connectTimeoutMs), the next one is tried, each at most once.
 * Half-closes pass through both ways. Closing the listener stops new
 * connections; connections already joined live on (as conntrack entries do
 * under iptables) until closeAll.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';
import { endpointAddress, type EndpointPicker } from './endpoint-picker.js';

export interface TcpForwarderOptions {
  readonly ip: string;
  readonly port: number;
  /** The endpoints of this listener's Service port and traffic policy (swappable). */
  picker: EndpointPicker;
  /** Default 1 s. */
  readonly connectTimeoutMs?: number;
}

export class TcpForwarder {
  picker: EndpointPicker;
  private readonly server: Server;
  private readonly sockets = new Set<Socket>();
  private readonly connectTimeoutMs: number;

  private constructor(private readonly options: TcpForwarderOptions) {
    this.picker = options.picker;
    this.connectTimeoutMs = options.connectTimeoutMs ?? 1_000;
    this.server = createServer({ allowHalfOpen: true, pauseOnConnect: true, noDelay: true }, (client) => this.forward(client));
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
    for (const socket of this.sockets) socket.destroy();
  }

  private track(socket: Socket): void {
    this.sockets.add(socket);
    socket.once('close', () => this.sockets.delete(socket));
  }

  private forward(client: Socket): void {
    this.track(client);
    client.on('error', () => client.destroy());
    const clientIP = client.remoteAddress ?? '';
    const tried = new Set<string>();
    const attempt = (): void => {
      if (client.destroyed) return;
      const endpoint = this.picker.pick(clientIP, tried);
      if (endpoint === undefined) {
        client.destroy();
        return;
      }
      tried.add(endpointAddress(endpoint));
      const upstream = connect({ host: endpoint.ip, port: endpoint.port, allowHalfOpen: true, noDelay: true });
      const timer = setTimeout(() => upstream.destroy(new Error('connect timeout')), this.connectTimeoutMs);
      const failed = (): void => {
        clearTimeout(timer);
        upstream.destroy();
        attempt();
      };
      upstream.once('error', failed);
      upstream.once('connect', () => {
        clearTimeout(timer);
        upstream.off('error', failed);
        this.join(client, upstream);
      });
    };
    attempt();
  }

  /**
   * Copy bytes both ways with back-pressure and half-closes (what two pipe()
   * calls do, with fewer listeners per connection: this is the hot path).
   */
  private join(client: Socket, upstream: Socket): void {
    this.track(upstream);
    const oneWay = (from: Socket, to: Socket): void => {
      from.on('data', (chunk: Buffer) => {
        if (!to.write(chunk)) from.pause();
      });
      to.on('drain', () => from.resume());
      from.on('end', () => to.end());
    };
    oneWay(client, upstream);
    oneWay(upstream, client);
    upstream.on('error', () => {
      upstream.destroy();
      client.destroy();
    });
    client.on('error', () => upstream.destroy());
    client.once('close', () => upstream.destroy());
    upstream.once('close', () => {
      if (!client.writableEnded) client.destroy();
    });
    client.resume();
  }

  get address(): string {
    return `${this.options.ip}:${this.options.port}`;
  }
}
