/**
 * exec and attach over SPDY/3.1 (kubectl up to 1.29, and later ones when
 * WebSockets fail): after the 101, the client opens one stream per channel,
 * named by its streamType header (error, stdin, stdout, stderr, resize); the
 * session starts once every stream the request's flags call for has arrived
 * (upstream's waitForStreams), or gives up after the stream creation timeout.
 */
import type { Duplex } from 'node:stream';
import { SpdySession, type SpdyStream } from '../spdy/session.js';
import { remoteCommandVersion } from '../protocols.js';
import type { RemoteCommandStreams } from './serve.js';
import { encodeStatus } from './status.js';

export interface RemoteCommandFlags {
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tty: boolean;
}

export interface SpdyRemoteCommandOptions {
  /** The upgraded connection (the 101 already written). */
  readonly transport: Duplex;
  /** The negotiated X-Stream-Protocol-Version. */
  readonly protocol: string;
  readonly flags: RemoteCommandFlags;
  readonly streamCreationTimeoutMs: number;
  readonly onError?: (error: Error) => void;
}

/** The client's streams, once all have arrived; undefined if they did not arrive in time (the connection is then closed). */
export function acceptSpdyRemoteCommandStreams(options: SpdyRemoteCommandOptions): Promise<RemoteCommandStreams | undefined> {
  const version = remoteCommandVersion(options.protocol);
  const { flags } = options;
  const expected = 1 + Number(flags.stdin) + Number(flags.stdout) + Number(flags.stderr) + Number(flags.tty && version >= 3);
  const byType = new Map<string, SpdyStream>();
  let received = 0;
  return new Promise((resolve) => {
    let settled = false;
    const session = new SpdySession(options.transport, {
      onStream: (stream) => {
        const type = stream.header('streamtype') ?? '';
        if (['error', 'stdin', 'stdout', 'stderr', 'resize'].includes(type)) byType.set(type, stream);
        else options.onError?.(new Error(`unexpected stream type: "${type}"`));
        received++;
        if (received === expected && !settled) {
          settled = true;
          clearTimeout(timer);
          resolve(streamsOf(session, byType, version));
        }
      },
      ...(options.onError !== undefined ? { onError: options.onError } : {}),
    });
    const timer = setTimeout(() => {
      if (settled) return;
      settled = true;
      options.onError?.(new Error('timed out waiting for client to create streams'));
      session.close();
      resolve(undefined);
    }, options.streamCreationTimeoutMs);
    session.once('close', () => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(undefined);
    });
  });
}

function streamsOf(session: SpdySession, byType: ReadonlyMap<string, SpdyStream>, version: number): RemoteCommandStreams {
  const error = byType.get('error');
  const stdin = byType.get('stdin');
  // Version 1 clients never close stdin: upstream closes it at once.
  if (version === 1) stdin?.end();
  const stdout = byType.get('stdout');
  const stderr = byType.get('stderr');
  const resize = byType.get('resize');
  return {
    ...(stdin !== undefined && version > 1 ? { stdin } : {}),
    ...(stdout !== undefined ? { stdout } : {}),
    ...(stderr !== undefined ? { stderr } : {}),
    ...(resize !== undefined ? { resize } : {}),
    writeStatus: (status) =>
      new Promise<void>((resolve) => {
        const bytes = encodeStatus(status, version);
        if (error === undefined || error.destroyed || error.writableEnded) {
          resolve();
          return;
        }
        if (bytes === undefined) error.end(() => resolve());
        else error.end(bytes, () => resolve());
      }),
    close: () => session.close(),
    closed: new Promise<void>((resolve) => session.once('close', () => resolve())),
  };
}
