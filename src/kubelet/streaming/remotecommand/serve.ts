/**
 * One exec or attach session bridged between the client's streams (SPDY
 * streams or WebSocket channels, see spdy.ts and websocket.ts) and the
 * runtime's StreamSession: stdin in, stdout and stderr out, terminal sizes to
 * resize(); when the command (exec) or the attach ends, the outputs are
 * finished, the Status goes on the error stream, and the connection closes.
 * A client that goes away closes the session.
 */
import type { Readable, Writable } from 'node:stream';
import type { StreamSession } from '../../runtime/interface.js';
import { exitCodeStatus, internalErrorStatus, successStatus, type StreamStatus } from './status.js';

export interface RemoteCommandStreams {
  readonly stdin?: Readable;
  readonly stdout?: Writable;
  readonly stderr?: Writable;
  /** TerminalSize objects as JSON ({"Width":80,"Height":24}), one after another. */
  readonly resize?: Readable;
  writeStatus(status: StreamStatus): Promise<void>;
  close(): void;
  /** Resolves when the connection to the client has ended. */
  readonly closed: Promise<void>;
}

export interface TerminalSize {
  readonly width: number;
  readonly height: number;
}

/** Reads concatenated JSON objects from a stream of text. */
export class TerminalSizeParser {
  private text = '';

  push(chunk: string): TerminalSize[] {
    this.text += chunk;
    const sizes: TerminalSize[] = [];
    for (;;) {
      const start = this.text.indexOf('{');
      if (start < 0) {
        this.text = '';
        return sizes;
      }
      const end = this.text.indexOf('}', start);
      if (end < 0) {
        this.text = this.text.slice(start);
        return sizes;
      }
      const candidate = this.text.slice(start, end + 1);
      this.text = this.text.slice(end + 1);
      try {
        const parsed = JSON.parse(candidate) as { Width?: unknown; Height?: unknown };
        if (typeof parsed.Width === 'number' && typeof parsed.Height === 'number') sizes.push({ width: parsed.Width, height: parsed.Height });
      } catch {
        // Not a size: skip it, as upstream's decoder loop stops on garbage without failing the session.
      }
    }
  }
}

function drained(source: NodeJS.ReadableStream | undefined, sink: Writable | undefined): Promise<void> {
  if (source === undefined) return Promise.resolve();
  return new Promise<void>((resolve) => {
    source.on('data', (chunk: Buffer) => {
      if (sink !== undefined && !sink.destroyed && !sink.writableEnded) sink.write(chunk);
    });
    source.once('end', () => resolve());
    source.once('close', () => resolve());
    source.once('error', () => resolve());
  });
}

function finish(sink: Writable | undefined): Promise<void> {
  if (sink === undefined || sink.destroyed || sink.writableEnded) return Promise.resolve();
  return new Promise<void>((resolve) => {
    sink.end(() => resolve());
    sink.once('error', () => resolve());
    sink.once('close', () => resolve());
  });
}

export interface RemoteCommandOptions {
  readonly streams: RemoteCommandStreams;
  /** Starts the runtime's session (runtime.exec or runtime.attach). */
  readonly open: () => Promise<StreamSession>;
  /** exec reports the exit code; attach reports Success once it ends. */
  readonly kind: 'exec' | 'attach';
  /** The command, for the exit-code message (exec). */
  readonly command: readonly string[];
}

export async function serveRemoteCommand(options: RemoteCommandOptions): Promise<void> {
  const { streams } = options;
  let session: StreamSession;
  try {
    session = await options.open();
  } catch (e: unknown) {
    const message = e instanceof Error ? e.message : String(e);
    const what = options.kind === 'exec' ? 'error executing command in container' : 'error attaching to container';
    await streams.writeStatus(internalErrorStatus(`${what}: ${message}`));
    streams.close();
    return;
  }
  let clientGone = false;
  void streams.closed.then(() => {
    clientGone = true;
    session.close();
  });
  if (streams.stdin !== undefined) {
    const target = session.stdin;
    streams.stdin.on('data', (chunk: Buffer) => target?.write(chunk));
    streams.stdin.once('end', () => target?.end());
    streams.stdin.on('error', () => undefined);
  }
  if (streams.resize !== undefined) {
    const parser = new TerminalSizeParser();
    streams.resize.on('data', (chunk: Buffer) => {
      for (const size of parser.push(chunk.toString('utf8'))) session.resize(size);
    });
    streams.resize.on('error', () => undefined);
  }
  const outputs = Promise.all([drained(session.stdout, streams.stdout), drained(session.stderr, streams.stderr)]);
  const exitCode = await session.exit;
  await outputs;
  if (clientGone) return;
  await Promise.all([finish(streams.stdout), finish(streams.stderr)]);
  const status = options.kind === 'exec' && exitCode > 0 ? exitCodeStatus(exitCode, options.command) : successStatus();
  await streams.writeStatus(status);
  streams.close();
}
