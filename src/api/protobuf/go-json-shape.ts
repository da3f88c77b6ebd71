/**
 * An object in the JSON shape Go's json.Marshal gives it after upstream's
 * typed decoding: upstream decodes every write into its Go struct and stores
 * (and serves) what the struct marshals to, so the JSON clients see has Go's
 * shape, whatever the client sent. Walking the message definitions of
 * schema.ts (upstream's Go struct tags), per field:
 *
 * - omitempty drops "", 0, false, a nil or empty slice or map, a nil pointer;
 *   it never drops a struct (Go does not), so an absent ResourceRequirements
 *   is `{}` and a zero Quantity `"0"`;
 * - omitzero drops a zero value, structs included (a zero Time). The one
 *   omitzero field, ObjectMeta.creationTimestamp, got it after 1.33: servers
 *   kubectl 1.27–1.33 talk to write a zero one as `creationTimestamp: null`,
 *   and so do our defaults (core/v1 defaults.ts); so omitzero is ignored
 *   unless asked for (`honourOmitzero`, as the protobuf decoder does);
 * - a field without either is always written: a zero scalar as 0/""/false, a
 *   nil slice, map, pointer or []byte as null, a struct as its object;
 * - an inline (embedded) struct's fields are written into the parent;
 * - keys the schema does not know are kept, untouched.
 *
 * Order: the object's own keys keep their order, and fields Go writes that it
 * leaves out follow in struct order. Go's writer uses struct order and sorted
 * map keys, but the store compares the bytes of a write with what it holds (a
 * write that changes nothing is no write), and defaulting runs after this and
 * appends what it adds: were this to reorder, a no-op patch of a defaulted
 * object would be a change. Struct order needs a shaping after defaulting.
 *
 * The value types with their own JSON methods are written as those methods
 * write them: Time in whole seconds UTC (`2006-01-02T15:04:05Z`, zero → null),
 * MicroTime with microseconds, Duration as time.Duration's String (`1m0s`),
 * Quantity canonical (`0.5` → `500m`), IntOrString as given (zero → 0),
 * RawExtension and FieldsV1 untouched, bytes as given (base64). A JSON null
 * decodes to the zero value, as Go's decoder leaves it.
 *
 * The values are those codec.ts's decoder answers after a protobuf round trip
 * (with honourOmitzero), except where protobuf itself loses what JSON keeps
 * (an empty slice vs a nil one) and for a quantity, which the protobuf bytes
 * carry as the client wrote it. A kind without a message (a custom resource)
 * is returned unchanged.
 */
import { isPlainObject } from '../../machinery/meta.js';
import { canonicalQuantity } from '../../machinery/quantity.js';
import { DURATION, FIELDS_V1, INT_OR_STRING, MICRO_TIME, QUANTITY, RAW_EXTENSION, TIME } from './codec.js';
import { formatGoDuration, formatMicroTime, formatTime, parseGoDuration, parseRfc3339 } from './go-values.js';
import { protobufSchema, type ProtobufSchema } from './schema.js';

type JsonObject = Record<string, unknown>;

export interface ShapeKind {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
}

/** How one value (a field's, a slice item's, a map value's) is written. */
const enum Elem {
  Scalar,
  Bytes,
  Message,
  Time,
  MicroTime,
  Duration,
  IntOrString,
  Quantity,
  Raw,
  /** A Go named slice (ExtraValue): a bare JSON array of scalars. */
  NamedSlice,
}

const enum Container {
  Single,
  Slice,
  Map,
}

interface ElemPlan {
  readonly elem: Elem;
  /** For a scalar: its zero value. */
  readonly zero: unknown;
  /** For a message. */
  readonly plan: MessagePlan | undefined;
  /** For a named slice: its items. */
  readonly item: ElemPlan | undefined;
}

interface FieldPlan {
  readonly json: string;
  readonly container: Container;
  readonly value: ElemPlan;
  readonly pointer: boolean;
  readonly omitempty: boolean;
  readonly omitzero: boolean;
}

