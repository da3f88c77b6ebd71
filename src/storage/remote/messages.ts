/**
 * The remote store's messages as values ({@link Message}) and as frames
 * ({@link MessageWriter}, {@link readMessage}), one kind per layout of
 * frames.ts. What each message asks or answers: storage-server.ts.
 */
import type { KeyValue, StorageEvent } from '../interface.js';
import { FrameWriter, type FrameCursor, type FrameSink } from './frames.js';

const JSON_FRAME = 1;
const GET = 2;
const CREATE = 3;
const UPDATE = 4;
const WRITTEN = 5;
const GOT = 6;
const PUT = 7;
const DELETE = 8;

export interface JsonMessage {
  readonly kind: 'json';
  readonly header: Record<string, unknown>;
  readonly blobs: Uint8Array[];
}

export type Message =
  | JsonMessage
  | { readonly kind: 'get'; readonly id: number; readonly key: string }
  | { readonly kind: 'create'; readonly id: number; readonly key: string; readonly value: Uint8Array }
  | { readonly kind: 'update'; readonly id: number; readonly key: string; readonly value: Uint8Array; readonly expectedModRevision: number }
  | { readonly kind: 'written'; readonly id: number; readonly createRevision: number; readonly modRevision: number }
  | { readonly kind: 'got'; readonly id: number; readonly kv: KeyValue | undefined }
  /** A PUT or DELETE frame: a watch's event. */
  | { readonly kind: 'event'; readonly watch: number; readonly event: StorageEvent };

/** Bytes a kv field takes at most (see FrameWriter.begin). */
const kvBytes = (kv: KeyValue): number => 24 + 3 * kv.key.length + kv.value.byteLength;

/** Writes messages as frames to a socket (batched per turn of the event loop, see FrameWriter). */
export class MessageWriter {
  private readonly frames: FrameWriter;

  constructor(sink: FrameSink) {
    this.frames = new FrameWriter(sink);
  }

  /** A JSON frame: `header` gets `b`, the lengths of `blobs`. */
  json(header: Record<string, unknown>, blobs: readonly Uint8Array[] = []): void {
    if (blobs.length > 0) header.b = blobs.map((x) => x.byteLength);
    const text = JSON.stringify(header);
    let size = 4 + Buffer.byteLength(text);
    for (const blob of blobs) size += blob.byteLength;
    const f = this.frames;
    f.begin(JSON_FRAME, size);
    f.str(text);
    for (const blob of blobs) f.raw(blob);
    f.end();
  }

  get(id: number, key: string): void {
    const f = this.frames;
    f.begin(GET, 12 + 3 * key.length);
    f.num(id);
    f.str(key);
    f.end();
  }

  create(id: number, key: string, value: Uint8Array): void {
    const f = this.frames;
    f.begin(CREATE, 16 + 3 * key.length + value.byteLength);
    f.num(id);
    f.str(key);
    f.bytes(value);
    f.end();
  }

  update(id: number, key: string, value: Uint8Array, expectedModRevision: number): void {
    const f = this.frames;
    f.begin(UPDATE, 24 + 3 * key.length + value.byteLength);
    f.num(id);
    f.num(expectedModRevision);
    f.str(key);
    f.bytes(value);
    f.end();
  }

  written(id: number, kv: KeyValue): void {
    const f = this.frames;
    f.begin(WRITTEN, 24);
    f.num(id);
    f.num(kv.createRevision);
    f.num(kv.modRevision);
    f.end();
  }

  got(id: number, kv: KeyValue | undefined): void {
    const f = this.frames;
    f.begin(GOT, 9 + (kv === undefined ? 0 : kvBytes(kv)));
    f.num(id);
    f.u8(kv === undefined ? 0 : 1);
    if (kv !== undefined) this.kv(kv);
    f.end();
  }

  event(watch: number, event: StorageEvent): void {
    const f = this.frames;
    if (event.type === 'PUT') {
      const prev = event.prevKv;
      f.begin(PUT, 9 + kvBytes(event.kv) + (prev === undefined ? 0 : kvBytes(prev)));
      f.num(watch);
      f.u8(prev === undefined ? 0 : 1);
      this.kv(event.kv);
      if (prev !== undefined) this.kv(prev);
    } else {
      f.begin(DELETE, 20 + 3 * event.key.length + kvBytes(event.prevKv));
      f.num(watch);
      f.num(event.revision);
      f.str(event.key);
      this.kv(event.prevKv);
    }
    f.end();
  }

  /** Send what is written, then end the socket. */
  close(): void {
    this.frames.close();
  }

  private kv(kv: KeyValue): void {
    const f = this.frames;
    f.num(kv.createRevision);
    f.num(kv.modRevision);
    f.str(kv.key);
    f.bytes(kv.value);
  }
}

/** The message of one frame. */
export function readMessage(f: FrameCursor): Message {
  const kind = f.u8();
  switch (kind) {
    case JSON_FRAME: {
      const header = JSON.parse(f.str()) as Record<string, unknown>;
      const lengths = (header.b as number[] | undefined) ?? [];
      return { kind: 'json', header, blobs: lengths.map((length) => f.raw(length)) };
    }
    case GET:
      return { kind: 'get', id: f.num(), key: f.str() };
    // A request's value is not copied: the server hands it to its store, which copies what it keeps.
    case CREATE:
      return { kind: 'create', id: f.num(), key: f.str(), value: f.transientBytes() };
    case UPDATE: {
      const id = f.num();
      const expectedModRevision = f.num();
      return { kind: 'update', id, key: f.str(), value: f.transientBytes(), expectedModRevision };
    }
    case WRITTEN:
      return { kind: 'written', id: f.num(), createRevision: f.num(), modRevision: f.num() };
    case GOT: {
      const id = f.num();
      return { kind: 'got', id, kv: f.u8() === 1 ? readKv(f) : undefined };
    }
    case PUT: {
      const watch = f.num();
      const hasPrev = f.u8() === 1;
      const kv = readKv(f);
      return { kind: 'event', watch, event: hasPrev ? { type: 'PUT', kv, prevKv: readKv(f) } : { type: 'PUT', kv } };
    }
    case DELETE: {
      const watch = f.num();
      const revision = f.num();
      const key = f.str();
      return { kind: 'event', watch, event: { type: 'DELETE', key, revision, prevKv: readKv(f) } };
    }
    default:
      throw new Error(`remote store: unknown frame kind ${kind}`);
  }
}

function readKv(f: FrameCursor): KeyValue {
  const createRevision = f.num();
  const modRevision = f.num();
  return { key: f.str(), value: f.bytes(), createRevision, modRevision };
}
