/**
 * A small SPDY/3.1 client, enough to talk to containerd's streaming server
 * (exec, attach, port-forward as kubectl's remotecommand/portforward do): an
 * HTTP/1.1 upgrade to `SPDY/3.1`, then client-opened streams (SYN_STREAM with
 * a name/value header block), data frames both ways, FIN to half-close.
 *
 * Header blocks are zlib streams; ours are written as *stored* (uncompressed)
 * deflate blocks after one zlib header without a preset dictionary, which any
 * zlib reader accepts and which needs no compression state. The server's
 * header blocks (SYN_REPLY) are not read: we only need to know a stream was
 * answered. PINGs are echoed; RST_STREAM fails its stream; GOAWAY and the
 * socket's end end every stream. No flow-control windows are kept (the Go
 * streaming servers do not enforce them).
 */
import { request as httpRequest } from 'node:http';
import type { Socket } from 'node:net';
import { Duplex } from 'node:stream';

const SPDY_VERSION = 3;
const TYPE_SYN_STREAM = 1;
const TYPE_SYN_REPLY = 2;
const TYPE_RST_STREAM = 3;
const TYPE_PING = 6;
const TYPE_GOAWAY = 7;
const FLAG_FIN = 0x01;
const MAX_DATA_FRAME = 0xffff;

/** The name/value block of SPDY/3: count, then length-prefixed names and values (32-bit big-endian). */
export function encodeHeaderBlock(headers: Readonly<Record<string, string>>): Buffer {
  const parts: Buffer[] = [];
  const u32 = (n: number): Buffer => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  const entries = Object.entries(headers);
  parts.push(u32(entries.length));
  for (const [name, value] of entries) {
    const n = Buffer.from(name.toLowerCase());
    const v = Buffer.from(value);
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

/**
 * Deflate "stored" blocks (not final) carrying `data` as is, each at most
 * 65535 bytes, then an empty stored block: the sync-flush marker, without
 * which a reader (Go's flate) holds the data back until the next block.
 */
export function storedDeflateBlocks(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  const block = (chunk: Buffer): void => {
    const head = Buffer.alloc(5);
    head[0] = 0x00; // BFINAL 0, BTYPE 00 (stored), padded to the byte
    head.writeUInt16LE(chunk.length, 1);
    head.writeUInt16LE(~chunk.length & 0xffff, 3);
    parts.push(head, chunk);
  };
  for (let at = 0; at < data.length; at += 0xffff) block(data.subarray(at, at + 0xffff));
  block(Buffer.alloc(0));
  return Buffer.concat(parts);
}

/** zlib header (deflate, 32K window, no preset dictionary): (0x78 * 256 + 0x01) % 31 === 0. */
const ZLIB_HEADER = Buffer.from([0x78, 0x01]);

function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | SPDY_VERSION, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(((flags & 0xff) << 24) | payload.length, 4);
  return Buffer.concat([head, payload]);
}

function dataFrame(streamId: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(streamId & 0x7fffffff, 0);
  head.writeUInt32BE(((flags & 0xff) << 24) | payload.length, 4);
  return Buffer.concat([head, payload]);
}

/** One stream of a session: writes become data frames, end() sends FIN; reads end at the peer's FIN. */
export class SpdyStream extends Duplex {
  private finSent = false;

  constructor(
    readonly id: number,
    readonly headers: Readonly<Record<string, string>>,
    private readonly send: (frame: Buffer) => boolean,
  ) {
    super({ allowHalfOpen: true });
  }

  override _read(): void {
    // Data is pushed as frames arrive.
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.resetStatus !== undefined) {
      callback();
      return;
    }
    for (let at = 0; at < chunk.length; at += MAX_DATA_FRAME) this.send(dataFrame(this.id, 0, chunk.subarray(at, at + MAX_DATA_FRAME)));
    callback();
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.sendFin();
    callback();
  }

  /** RST_STREAM status from the server, once it reset this stream. */
  resetStatus: number | undefined;

  /** The server reset the stream: reading ends, later writes are dropped. */
  reset(status: number): void {
    this.resetStatus = status;
    this.finSent = true;
    this.push(null);
  }

  sendFin(): void {
    if (this.finSent) return;
    this.finSent = true;
    this.send(dataFrame(this.id, FLAG_FIN, Buffer.alloc(0)));
  }
}

export interface SpdySession {
  /** The protocol the server chose from X-Stream-Protocol-Version. */
  readonly protocol: string;
  openStream(headers: Readonly<Record<string, string>>): SpdyStream;
  /** Resolves once the socket is closed. */
  readonly closed: Promise<void>;
  close(): void;
}

