/**
 * One UDP listener of the userspace proxy. UDP has no connections, so, as
 * upstream's userspace proxy did, each client address gets a session: a
 * socket connected to the endpoint the picker chose, whose replies are sent
 * back to the client from the Service's address. A session ends after
 * idleTimeoutMs without traffic (upstream's --udp-timeout, default 250 ms), or
 * when its endpoint refuses (ICMP port unreachable): the client's next
 * datagram then goes to the next endpoint.
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { isIPv6 } from 'node:net';
import type { EndpointPicker } from './endpoint-picker.js';

export interface UdpForwarderOptions {
  readonly ip: string;
  readonly port: number;
  picker: EndpointPicker;
  /** Default 250 ms (upstream's --udp-timeout). */
  readonly idleTimeoutMs?: number;
}

interface Session {
  readonly socket: Socket;
  connected: boolean;
  readonly queue: Buffer[];
  timer: NodeJS.Timeout;
}

export class UdpForwarder {
  picker: EndpointPicker;
  private readonly socket: Socket;
  private readonly sessions = new Map<string, Session>();
  private readonly idleTimeoutMs: number;

  private constructor(private readonly options: UdpForwarderOptions) {
    this.picker = options.picker;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 250;
    this.socket = createSocket({ type: isIPv6(options.ip) ? 'udp6' : 'udp4' });
    this.socket.on('message', (msg, rinfo) => this.onClientMessage(msg, rinfo));
  }

  static async listen(options: UdpForwarderOptions): Promise<UdpForwarder> {
    const forwarder = new UdpForwarder(options);
    await new Promise<void>((resolve, reject) => {
      forwarder.socket.once('error', reject);
      forwarder.socket.bind({ address: options.ip, port: options.port, exclusive: true }, () => {
        forwarder.socket.off('error', reject);
        forwarder.socket.on('error', () => undefined);
        resolve();
      });
    });
    return forwarder;
  }

  close(): void {
    this.closeAll();
  }

  closeAll(): void {
    for (const key of [...this.sessions.keys()]) this.endSession(key);
    this.socket.close();
  }

  private onClientMessage(msg: Buffer, client: RemoteInfo): void {
    const key = `${client.address}|${client.port}`;
    const session = this.sessions.get(key) ?? this.openSession(key, client);
    if (session === undefined) return;
    this.touch(key, session);
    if (session.connected) session.socket.send(msg);
    else session.queue.push(msg);
  }

  private openSession(key: string, client: RemoteInfo): Session | undefined {
    const endpoint = this.picker.pick(client.address);
    if (endpoint === undefined) return undefined;
    const socket = createSocket({ type: isIPv6(endpoint.ip) ? 'udp6' : 'udp4' });
    const session: Session = { socket, connected: false, queue: [], timer: setTimeout(() => this.endSession(key), this.idleTimeoutMs) };
    this.sessions.set(key, session);
    socket.on('error', () => this.endSession(key));
    socket.on('message', (reply) => {
      this.touch(key, session);
      this.socket.send(reply, client.port, client.address);
    });
    socket.connect(endpoint.port, endpoint.ip, () => {
      session.connected = true;
      for (const msg of session.queue.splice(0)) socket.send(msg);
    });
    return session;
  }

  private touch(key: string, session: Session): void {
    clearTimeout(session.timer);
    session.timer = setTimeout(() => this.endSession(key), this.idleTimeoutMs);
  }

  private endSession(key: string): void {
    const session = this.sessions.get(key);
    if (session === undefined) return;
    this.sessions.delete(key);
    clearTimeout(session.timer);
    try {
      session.socket.close();
    } catch {
      // already closed
    }
  }

  get address(): string {
    return `${this.options.ip}:${this.options.port}`;
  }
}
