/**
 * The tcpSocket handler (upstream pkg/probe/tcp): success when a TCP
 * connection opens within the timeout (it is closed at once); otherwise a
 * failure with Go's dial error (`dial tcp 10.0.0.5:80: i/o timeout`).
 */
import net from 'node:net';
import { goDialError, joinHostPort } from './go-format.js';
import { failure, success, type ProbeOutcome } from './probe-outcome.js';

export interface TcpProbeOptions {
  readonly host: string;
  readonly port: number;
  readonly timeoutMs: number;
}

export function tcpProbe({ host, port, timeoutMs }: TcpProbeOptions): Promise<ProbeOutcome> {
  const address = joinHostPort(host, port);
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(failure(goDialError(address, undefined, true)));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      socket.destroy();
      resolve(success());
    });
    socket.once('error', (e) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(failure(goDialError(address, e)));
    });
  });
}
