/**
 * The attach protocol between a client (the runtime's attach session) and a
 * container's shim over the shim's unix socket.
 *
 * The client sends one JSON header line, `{"stdin":true|false}\n`, then (if it
 * asked for stdin) raw bytes for the container's stdin. The shim sends frames:
 * one byte of type, four bytes of big-endian length, then the payload. Types:
 * 1 stdout, 2 stderr, 3 exit (payload: the exit code in decimal).
 */

export const FRAME_STDOUT = 1;
export const FRAME_STDERR = 2;
export const FRAME_EXIT = 3;

export interface AttachHeader {
  readonly stdin: boolean;
}

export function encodeFrame(type: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt8(type, 0);
  head.writeUInt32BE(payload.length, 1);
  return Buffer.concat([head, payload]);
}

/** Reassembles frames from arbitrary chunks. */
export class FrameDecoder {
  private buffered: Buffer = Buffer.alloc(0);

  constructor(private readonly onFrame: (type: number, payload: Buffer) => void) {}

  push(chunk: Buffer): void {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    while (this.buffered.length >= 5) {
      const length = this.buffered.readUInt32BE(1);
      if (this.buffered.length < 5 + length) break;
      const type = this.buffered.readUInt8(0);
      const payload = this.buffered.subarray(5, 5 + length);
      this.buffered = this.buffered.subarray(5 + length);
      this.onFrame(type, Buffer.from(payload));
    }
  }
}
