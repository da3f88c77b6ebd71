/**
 * Forwards a query for a name outside the cluster domain to upstream
 * resolvers (CoreDNS's `forward . /etc/resolv.conf`), used only when the
 * operator names upstreams. Tries each `host:port` in turn over the client's
 * transport, each with a timeout; rejects when none answers.
 */
import { createSocket } from 'node:dgram';
import { connect, isIPv6 } from 'node:net';
import type { Forwarder, Transport } from './query-handler.js';

export interface Upstream {
  readonly host: string;
  readonly port: number;
}

/** `1.2.3.4`, `1.2.3.4:5353`, `[::1]:53` → host and port (53 when absent). */
export function parseUpstream(text: string): Upstream {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text);
  const plain = /^([^:]+)(?::(\d+))?$/.exec(text);
  const match = bracketed ?? (isIPv6(text) ? [text, text, undefined] : plain);
  const port = match?.[2] === undefined ? 53 : Number(match[2]);
  if (match === null || match[1] === undefined || !Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`invalid upstream resolver "${text}": want HOST or HOST:PORT`);
  }
  return { host: match[1], port };
}

function viaUdp(query: Buffer, upstream: Upstream, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIPv6(upstream.host) ? 'udp6' : 'udp4');
    const id = query.readUInt16BE(0);
    const finish = (error: Error | undefined, reply?: Buffer): void => {
      clearTimeout(timer);
      socket.close();
      if (error !== undefined) reject(error);
      else resolve(reply!);
    };
    const timer = setTimeout(() => finish(new Error(`no reply from ${upstream.host}:${upstream.port} within ${timeoutMs} ms`)), timeoutMs);
    socket.on('error', (e) => finish(e));
    socket.on('message', (reply) => {
      if (reply.length >= 2 && reply.readUInt16BE(0) === id) finish(undefined, reply);
    });
    socket.send(query, upstream.port, upstream.host);
  });
}

function viaTcp(query: Buffer, upstream: Upstream, timeoutMs: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: upstream.host, port: upstream.port });
    let buffered: Buffer = Buffer.alloc(0);
    const finish = (error: Error | undefined, reply?: Buffer): void => {
      clearTimeout(timer);
      socket.destroy();
      if (error !== undefined) reject(error);
      else resolve(reply!);
    };
    const timer = setTimeout(() => finish(new Error(`no reply from ${upstream.host}:${upstream.port} within ${timeoutMs} ms`)), timeoutMs);
    socket.on('error', (e) => finish(e));
    socket.on('connect', () => {
      const length = Buffer.alloc(2);
      length.writeUInt16BE(query.length);
      socket.write(Buffer.concat([length, query]));
    });
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) finish(undefined, buffered.subarray(2, 2 + buffered.readUInt16BE(0)));
    });
    socket.on('end', () => finish(new Error(`${upstream.host}:${upstream.port} closed the connection without a reply`)));
  });
}

export function newForwarder(options: { readonly upstreams: readonly Upstream[]; readonly timeoutMs?: number }): Forwarder {
  if (options.upstreams.length === 0) throw new Error('a forwarder needs at least one upstream resolver');
  const timeoutMs = options.timeoutMs ?? 2000;
  return async (query: Buffer, transport: Transport) => {
    const errors: string[] = [];
    for (const upstream of options.upstreams) {
      try {
        return await (transport === 'tcp' ? viaTcp : viaUdp)(query, upstream, timeoutMs);
      } catch (e: unknown) {
        errors.push(e instanceof Error ? e.message : String(e));
      }
    }
    throw new Error(`every upstream resolver failed: ${errors.join('; ')}`);
  };
}
