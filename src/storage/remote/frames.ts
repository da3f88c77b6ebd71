/**
 * The wire format between a remote store and its client (the API server's
 * worker processes and the process that holds the store; see
 * storage-server.ts): length-prefixed frames on a stream socket. Integers are
 * little-endian.
 *
 *   frame   = u32 payload length · payload
 *   payload = u8 kind · the kind's fields
 *
 * Fields, besides u8 flags:
 *
 *   num   = f64: ids and revisions (a double holds every safe integer exactly,
 *           and any number a caller passes reaches the store unchanged)
 *   str   = u32 byte length · UTF-8
 *   bytes = u32 length · the bytes as they are (values never become JSON strings)
 *   kv    = num createRevision · num modRevision · str key · bytes value
 *
 * The messages an API server sends and receives by the thousand per second
 * (gets, creates and updates with their answers, watch events) have fixed
 * binary layouts, kinds 2 to 8: no JSON to build and parse. Every other
 * message is a JSON frame, kind 1, whose header names the lengths of the
 * blobs (values) that follow it. What each message asks or answers:
 * storage-server.ts; the messages as values: messages.ts.
 *
 *   1 JSON     str header (JSON, with `b`: the blobs' lengths) · blob 0 · blob 1 · …
 *   2 GET      num id · str key
 *   3 CREATE   num id · str key · bytes value
 *   4 UPDATE   num id · num expected modRevision · str key · bytes value
 *   5 WRITTEN  num id · num createRevision · num modRevision  (a create's or update's answer)
 *   6 GOT      num id · u8 found (0/1) · kv if found          (a get's answer)
 *   7 PUT      num watch id · u8 has prev (0/1) · kv · prev kv if any
 *   8 DELETE   num watch id · num revision · str key · prev kv
 *
 * This module splits the stream into frames and reads and writes fields.
 */

/** What a FrameWriter writes to: a socket (tests pass a collector). */
export interface FrameSink {
  write(bytes: Buffer): unknown;
  end(): unknown;
  readonly destroyed: boolean;
  readonly writableEnded: boolean;
}

/** Frames are written into slabs of this size; a larger frame gets a slab of its own size. */
const SLAB_BYTES = 64 * 1024;

/**
 * Writes frames to a socket: every frame written in one turn of the event
 * loop goes into one buffer (a slab) and one write, so a busy API server's
 * many small frames cost one system call per turn, and one allocation per
 * 64 KB of frames.
 *
 * A frame is begin(), its fields, end(); `maxBytes` bounds its fields' size
 * (a str counts 3 bytes per UTF-16 unit, UTF-8's most).
 */
export class FrameWriter {
  private slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
  /** Bytes before `sent` are handed to the socket and never written again. */
  private sent = 0;
  private at = 0;
  private frameStart = 0;
  private flushQueued = false;
  private readonly flushTurn = (): void => {
    this.flushQueued = false;
    this.flush();
  };

  constructor(private readonly sink: FrameSink) {}

  begin(kind: number, maxBytes: number): void {
    const need = 5 + maxBytes;
    if (this.at + need > this.slab.length) {
      this.flush();
      this.slab = Buffer.allocUnsafeSlow(Math.max(SLAB_BYTES, need));
      this.sent = this.at = 0;
    }
    if (!this.flushQueued) {
      this.flushQueued = true;
      process.nextTick(this.flushTurn);
    }
    this.frameStart = this.at;
    this.slab[this.at + 4] = kind;
    this.at += 5;
  }

  u8(n: number): void {
    this.slab[this.at++] = n;
  }

  num(n: number): void {
    this.at = this.slab.writeDoubleLE(n, this.at);
  }

  str(s: string): void {
    const length = this.slab.write(s, this.at + 4);
    this.at = this.slab.writeUInt32LE(length, this.at) + length;
  }

  bytes(b: Uint8Array): void {
    this.at = this.slab.writeUInt32LE(b.byteLength, this.at);
    this.raw(b);
  }

  /** Bytes without a length (a JSON frame's blobs, whose lengths its header gives). */
  raw(b: Uint8Array): void {
    this.slab.set(b, this.at);
    this.at += b.byteLength;
  }

  end(): void {
    this.slab.writeUInt32LE(this.at - this.frameStart - 4, this.frameStart);
  }

  /** Send the frames written so far, then end the socket. */
  close(): void {
    this.flush();
    this.sink.end();
  }