interface MessagePlan {
  /** Every field the struct writes by JSON name, inline (embedded) structs' fields included. */
  readonly byJson: Map<string, FieldPlan>;
  /** The fields Go writes even when the JSON leaves them out, in struct order. */
  readonly writtenWhenAbsent: FieldPlan[];
}

const SPECIAL: ReadonlyMap<string, Elem> = new Map([
  [TIME, Elem.Time],
  [MICRO_TIME, Elem.MicroTime],
  [DURATION, Elem.Duration],
  [INT_OR_STRING, Elem.IntOrString],
  [QUANTITY, Elem.Quantity],
  [RAW_EXTENSION, Elem.Raw],
  [FIELDS_V1, Elem.Raw],
]);

export class GoJsonShaper {
  private readonly plans = new Map<string, MessagePlan>();
  private readonly byKind = new Map<string, MessagePlan | null>();

  constructor(
    private readonly schema: ProtobufSchema = protobufSchema(),
    private readonly options: { readonly honourOmitzero?: boolean } = {},
  ) {}

  /** The object as Go writes it after decoding it as `kind`; unchanged when the kind has no message. */
  shape(object: JsonObject, kind: ShapeKind): JsonObject {
    const plan = this.planForKind(kind);
    if (plan === undefined) return object;
    // TypeMeta (kind, apiVersion) is not in the messages: kept as the object has it.
    return shapeMessage(plan, object);
  }

  /** Whether the kind has a message to shape by. */
  knows(kind: ShapeKind): boolean {
    return this.planForKind(kind) !== undefined;
  }

  private planForKind({ group, version, kind }: ShapeKind): MessagePlan | undefined {
    const key = `${group}/${version}/${kind}`;
    let plan = this.byKind.get(key);
    if (plan === undefined) {
      // Only the group version's own messages: meta/v1's (Status, List…) are not what a write of `kind` decodes into.
      const pkg = this.schema.packagesFor(group, version).find((p) => this.schema.message(`${p}.${kind}`) !== undefined);
      plan = pkg === undefined ? null : this.messagePlan(`${pkg}.${kind}`);
      this.byKind.set(key, plan);
    }
    return plan ?? undefined;
  }

  /** The plan of a message, compiled once; registered before its fields so recursive types terminate. */
  private messagePlan(name: string): MessagePlan {
    let plan = this.plans.get(name);
    if (plan !== undefined) return plan;
    const spec = this.schema.message(name);
    if (spec === undefined) throw new Error(`no protobuf message ${name}`);
    const byJson = new Map<string, FieldPlan>();
    const writtenWhenAbsent: FieldPlan[] = [];
    plan = { byJson, writtenWhenAbsent };
    this.plans.set(name, plan);
    for (const f of spec.fields) {
      if (f.inline) {
        const inline = this.messagePlan(f.type);
        for (const [json, field] of inline.byJson) if (!byJson.has(json)) byJson.set(json, field);
        writtenWhenAbsent.push(...inline.writtenWhenAbsent);
        continue;
      }
      let value = this.elemPlan(f.type, f.scalar);
      let container = f.mapKey !== undefined ? Container.Map : f.repeated ? Container.Slice : Container.Single;
      // A named-slice field is a Go slice: written as one.
      if (container === Container.Single && value.elem === Elem.NamedSlice) {
        container = Container.Slice;
        value = value.item!;
      }
      const omitzero = f.omitzero && this.options.honourOmitzero === true;
      const field: FieldPlan = { json: f.json, container, value, pointer: f.pointer, omitempty: f.omitempty, omitzero };
      byJson.set(f.json, field);
      if (writeField(field, undefined, {})) writtenWhenAbsent.push(field);
    }
    return plan;
  }

