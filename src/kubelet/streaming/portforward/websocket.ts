/**
 * port-forward over a plain WebSocket (the JavaScript and Python clients):
 * the ports come from the `port` query parameters; for the i-th port,
 * channel 2i carries data both ways and channel 2i+1 errors, and the server's
 * first message on each is the port as two little-endian bytes. Each port is
 * dialed once; the WebSocket closes when every forward has ended.
 */
import { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { channelCodec } from '../websocket/channel-codec.js';
import { WebSocketChannels } from '../websocket/channels.js';
import { forwardPort } from './forward.js';
import type { PortForwardTarget } from './spdy.js';

export const PORTFORWARD_WEBSOCKET_PROTOCOLS = ['v4.channel.k8s.io', 'v4.base64.channel.k8s.io', 'portforward.k8s.io', 'channel.k8s.io', 'base64.channel.k8s.io'] as const;

/** Upstream's parsing of the `port` query parameters (each may list several, comma-separated). */
export function parsePortParams(values: readonly string[]): number[] | Error {
  if (values.length === 0) return new Error('query parameter "port" is required');
  const ports: number[] = [];
  for (const value of values) {
    if (value === '') return new Error('query parameter "port" cannot be empty');
    for (const p of value.split(',')) {
      if (!/^\d+$/.test(p) || Number(p) > 65535) return new Error(`unable to parse "${value}" as a port`);
      if (Number(p) < 1) return new Error(`port "${value}" must be > 0`);
      ports.push(Number(p));
    }
  }
  return ports;
}

export async function serveWebSocketPortForward(ws: WebSocket, protocol: string, ports: readonly number[], target: PortForwardTarget): Promise<void> {
  const channels = new WebSocketChannels(ws, channelCodec(protocol), ports.map((_, i) => 2 * i));
  const forwards = ports.map((port, i) => {
    const prefix = Buffer.alloc(2);
    prefix.writeUInt16LE(port);
    channels.send(2 * i, prefix);
    channels.send(2 * i + 1, prefix);
    const input = channels.reader(2 * i);
    const output = channels.writer(2 * i);
    const data = new Duplex({
      read: () => undefined,
      write: (chunk: Buffer, _encoding, callback) => output.write(chunk, callback),
    });
    input.on('data', (chunk: Buffer) => data.push(chunk));
    input.once('end', () => data.push(null));
    return forwardPort({
      data,
      error: channels.writer(2 * i + 1),
      port,
      podFullName: target.podFullName,
      podUid: target.podUid,
      connect: () => target.connect(port),
      endData: false,
    });
  });
  await Promise.race([Promise.all(forwards), channels.closed]);
  channels.close();
}
