/**
 * exec, attach and port-forward through containerd's streaming server, as
 * kubectl's clients speak to a kubelet: SPDY/3.1 (spdy-client.ts) with the
 * remotecommand protocol v4.channel.k8s.io (streams named by a `streamType`
 * header: error, stdin, stdout, stderr, resize; the error stream ends with a
 * metav1.Status whose ExitCode cause is the exit code) and portforward.k8s.io
 * (an error and a data stream per port and request id).
 */
import { Duplex } from 'node:stream';
import type { StreamSession } from '../interface.js';
import { connectSpdy, type SpdyStream } from './spdy-client.js';

export const REMOTECOMMAND_V4 = 'v4.channel.k8s.io';
export const PORTFORWARD_V1 = 'portforward.k8s.io';

interface V4Status {
  readonly status?: string;
  readonly message?: string;
  readonly reason?: string;
  readonly details?: { readonly causes?: readonly { readonly reason?: string; readonly message?: string }[] };
}

/**
 * The exit code a v4 error stream reports: 0 for Success (or nothing at all),
 * the ExitCode cause of a NonZeroExitCode failure, else undefined (a failure
 * without a code; `message` says why).
 */
export function exitCodeOfStatus(text: string): { code: number | undefined; message: string } {
  if (text.trim() === '') return { code: 0, message: '' };
  let status: V4Status;
  try {
    status = JSON.parse(text) as V4Status;
  } catch {
    return { code: undefined, message: text.trim() };
  }
  if (status.status === 'Success') return { code: 0, message: '' };
  const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode');
  const code = cause?.message !== undefined && /^\d+$/.test(cause.message) ? Number(cause.message) : undefined;
  return { code, message: status.message ?? text.trim() };
}

async function readText(stream: SpdyStream): Promise<string> {
  const chunks: Buffer[] = [];
  try {
    for await (const c of stream) chunks.push(Buffer.from(c as Buffer));
  } catch {
    // a reset error stream ends the session like an empty one
  }
  return Buffer.concat(chunks).toString('utf8');
}

export interface RemoteCommandOptions {
  readonly stdin: boolean;
  readonly stdout: boolean;
  readonly stderr: boolean;
  readonly tty: boolean;
  /** When the status carries no exit code (attach says only Success): where to find it. */
  readonly exitCodeAfter?: () => Promise<number | undefined>;
}

/** A remotecommand session (exec or attach) on a streaming URL. */
export async function openRemoteCommand(url: string, options: RemoteCommandOptions): Promise<StreamSession> {
  const session = await connectSpdy(url, [REMOTECOMMAND_V4]);
  const open = (streamType: string): SpdyStream => session.openStream({ streamtype: streamType });
  const error = open('error');
  const stdin = options.stdin ? open('stdin') : undefined;
  const stdout = options.stdout ? open('stdout') : undefined;
  const stderr = options.stderr && !options.tty ? open('stderr') : undefined;
  const resize = options.tty ? open('resize') : undefined;
  // The server never writes to these; end our reading side so nothing waits on them.
  stdin?.resume();
  resize?.resume();
  const exit = (async () => {
    const { code, message } = exitCodeOfStatus(await readText(error));
    const outputs = [stdout, stderr].filter((s) => s !== undefined).map((s) => new Promise<void>((resolve) => (s.readableEnded ? resolve() : s.once('end', resolve).once('close', resolve))));
    await Promise.race([Promise.all(outputs), session.closed]);
    session.close();
    if (code !== undefined) {
      if (code === 0 && options.exitCodeAfter) return (await options.exitCodeAfter()) ?? 0;
      return code;
    }
    throw new Error(`the command failed without an exit code: ${message}`);
  })();
  exit.catch(() => undefined);
  return {
    ...(stdin ? { stdin } : {}),
    ...(stdout ? { stdout } : {}),
    ...(stderr ? { stderr } : {}),
    resize: (size) => {
      resize?.write(JSON.stringify({ Width: size.width, Height: size.height }));
    },
    exit,
    close: () => session.close(),
  };
}

/**
 * A byte stream to `port` of the sandbox, through a port-forward URL. The
 * server reports a failed connection (nothing listens) on the error stream
 * and ends the data stream; then the stream fails with that message instead
 * of just ending. The SPDY session closes with the stream.
 */
export async function openPortForward(url: string, port: number): Promise<NodeJS.ReadWriteStream> {
  const session = await connectSpdy(url, [PORTFORWARD_V1]);
  const error = session.openStream({ streamtype: 'error', port: String(port), requestid: '0' });
  const data = session.openStream({ streamtype: 'data', port: String(port), requestid: '0' });
  const failure = readText(error);
  const stream = new Duplex({
    allowHalfOpen: true,
    read: () => {
      data.resume();
    },
    write: (chunk: Buffer, _encoding, callback) => {
      data.write(chunk, callback);
    },
    final: (callback) => {
      data.end(callback);
    },
    destroy: (err, callback) => {
      session.close();
      callback(err);
    },
  });
  data.on('data', (chunk: Buffer) => {
    if (!stream.push(chunk)) data.pause();
  });
  data.once('end', () => {
    void failure.then((text) => {
      if (text.trim() !== '') stream.destroy(new Error(`port-forward to port ${port}: ${text.trim()}`));
      else stream.push(null);
    });
  });
  stream.once('end', () => {
    if (stream.writableFinished) session.close();
  });
  stream.once('finish', () => {
    if (stream.readableEnded) session.close();
  });
  return stream;
}
