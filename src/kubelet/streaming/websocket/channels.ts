/**
 * Channels over one WebSocket (upstream's wsstream.Conn): a Readable per
 * channel the client writes to, a Writable per channel the server writes to,
 * each message framed by the negotiated subprotocol's codec.
 */
import { PassThrough, Writable } from 'node:stream';
import type { WebSocket } from 'ws';
import { decodeChannelMessage, encodeChannelMessage, type ChannelCodec } from './channel-codec.js';

export class WebSocketChannels {
  private readonly readers = new Map<number, PassThrough>();
  /** Resolves when the WebSocket has closed. */
  readonly closed: Promise<void>;

  constructor(
    private readonly ws: WebSocket,
    readonly codec: ChannelCodec,
    /** Channels the client may write to. */
    readable: readonly number[],
    onInvalid: (reason: string) => void = () => undefined,
  ) {
    for (const channel of readable) this.readers.set(channel, new PassThrough());
    ws.on('message', (data: Buffer | ArrayBuffer | Buffer[]) => {
      const message = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
      const decoded = decodeChannelMessage(codec, message);
      if (decoded.kind === 'invalid') onInvalid(decoded.reason);
      else if (decoded.kind === 'close') this.readers.get(decoded.channel)?.end();
      else this.readers.get(decoded.channel)?.write(decoded.data);
    });
    this.closed = new Promise<void>((resolve) => {
      ws.once('close', () => {
        for (const reader of this.readers.values()) reader.end();
        resolve();
      });
    });
    ws.on('error', () => undefined);
  }

  reader(channel: number): PassThrough {
    const reader = this.readers.get(channel);
    if (reader === undefined) throw new Error(`channel ${channel} is not readable`);
    return reader;
  }

  /** A Writable whose writes become messages on `channel`; ending it sends nothing (the protocol has no server close signal). */
  writer(channel: number): Writable {
    const writer = new Writable({
      write: (chunk: Buffer, _encoding, callback) => this.send(channel, chunk, callback),
    });
    writer.on('error', () => undefined);
    return writer;
  }

  send(channel: number, data: Buffer, callback?: (error?: Error | null) => void): void {
    if (this.ws.readyState !== this.ws.OPEN) {
      callback?.();
      return;
    }
    this.ws.send(encodeChannelMessage(this.codec, channel, data), { binary: this.codec.binary }, (e) => callback?.(e ?? null));
  }

  close(): void {
    if (this.ws.readyState === this.ws.OPEN) this.ws.close(1000);
  }
}
