/**
 * Our JSON objects ↔ protobuf messages, walking the generated schema with
 * protobufjs's Reader and Writer.
 *
 * Encoding writes the bytes Go's marshaller writes for the same object: fields
 * in number order; a pointer, slice or map only when the JSON has it (a
 * pointer set to 0, false or "" is written: proto2 presence); a value field
 * (a Go non-pointer) always, as its zero value when the JSON leaves it out;
 * map keys sorted.
 *
 * Decoding gives the JSON upstream would answer after reading the message into
 * its Go struct: fields in struct order; a zero scalar left out when the field
 * is omitempty and written as 0/""/false when not; an absent pointer, slice or
 * map left out when omitempty and null when not; an absent struct written as
 * its zero value (a zero Time is null, a zero IntOrString 0).
 *
 * Special types: Time, MicroTime and Duration (Go's string forms, go-values.ts),
 * IntOrString (a number or a string), Quantity (its string), RawExtension and
 * FieldsV1 (raw JSON bytes ↔ the JSON value), bytes (base64 in JSON) and the
 * named-slice wrappers such as ExtraValue (a bare JSON array).
 */
import protobuf from 'protobufjs/minimal.js';
import { formatGoDuration, formatMicroTime, formatTime, parseGoDuration, parseRfc3339 } from './go-values.js';
import { protobufSchema, type FieldSpec, type MessageSpec, type ProtobufSchema } from './schema.js';

type Writer = protobuf.Writer;
type Reader = protobuf.Reader;
type JsonObject = Record<string, unknown>;

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
export const TIME = `${META}.Time`;
export const MICRO_TIME = `${META}.MicroTime`;
export const DURATION = `${META}.Duration`;
export const FIELDS_V1 = `${META}.FieldsV1`;
export const INT_OR_STRING = 'k8s.io.apimachinery.pkg.util.intstr.IntOrString';
export const QUANTITY = 'k8s.io.apimachinery.pkg.api.resource.Quantity';
export const RAW_EXTENSION = 'k8s.io.apimachinery.pkg.runtime.RawExtension';

/** A value that does not fit the schema (encoding) or bytes that are not a valid message (decoding). */
export class ProtobufError extends Error {
  override readonly name = 'ProtobufError';

  constructor(
    readonly reason: string,
    /** Where in the object, for encoding errors: `spec.containers[0].name`. */
    readonly path = '',
  ) {
    super(path === '' ? reason : `${path}: ${reason}`);
  }

  /** The same error one level up: `segment` is a field name or `[i]`. */
  within(segment: string): ProtobufError {
    const path = this.path === '' ? segment : this.path.startsWith('[') ? `${segment}${this.path}` : `${segment}.${this.path}`;
    return new ProtobufError(this.reason, path);
  }
}

/** Rethrow a ProtobufError with `segment` prepended to its path. */
function rethrowWithin(e: unknown, segment: string): never {
  throw e instanceof ProtobufError ? e.within(segment) : e;
}

// Wire types.
const VARINT = 0;
const FIXED64 = 1;
const BYTES = 2;
const FIXED32 = 5;

function wireType(type: string): number {
  switch (type) {
    case 'double':
    case 'fixed64':
      return FIXED64;
    case 'float':
    case 'fixed32':
      return FIXED32;
    case 'int32':
    case 'int64':
    case 'uint32':
    case 'uint64':
    case 'sint32':
    case 'sint64':
    case 'bool':
      return VARINT;
    default:
      return BYTES;
  }
}


export class ProtobufCodec {
  constructor(private readonly schema: ProtobufSchema = protobufSchema()) {}

  spec(name: string): MessageSpec {
    const spec = this.schema.message(name);
    if (spec === undefined) throw new ProtobufError(`no protobuf message ${name}`);
    return spec;
  }

  /** Encode a JSON object as the message `type`. */
  encode(type: string, value: unknown): Uint8Array {
    const w = protobuf.Writer.create();
    this.writeMessageBody(type, value, w);
    return w.finish();
  }

  /** Decode the message `type` into upstream's JSON of it. */
  decode(type: string, bytes: Uint8Array): unknown {
    const r = protobuf.Reader.create(bytes);
    return this.readMessage(type, r, r.len);
  }

  // ---- encoding (errors carry no path until they unwind: paths cost nothing on the happy path) ----

