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
 * - omitzero drops a zero value, structs included (a zero Time);
 * - a field without either is always written: a zero scalar as 0/""/false, a
 *   nil slice, map, pointer or []byte as null, a struct as its object;
 * - an inline (embedded) struct's fields are written into the parent;
 * - fields are written in Go struct order, map keys sorted; keys the schema
 *   does not know are kept, untouched, after them; `kind` and `apiVersion`
 *   (TypeMeta) first.
 *
 * The value types with their own JSON methods are written as those methods
 * write them: Time in whole seconds UTC (`2006-01-02T15:04:05Z`, zero → null),
 * MicroTime with microseconds, Duration as time.Duration's String (`1m0s`),
 * Quantity canonical (`0.5` → `500m`), IntOrString as given (zero → 0),
 * RawExtension and FieldsV1 untouched, bytes as given (base64). A JSON null
 * decodes to the zero value, as Go's decoder leaves it.
 *
 * It is the JSON codec.ts's decoder answers after a protobuf round trip, except
 * where protobuf itself loses what JSON keeps (an empty slice vs a nil one).
 * A kind without a message (a custom resource) is returned unchanged.
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
  /** An embedded struct, written into the parent. */
  readonly inline: MessagePlan | undefined;
}

interface MessagePlan {
  readonly fields: FieldPlan[];
  /** Every JSON name the struct writes, inline fields' included. */
  readonly known: Set<string>;
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

  constructor(private readonly schema: ProtobufSchema = protobufSchema()) {}

  /** The object as Go writes it after decoding it as `kind`; unchanged when the kind has no message. */
  shape(object: JsonObject, kind: ShapeKind): JsonObject {
    const plan = this.planForKind(kind);
    if (plan === undefined) return object;
    const out: JsonObject = {};
    // TypeMeta is inline in every kind (kind, then apiVersion; both omitempty); the messages leave it out.
    if (object.kind !== undefined && object.kind !== '') out.kind = object.kind;
    if (object.apiVersion !== undefined && object.apiVersion !== '') out.apiVersion = object.apiVersion;
    writeFields(plan, object, out);
    for (const key in object) {
      if (key !== 'kind' && key !== 'apiVersion' && !plan.known.has(key)) setOwn(out, key, object[key]);
    }
    return out;
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
    const fields: FieldPlan[] = [];
    const known = new Set<string>();
    plan = { fields, known };
    this.plans.set(name, plan);
    for (const f of spec.fields) {
      if (f.inline) {
        const inline = this.messagePlan(f.type);
        for (const k of inline.known) known.add(k);
        fields.push({ json: f.json, container: Container.Single, value: SCALAR_STRING, pointer: false, omitempty: false, omitzero: false, inline });
        continue;
      }
      known.add(f.json);
      let value = this.elemPlan(f.type, f.scalar);
      let container = f.mapKey !== undefined ? Container.Map : f.repeated ? Container.Slice : Container.Single;
      // A named-slice field is a Go slice: written as one.
      if (container === Container.Single && value.elem === Elem.NamedSlice) {
        container = Container.Slice;
        value = value.item!;
      }
      fields.push({ json: f.json, container, value, pointer: f.pointer, omitempty: f.omitempty, omitzero: f.omitzero, inline: undefined });
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

function shapeMessage(plan: MessagePlan, src: JsonObject): JsonObject {
  const out: JsonObject = {};
  writeFields(plan, src, out);
  for (const key in src) if (!plan.known.has(key)) setOwn(out, key, src[key]);
  return out;
}

function writeFields(plan: MessagePlan, src: JsonObject, out: JsonObject): void {
  const fields = plan.fields;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    if (f.inline !== undefined) {
      writeFields(f.inline, src, out);
      continue;
    }
    const v = src[f.json];
    const omitNil = f.omitempty || f.omitzero;
    if (f.container === Container.Single) {
      if (v === undefined || v === null) {
        if (f.pointer) {
          if (!omitNil) out[f.json] = null;
          continue;
        }
        const zero = zeroOf(f.value);
        if (f.value.elem <= Elem.Bytes ? omitNil : f.omitzero && isZero(zero)) continue;
        out[f.json] = zero;
        continue;
      }
      const r = shapeValue(f.value, v);
      if (!f.pointer) {
        if (f.value.elem <= Elem.Bytes ? omitNil && isEmptyScalar(r) : f.omitzero && isZero(r)) continue;
      }
      out[f.json] = r;
    } else if (f.container === Container.Slice) {
      if (v === undefined || v === null) {
        if (!omitNil) out[f.json] = null;
      } else if (!Array.isArray(v)) {
        out[f.json] = v;
      } else if (v.length > 0 || !f.omitempty) {
        const items = new Array<unknown>(v.length);
        for (let j = 0; j < v.length; j++) items[j] = shapeValue(f.value, v[j]);
        out[f.json] = items;
      }
    } else {
      if (v === undefined || v === null) {
        if (!omitNil) out[f.json] = null;
      } else if (!isPlainObject(v)) {
        out[f.json] = v;
      } else {
        // Go writes a map's keys sorted.
        const keys = Object.keys(v);
        if (keys.length > 1) keys.sort();
        const entries: JsonObject = {};
        for (let j = 0; j < keys.length; j++) setOwn(entries, keys[j]!, shapeValue(f.value, v[keys[j]!]));
        if (keys.length > 0 || !f.omitempty) out[f.json] = entries;
      }
    }
  }
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
