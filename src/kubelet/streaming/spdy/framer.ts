/**
 * SPDY/3.1 framing (draft 3.1 of the SPDY protocol), the transport kubectl's
 * exec/attach (1.27–1.29) and port-forward (every version) speak through
 * Go's spdystream. This module only turns bytes into frames and back; the
 * session (session.ts) gives them meaning.
 *
 *   control frame: |1| version(15) | type(16) | flags(8) | length(24) | payload
 *   data frame:    |0| stream id(31)           | flags(8) | length(24) | payload
 *
 * Header blocks (SYN_STREAM, SYN_REPLY, HEADERS) travel zlib-compressed with
 * one compression context per direction for the whole session, preset with
 * SPDY/3's dictionary. {@link HeaderCompressor} writes them as stored
 * (uncompressed) deflate blocks, which every inflater reads and which need no
 * state beyond the zlib header; {@link HeaderDecompressor} inflates the
 * peer's blocks in order.
 */
import { createInflate, type Inflate } from 'node:zlib';
import { constants as zlibConstants } from 'node:zlib';
import { SPDY3_HEADER_DICTIONARY } from './dictionary.js';

export const SPDY_VERSION = 3;

export const FRAME_TYPE = {
  SYN_STREAM: 1,
  SYN_REPLY: 2,
  RST_STREAM: 3,
  SETTINGS: 4,
  PING: 6,
  GOAWAY: 7,
  HEADERS: 8,
  WINDOW_UPDATE: 9,
} as const;

/** FLAG_FIN on data frames, SYN_STREAM, SYN_REPLY and HEADERS. */
export const FLAG_FIN = 0x01;
/** FLAG_UNIDIRECTIONAL on SYN_STREAM. */
export const FLAG_UNIDIRECTIONAL = 0x02;

/** RST_STREAM status codes. */
export const RST_STATUS = {
  PROTOCOL_ERROR: 1,
  INVALID_STREAM: 2,
  REFUSED_STREAM: 3,
  UNSUPPORTED_VERSION: 4,
  CANCEL: 5,
  INTERNAL_ERROR: 6,
  FLOW_CONTROL_ERROR: 7,
  STREAM_IN_USE: 8,
  STREAM_ALREADY_CLOSED: 9,
  FRAME_TOO_LARGE: 11,
} as const;

/** GOAWAY status codes. */
export const GOAWAY_STATUS = { OK: 0, PROTOCOL_ERROR: 1, INTERNAL_ERROR: 2 } as const;

/** The largest payload a frame's 24-bit length can carry. */
export const MAX_FRAME_PAYLOAD = 0xffffff;

export interface DataFrame {
  readonly type: 'DATA';
  readonly streamId: number;
  readonly flags: number;
  readonly data: Buffer;
}
export interface SynStreamFrame {
  readonly type: 'SYN_STREAM';
  readonly streamId: number;
  readonly associatedToStreamId: number;
  /** 0 (highest) to 7. */
  readonly priority: number;
  readonly slot: number;
  readonly flags: number;
  /** Compressed. */
  readonly headerBlock: Buffer;
}
export interface SynReplyFrame {
  readonly type: 'SYN_REPLY';
  readonly streamId: number;
  readonly flags: number;
  readonly headerBlock: Buffer;
}
export interface HeadersFrame {
  readonly type: 'HEADERS';
  readonly streamId: number;
  readonly flags: number;
  readonly headerBlock: Buffer;
}
export interface RstStreamFrame {
  readonly type: 'RST_STREAM';
  readonly streamId: number;
  readonly status: number;
}
export interface Setting {
  readonly flags: number;
  readonly id: number;
  readonly value: number;
}
export interface SettingsFrame {
  readonly type: 'SETTINGS';
  readonly flags: number;
  readonly settings: readonly Setting[];
}
export interface PingFrame {
  readonly type: 'PING';
  readonly id: number;
}
export interface GoAwayFrame {
  readonly type: 'GOAWAY';
  readonly lastGoodStreamId: number;
  readonly status: number;
}
export interface WindowUpdateFrame {
  readonly type: 'WINDOW_UPDATE';
  readonly streamId: number;
  readonly deltaWindowSize: number;
}
/** A control frame of a type SPDY/3.1 does not define (NOOP, CREDENTIAL): receivers ignore it. */
export interface UnknownControlFrame {
  readonly type: 'UNKNOWN';
  readonly frameType: number;
  readonly flags: number;
  readonly payload: Buffer;
}