  private writeMessageBody(type: string, value: unknown, w: Writer): void {
    switch (type) {
      case TIME: {
        const t = typeof value === 'string' ? parseRfc3339(value) : undefined;
        if (t === undefined) throw new ProtobufError(`expected an RFC 3339 time, got ${JSON.stringify(value)}`);
        // As upstream, a Time travels in whole seconds.
        w.uint32((1 << 3) | VARINT).int64(t.seconds).uint32((2 << 3) | VARINT).int32(0);
        return;
      }
      case MICRO_TIME: {
        const t = typeof value === 'string' ? parseRfc3339(value) : undefined;
        if (t === undefined) throw new ProtobufError(`expected an RFC 3339 time, got ${JSON.stringify(value)}`);
        w.uint32((1 << 3) | VARINT).int64(t.seconds).uint32((2 << 3) | VARINT).int32(t.nanos - (t.nanos % 1000));
        return;
      }
      case DURATION: {
        const ns = typeof value === 'string' ? parseGoDuration(value) : undefined;
        if (ns === undefined) throw new ProtobufError(`expected a duration, got ${JSON.stringify(value)}`);
        w.uint32((1 << 3) | VARINT).int64(ns);
        return;
      }
      case INT_OR_STRING:
        if (typeof value === 'number' && Number.isInteger(value)) {
          w.uint32((1 << 3) | VARINT).int64(0).uint32((2 << 3) | VARINT).int32(value).uint32((3 << 3) | BYTES).string('');
        } else if (typeof value === 'string') {
          w.uint32((1 << 3) | VARINT).int64(1).uint32((2 << 3) | VARINT).int32(0).uint32((3 << 3) | BYTES).string(value);
        } else {
          throw new ProtobufError(`expected an integer or a string, got ${JSON.stringify(value)}`);
        }
        return;
      case QUANTITY:
        if (typeof value !== 'string' && typeof value !== 'number') throw new ProtobufError(`expected a quantity, got ${JSON.stringify(value)}`);
        w.uint32((1 << 3) | BYTES).string(String(value));
        return;
      case RAW_EXTENSION:
      case FIELDS_V1:
        w.uint32((1 << 3) | BYTES).bytes(Buffer.from(JSON.stringify(value)));
        return;
    }
    const spec = this.spec(type);
    if (spec.list) {
      if (!Array.isArray(value)) throw new ProtobufError('expected an array');
      this.writeRepeated(spec.fields[0]!, value, w);
      return;
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ProtobufError(`expected an object, got ${JSON.stringify(value)}`);
    this.writeFields(spec, value as JsonObject, w);
  }

  private writeFields(spec: MessageSpec, object: JsonObject, w: Writer): void {
    const fields = spec.encodeOrder;
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]!;
      if (f.inline) {
        w.uint32((f.number << 3) | BYTES).fork();
        this.writeMessageBody(f.type, object, w);
        w.ldelim();
        continue;
      }
      const value = object[f.json];
      if (value === undefined || value === null) {
        if (!f.pointer && !f.repeated && f.mapKey === undefined) this.writeZero(f, w);
        continue;
      }
      try {
        if (f.mapKey !== undefined) this.writeMap(f, value, w);
        else if (f.repeated) {
          if (!Array.isArray(value)) throw new ProtobufError(`expected an array, got ${JSON.stringify(value)}`);
          this.writeRepeated(f, value, w);
        } else this.writeValue(f.number, f.type, f.scalar, value, w);
      } catch (e: unknown) {
        rethrowWithin(e, f.json);
      }
    }
  }

  /** A value field the JSON leaves out, as Go writes its zero value. */
  private writeZero(f: FieldSpec, w: Writer): void {
    if (f.scalar) {
      // A nil []byte is not written; every other scalar is.
      if (f.type !== 'bytes') this.writeScalar(f.number, f.type, zeroScalar(f.type), w);
      return;
    }
    switch (f.type) {
      case TIME:
      case MICRO_TIME:
      case RAW_EXTENSION:
      case FIELDS_V1:
        // A zero Time marshals to nothing; a nil Raw is not written.
        w.uint32((f.number << 3) | BYTES).bytes(EMPTY);
        return;
      case DURATION:
        w.uint32((f.number << 3) | BYTES).fork().uint32((1 << 3) | VARINT).int64(0).ldelim();
        return;
      case INT_OR_STRING:
        this.writeValue(f.number, f.type, false, 0, w);
        return;
      case QUANTITY:
        this.writeValue(f.number, f.type, false, '0', w);
        return;
    }
    const spec = this.spec(f.type);
    if (spec.list) return;
    w.uint32((f.number << 3) | BYTES).fork();
    this.writeFields(spec, {}, w);
    w.ldelim();
  }

  private writeRepeated(f: FieldSpec, items: readonly unknown[], w: Writer): void {
    for (let i = 0; i < items.length; i++) {
      const item = items[i];
      try {
        if (item !== null && item !== undefined) this.writeValue(f.number, f.type, f.scalar, item, w);
        else if (!f.scalar) w.uint32((f.number << 3) | BYTES).bytes(EMPTY);
      } catch (e: unknown) {
        rethrowWithin(e, `[${i}]`);
      }
    }
  }

  private writeMap(f: FieldSpec, value: unknown, w: Writer): void {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ProtobufError('expected an object');
    const entries = value as JsonObject;
    // Keys sorted, as Go's marshaller writes them.
    for (const key of Object.keys(entries).sort()) {
      const v = entries[key];
      w.uint32((f.number << 3) | BYTES).fork();
      this.writeScalar(1, f.mapKey!, key, w);
      try {
        if (v !== null && v !== undefined) this.writeValue(2, f.type, f.scalar, v, w);
      } catch (e: unknown) {
        rethrowWithin(e, key);
      }
      w.ldelim();
    }
  }

  private writeValue(number: number, type: string, scalar: boolean, value: unknown, w: Writer): void {
    if (scalar) {
      this.writeScalar(number, type, value, w);
      return;
    }
    w.uint32((number << 3) | BYTES).fork();
    this.writeMessageBody(type, value, w);
    w.ldelim();
  }

  private writeScalar(number: number, type: string, value: unknown, w: Writer): void {
    switch (type) {
      case 'string':
        if (typeof value !== 'string') throw new ProtobufError(`expected a string, got ${JSON.stringify(value)}`);
        w.uint32((number << 3) | BYTES).string(value);
        return;
      case 'bytes':
        if (typeof value !== 'string') throw new ProtobufError(`expected base64 data, got ${JSON.stringify(value)}`);
        w.uint32((number << 3) | BYTES).bytes(Buffer.from(value, 'base64'));
        return;
      case 'bool':
        if (typeof value !== 'boolean') throw new ProtobufError(`expected a boolean, got ${JSON.stringify(value)}`);
        w.uint32((number << 3) | VARINT).bool(value);
        return;
      case 'double':
        if (typeof value !== 'number') throw new ProtobufError(`expected a number, got ${JSON.stringify(value)}`);
        w.uint32((number << 3) | FIXED64).double(value);
        return;
      case 'float':
        if (typeof value !== 'number') throw new ProtobufError(`expected a number, got ${JSON.stringify(value)}`);
        w.uint32((number << 3) | FIXED32).float(value);
        return;
      default: {
        if (typeof value !== 'number' || !Number.isInteger(value)) throw new ProtobufError(`expected an integer, got ${JSON.stringify(value)}`);
        const tag = (number << 3) | wireType(type);
        if (type === 'int32') w.uint32(tag).int32(value);
        else if (type === 'uint32') w.uint32(tag).uint32(value);
        else if (type === 'sint32' || type === 'sint64') w.uint32(tag).sint64(value);
        else if (type === 'uint64') w.uint32(tag).uint64(value);
        else if (type === 'fixed32') w.uint32(tag).fixed32(value);
        else if (type === 'fixed64') w.uint32(tag).fixed64(value);
        else w.uint32(tag).int64(value);
      }
    }
  }

  // ---- decoding ----

  /** Read `length` bytes of a message (a sub-message's body) and render it. */
  private readMessage(type: string, r: Reader, length: number): unknown {
    const end = r.pos + length;
    if (end > r.len) throw new ProtobufError('unexpected EOF');
    switch (type) {
      case TIME:
      case MICRO_TIME:
      case DURATION:
      case INT_OR_STRING:
      case QUANTITY:
      case RAW_EXTENSION:
      case FIELDS_V1:
        return this.readSpecial(type, r, end);
    }
    const spec = this.spec(type);
    const present = this.readPresent(spec, r, end);
    if (spec.list) return present[0] ?? [];
    return this.render(spec, present, {});
  }

  /** The value types whose JSON is not an object of their fields. */
  private readSpecial(type: string, r: Reader, end: number): unknown {
    const values: unknown[] = [];
    while (r.pos < end) {
      const tag = r.uint32();
      const number = tag >>> 3;
      const wire = tag & 7;
      if (number >= 1 && number <= 3 && wire === VARINT) values[number] = number === 2 ? r.int32() : asNumber(r.int64());
      else if (number >= 1 && number <= 3 && wire === BYTES) values[number] = type === RAW_EXTENSION || type === FIELDS_V1 ? r.bytes() : r.string();
      else this.skip(r, tag);
    }
    if (r.pos !== end) throw new ProtobufError('unexpected EOF');
    switch (type) {
      case TIME:
        return values.length === 0 ? null : formatTime(Number(values[1] ?? 0));
      case MICRO_TIME:
        return values.length === 0 ? null : formatMicroTime(Number(values[1] ?? 0), Number(values[2] ?? 0));
      case DURATION:
        return formatGoDuration(Number(values[1] ?? 0));
      case INT_OR_STRING:
        return values[1] === 1 ? (values[3] ?? '') : Number(values[2] ?? 0);
      case QUANTITY:
        return values[1] ?? '0';
      default: {
        const raw = values[1] as Uint8Array | undefined;
        if (raw === undefined || raw.length === 0) return null;
        try {
          return JSON.parse(Buffer.from(raw.buffer, raw.byteOffset, raw.length).toString('utf8')) as unknown;
        } catch {
          throw new ProtobufError('the raw bytes are not JSON');
        }
      }
    }
  }

  /**
   * The values of each field, by its index in spec.fields: one for a singular
   * field, every item for a repeated one, [key, value] entries for a map.
   */
  private readPresent(spec: MessageSpec, r: Reader, end: number): (unknown[] | undefined)[] {
    const present: (unknown[] | undefined)[] = [];
    while (r.pos < end) {
      const tag = r.uint32();
      const number = tag >>> 3;
      const wire = tag & 7;
      if (number === 0) throw new ProtobufError(`proto: ${shortName(spec.name)}: illegal tag 0 (wire type ${wire})`);
      const f = spec.byNumber.get(number);
      if (f === undefined) {
        this.skip(r, tag);
        continue;
      }
      let values = present[f.index];
      if (values === undefined) {
        values = [];
        present[f.index] = values;
      }
      if (f.mapKey !== undefined) {
        if (wire !== BYTES) throw wrongWireType(wire, f);
        values.push(this.readMapEntry(f, r));
      } else if (f.scalar) {
        const expected = wireType(f.type);
        if (f.repeated && wire === BYTES && expected !== BYTES) {
          // A packed repeated scalar.
          const packedEnd = r.uint32() + r.pos;
          while (r.pos < packedEnd) values.push(this.readScalar(f.type, r));
          continue;
        }
        if (wire !== expected) throw wrongWireType(wire, f);
        const value = this.readScalar(f.type, r);
        if (f.repeated) values.push(value);
        else values[0] = value;
      } else {
        if (wire !== BYTES) throw wrongWireType(wire, f);
        const value = this.readMessage(f.type, r, r.uint32());
        if (f.repeated) values.push(value);
        else values[0] = value;
      }
    }
    if (r.pos !== end) throw new ProtobufError('unexpected EOF');
    return present;
  }

  private readMapEntry(f: FieldSpec, r: Reader): [string, unknown] {
    const end = r.uint32() + r.pos;
    if (end > r.len) throw new ProtobufError('unexpected EOF');
    let key: unknown = zeroScalar(f.mapKey!);
    let value: unknown;
    while (r.pos < end) {
      const tag = r.uint32();
      if (tag >>> 3 === 1) key = this.readScalar(f.mapKey!, r);
      else if (tag >>> 3 === 2) value = f.scalar ? this.readScalar(f.type, r) : this.readMessage(f.type, r, r.uint32());
      else this.skip(r, tag);
    }
    if (value === undefined) value = f.scalar ? zeroScalar(f.type) : this.zeroMessage(f.type);
    return [String(key), value];
  }

  private readScalar(type: string, r: Reader): unknown {
    switch (type) {
      case 'string':
        return r.string();
      case 'bytes': {
        const b = r.bytes();
        return Buffer.from(b.buffer, b.byteOffset, b.length).toString('base64');
      }
      case 'bool':
        return r.bool();
      case 'int32':
        return r.int32();
      case 'uint32':
        return r.uint32();
      case 'sint32':
        return r.sint32();
      case 'sint64':
        return asNumber(r.sint64());
      case 'uint64':
        return asNumber(r.uint64());
      case 'double':
        return r.double();
      case 'float':
        return r.float();
      case 'fixed32':
        return r.fixed32();
      case 'fixed64':
        return asNumber(r.fixed64());
      default:
        return asNumber(r.int64());
    }
  }

  private skip(r: Reader, tag: number): void {
    const wire = tag & 7;
    if (wire === 3 || wire === 4 || wire > 5) throw new ProtobufError(`proto: illegal wireType ${wire}`);
    try {
      r.skipType(wire);
    } catch {
      throw new ProtobufError('unexpected EOF');
    }
  }

  /** The Go-JSON rendering of a decoded message, its inline fields merged into `into`. */
  private render(spec: MessageSpec, present: readonly (unknown[] | undefined)[], into: JsonObject): JsonObject {
    const fields = spec.fields;
    for (let i = 0; i < fields.length; i++) {
      const f = fields[i]!;
      const values = present[i];
      if (f.inline) {
        const inner = values?.[0];
        if (inner !== undefined && inner !== null && typeof inner === 'object') Object.assign(into, inner);
        else this.render(this.spec(f.type), [], into);
        continue;
      }
      const value = this.fieldValue(f, values);
      if (value !== undefined) into[f.json] = value;
    }
    return into;
  }

  /** The JSON value of one field, or undefined when JSON leaves it out. */
  private fieldValue(f: FieldSpec, values: unknown[] | undefined): unknown {
    const omit = f.omitempty || f.omitzero;
    if (f.mapKey !== undefined) {
      if (values === undefined || values.length === 0) return omit ? undefined : null;
      return Object.fromEntries(values as [string, unknown][]);
    }
    if (f.repeated) {
      if (values === undefined || values.length === 0) return omit ? undefined : null;
      return values;
    }
    if (values === undefined) {
      if (f.pointer) return omit ? undefined : null;
      if (f.scalar) return omit ? undefined : f.type === 'bytes' ? null : zeroScalar(f.type);
      const zero = this.zeroMessage(f.type);
      return f.omitzero && isZeroJson(zero) ? undefined : zero;
    }
    const value = values[0];
    if (f.pointer) return value;
    if (f.scalar) return omit && (value === '' || value === 0 || value === false) ? undefined : value;
    return f.omitzero && isZeroJson(value) ? undefined : value;
  }

  /** The JSON of a Go zero value of a message type. */
  private zeroMessage(type: string): unknown {
    switch (type) {
      case TIME:
      case MICRO_TIME:
      case RAW_EXTENSION:
      case FIELDS_V1:
        return null;
      case DURATION:
        return '0s';
      case INT_OR_STRING:
        return 0;
      case QUANTITY:
        return '0';
    }
    const spec = this.spec(type);
    return spec.list ? null : this.render(spec, [], {});
  }
}

const EMPTY = new Uint8Array(0);

function zeroScalar(type: string): unknown {
  if (type === 'string' || type === 'bytes') return '';
  if (type === 'bool') return false;
  return 0;
}

function isZeroJson(value: unknown): boolean {
  if (value === null || value === undefined) return true;
  if (typeof value === 'object') return Object.values(value).every(isZeroJson);
  return value === '' || value === 0 || value === false;
}

function asNumber(value: unknown): number {
  if (typeof value === 'number') return value;
  if (typeof value === 'object' && value !== null && 'toNumber' in value) return (value as { toNumber(): number }).toNumber();
  return Number(value);
}

function shortName(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

function wrongWireType(wire: number, f: FieldSpec): ProtobufError {
  return new ProtobufError(`proto: wrong wireType = ${wire} for field ${f.json}`);
}

let shared: ProtobufCodec | undefined;

/** The codec over the committed schema. */
export function protobufCodec(): ProtobufCodec {
  shared ??= new ProtobufCodec();
  return shared;
}