/** Upgrades `url` (http://…) to SPDY/3.1, offering `protocols` in X-Stream-Protocol-Version. */
export function connectSpdy(url: string, protocols: readonly string[], timeoutMs = 30_000): Promise<SpdySession> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, {
      method: 'POST',
      headers: { Connection: 'Upgrade', Upgrade: 'SPDY/3.1', 'X-Stream-Protocol-Version': [...protocols] },
      timeout: timeoutMs,
    });
    req.on('timeout', () => req.destroy(new Error(`no SPDY upgrade from ${url} within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.on('response', (res) => {
      let body = '';
      res.on('data', (c: Buffer) => (body += c.toString()));
      res.on('end', () => reject(new Error(`${url}: the streaming server answered ${res.statusCode} instead of upgrading: ${body.trim()}`)));
    });
    req.on('upgrade', (res, socket: Socket, head: Buffer) => {
      const chosen = res.headers['x-stream-protocol-version'];
      resolve(new Session(socket, head, Array.isArray(chosen) ? chosen[0] ?? '' : chosen ?? ''));
    });
    req.end();
  });
}

class Session implements SpdySession {
  private nextId = 1;
  private headerBlocksSent = 0;
  private readonly streams = new Map<number, SpdyStream>();
  private buffer: Buffer = Buffer.alloc(0);
  readonly closed: Promise<void>;

  constructor(
    private readonly socket: Socket,
    head: Buffer,
    readonly protocol: string,
  ) {
    socket.setNoDelay(true);
    this.closed = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('close', () => this.endAll());
    socket.on('error', () => undefined); // 'close' follows
    if (head.length > 0) this.receive(head);
  }

  private send = (frame: Buffer): boolean => (this.socket.destroyed ? false : this.socket.write(frame));

  openStream(headers: Readonly<Record<string, string>>): SpdyStream {
    const id = this.nextId;
    this.nextId += 2;
    const stream = new SpdyStream(id, headers, this.send);
    this.streams.set(id, stream);
    const block = storedDeflateBlocks(encodeHeaderBlock(headers));
    const compressed = this.headerBlocksSent++ === 0 ? Buffer.concat([ZLIB_HEADER, block]) : block;
    const payload = Buffer.alloc(10);
    payload.writeUInt32BE(id & 0x7fffffff, 0);
    payload.writeUInt32BE(0, 4); // associated-to stream
    payload.writeUInt16BE(0, 8); // priority 0, slot 0
    this.send(controlFrame(TYPE_SYN_STREAM, 0, Buffer.concat([payload, compressed])));
    return stream;
  }

  close(): void {
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    while (this.buffer.length >= 8) {
      const length = this.buffer.readUInt32BE(4) & 0xffffff;
      if (this.buffer.length < 8 + length) return;
      const frame = this.buffer.subarray(0, 8 + length);
      this.buffer = this.buffer.subarray(8 + length);
      this.onFrame(frame);
    }
  }

  private onFrame(frame: Buffer): void {
    const flags = frame[4]!;
    const payload = frame.subarray(8);
    if ((frame[0]! & 0x80) === 0) {
      const stream = this.streams.get(frame.readUInt32BE(0) & 0x7fffffff);
      if (!stream) return;
      if (payload.length > 0) stream.push(Buffer.from(payload));
      if (flags & FLAG_FIN) stream.push(null);
      return;
    }
    const type = frame.readUInt16BE(2);
    if (type === TYPE_PING) {
      this.send(controlFrame(TYPE_PING, 0, Buffer.from(payload)));
    } else if (type === TYPE_RST_STREAM && payload.length >= 8) {
      // The server cancels streams it no longer needs (stdin once the command ended): the stream just ends.
      const id = payload.readUInt32BE(0) & 0x7fffffff;
      const stream = this.streams.get(id);
      stream?.reset(payload.readUInt32BE(4));
      this.streams.delete(id);
    } else if (type === TYPE_GOAWAY) {
      this.endAll();
    } else if (type === TYPE_SYN_REPLY && payload.length >= 4 && flags & FLAG_FIN) {
      this.streams.get(payload.readUInt32BE(0) & 0x7fffffff)?.push(null);
    }
    // SETTINGS, WINDOW_UPDATE, HEADERS and SYN_REPLY without FIN need nothing from us.
  }

  /** The connection is gone: every stream's readable side ends (buffered data stays readable); writes go nowhere. */
  private endAll(): void {
    for (const stream of this.streams.values()) stream.push(null);
    this.streams.clear();
  }
}