export type SpdyFrame =
  | DataFrame
  | SynStreamFrame
  | SynReplyFrame
  | HeadersFrame
  | RstStreamFrame
  | SettingsFrame
  | PingFrame
  | GoAwayFrame
  | WindowUpdateFrame
  | UnknownControlFrame;

/** A frame that breaks the protocol: the session answers with GOAWAY and closes. */
export class SpdyProtocolError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SpdyProtocolError';
  }
}

const STREAM_ID_MASK = 0x7fffffff;

function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  if (payload.length > MAX_FRAME_PAYLOAD) throw new RangeError(`a SPDY frame carries at most ${MAX_FRAME_PAYLOAD} bytes`);
  const head = Buffer.alloc(8);
  head.writeUInt16BE(0x8000 | SPDY_VERSION, 0);
  head.writeUInt16BE(type, 2);
  head.writeUInt32BE(((flags & 0xff) << 24 | payload.length) >>> 0, 4);
  return Buffer.concat([head, payload]);
}

function u32(...values: number[]): Buffer {
  const b = Buffer.alloc(4 * values.length);
  values.forEach((v, i) => b.writeUInt32BE(v >>> 0, 4 * i));
  return b;
}

/** The bytes of one frame. */
export function encodeFrame(frame: SpdyFrame): Buffer {
  switch (frame.type) {
    case 'DATA': {
      if (frame.data.length > MAX_FRAME_PAYLOAD) throw new RangeError(`a SPDY frame carries at most ${MAX_FRAME_PAYLOAD} bytes`);
      const head = Buffer.alloc(8);
      head.writeUInt32BE(frame.streamId & STREAM_ID_MASK, 0);
      head.writeUInt32BE(((frame.flags & 0xff) << 24 | frame.data.length) >>> 0, 4);
      return Buffer.concat([head, frame.data]);
    }
    case 'SYN_STREAM': {
      const fixed = Buffer.alloc(10);
      fixed.writeUInt32BE(frame.streamId & STREAM_ID_MASK, 0);
      fixed.writeUInt32BE(frame.associatedToStreamId & STREAM_ID_MASK, 4);
      fixed.writeUInt8((frame.priority & 0x7) << 5, 8);
      fixed.writeUInt8(frame.slot & 0xff, 9);
      return controlFrame(FRAME_TYPE.SYN_STREAM, frame.flags, Buffer.concat([fixed, frame.headerBlock]));
    }
    case 'SYN_REPLY':
      return controlFrame(FRAME_TYPE.SYN_REPLY, frame.flags, Buffer.concat([u32(frame.streamId & STREAM_ID_MASK), frame.headerBlock]));
    case 'HEADERS':
      return controlFrame(FRAME_TYPE.HEADERS, frame.flags, Buffer.concat([u32(frame.streamId & STREAM_ID_MASK), frame.headerBlock]));
    case 'RST_STREAM':
      return controlFrame(FRAME_TYPE.RST_STREAM, 0, u32(frame.streamId & STREAM_ID_MASK, frame.status));
    case 'SETTINGS': {
      const entries = frame.settings.flatMap((s) => [((s.flags & 0xff) << 24 | (s.id & 0xffffff)) >>> 0, s.value]);
      return controlFrame(FRAME_TYPE.SETTINGS, frame.flags, u32(frame.settings.length, ...entries));
    }
    case 'PING':
      return controlFrame(FRAME_TYPE.PING, 0, u32(frame.id));
    case 'GOAWAY':
      return controlFrame(FRAME_TYPE.GOAWAY, 0, u32(frame.lastGoodStreamId & STREAM_ID_MASK, frame.status));
    case 'WINDOW_UPDATE':
      return controlFrame(FRAME_TYPE.WINDOW_UPDATE, 0, u32(frame.streamId & STREAM_ID_MASK, frame.deltaWindowSize & STREAM_ID_MASK));
    case 'UNKNOWN':
      return controlFrame(frame.frameType, frame.flags, frame.payload);
  }
}

function need(payload: Buffer, bytes: number, what: string): void {
  if (payload.length < bytes) throw new SpdyProtocolError(`${what} frame too short: ${payload.length} bytes`);
}

function exact(payload: Buffer, bytes: number, what: string): void {
  if (payload.length !== bytes) throw new SpdyProtocolError(`${what} frame has length ${payload.length}, not ${bytes}`);
}

function nonZeroStream(id: number, what: string): number {
  if (id === 0) throw new SpdyProtocolError(`${what} frame with stream id 0`);
  return id;
}

