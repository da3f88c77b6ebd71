/**
 * The DNS listeners: one UDP socket and one TCP server (RFC 1035 §4.2.2
 * two-byte length framing, several queries per connection) on the same
 * address and port. Port 0 picks a port free for both.
 */
import { createSocket, type Socket } from 'node:dgram';
import { createServer, isIPv6, type Server, type Socket as NetSocket } from 'node:net';
import type { QueryHandler } from './query-handler.js';

export interface DnsServerOptions {
  readonly host: string;
  readonly port: number;
  readonly handle: QueryHandler;
  /** A handler that threw (a bug: the query goes unanswered). */
  readonly onError?: (error: unknown) => void;
  /** A TCP connection idle this long is closed (default 10 s, as CoreDNS's read timeout). */
  readonly tcpIdleTimeoutMs?: number;
}

export interface DnsServer {
  readonly host: string;
  readonly port: number;
  close(): Promise<void>;
}

/** How often port 0 is retried when the TCP side of a free UDP port is taken. */
const PORT_ATTEMPTS = 10;

function bindUdp(host: string, port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createSocket({ type: isIPv6(host) ? 'udp6' : 'udp4' });
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      resolve(socket);
    });
  });
}

function listenTcp(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

export async function startDnsServer(options: DnsServerOptions): Promise<DnsServer> {
  const family = isIPv6(options.host) ? '2' : '1';
  const onError = options.onError ?? (() => undefined);
  const idleMs = options.tcpIdleTimeoutMs ?? 10_000;
  const connections = new Set<NetSocket>();
  const tcp = createServer((connection) => {
    connections.add(connection);
    connection.on('close', () => connections.delete(connection));
    connection.setTimeout(idleMs, () => connection.destroy());
    connection.on('error', () => connection.destroy());
    let buffered: Buffer = Buffer.alloc(0);
    connection.on('data', (chunk: Buffer) => {
      buffered = buffered.length === 0 ? chunk : Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const message = buffered.subarray(2, 2 + buffered.readUInt16BE(0));
        buffered = buffered.subarray(2 + message.length);
        options.handle(Buffer.from(message), { transport: 'tcp', family }).then(
          (reply) => {
            if (reply === undefined || connection.destroyed) return;
            const length = Buffer.alloc(2);
            length.writeUInt16BE(reply.length);
            connection.write(Buffer.concat([length, reply]));
          },
          (e: unknown) => onError(e),
        );
      }
    });
  });

  let udp: Socket | undefined;
  let lastError: unknown;
  for (let attempt = 0; attempt < (options.port === 0 ? PORT_ATTEMPTS : 1); attempt++) {
    const socket = await bindUdp(options.host, options.port);
    try {
      await listenTcp(tcp, options.host, socket.address().port);
      udp = socket;
      break;
    } catch (e: unknown) {
      lastError = e;
      socket.close();
    }
  }
  if (udp === undefined) throw lastError instanceof Error ? lastError : new Error(String(lastError));
  const socket = udp;
  socket.on('message', (message, remote) => {
    options.handle(message, { transport: 'udp', family }).then(
      (reply) => {
        if (reply !== undefined) socket.send(reply, remote.port, remote.address);
      },
      (e: unknown) => onError(e),
    );
  });
  socket.on('error', (e) => onError(e));
  const port = socket.address().port;
  return {
    host: options.host,
    port,
    close: async () => {
      await Promise.all([
        new Promise<void>((resolve) => socket.close(() => resolve())),
        new Promise<void>((resolve) => {
          tcp.close(() => resolve());
          // Open connections would hold close() until their idle timeout.
          for (const c of connections) c.destroy();
        }),
      ]);
    },
  };
}

