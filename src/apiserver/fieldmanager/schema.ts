/**
 * The structure server-side apply merges by, read from the committed OpenAPI
 * schemas as upstream's schemaconv reads them: objects are maps (granular
 * unless x-kubernetes-map-type is atomic), arrays are lists (atomic unless
 * x-kubernetes-list-type says set or map, and, for built-in types without a
 * list type, associative by their patch merge key), anything without a type
 * is "deduced" from the value it holds.
 */
import { loadOpenApiData, type JsonObject } from '../openapi/openapi-data.js';

export type ElementRelationship = 'atomic' | 'associative' | 'separable';

export interface TypeRef {
  readonly named?: string;
  readonly inline?: Atom;
  /** x-kubernetes-map-type set beside a $ref. */
  readonly mapRelationship?: ElementRelationship;
}

export interface ListType {
  readonly relationship: ElementRelationship;
  readonly keys: readonly string[];
  readonly element: TypeRef;
}

export interface MapType {
  readonly relationship: ElementRelationship;
  readonly fields: ReadonlyMap<string, TypeRef>;
  /** The type of entries that are not named fields; undefined when the map allows none. */
  readonly element: TypeRef | undefined;
  /** Fields Go always serializes (no omitempty): the schema's `required`. */
  readonly required: ReadonlySet<string>;
}

/** What a typed scalar holds, as structured-merge-diff sees an OpenAPI primitive; absent: any scalar. */
export type ScalarType = 'string' | 'numeric' | 'boolean';

export interface Atom {
  readonly scalar?: true;
  readonly scalarType?: ScalarType;
  readonly list?: ListType;
  readonly map?: MapType;
}

export const UNTYPED_ATOMIC = '__untyped_atomic_';
export const UNTYPED_DEDUCED = '__untyped_deduced_';

const untypedAtomic: Atom = {
  scalar: true,
  list: { relationship: 'atomic', keys: [], element: { named: UNTYPED_ATOMIC } },
  map: { relationship: 'atomic', fields: new Map(), element: { named: UNTYPED_ATOMIC }, required: new Set() },
};
const untypedDeduced: Atom = {
  scalar: true,
  list: { relationship: 'atomic', keys: [], element: { named: UNTYPED_ATOMIC } },
  map: { relationship: 'separable', fields: new Map(), element: { named: UNTYPED_DEDUCED }, required: new Set() },
};

/**
 * Defaults of associative-list keys: upstream's schemas carry `default: TCP`
 * for the protocol of ports, which the committed schemas leave out.
 */
const KEY_DEFAULTS: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'io.k8s.api.core.v1.ContainerPort': { protocol: 'TCP' },
  'io.k8s.api.core.v1.ServicePort': { protocol: 'TCP' },
  'io.k8s.api.discovery.v1.EndpointPort': { protocol: 'TCP' },
  'io.k8s.api.core.v1.EndpointPort': { protocol: 'TCP' },
};

const REF_PREFIX = '#/components/schemas/';

export class TypeSchema {
  private readonly atoms = new Map<string, Atom>();
  private readonly byKind = new Map<string, string>();
  /** Each reference's atom, resolved once (the same object every time, so walks can cache by it). */
  private readonly resolved = new WeakMap<TypeRef, Atom>();

  constructor(private readonly definitions: Readonly<Record<string, JsonObject>>) {
    for (const [name, def] of Object.entries(definitions)) {
      const gvks = def['x-kubernetes-group-version-kind'];
      if (!Array.isArray(gvks)) continue;
      for (const gvk of gvks) {
        if (gvk === null || typeof gvk !== 'object' || Array.isArray(gvk)) continue;
        this.byKind.set(kindKey(String(gvk.group ?? ''), String(gvk.version ?? ''), String(gvk.kind ?? '')), name);
      }
    }
  }

  /** The type of a served kind; a deduced type when the schemas do not have it. */
  typeOfKind(group: string, version: string, kind: string): TypeRef {
    const name = this.byKind.get(kindKey(group, version, kind));
    return name === undefined ? { named: UNTYPED_DEDUCED } : { named: name };
  }

  resolve(ref: TypeRef): Atom {
    if (ref.inline !== undefined && ref.mapRelationship === undefined) return ref.inline;
    let atom = this.resolved.get(ref);
    if (atom !== undefined) return atom;
    atom = ref.inline ?? this.named(ref.named ?? UNTYPED_DEDUCED);
    if (ref.mapRelationship !== undefined && atom.map !== undefined) {
      atom = { ...atom, map: { ...atom.map, relationship: ref.mapRelationship } };
    }
    this.resolved.set(ref, atom);
    return atom;
  }

  /** The default of an associative-list key field of a list element type, if upstream has one. */
  keyDefault(element: TypeRef, field: string): string | undefined {
    return element.named === undefined ? undefined : KEY_DEFAULTS[element.named]?.[field];
  }