function decodeControl(type: number, flags: number, payload: Buffer): SpdyFrame {
  switch (type) {
    case FRAME_TYPE.SYN_STREAM:
      need(payload, 10, 'SYN_STREAM');
      return {
        type: 'SYN_STREAM',
        streamId: nonZeroStream(payload.readUInt32BE(0) & STREAM_ID_MASK, 'SYN_STREAM'),
        associatedToStreamId: payload.readUInt32BE(4) & STREAM_ID_MASK,
        priority: payload.readUInt8(8) >> 5,
        slot: payload.readUInt8(9),
        flags,
        headerBlock: payload.subarray(10),
      };
    case FRAME_TYPE.SYN_REPLY:
    case FRAME_TYPE.HEADERS: {
      const name = type === FRAME_TYPE.SYN_REPLY ? 'SYN_REPLY' : 'HEADERS';
      need(payload, 4, name);
      return { type: name, streamId: nonZeroStream(payload.readUInt32BE(0) & STREAM_ID_MASK, name), flags, headerBlock: payload.subarray(4) };
    }
    case FRAME_TYPE.RST_STREAM:
      exact(payload, 8, 'RST_STREAM');
      return { type: 'RST_STREAM', streamId: nonZeroStream(payload.readUInt32BE(0) & STREAM_ID_MASK, 'RST_STREAM'), status: payload.readUInt32BE(4) };
    case FRAME_TYPE.SETTINGS: {
      need(payload, 4, 'SETTINGS');
      const count = payload.readUInt32BE(0);
      exact(payload, 4 + 8 * count, 'SETTINGS');
      const settings: Setting[] = [];
      for (let i = 0; i < count; i++) {
        const idWord = payload.readUInt32BE(4 + 8 * i);
        settings.push({ flags: idWord >>> 24, id: idWord & 0xffffff, value: payload.readUInt32BE(8 + 8 * i) });
      }
      return { type: 'SETTINGS', flags, settings };
    }
    case FRAME_TYPE.PING:
      exact(payload, 4, 'PING');
      return { type: 'PING', id: payload.readUInt32BE(0) };
    case FRAME_TYPE.GOAWAY:
      exact(payload, 8, 'GOAWAY');
      return { type: 'GOAWAY', lastGoodStreamId: payload.readUInt32BE(0) & STREAM_ID_MASK, status: payload.readUInt32BE(4) };
    case FRAME_TYPE.WINDOW_UPDATE:
      exact(payload, 8, 'WINDOW_UPDATE');
      return { type: 'WINDOW_UPDATE', streamId: payload.readUInt32BE(0) & STREAM_ID_MASK, deltaWindowSize: payload.readUInt32BE(4) & STREAM_ID_MASK };
    default:
      return { type: 'UNKNOWN', frameType: type, flags, payload };
  }
}

/**
 * Cuts a byte stream into frames: push() whatever arrived, get back every
 * frame it completed. A control frame of another SPDY version is refused.
 */
export class FrameReader {
  private buffered: Buffer = Buffer.alloc(0);

  push(chunk: Buffer): SpdyFrame[] {
    this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    const frames: SpdyFrame[] = [];
    let offset = 0;
    while (this.buffered.length - offset >= 8) {
      const word = this.buffered.readUInt32BE(offset);
      const flagsLength = this.buffered.readUInt32BE(offset + 4);
      const length = flagsLength & 0xffffff;
      const flags = flagsLength >>> 24;
      if (this.buffered.length - offset < 8 + length) break;
      const payload = this.buffered.subarray(offset + 8, offset + 8 + length);
      offset += 8 + length;
      if ((word & 0x80000000) !== 0) {
        const version = (word >>> 16) & 0x7fff;
        if (version !== SPDY_VERSION) throw new SpdyProtocolError(`unsupported SPDY version ${version}`);
        frames.push(decodeControl(word & 0xffff, flags, payload));
      } else {
        frames.push({ type: 'DATA', streamId: nonZeroStream(word & STREAM_ID_MASK, 'DATA'), flags, data: Buffer.from(payload) });
      }
    }
    this.buffered = this.buffered.subarray(offset);
    return frames;
  }

  /** Bytes of a frame not yet complete. */
  get pendingBytes(): number {
    return this.buffered.length;
  }
}

/** Header names and their values, as SPDY carries them (lower-case names; several values joined by NUL on the wire). */
export type SpdyHeaders = Readonly<Record<string, readonly string[]>>;