  private elemPlan(type: string, scalar: boolean): ElemPlan {
    if (scalar) {
      if (type === 'bytes') return BYTES;
      return type === 'string' ? SCALAR_STRING : type === 'bool' ? SCALAR_BOOL : SCALAR_NUMBER;
    }
    const special = SPECIAL.get(type);
    if (special !== undefined) return { elem: special, zero: undefined, plan: undefined, item: undefined };
    const spec = this.schema.message(type);
    if (spec?.list === true) {
      const item = spec.fields[0]!;
      return { elem: Elem.NamedSlice, zero: undefined, plan: undefined, item: this.elemPlan(item.type, item.scalar) };
    }
    return { elem: Elem.Message, zero: undefined, plan: this.messagePlan(type), item: undefined };
  }
}

const SCALAR_STRING: ElemPlan = { elem: Elem.Scalar, zero: '', plan: undefined, item: undefined };
const SCALAR_BOOL: ElemPlan = { elem: Elem.Scalar, zero: false, plan: undefined, item: undefined };
const SCALAR_NUMBER: ElemPlan = { elem: Elem.Scalar, zero: 0, plan: undefined, item: undefined };
const BYTES: ElemPlan = { elem: Elem.Bytes, zero: null, plan: undefined, item: undefined };

/**
 * A struct's JSON: the fields the object has, in its own order (so that a
 * write that changes nothing stores the same bytes), shaped; then the fields
 * Go writes that it leaves out, in struct order; unknown keys untouched.
 */
function shapeMessage(plan: MessagePlan, src: JsonObject): JsonObject {
  const out: JsonObject = {};
  for (const key in src) {
    const f = plan.byJson.get(key);
    if (f === undefined) setOwn(out, key, src[key]);
    else writeField(f, src[key], out);
  }
  const absent = plan.writtenWhenAbsent;
  for (let i = 0; i < absent.length; i++) {
    const f = absent[i]!;
    if (src[f.json] === undefined) writeField(f, undefined, out);
  }
  return out;
}

/** Write one field's value (undefined when absent) into `out` as Go does; whether it was written. */
function writeField(f: FieldPlan, v: unknown, out: JsonObject): boolean {
  const omitNil = f.omitempty || f.omitzero;
  if (f.container === Container.Single) {
    if (v === undefined || v === null) {
      if (f.pointer) {
        if (omitNil) return false;
        out[f.json] = null;
        return true;
      }
      const zero = zeroOf(f.value);
      if (f.value.elem <= Elem.Bytes ? omitNil : f.omitzero && isZero(zero)) return false;
      out[f.json] = zero;
      return true;
    }
    const r = shapeValue(f.value, v);
    if (!f.pointer && (f.value.elem <= Elem.Bytes ? omitNil && isEmptyScalar(r) : f.omitzero && isZero(r))) return false;
    out[f.json] = r;
    return true;
  }
  if (v === undefined || v === null) {
    if (omitNil) return false;
    out[f.json] = null;
    return true;
  }
  if (f.container === Container.Slice) {
    if (!Array.isArray(v)) {
      out[f.json] = v;
      return true;
    }
    if (v.length === 0 && f.omitempty) return false;
    const items = new Array<unknown>(v.length);
    for (let j = 0; j < v.length; j++) items[j] = shapeValue(f.value, v[j]);
    out[f.json] = items;
    return true;
  }
  if (!isPlainObject(v)) {
    out[f.json] = v;
    return true;
  }
  // A map keeps the order it was written in, as the struct's fields do (Go's own writer sorts the keys).
  const entries: JsonObject = {};
  let empty = true;
  for (const key in v) {
    setOwn(entries, key, shapeValue(f.value, v[key]));
    empty = false;
  }
  if (empty && f.omitempty) return false;
  out[f.json] = entries;
  return true;
}

