/**
 * A Swagger 2.0 document (JSON) in the protobuf encoding upstream serves at
 * /openapi/v2 to clients that ask for
 * `application/com.github.proto-openapi.spec.v2[.@]v1.0+protobuf` (kubectl
 * always does): gnostic's `openapi.v2.Document`. The mapping follows what
 * gnostic's compiler does with the JSON: maps become repeated name/value
 * pairs in the JSON's key order, `$ref` becomes the `_ref` field, a
 * parameter becomes the body or the query/path/header variant by its `in`,
 * and every free-form value (`x-…` extensions, `default`, `enum`, `example`)
 * is carried as YAML text, which kubectl parses back (JSON is valid YAML, and
 * quoting every string keeps YAML 1.1 readers from reading `on` as a boolean).
 *
 * A key the model has no field for is an error, not silently dropped: the
 * document must reach kubectl whole.
 */
import type { Json, JsonObject } from './openapi-data.js';
import { GnosticDocument } from './gnostic-v2-types.js';

/** A message as protobufjs encodes it from a plain object. */
type Message = { [field: string]: unknown };

const isObject = (v: Json | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

/** A free-form value as gnostic's `Any`: YAML text. */
const any = (value: Json): Message => ({ yaml: `${JSON.stringify(value)}\n` });

function fail(where: string, message: string): never {
  throw new Error(`OpenAPI v2 to protobuf: ${where}: ${message}`);
}

function str(v: Json | undefined, where: string): string {
  if (typeof v !== 'string') fail(where, 'expected a string');
  return v;
}

function strings(v: Json | undefined, where: string): string[] {
  if (!Array.isArray(v) || v.some((s) => typeof s !== 'string')) fail(where, 'expected a list of strings');
  return v as string[];
}

function num(v: Json | undefined, where: string): number {
  if (typeof v !== 'number') fail(where, 'expected a number');
  return v;
}

function bool(v: Json | undefined, where: string): boolean {
  if (typeof v !== 'boolean') fail(where, 'expected a boolean');
  return v;
}

function obj(v: Json | undefined, where: string): JsonObject {
  if (!isObject(v)) fail(where, 'expected an object');
  return v;
}

/** How one JSON key becomes fields of a message (or throws). */
type KeyHandler = (out: Message, value: Json, where: string) => void;

const scalar =
  (field: string, read: (v: Json | undefined, where: string) => unknown): KeyHandler =>
  (out, value, where) => {
    out[field] = read(value, where);
  };

/**
 * Convert `value`'s keys with `handlers`; `x-…` keys become vendor extensions
 * when `extensions` is set, any other key is an error.
 */
function convert(value: JsonObject, where: string, handlers: Record<string, KeyHandler>, extensions = true): Message {
  const out: Message = {};
  const vendor: Message[] = [];
  for (const [key, v] of Object.entries(value)) {
    const handler = Object.hasOwn(handlers, key) ? handlers[key] : undefined;
    if (handler !== undefined) handler(out, v, `${where}.${key}`);
    else if (extensions && key.startsWith('x-')) vendor.push({ name: key, value: any(v) });
    else fail(where, `unsupported key ${JSON.stringify(key)}`);
  }
  if (vendor.length > 0) out['vendorExtension'] = vendor;
  return out;
}

/** The validation keywords every primitive (parameter, items, schema) shares. */
const PRIMITIVE: Record<string, KeyHandler> = {
  type: scalar('type', str),
  format: scalar('format', str),
  collectionFormat: scalar('collectionFormat', str),
  default: (out, v) => {
    out['default'] = any(v);
  },
  maximum: scalar('maximum', num),
  exclusiveMaximum: scalar('exclusiveMaximum', bool),
  minimum: scalar('minimum', num),
  exclusiveMinimum: scalar('exclusiveMinimum', bool),
  maxLength: scalar('maxLength', num),
  minLength: scalar('minLength', num),
  pattern: scalar('pattern', str),
  maxItems: scalar('maxItems', num),
  minItems: scalar('minItems', num),
  uniqueItems: scalar('uniqueItems', bool),
  enum: (out, v, where) => {
    if (!Array.isArray(v)) fail(where, 'expected a list');
    out['enum'] = v.map(any);
  },
  multipleOf: scalar('multipleOf', num),
};

const PRIMITIVES_ITEMS: Record<string, KeyHandler> = { ...PRIMITIVE, items: (out, v, w) => (out['items'] = primitivesItems(v, w)) };

function primitivesItems(value: Json, where: string): Message {
  return convert(obj(value, where), where, PRIMITIVES_ITEMS);
}

/** Name/value pairs of a JSON map, in its key order. */
function named(value: Json, where: string, convertValue: (v: Json, where: string) => unknown): Message[] {
  return Object.entries(obj(value, where)).map(([name, v]) => ({ name, value: convertValue(v, `${where}.${name}`) }));
}

const SCHEMA: Record<string, KeyHandler> = {
  ...PRIMITIVE,
  $ref: scalar('xRef', str),
  title: scalar('title', str),
  description: scalar('description', str),
  type: (out, v, w) => {
    out['type'] = { value: typeof v === 'string' ? [v] : strings(v, w) };
  },
  maxProperties: scalar('maxProperties', num),
  minProperties: scalar('minProperties', num),
  required: scalar('required', strings),
  additionalProperties: (out, v, w) => {
    out['additionalProperties'] = typeof v === 'boolean' ? { boolean: v } : { schema: schema(v, w) };
  },
  items: (out, v, w) => {
    out['items'] = { schema: Array.isArray(v) ? v.map((s, i) => schema(s, `${w}[${i}]`)) : [schema(v, w)] };
  },
  allOf: (out, v, w) => {
    if (!Array.isArray(v)) fail(w, 'expected a list');
    out['allOf'] = v.map((s, i) => schema(s, `${w}[${i}]`));
  },
  properties: (out, v, w) => {
    out['properties'] = { additionalProperties: named(v, w, schema) };
  },
  discriminator: scalar('discriminator', str),
  readOnly: scalar('readOnly', bool),
  example: (out, v) => {
    out['example'] = any(v);
  },
};

function schema(value: Json, where: string): Message {
  return convert(obj(value, where), where, SCHEMA);
}

const PARAMETER_COMMON: Record<string, KeyHandler> = {
  name: scalar('name', str),
  in: scalar('in', str),
  description: scalar('description', str),
  required: scalar('required', bool),
};
const BODY_PARAMETER: Record<string, KeyHandler> = { ...PARAMETER_COMMON, schema: (out, v, w) => (out['schema'] = schema(v, w)) };
const NON_BODY_PARAMETER: Record<string, KeyHandler> = { ...PARAMETER_COMMON, ...PRIMITIVES_ITEMS };

/** The NonBodyParameter variant and its extra keys, by the parameter's `in`. */
const NON_BODY_KINDS: Record<string, { field: string; handlers: Record<string, KeyHandler> }> = {
  query: { field: 'queryParameterSubSchema', handlers: { ...NON_BODY_PARAMETER, allowEmptyValue: scalar('allowEmptyValue', bool) } },
  path: { field: 'pathParameterSubSchema', handlers: NON_BODY_PARAMETER },
  header: { field: 'headerParameterSubSchema', handlers: NON_BODY_PARAMETER },
};

function parameter(value: Json, where: string): Message {
  const p = obj(value, where);
  if (p['in'] === 'body') return { bodyParameter: convert(p, where, BODY_PARAMETER) };
  const kind = typeof p['in'] === 'string' && Object.hasOwn(NON_BODY_KINDS, p['in']) ? NON_BODY_KINDS[p['in']] : undefined;
  if (kind === undefined) fail(where, `unsupported parameter location ${JSON.stringify(p['in'])}`);
  return { nonBodyParameter: { [kind.field]: convert(p, where, kind.handlers) } };
}

function parametersItems(value: Json, where: string): Message[] {
  if (!Array.isArray(value)) fail(where, 'expected a list');
  return value.map((p, i) => {
    const w = `${where}[${i}]`;
    const ref = obj(p, w)['$ref'];
    if (ref !== undefined) return { jsonReference: convert(obj(p, w), w, { $ref: scalar('xRef', str) }, false) };
    return { parameter: parameter(p, w) };
  });
}

function response(value: Json, where: string): Message {
  const r = obj(value, where);
  if (r['$ref'] !== undefined) return { jsonReference: convert(r, where, { $ref: scalar('xRef', str) }, false) };
  return {
    response: convert(r, where, {
      description: scalar('description', str),
      schema: (out, v, w) => (out['schema'] = { schema: schema(v, w) }),
    }),
  };
}

/** The `x-…` keys of a map whose other keys are names (paths, status codes). */
function onlyExtensions(value: JsonObject): JsonObject {
  return Object.fromEntries(Object.entries(value).filter(([k]) => k.startsWith('x-')));
}

function operation(value: Json, where: string): Message {
  return convert(obj(value, where), where, {
    tags: scalar('tags', strings),
    summary: scalar('summary', str),
    description: scalar('description', str),
    operationId: scalar('operationId', str),
    produces: scalar('produces', strings),
    consumes: scalar('consumes', strings),
    parameters: (out, v, w) => (out['parameters'] = parametersItems(v, w)),
    responses: (out, v, w) => {
      const codes = Object.entries(obj(v, w)).filter(([code]) => !code.startsWith('x-'));
      out['responses'] = {
        responseCode: codes.map(([code, r]) => ({ name: code, value: response(r, `${w}.${code}`) })),
        ...convert(onlyExtensions(obj(v, w)), w, {}),
      };
    },
    schemes: scalar('schemes', strings),
    deprecated: scalar('deprecated', bool),
  });
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];

function pathItem(value: Json, where: string): Message {
  const handlers: Record<string, KeyHandler> = {
    $ref: scalar('xRef', str),
    parameters: (out, v, w) => (out['parameters'] = parametersItems(v, w)),
  };
  for (const method of METHODS) handlers[method] = (out, v, w) => (out[method] = operation(v, w));
  return convert(obj(value, where), where, handlers);
}

/** The swagger document as the plain object of a gnostic `openapi.v2.Document`. */
export function toGnosticDocument(doc: JsonObject): Message {
  return convert(doc, 'document', {
    swagger: scalar('swagger', str),
    info: (out, v, w) => {
      out['info'] = convert(obj(v, w), w, { title: scalar('title', str), version: scalar('version', str), description: scalar('description', str) });
    },
    host: scalar('host', str),
    basePath: scalar('basePath', str),
    schemes: scalar('schemes', strings),
    consumes: scalar('consumes', strings),
    produces: scalar('produces', strings),
    paths: (out, v, w) => {
      const paths = obj(v, w);
      const items = Object.entries(paths).filter(([k]) => !k.startsWith('x-'));
      out['paths'] = {
        ...convert(onlyExtensions(paths), w, {}),
        path: items.map(([name, item]) => ({ name, value: pathItem(item, `${w}[${name}]`) })),
      };
    },
    definitions: (out, v, w) => (out['definitions'] = { additionalProperties: named(v, w, schema) }),
    parameters: (out, v, w) => (out['parameters'] = { additionalProperties: named(v, w, parameter) }),
    security: (out, v, w) => {
      if (!Array.isArray(v)) fail(w, 'expected a list');
      out['security'] = v.map((req, i) => ({
        additionalProperties: named(req, `${w}[${i}]`, (scopes, ws) => ({ value: strings(scopes, ws) })),
      }));
    },
    securityDefinitions: (out, v, w) => {
      out['securityDefinitions'] = {
        additionalProperties: named(v, w, (def, wd) => {
          if (obj(def, wd)['type'] !== 'apiKey') fail(wd, 'only apiKey security definitions are supported');
          return {
            apiKeySecurity: convert(obj(def, wd), wd, {
              type: scalar('type', str),
              name: scalar('name', str),
              in: scalar('in', str),
              description: scalar('description', str),
            }),
          };
        }),
      };
    },
  });
}

/** The protobuf bytes of a Swagger 2.0 document. */
export function encodeSwaggerProtobuf(doc: JsonObject): Uint8Array {
  return GnosticDocument.encode(toGnosticDocument(doc)).finish();
}
