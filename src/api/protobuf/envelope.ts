/**
 * Kubernetes' protobuf envelope (application/vnd.kubernetes.protobuf): the
 * 4-byte magic `k8s\0`, then a runtime.Unknown message whose typeMeta names the
 * object's apiVersion and kind and whose raw holds the object's own message.
 *
 * Watch streams (application/vnd.kubernetes.protobuf;stream=watch) are framed
 * differently: each frame is a 4-byte big-endian length, then a metav1.WatchEvent
 * with no envelope, whose object.raw is the enveloped object (upstream's
 * stream serializer is the raw one; the embedded encoder is the enveloped one).
 */
import protobuf from 'protobufjs/minimal.js';
import { ProtobufCodec, ProtobufError, protobufCodec } from './codec.js';
import { protobufSchema, type ProtobufSchema } from './schema.js';

export const PROTOBUF_MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);
export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
export const PROTOBUF_WATCH_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf;stream=watch';

const META_PACKAGE = 'k8s.io.apimachinery.pkg.apis.meta.v1';

export interface TypeMeta {
  readonly apiVersion: string;
  readonly kind: string;
}

/** What an envelope holds: the type it names and the object's message bytes. */
export interface Envelope extends TypeMeta {
  readonly raw: Uint8Array;
}

export function splitApiVersion(apiVersion: string): { group: string; version: string } {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? { group: '', version: apiVersion } : { group: apiVersion.slice(0, slash), version: apiVersion.slice(slash + 1) };
}

/**
 * The message of a kind in a group/version: the group's own type, else a
 * meta/v1 type (Status, WatchEvent, DeleteOptions… are registered in every
 * group version upstream). Undefined when upstream has no protobuf for it (Table).
 */
export function messageForKind(apiVersion: string, kind: string, schema: ProtobufSchema = protobufSchema()): string | undefined {
  const { group, version } = splitApiVersion(apiVersion);
  for (const pkg of schema.packagesFor(group, version)) {
    if (schema.message(`${pkg}.${kind}`) !== undefined) return `${pkg}.${kind}`;
  }
  if (schema.message(`${META_PACKAGE}.${kind}`) !== undefined && kind !== 'Table') return `${META_PACKAGE}.${kind}`;
  return undefined;
}

/** Whether an object of this type can be written as protobuf. */
export function hasProtobufEncoding(apiVersion: string, kind: string): boolean {
  return messageForKind(apiVersion, kind) !== undefined;
}

function typeMetaOf(object: unknown): TypeMeta {
  if (typeof object !== 'object' || object === null) throw new ProtobufError('only objects can be encoded');
  const { apiVersion, kind } = object as { apiVersion?: unknown; kind?: unknown };
  if (typeof apiVersion !== 'string' || typeof kind !== 'string' || kind === '') throw new ProtobufError('the object has no apiVersion and kind');
  return { apiVersion, kind };
}

/** An API object (with apiVersion and kind) in the protobuf envelope. */
export function encodeObject(object: unknown, codec: ProtobufCodec = protobufCodec()): Buffer {
  const { apiVersion, kind } = typeMetaOf(object);
  const message = messageForKind(apiVersion, kind);
  if (message === undefined) throw new ProtobufError(`object ${kind} in ${apiVersion} has no protobuf encoding`);
  const raw = codec.encode(message, object);
  const w = protobuf.Writer.create();
  w.uint32((1 << 3) | 2).fork().uint32((1 << 3) | 2).string(apiVersion).uint32((2 << 3) | 2).string(kind).ldelim();
  w.uint32((2 << 3) | 2).bytes(raw);
  w.uint32((3 << 3) | 2).string('');
  w.uint32((4 << 3) | 2).string('');
  const unknown = w.finish();
  return Buffer.concat([PROTOBUF_MAGIC, unknown]);
}