  private flush(): void {
    if (this.at === this.sent) return;
    const frames = this.slab.subarray(this.sent, this.at);
    this.sent = this.at;
    if (!this.sink.destroyed && !this.sink.writableEnded) this.sink.write(frames);
  }
}

/**
 * Reads the fields of one frame, in order (FrameReader positions it on each
 * frame it splits off). A frame shorter than its fields is an Error.
 */
export class FrameCursor {
  private data: Buffer = Buffer.alloc(0);
  private at = 0;
  private end = 0;

  /** Position on the payload `data[start, end)`. */
  reset(data: Buffer, start: number, end: number): void {
    this.data = data;
    this.at = start;
    this.end = end;
  }

  u8(): number {
    this.need(1);
    return this.data[this.at++]!;
  }

  num(): number {
    this.need(8);
    const n = this.data.readDoubleLE(this.at);
    this.at += 8;
    return n;
  }

  str(): string {
    const length = this.u32();
    this.need(length);
    const s = this.data.toString('utf8', this.at, this.at + length);
    this.at += length;
    return s;
  }

  bytes(): Uint8Array {
    return this.raw(this.u32());
  }

  /** Bytes as a view of the memory they arrived in, never copied: only for bytes no one keeps. */
  transientBytes(): Uint8Array {
    const length = this.u32();
    this.need(length);
    this.at += length;
    return this.data.subarray(this.at - length, this.at);
  }

  /**
   * `length` bytes. They are copied out unless they make up at least half of
   * the memory they arrived in (a large value read alone, or a frame
   * assembled from several reads): a value kept for long (a watch cache holds
   * many) must not pin a whole socket read.
   */
  raw(length: number): Uint8Array {
    this.need(length);
    const start = this.at;
    this.at += length;
    if (2 * length >= this.data.buffer.byteLength) return this.data.subarray(start, this.at);
    const copy = Buffer.allocUnsafeSlow(length);
    this.data.copy(copy, 0, start, this.at);
    return copy;
  }

  private u32(): number {
    this.need(4);
    const n = this.data.readUInt32LE(this.at);
    this.at += 4;
    return n;
  }

  private need(n: number): void {
    if (this.at + n > this.end) throw new Error('remote store: a frame ends inside its fields');
  }
}

/**
 * Splits a byte stream into frames and hands each, as a FrameCursor on its
 * payload, to `onFrame` (the cursor is reused: read the frame before
 * returning). A frame inside one read is read where it lies; a frame that
 * spans reads is assembled in a buffer of its own.
 */
export class FrameReader {
  private readonly cursor = new FrameCursor();
  /** A frame that spans reads: its payload, allocated at its full length, and how much of it has arrived. */
  private partial: Buffer | undefined;
  private filled = 0;
  /** A length prefix cut by the end of a read. */
  private readonly prefix = Buffer.alloc(4);
  private prefixFilled = 0;

  constructor(private readonly onFrame: (frame: FrameCursor) => void) {}

  push(chunk: Buffer): void {
    let at = 0;
    for (;;) {
      if (this.partial !== undefined) {
        const copied = chunk.copy(this.partial, this.filled, at);
        this.filled += copied;
        at += copied;
        if (this.filled < this.partial.length) return;
        const frame = this.partial;
        this.partial = undefined;
        this.deliver(frame, 0, frame.length);
        continue;
      }
      if (at === chunk.length) return;
      if (this.prefixFilled > 0 || chunk.length - at < 4) {
        while (this.prefixFilled < 4 && at < chunk.length) this.prefix[this.prefixFilled++] = chunk[at++]!;
        if (this.prefixFilled < 4) return;
        this.prefixFilled = 0;
        this.startPartial(this.prefix.readUInt32LE(0));
        continue;
      }
      const length = chunk.readUInt32LE(at);
      at += 4;
      if (chunk.length - at >= length) {
        this.deliver(chunk, at, at + length);
        at += length;
      } else {
        this.startPartial(length);
      }
    }
  }

  private startPartial(length: number): void {
    // Not from Buffer's shared pool: its values may be handed out as views (see FrameCursor.raw).
    this.partial = Buffer.allocUnsafeSlow(length);
    this.filled = 0;
  }

  private deliver(bytes: Buffer, start: number, end: number): void {
    this.cursor.reset(bytes, start, end);
    this.onFrame(this.cursor);
  }
}
