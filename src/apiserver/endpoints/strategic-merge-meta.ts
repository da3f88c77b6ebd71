/**
 * Strategic merge patch metadata of the built-in kinds, read from the
 * committed OpenAPI data (openapi/data/schemas.json): a field's
 * `x-kubernetes-patch-strategy` and `x-kubernetes-patch-merge-key` (beside
 * an `allOf` that wraps a `$ref`, in the v3 form), and the type the field
 * holds. Upstream reads the same facts from the Go struct tags the OpenAPI
 * was generated from, and words its lookup errors after the Go types:
 * `unable to find api field in struct PodSpec for the json field "foo"`.
 *
 * A kind the data has no schema for (a custom resource) has no metadata:
 * strategic merge patch is not offered for it.
 */
import type { GroupVersionKind } from '../../api/scheme.js';
import { StrategicMergePatchError } from '../../machinery/strategic-merge-patch/errors.js';
import type { PatchMeta, PatchMetaLookup, PatchSchema } from '../../machinery/strategic-merge-patch/patch-meta.js';
import { loadOpenApiData, type Json, type JsonObject } from '../openapi/openapi-data.js';

const REF_PREFIX = '#/components/schemas/';

/** What a schema position holds, in the Go terms the lookups answer in. */
type Shape =
  | { readonly kind: 'struct'; readonly goName: string; readonly properties: Readonly<Record<string, Json>> }
  | { readonly kind: 'map' | 'slice'; readonly element: Json }
  | { readonly kind: 'primitive'; readonly goKind: string };

/** The patch metadata of every kind with a schema, built from one set of definitions. */
export class StrategicMergeMetadata {
  private byKind: Map<string, string> | undefined;
  private readonly definitions = new Map<string, SchemaPosition>();

  constructor(private readonly schemas: Readonly<Record<string, JsonObject>>) {}

  /** The root position of a kind (`apps/v1` Deployment), or undefined when there is no schema for it. */
  forKind(gvk: GroupVersionKind): PatchSchema | undefined {
    const name = this.kindIndex().get(`${gvk.group}/${gvk.version}/${gvk.kind}`);
    return name === undefined ? undefined : this.definition(name);
  }

  private kindIndex(): Map<string, string> {
    if (this.byKind !== undefined) return this.byKind;
    const index = new Map<string, string>();
    for (const [name, schema] of Object.entries(this.schemas)) {
      const gvks = schema['x-kubernetes-group-version-kind'];
      if (!Array.isArray(gvks)) continue;
      for (const g of gvks) {
        if (!isObject(g)) continue;
        const key = `${String(g.group ?? '')}/${String(g.version ?? '')}/${String(g.kind ?? '')}`;
        if (!index.has(key)) index.set(key, name);
      }
    }
    this.byKind = index;
    return index;
  }

  definition(name: string): SchemaPosition {
    let position = this.definitions.get(name);
    if (position === undefined) {
      const schema = this.schemas[name];
      position = new SchemaPosition(this, schema === undefined ? { kind: 'struct', goName: goTypeName(name), properties: {} } : shapeOf(schema, goTypeName(name)));
      this.definitions.set(name, position);
    }
    return position;
  }

  /** The position a property or element schema leads to: a definition it references, or an inline type. */
  positionOf(schema: Json): SchemaPosition {
    const ref = refOf(schema);
    if (ref !== undefined) return this.definition(ref);
    return new SchemaPosition(this, isObject(schema) ? shapeOf(schema, '') : { kind: 'primitive', goKind: 'interface' });
  }
}

class SchemaPosition implements PatchSchema {
  constructor(
    private readonly metadata: StrategicMergeMetadata,
    private readonly shape: Shape,
  ) {}

  get name(): string {
    return this.shape.kind === 'primitive' ? this.shape.goKind : this.shape.kind;
  }

  lookupObjectField(key: string): PatchMetaLookup<PatchSchema> {
    const property = this.property(key);
    return { schema: this.metadata.positionOf(property), meta: patchMetaOf(property) };
  }

  lookupListField(key: string): PatchMetaLookup<PatchSchema> {
    const property = this.property(key);
    const field = this.metadata.positionOf(property);
    if (field.shape.kind !== 'slice') throw new StrategicMergePatchError(`expected slice or array type, but got: ${this.name}`);
    return { schema: this.metadata.positionOf(field.shape.element), meta: patchMetaOf(property) };
  }

  /** The field as Go's JSON decoder finds it: by exact name, else ignoring case. */
  private property(key: string): Json {
    if (this.shape.kind !== 'struct') throw new StrategicMergePatchError(`merging an object in json but data type is not struct, instead is: ${this.name}`);
    const { properties, goName } = this.shape;
    if (Object.hasOwn(properties, key)) return properties[key]!;
    const folded = key.toLowerCase();
    const match = Object.keys(properties).find((name) => name.toLowerCase() === folded);
    if (match !== undefined) return properties[match]!;
    throw new StrategicMergePatchError(`unable to find api field in struct ${goName} for the json field "${key}"`);
  }
}

function patchMetaOf(property: Json): PatchMeta {
  if (!isObject(property)) return { strategies: [], mergeKey: '' };
  const strategy = property['x-kubernetes-patch-strategy'];
  const mergeKey = property['x-kubernetes-patch-merge-key'];
  return {
    strategies: typeof strategy === 'string' && strategy !== '' ? strategy.split(',') : [],
    mergeKey: typeof mergeKey === 'string' ? mergeKey : '',
  };
}

function shapeOf(schema: JsonObject, goName: string): Shape {
  const properties = schema.properties;
  if (isObject(properties)) return { kind: 'struct', goName, properties };
  if (schema.additionalProperties !== undefined && schema.additionalProperties !== false) return { kind: 'map', element: schema.additionalProperties };
  if (schema.type === 'array') return { kind: 'slice', element: schema.items ?? {} };
  // Named Go structs that marshal to a scalar (Time, Quantity, IntOrString), and
  // objects with no declared fields (RawExtension, FieldsV1), are structs to Go.
  if (goName !== '' || schema.type === 'object') return { kind: 'struct', goName, properties: {} };
  return { kind: 'primitive', goKind: primitiveKind(schema) };
}

function primitiveKind(schema: JsonObject): string {
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'boolean':
      return 'bool';
    case 'number':
      return 'float64';
    case 'integer':
      return schema.format === 'int32' ? 'int32' : 'int64';
    default:
      return 'interface';
  }
}

/** A property's referenced definition: `$ref`, or the first `allOf` entry's. */
function refOf(schema: Json): string | undefined {
  if (!isObject(schema)) return undefined;
  const direct = schema.$ref;
  if (typeof direct === 'string' && direct.startsWith(REF_PREFIX)) return direct.slice(REF_PREFIX.length);
  const allOf = schema.allOf;
  if (Array.isArray(allOf) && allOf.length > 0) return refOf(allOf[0]!);
  return undefined;
}

/** `io.k8s.api.core.v1.PodSpec` → `PodSpec`, the Go type's name. */
function goTypeName(definition: string): string {
  return definition.slice(definition.lastIndexOf('.') + 1);
}

function isObject(v: Json | undefined): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

let builtIn: StrategicMergeMetadata | undefined;

/** The metadata of the built-in kinds, from the committed OpenAPI data (read once). */
export function builtInStrategicMergeMetadata(): StrategicMergeMetadata {
  builtIn ??= new StrategicMergeMetadata(loadOpenApiData().schemas);
  return builtIn;
}