/** The uncompressed name/value block: count, then length-prefixed names and NUL-joined values. */
export function encodeHeaderBlock(headers: SpdyHeaders): Buffer {
  const parts: Buffer[] = [];
  const names = Object.keys(headers);
  parts.push(u32(names.length));
  for (const name of names) {
    const n = Buffer.from(name.toLowerCase(), 'utf8');
    const v = Buffer.from((headers[name] ?? []).join('\0'), 'utf8');
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

export function decodeHeaderBlock(block: Buffer): Record<string, string[]> {
  const headers: Record<string, string[]> = {};
  let offset = 0;
  const take = (bytes: number): Buffer => {
    if (block.length - offset < bytes) throw new SpdyProtocolError('header block ends early');
    const b = block.subarray(offset, offset + bytes);
    offset += bytes;
    return b;
  };
  const count = take(4).readUInt32BE(0);
  for (let i = 0; i < count; i++) {
    const name = take(take(4).readUInt32BE(0)).toString('utf8').toLowerCase();
    const value = take(take(4).readUInt32BE(0)).toString('utf8');
    if (name === '') throw new SpdyProtocolError('header block has an empty name');
    (headers[name] ??= []).push(...value.split('\0'));
  }
  if (offset !== block.length) throw new SpdyProtocolError(`header block has ${block.length - offset} bytes after its last header`);
  return headers;
}

const SYNC_FLUSH_MARKER = Buffer.from([0x00, 0x00, 0x00, 0xff, 0xff]);

/** The largest stored deflate block. */
const STORED_BLOCK_MAX = 0xffff;

/**
 * Compresses this side's header blocks: one zlib stream for the session,
 * each block written as stored (uncompressed) deflate blocks and ended, as a
 * sync flush ends it, by an empty stored block. The stream does not announce the dictionary
 * (FDICT unset): nothing in it refers to one.
 */
export class HeaderCompressor {
  private started = false;

  compress(block: Buffer): Buffer {
    const parts: Buffer[] = [];
    if (!this.started) {
      // CMF 0x78 (deflate, 32 KiB window), FLG 0x01: (0x78 * 256 + 0x01) % 31 === 0, no preset dictionary.
      parts.push(Buffer.from([0x78, 0x01]));
      this.started = true;
    }
    let offset = 0;
    do {
      const length = Math.min(STORED_BLOCK_MAX, block.length - offset);
      const head = Buffer.alloc(5);
      head.writeUInt8(0x00, 0); // BFINAL 0, BTYPE 00 (stored)
      head.writeUInt16LE(length, 1);
      head.writeUInt16LE(~length & 0xffff, 3);
      parts.push(head, block.subarray(offset, offset + length));
      offset += length;
    } while (offset < block.length);
    // The sync-flush marker, an empty stored block: Go's inflater hands out a stored block's bytes only once
    // it has read the next block's header, so without it the block's last bytes would wait for the next frame.
    parts.push(SYNC_FLUSH_MARKER);
    return Buffer.concat(parts);
  }
}

/**
 * Inflates the peer's header blocks: one zlib stream (with SPDY/3's preset
 * dictionary) across the session, each block ending with a sync flush.
 * Calls are answered in order.
 */
export class HeaderDecompressor {
  private readonly inflate: Inflate;
  private readonly output: Buffer[] = [];
  private failure: Error | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor() {
    this.inflate = createInflate({ dictionary: SPDY3_HEADER_DICTIONARY });
    this.inflate.on('data', (chunk: Buffer) => this.output.push(chunk));
    this.inflate.on('error', (e: Error) => {
      this.failure = e;
    });
  }

  decompress(compressed: Buffer): Promise<Buffer> {
    const next = this.queue.then(() => this.run(compressed));
    this.queue = next.catch(() => undefined);
    return next;
  }

  private run(compressed: Buffer): Promise<Buffer> {
    return new Promise<Buffer>((resolve, reject) => {
      if (this.failure !== undefined) {
        reject(new SpdyProtocolError(`header block does not inflate: ${this.failure.message}`));
        return;
      }
      const onError = (e: Error): void => reject(new SpdyProtocolError(`header block does not inflate: ${e.message}`));
      this.inflate.once('error', onError);
      this.inflate.write(compressed);
      this.inflate.flush(zlibConstants.Z_SYNC_FLUSH, () => {
        this.inflate.off('error', onError);
        if (this.failure !== undefined) return;
        resolve(Buffer.concat(this.output.splice(0)));
      });
    });
  }

  close(): void {
    this.inflate.close();
  }
}
