/**
 * A SPDY/3.1 session over a byte stream (a hijacked TLS socket, or the byte
 * stream of a WebSocket for SPDY/3.1+portforward.k8s.io), on the server side
 * as the kubelet's streaming server runs it: the client opens streams
 * (SYN_STREAM with headers such as streamType and port), the session replies
 * (SYN_REPLY) to each one its handler accepts and refuses the others
 * (RST_STREAM), and each accepted stream is a Duplex: reads are the client's
 * DATA frames up to FIN, writes become DATA frames, end() sends FIN.
 *
 * Flow control: Go's spdystream (kubectl's side) never sends WINDOW_UPDATE
 * and ignores the ones it gets, so this session neither enforces nor
 * advertises windows; SETTINGS and WINDOW_UPDATE are read and ignored, as
 * spdystream does. PINGs from the peer are echoed. GOAWAY from the peer stops
 * new streams; close() sends GOAWAY and ends the transport.
 */
import { EventEmitter } from 'node:events';
import { Duplex } from 'node:stream';
import {
  decodeHeaderBlock,
  encodeFrame,
  encodeHeaderBlock,
  FLAG_FIN,
  FLAG_UNIDIRECTIONAL,
  FrameReader,
  GOAWAY_STATUS,
  HeaderCompressor,
  HeaderDecompressor,
  RST_STATUS,
  SpdyProtocolError,
  type SpdyFrame,
  type SpdyHeaders,
} from './framer.js';

/** DATA frames this side sends carry at most this much (Go's spdystream reads any size up to 16 MiB). */
const MAX_DATA_CHUNK = 32 * 1024;

export class SpdyStream extends Duplex {
  /** Set when the peer reset the stream (its RST_STREAM status). */
  resetStatus: number | undefined;
  private localClosed = false;
  private remoteClosed = false;

  constructor(
    readonly id: number,
    readonly headers: Readonly<Record<string, readonly string[]>>,
    private readonly session: SpdySession,
  ) {
    super({ allowHalfOpen: true });
  }

  /** The first value of a header (names are lower-case). */
  header(name: string): string | undefined {
    return this.headers[name.toLowerCase()]?.[0];
  }

  override _read(): void {
    // Data is pushed as frames arrive.
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.localClosed) {
      callback(new Error(`write on SPDY stream ${this.id} after it was closed`));
      return;
    }
    this.session.sendData(this.id, chunk, false, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (this.localClosed) {
      callback();
      return;
    }
    this.localClosed = true;
    this.session.sendData(this.id, Buffer.alloc(0), true, (e) => {
      this.maybeDone();
      callback(e);
    });
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.localClosed = true;
    this.remoteClosed = true;
    this.session.forget(this.id);
    callback(error);
  }

  /** Abort the stream: RST_STREAM to the peer (CANCEL by default), and destroy it here. */
  reset(status: number = RST_STATUS.CANCEL): void {
    if (this.destroyed) return;
    this.session.sendFrame({ type: 'RST_STREAM', streamId: this.id, status });
    this.destroy();
  }

  /** @internal DATA from the peer. */
  receive(data: Buffer, fin: boolean): void {
    if (this.remoteClosed) return;
    if (data.length > 0) this.push(data);
    if (fin) this.remoteFinished();
  }

  /** @internal FIN from the peer. */
  remoteFinished(): void {
    if (this.remoteClosed) return;
    this.remoteClosed = true;
    this.push(null);
    this.maybeDone();
  }

  /** @internal The peer reset the stream. */
  remoteReset(status: number): void {
    this.resetStatus = status;
    this.remoteClosed = true;
    this.localClosed = true;
    this.push(null);
    this.destroy();
  }

  /** @internal The stream was opened half-closed on this side (FLAG_UNIDIRECTIONAL). */
  markLocalClosed(): void {
    this.localClosed = true;
  }

  private maybeDone(): void {
    if (this.localClosed && this.remoteClosed) this.session.forget(this.id);
  }
}

export interface SpdySessionOptions {
  /** Whether to accept a new stream, from its headers: an Error refuses it (RST_STREAM REFUSED_STREAM, no SYN_REPLY). */
  readonly accept?: (headers: SpdyHeaders) => Error | void;
  /** An accepted stream; its SYN_REPLY has been sent, so the handler may write at once. */
  readonly onStream: (stream: SpdyStream) => void;
  /** A protocol error or a transport failure ended the session. */
  readonly onError?: (error: Error) => void;
}

interface SpdySessionEvents {
  close: [];
}

export class SpdySession extends EventEmitter<SpdySessionEvents> {
  private readonly reader = new FrameReader();
  private readonly compressor = new HeaderCompressor();
  private readonly decompressor = new HeaderDecompressor();
  private readonly streams = new Map<number, SpdyStream>();
  private lastPeerStreamId = 0;
  private goneAway = false;
  private closed = false;
  private frames: Promise<void> = Promise.resolve();

  constructor(
    private readonly transport: Duplex,
    private readonly options: SpdySessionOptions,
  ) {
    super();
    transport.on('data', (chunk: Buffer) => this.onBytes(chunk));
    transport.on('end', () => this.shutdown());
    transport.on('close', () => this.shutdown());
    transport.on('error', (e: Error) => {
      this.options.onError?.(e);
      this.shutdown();
    });
  }

