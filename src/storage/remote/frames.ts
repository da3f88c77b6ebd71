/**
 * The wire format between a remote store and its client (the API server's
 * worker processes and the process that holds the store; see
 * storage-server.ts): length-prefixed frames on a stream socket.
 *
 *   frame  = u32 payload length (LE) · payload
 *   payload = u32 header length (LE) · header (JSON, UTF-8) · blob 0 · blob 1 · …
 *
 * The header names the lengths of the blobs that follow it (`b`), so values
 * (objects' bytes) travel as they are, never as JSON strings of bytes.
 */
import type { Socket } from 'node:net';

export interface Frame {
  readonly header: Record<string, unknown>;
  readonly blobs: Uint8Array[];
}

/** Encode one frame: the header gets `b`, the lengths of `blobs`. */
export function encodeFrame(header: Record<string, unknown>, blobs: readonly Uint8Array[] = []): Buffer[] {
  if (blobs.length > 0) header.b = blobs.map((x) => x.byteLength);
  const json = JSON.stringify(header);
  const jsonBytes = Buffer.byteLength(json);
  let payload = 4 + jsonBytes;
  for (const blob of blobs) payload += blob.byteLength;
  // The lengths and the header in one buffer; the blobs are written as they are.
  const head = Buffer.allocUnsafe(8 + jsonBytes);
  head.writeUInt32LE(payload, 0);
  head.writeUInt32LE(jsonBytes, 4);
  head.write(json, 8);
  if (blobs.length === 0) return [head];
  return [head, ...blobs.map((b) => (Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength)))];
}

/**
 * Splits a byte stream into frames. Blobs are copied out of the received
 * chunks, so a value kept for long (a watch cache holds many) never pins a
 * whole socket read in memory.
 */
export class FrameReader {
  private chunks: Buffer[] = [];
  private buffered = 0;

  constructor(private readonly onFrame: (frame: Frame) => void) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    for (;;) {
      if (this.buffered < 4) return;
      const head = this.chunks[0]!.length >= 4 ? this.chunks[0]! : this.flatten();
      const length = head.readUInt32LE(0);
      if (this.buffered < 4 + length) return;
      const all = this.chunks.length === 1 ? this.chunks[0]! : this.flatten();
      const payload = all.subarray(4, 4 + length);
      const rest = all.subarray(4 + length);
      this.chunks = rest.length === 0 ? [] : [rest];
      this.buffered = rest.length;
      this.onFrame(decodePayload(payload));
    }
  }

  private flatten(): Buffer {
    const all = Buffer.concat(this.chunks, this.buffered);
    this.chunks = [all];
    return all;
  }
}

function decodePayload(payload: Buffer): Frame {
  const headerLength = payload.readUInt32LE(0);
  const header = JSON.parse(payload.toString('utf8', 4, 4 + headerLength)) as Record<string, unknown>;
  const lengths = (header.b as number[] | undefined) ?? [];
  const blobs: Uint8Array[] = [];
  let at = 4 + headerLength;
  for (const length of lengths) {
    blobs.push(Uint8Array.prototype.slice.call(payload, at, at + length));
    at += length;
  }
  return { header, blobs };
}

/**
 * Writes frames to a socket, gathering every frame written in one turn of the
 * event loop into one write (a busy API server sends many small ones).
 */
export class FrameWriter {
  private corked = false;

  constructor(private readonly socket: Socket) {}

  send(header: Record<string, unknown>, blobs: readonly Uint8Array[] = []): void {
    if (this.socket.destroyed || this.socket.writableEnded) return;
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.corked = false;
        this.socket.uncork();
      });
    }
    for (const part of encodeFrame(header, blobs)) this.socket.write(part);
  }
}