/** Open an envelope; errors carry upstream's texts ("empty data", "provided data does not appear…", "empty body"). */
export function openEnvelope(data: Uint8Array): Envelope {
  if (data.length === 0) throw new ProtobufError('empty data');
  if (data.length < PROTOBUF_MAGIC.length || !PROTOBUF_MAGIC.equals(data.subarray(0, PROTOBUF_MAGIC.length))) {
    throw new ProtobufError(`provided data does not appear to be a protobuf message, expected prefix [${[...PROTOBUF_MAGIC].join(' ')}]`);
  }
  if (data.length === PROTOBUF_MAGIC.length) throw new ProtobufError('empty body');
  const r = protobuf.Reader.create(data.subarray(PROTOBUF_MAGIC.length));
  let apiVersion = '';
  let kind = '';
  let raw: Uint8Array = new Uint8Array(0);
  try {
    while (r.pos < r.len) {
      const tag = r.uint32();
      if (tag === ((1 << 3) | 2)) {
        const end = r.uint32() + r.pos;
        while (r.pos < end) {
          const t = r.uint32();
          if (t === ((1 << 3) | 2)) apiVersion = r.string();
          else if (t === ((2 << 3) | 2)) kind = r.string();
          else r.skipType(t & 7);
        }
      } else if (tag === ((2 << 3) | 2)) {
        raw = r.bytes();
      } else {
        r.skipType(tag & 7);
      }
    }
  } catch (e: unknown) {
    if (e instanceof ProtobufError) throw e;
    throw new ProtobufError('unexpected EOF');
  }
  return { apiVersion, kind, raw };
}

/** Decode the object an envelope holds, as upstream's JSON of it. */
export function decodeEnvelope(envelope: Envelope, codec: ProtobufCodec = protobufCodec()): Record<string, unknown> {
  const message = messageForKind(envelope.apiVersion, envelope.kind);
  if (message === undefined) throw new ProtobufError(`no kind "${envelope.kind}" is registered for version "${envelope.apiVersion}"`);
  const body = codec.decode(message, envelope.raw) as Record<string, unknown>;
  return { apiVersion: envelope.apiVersion, kind: envelope.kind, ...body };
}

/** Decode a whole protobuf body into the object it holds. */
export function decodeObject(data: Uint8Array, codec: ProtobufCodec = protobufCodec()): Record<string, unknown> {
  return decodeEnvelope(openEnvelope(data), codec);
}

/** One frame of a protobuf watch stream: length, then a WatchEvent whose object is enveloped. */
export function encodeWatchFrame(type: string, object: unknown, codec: ProtobufCodec = protobufCodec()): Buffer {
  const w = protobuf.Writer.create();
  w.uint32((1 << 3) | 2).string(type);
  w.uint32((2 << 3) | 2).fork().uint32((1 << 3) | 2).bytes(encodeObject(object, codec)).ldelim();
  const event = w.finish();
  const length = Buffer.alloc(4);
  length.writeUInt32BE(event.length);
  return Buffer.concat([length, event]);
}

export interface DecodedWatchEvent {
  readonly type: string;
  readonly object: Record<string, unknown>;
}

/**
 * Splits a protobuf watch stream into events: feed it chunks as they arrive,
 * get back the events completed so far.
 */
export class WatchFrameReader {
  private buffer = Buffer.alloc(0);

  constructor(private readonly codec: ProtobufCodec = protobufCodec()) {}

  push(chunk: Uint8Array): DecodedWatchEvent[] {
    this.buffer = this.buffer.length === 0 ? Buffer.from(chunk) : Buffer.concat([this.buffer, chunk]);
    const events: DecodedWatchEvent[] = [];
    while (this.buffer.length >= 4) {
      const length = this.buffer.readUInt32BE(0);
      if (this.buffer.length < 4 + length) break;
      events.push(this.decodeEvent(this.buffer.subarray(4, 4 + length)));
      this.buffer = this.buffer.subarray(4 + length);
    }
    return events;
  }

  private decodeEvent(frame: Uint8Array): DecodedWatchEvent {
    // Read by hand: the codec reads RawExtension bytes as JSON, and a watch event's are an envelope.
    const r = protobuf.Reader.create(frame);
    let type = '';
    let raw: Uint8Array | undefined;
    while (r.pos < r.len) {
      const tag = r.uint32();
      if (tag === ((1 << 3) | 2)) {
        type = r.string();
      } else if (tag === ((2 << 3) | 2)) {
        const inner = protobuf.Reader.create(r.bytes());
        while (inner.pos < inner.len) {
          const t = inner.uint32();
          if (t === ((1 << 3) | 2)) raw = inner.bytes();
          else inner.skipType(t & 7);
        }
      } else {
        r.skipType(tag & 7);
      }
    }
    if (raw === undefined) throw new ProtobufError('watch event without an object');
    return { type, object: decodeObject(raw, this.codec) };
  }
}