  /** Streams still open. */
  get openStreams(): number {
    return this.streams.size;
  }

  private onBytes(chunk: Buffer): void {
    if (this.closed) return;
    let frames: SpdyFrame[];
    try {
      frames = this.reader.push(chunk);
    } catch (e: unknown) {
      this.fail(e);
      return;
    }
    for (const frame of frames) {
      this.frames = this.frames.then(() => this.handle(frame)).catch((e: unknown) => this.fail(e));
    }
  }

  private fail(e: unknown): void {
    if (this.closed) return;
    const error = e instanceof Error ? e : new Error(String(e));
    this.options.onError?.(error);
    if (!this.transport.destroyed) {
      this.transport.write(encodeFrame({ type: 'GOAWAY', lastGoodStreamId: this.lastPeerStreamId, status: GOAWAY_STATUS.PROTOCOL_ERROR }));
      this.transport.end();
    }
    this.shutdown();
  }

  private async handle(frame: SpdyFrame): Promise<void> {
    if (this.closed) return;
    switch (frame.type) {
      case 'SYN_STREAM': {
        // Decompress first: the compression context moves on with every block, even a refused stream's.
        const headers = decodeHeaderBlock(await this.decompressor.decompress(frame.headerBlock));
        if (frame.streamId % 2 === 0 || frame.streamId <= this.lastPeerStreamId) {
          throw new SpdyProtocolError(`stream id ${frame.streamId} is not a new client stream id`);
        }
        this.lastPeerStreamId = frame.streamId;
        if (this.goneAway) {
          this.sendFrame({ type: 'RST_STREAM', streamId: frame.streamId, status: RST_STATUS.REFUSED_STREAM });
          return;
        }
        const refused = this.options.accept?.(headers);
        if (refused instanceof Error) {
          this.sendFrame({ type: 'RST_STREAM', streamId: frame.streamId, status: RST_STATUS.REFUSED_STREAM });
          return;
        }
        const stream = new SpdyStream(frame.streamId, headers, this);
        // A write racing the connection's end must not become an uncaught 'error'.
        stream.on('error', () => undefined);
        this.streams.set(frame.streamId, stream);
        this.sendFrame({ type: 'SYN_REPLY', streamId: frame.streamId, flags: 0, headerBlock: this.compressor.compress(encodeHeaderBlock({})) });
        if ((frame.flags & FLAG_UNIDIRECTIONAL) !== 0) stream.markLocalClosed();
        if ((frame.flags & FLAG_FIN) !== 0) stream.remoteFinished();
        this.options.onStream(stream);
        return;
      }
      case 'SYN_REPLY':
      case 'HEADERS': {
        await this.decompressor.decompress(frame.headerBlock);
        if ((frame.flags & FLAG_FIN) !== 0) this.streams.get(frame.streamId)?.remoteFinished();
        return;
      }
      case 'DATA':
        this.streams.get(frame.streamId)?.receive(frame.data, (frame.flags & FLAG_FIN) !== 0);
        return;
      case 'RST_STREAM':
        this.streams.get(frame.streamId)?.remoteReset(frame.status);
        return;
      case 'PING':
        // Our (server) pings are even; echo the peer's odd ones.
        if (frame.id % 2 === 1) this.sendFrame(frame);
        return;
      case 'GOAWAY':
        this.goneAway = true;
        return;
      case 'SETTINGS':
      case 'WINDOW_UPDATE':
      case 'UNKNOWN':
        return;
    }
  }

  /** @internal */
  sendFrame(frame: SpdyFrame, callback?: (error?: Error | null) => void): void {
    if (this.transport.destroyed || this.transport.writableEnded) {
      callback?.(new Error('the SPDY session is closed'));
      return;
    }
    this.transport.write(encodeFrame(frame), callback);
  }

  /** @internal */
  sendData(streamId: number, data: Buffer, fin: boolean, callback: (error?: Error | null) => void): void {
    if (data.length <= MAX_DATA_CHUNK) {
      this.sendFrame({ type: 'DATA', streamId, flags: fin ? FLAG_FIN : 0, data }, callback);
      return;
    }
    for (let offset = 0; offset < data.length; offset += MAX_DATA_CHUNK) {
      const last = offset + MAX_DATA_CHUNK >= data.length;
      const piece = data.subarray(offset, offset + MAX_DATA_CHUNK);
      this.sendFrame({ type: 'DATA', streamId, flags: last && fin ? FLAG_FIN : 0, data: piece }, last ? callback : undefined);
    }
  }

  /** @internal */
  forget(streamId: number): void {
    this.streams.delete(streamId);
  }

  /** GOAWAY, reset the streams still open, and end the transport once what was written has gone. */
  close(): void {
    if (this.closed) return;
    this.goneAway = true;
    this.sendFrame({ type: 'GOAWAY', lastGoodStreamId: this.lastPeerStreamId, status: GOAWAY_STATUS.OK });
    for (const stream of [...this.streams.values()]) stream.reset(RST_STATUS.CANCEL);
    if (!this.transport.destroyed) this.transport.end();
    this.shutdown();
  }

  private shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    this.decompressor.close();
    for (const stream of [...this.streams.values()]) {
      stream.remoteReset(RST_STATUS.CANCEL);
    }
    this.streams.clear();
    this.emit('close');
  }
}
