/**
 * One forwarded connection: bytes from the client's data stream to the pod's
 * port and back. The client's end of input half-closes the pod connection;
 * the pod's end of output ends the data stream. A connection that cannot be
 * made is reported on the error stream with upstream's message.
 */
import type { Duplex, Writable } from 'node:stream';

export interface ForwardOptions {
  /** The client side: reads what the client sends, writes what the pod answers. */
  readonly data: Duplex;
  /** Where failures are reported (ended when the forward is over). */
  readonly error: Writable;
  readonly port: number;
  /** `<name>_<namespace>` and uid, for the error message. */
  readonly podFullName: string;
  readonly podUid: string;
  readonly connect: () => Promise<NodeJS.ReadWriteStream>;
  /** Whether ending the forward also ends the data stream (SPDY: FIN; WebSocket channels stay open). */
  readonly endData: boolean;
}

export async function forwardPort(options: ForwardOptions): Promise<void> {
  const { data, error } = options;
  let conn: NodeJS.ReadWriteStream;
  try {
    conn = await options.connect();
  } catch (e: unknown) {
    const reason = e instanceof Error ? e.message : String(e);
    await new Promise<void>((resolve) =>
      error.end(`error forwarding port ${options.port} to pod ${options.podFullName}, uid ${options.podUid}: ${reason}`, () => resolve()),
    );
    if (options.endData && !data.writableEnded) data.end();
    return;
  }
  const socket = conn as NodeJS.ReadWriteStream & { destroy?: () => void; on(event: string, listener: (...args: unknown[]) => void): unknown };
  await new Promise<void>((resolve) => {
    let done = false;
    const finish = (): void => {
      if (done) return;
      done = true;
      if (options.endData && !data.writableEnded && !data.destroyed) data.end();
      if (!error.writableEnded) error.end();
      resolve();
    };
    data.on('data', (chunk: Buffer) => conn.write(chunk));
    data.once('end', () => conn.end());
    data.once('close', () => {
      // The client reset the stream or the connection went away.
      if (!data.readableEnded) socket.destroy?.();
    });
    conn.on('data', (chunk: Buffer) => {
      if (!data.writableEnded && !data.destroyed) data.write(chunk);
    });
    conn.once('end', finish);
    socket.on('close', finish);
    socket.on('error', finish);
  });
}
