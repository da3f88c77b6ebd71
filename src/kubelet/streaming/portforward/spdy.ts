/**
 * port-forward over SPDY/3.1 (directly after `Upgrade: SPDY/3.1`, or inside
 * WebSocket messages for SPDY/3.1+portforward.k8s.io): for each local
 * connection the client opens an error stream and a data stream with the
 * same port and requestID headers; once both are there the pod's port is
 * dialed (upstream's httpStreamHandler). Streams without a valid port or
 * streamType header are refused.
 */
import type { Duplex } from 'node:stream';
import { SpdySession, type SpdyStream } from '../spdy/session.js';
import { forwardPort } from './forward.js';

export interface PortForwardTarget {
  readonly podFullName: string;
  readonly podUid: string;
  readonly connect: (port: number) => Promise<NodeJS.ReadWriteStream>;
}

export interface SpdyPortForwardOptions extends PortForwardTarget {
  readonly transport: Duplex;
  readonly streamCreationTimeoutMs: number;
  readonly onError?: (error: Error) => void;
}

/** Upstream's checks of a new stream's headers. */
export function checkPortForwardHeaders(headers: Readonly<Record<string, readonly string[]>>): Error | undefined {
  const port = headers.port?.[0] ?? '';
  if (port === '') return new Error('"port" header is required');
  if (!/^\d+$/.test(port) || Number(port) > 65535) return new Error(`unable to parse "${port}" as a port`);
  if (Number(port) < 1) return new Error(`port "${port}" must be > 0`);
  const type = headers.streamtype?.[0] ?? '';
  if (type === '') return new Error('"streamType" header is required');
  if (type !== 'error' && type !== 'data') return new Error(`invalid stream type "${type}"`);
  return undefined;
}

interface Pair {
  data?: SpdyStream;
  error?: SpdyStream;
  timer: NodeJS.Timeout;
}

/** Serves port-forward streams until the connection ends; resolves then. */
export function serveSpdyPortForward(options: SpdyPortForwardOptions): Promise<void> {
  const pairs = new Map<string, Pair>();
  const requestId = (stream: SpdyStream): string => {
    const id = stream.header('requestid');
    if (id !== undefined && id !== '') return id;
    // Clients older than request ids: the error stream's id names the pair, the data stream follows it by 2.
    return String(stream.header('streamtype') === 'error' ? stream.id : stream.id - 2);
  };
  const session = new SpdySession(options.transport, {
    accept: (headers) => {
      const problem = checkPortForwardHeaders(headers);
      if (problem !== undefined) options.onError?.(problem);
      return problem;
    },
    onStream: (stream) => {
      const id = requestId(stream);
      let pair = pairs.get(id);
      if (pair === undefined) {
        const created: Pair = {
          timer: setTimeout(() => {
            pairs.delete(id);
            created.error?.end(`(conn=${options.podFullName}, request=${id}) timed out waiting for streams`);
            created.data?.reset();
          }, options.streamCreationTimeoutMs),
        };
        pair = created;
        pairs.set(id, pair);
      }
      const type = stream.header('streamtype') === 'error' ? 'error' : 'data';
      if (pair[type] !== undefined) {
        pair.error?.write(`error processing stream for request ${id}: ${type} stream already assigned`);
        stream.reset();
        return;
      }
      pair[type] = stream;
      if (pair.data !== undefined && pair.error !== undefined) {
        clearTimeout(pair.timer);
        pairs.delete(id);
        const port = Number(pair.data.header('port'));
        void forwardPort({
          data: pair.data,
          error: pair.error,
          port,
          podFullName: options.podFullName,
          podUid: options.podUid,
          connect: () => options.connect(port),
          endData: true,
        });
      }
    },
    ...(options.onError !== undefined ? { onError: options.onError } : {}),
  });
  return new Promise<void>((resolve) =>
    session.once('close', () => {
      for (const pair of pairs.values()) clearTimeout(pair.timer);
      resolve();
    }),
  );
}