/** One value as Go writes it; a JSON null is the zero value; a value of the wrong JSON type is kept as it is. */
function shapeValue(p: ElemPlan, v: unknown): unknown {
  switch (p.elem) {
    case Elem.Scalar:
      return v === null ? p.zero : v;
    case Elem.Bytes:
      // Go's base64 decoder skips line breaks; its encoder writes none.
      return typeof v === 'string' && (v.includes('\n') || v.includes('\r')) ? Buffer.from(v, 'base64').toString('base64') : v;
    case Elem.Message:
      return v === null ? shapeMessage(p.plan!, {}) : isPlainObject(v) ? shapeMessage(p.plan!, v) : v;
    case Elem.Time:
      return typeof v === 'string' ? goTime(v) : v;
    case Elem.MicroTime:
      return typeof v === 'string' ? goMicroTime(v) : v;
    case Elem.Duration: {
      if (v === null) return '0s';
      const ns = typeof v === 'string' ? parseGoDuration(v) : undefined;
      return ns === undefined ? v : formatGoDuration(ns);
    }
    case Elem.IntOrString:
      return v === null ? 0 : v;
    case Elem.Quantity:
      if (v === null) return '0';
      return typeof v === 'string' ? goQuantity(v) : typeof v === 'number' ? goQuantity(String(v)) : v;
    case Elem.Raw:
      return v;
    case Elem.NamedSlice: {
      if (!Array.isArray(v)) return v;
      const items = new Array<unknown>(v.length);
      for (let j = 0; j < v.length; j++) items[j] = shapeValue(p.item!, v[j]);
      return items;
    }
  }
}

/** The JSON of a Go zero value. */
function zeroOf(p: ElemPlan): unknown {
  switch (p.elem) {
    case Elem.Scalar:
    case Elem.Bytes:
      return p.zero;
    case Elem.Message:
      return shapeMessage(p.plan!, {});
    case Elem.Duration:
      return '0s';
    case Elem.IntOrString:
      return 0;
    case Elem.Quantity:
      return '0';
    default:
      // Time, MicroTime, RawExtension, FieldsV1 and a nil named slice.
      return null;
  }
}

function isEmptyScalar(v: unknown): boolean {
  return v === '' || v === 0 || v === false || v === null;
}

/** Go's IsZero of a written value: null, a zero scalar, or a struct of zero fields (a slice or map written is not nil). */
function isZero(v: unknown): boolean {
  if (v === null || v === '' || v === 0 || v === false) return true;
  if (!isPlainObject(v)) return false;
  for (const key in v) if (!isZero(v[key])) return false;
  return true;
}

const GO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const GO_MICRO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

/** metav1.Time: RFC 3339 in whole seconds, UTC. Text that does not parse is kept (validation reports it). */
function goTime(v: string): string {
  if (GO_TIME.test(v)) return v;
  const t = parseRfc3339(v);
  return t === undefined ? v : formatTime(t.seconds);
}

function goMicroTime(v: string): string {
  if (GO_MICRO_TIME.test(v)) return v;
  const t = parseRfc3339(v);
  return t === undefined ? v : formatMicroTime(t.seconds, t.nanos);
}

/** Up to three digits and an optional suffix: already canonical (the common case, e.g. `100m`, `64Mi`). */
const CANONICAL_QUANTITY = /^[1-9]\d{0,2}(?:[mkMGTPE]|[KMGTPE]i)?$/;

function goQuantity(v: string): string {
  return CANONICAL_QUANTITY.test(v) ? v : canonicalQuantity(v.trim());
}

/** A plain assignment, except for a `__proto__` key, which must stay an own data property. */
function setOwn(out: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
  else out[key] = value;
}

let shared: GoJsonShaper | undefined;

/**
 * The object as upstream's API server would store and serve it after decoding
 * it as `kind` (a new object; the input is not changed). A kind without a
 * protobuf message, such as a custom resource, is returned as it is.
 */
export function goJsonShape(object: JsonObject, kind: ShapeKind): JsonObject {
  shared ??= new GoJsonShaper();
  return shared.shape(object, kind);
}