  private named(name: string): Atom {
    if (name === UNTYPED_ATOMIC) return untypedAtomic;
    if (name === UNTYPED_DEDUCED) return untypedDeduced;
    const cached = this.atoms.get(name);
    if (cached !== undefined) return cached;
    let atom: Atom;
    if (name === 'io.k8s.apimachinery.pkg.api.resource.Quantity') atom = { scalar: true };
    else if (name === 'io.k8s.apimachinery.pkg.runtime.RawExtension') atom = untypedAtomic;
    else {
      const def = this.definitions[name];
      atom = def === undefined ? untypedDeduced : parseSchema(def, false);
    }
    this.atoms.set(name, atom);
    return atom;
  }
}

const kindKey = (group: string, version: string, kind: string): string => `${group}/${version}/${kind}`;

function isObject(v: unknown): v is JsonObject {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function parseSchema(s: JsonObject, preserveUnknown: boolean): Atom {
  const preserve = preserveUnknown || s['x-kubernetes-preserve-unknown-fields'] === true;
  const type = typeof s.type === 'string' ? s.type : '';
  switch (type) {
    case '':
      return { scalar: true, list: parseList(s, preserve), map: parseObject(s, preserve) };
    case 'object':
      return { map: parseObject(s, preserve) };
    case 'array':
      return { list: parseList(s, preserve) };
    default: {
      const scalarType = scalarTypeOf(type, typeof s.format === 'string' ? s.format : '');
      return scalarType === undefined ? { scalar: true } : { scalar: true, scalarType };
    }
  }
}

/** Upstream's convertPrimitive: integers and numbers are numeric; strings typed unless of an unusual format. */
function scalarTypeOf(type: string, format: string): ScalarType | undefined {
  if (type === 'integer' || type === 'number') return 'numeric';
  if (type === 'boolean') return 'boolean';
  if (type === 'string' && (format === '' || format === 'byte' || format === 'date-time')) return 'string';
  return undefined;
}

function refOf(s: JsonObject): string | undefined {
  if (typeof s.$ref === 'string') return s.$ref;
  const allOf = s.allOf;
  if (Array.isArray(allOf) && allOf.length === 1 && isObject(allOf[0]) && typeof allOf[0].$ref === 'string') return allOf[0].$ref;
  return undefined;
}

function makeRef(s: JsonObject, preserveUnknown: boolean): TypeRef {
  const ref = refOf(s);
  if (ref !== undefined) {
    const name = ref.startsWith(REF_PREFIX) ? ref.slice(REF_PREFIX.length) : ref.slice(ref.lastIndexOf('/') + 1);
    const relationship = mapRelationship(s);
    return relationship === undefined ? { named: name } : { named: name, mapRelationship: relationship };
  }
  return { inline: parseSchema(s, preserveUnknown) };
}

function mapRelationship(s: JsonObject): ElementRelationship | undefined {
  const t = s['x-kubernetes-map-type'];
  if (t === 'atomic') return 'atomic';
  if (t === 'granular') return 'separable';
  return undefined;
}

function parseObject(s: JsonObject, preserveUnknown: boolean): MapType {
  const fields = new Map<string, TypeRef>();
  const properties = isObject(s.properties) ? s.properties : {};
  for (const [name, member] of Object.entries(properties)) {
    if (isObject(member)) fields.set(name, makeRef(member, preserveUnknown));
  }
  let element: TypeRef | undefined;
  const additional = s.additionalProperties;
  if (additional === undefined || additional === false) {
    element = additional === undefined && (preserveUnknown || fields.size === 0) ? { named: UNTYPED_DEDUCED } : undefined;
  } else if (additional === true) {
    element = { named: UNTYPED_DEDUCED };
  } else if (isObject(additional)) {
    element = makeRef(additional, preserveUnknown);
  }
  const required = new Set(Array.isArray(s.required) ? s.required.filter((r): r is string => typeof r === 'string') : []);
  return { relationship: mapRelationship(s) ?? 'separable', fields, element, required };
}

function parseList(s: JsonObject, preserveUnknown: boolean): ListType {
  const { relationship, keys } = listRelationship(s);
  const items = s.items;
  const element: TypeRef = isObject(items) ? makeRef(items, preserveUnknown) : { named: UNTYPED_ATOMIC };
  return { relationship, keys, element };
}

function listRelationship(s: JsonObject): { relationship: ElementRelationship; keys: string[] } {
  const listType = s['x-kubernetes-list-type'];
  if (listType !== undefined) {
    if (listType === 'set') return { relationship: 'associative', keys: [] };
    if (listType === 'map') {
      const keys = s['x-kubernetes-list-map-keys'];
      return { relationship: 'associative', keys: Array.isArray(keys) ? keys.filter((k): k is string => typeof k === 'string') : [] };
    }
    return { relationship: 'atomic', keys: [] };
  }
  const strategy = s['x-kubernetes-patch-strategy'];
  if (strategy === 'merge' || strategy === 'merge,retainKeys') {
    const key = s['x-kubernetes-patch-merge-key'];
    return { relationship: 'associative', keys: typeof key === 'string' ? [key] : [] };
  }
  return { relationship: 'atomic', keys: [] };
}

let shared: TypeSchema | undefined;

/** The schema of every built-in kind, built once from the committed OpenAPI data. */
export function builtinTypeSchema(): TypeSchema {
  shared ??= new TypeSchema(loadOpenApiData().schemas);
  return shared;
}
