#!/usr/bin/env node
// Generates the committed OpenAPI v3 and v2 data under src/apiserver/openapi/data/
// from upstream's OpenAPI v2 document, for the resources k8ts serves.
//
//   npx tsc -p . && node scripts/gen-openapi.mjs ../shared/specs/kubernetes-openapi-v2.json
//
// It reads the served resources from the compiled scheme (dist/src/api/resources.js),
// so build first, and run it again whenever the scheme gains a resource. It writes
// compact JSON files:
//   paths.json    every served path, converted to an OpenAPI v3 path item
//   schemas.json  every definition those paths reach, as v3 components.schemas
//   v2.json       the same paths and definitions in Swagger 2.0 form ({paths,
//                 definitions, parameters}), for /openapi/v2
// Conversion: `#/definitions/X` → `#/components/schemas/X`; `#/parameters/X`
// inlined; body parameters → requestBody, `produces` → response content;
// every `description` dropped (upstream prose is not copied); x-kubernetes-*
// extensions kept; a $ref with siblings wrapped in allOf and IntOrString /
// Quantity written as oneOf, as upstream's own v3 documents have them.
// Operations the Scheme does not list (verbs, subresources, resources) are
// dropped; so are the CBOR media types, which k8ts does not serve.
// PATCH operations keep upstream's four patch types (JSON, merge, strategic
// merge, apply). The v2 form keeps upstream's shape (shared `#/parameters/…`,
// `consumes`/`produces`) without descriptions, except a response's, which
// Swagger 2.0 requires and upstream gives as the status text (OK, Created, …).
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('../', import.meta.url);
const { newBuiltinScheme } = await import(new URL('dist/src/api/resources.js', root).href);
const { classifyApiPath } = await import(new URL('dist/src/apiserver/openapi/api-path.js', root).href);
const { isServedOperation } = await import(new URL('dist/src/apiserver/openapi/served-operation.js', root).href);

const source = process.argv[2];
if (!source) {
  console.error('usage: node scripts/gen-openapi.mjs <upstream openapi v2 json>');
  process.exit(2);
}
const v2 = JSON.parse(readFileSync(source, 'utf8'));
const scheme = newBuiltinScheme();
const outDir = new URL('src/apiserver/openapi/data/', root);

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'];
const WRITE_METHODS = new Set(['post', 'put', 'patch']);
const WRITE_PARAMS = ['dryRun', 'fieldManager', 'fieldValidation'];
const UNSERVED_TYPES = new Set(['application/cbor', 'application/cbor-seq', 'application/apply-patch+cbor']);
const SCHEMA_MAPS = new Set(['properties', 'patternProperties']);
const SCHEMA_VALUES = new Set(['items', 'additionalProperties', 'not']);
const SCHEMA_LISTS = new Set(['allOf', 'anyOf', 'oneOf']);

// Types whose v3 schema upstream writes as a oneOf of primitive types
// (their Go types' OpenAPIV3OneOfTypes), where v2 can only say `type: string`.
const V3_ONE_OF = {
  'io.k8s.apimachinery.pkg.util.intstr.IntOrString': ['integer', 'string'],
  'io.k8s.apimachinery.pkg.api.resource.Quantity': ['string', 'number'],
};

const isObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);
const refName = (ref) => ref.slice(ref.lastIndexOf('/') + 1);

/**
 * A v2 schema as a v3 one: refs rewritten, descriptions dropped. A ref that had
 * siblings in v2 (a description, a patch strategy) is wrapped in allOf, as
 * upstream's v3 documents do, since v3 ignores the siblings of a $ref.
 */
function convertSchema(s) {
  if (!isObject(s)) return s;
  const wrapRef = s.$ref !== undefined && Object.keys(s).length > 1;
  const out = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'description') continue;
    if (k === '$ref') out.$ref = `#/components/schemas/${refName(v)}`;
    else if (SCHEMA_MAPS.has(k)) out[k] = Object.fromEntries(Object.entries(v).map(([name, p]) => [name, convertSchema(p)]));
    else if (SCHEMA_VALUES.has(k)) out[k] = convertSchema(v);
    else if (SCHEMA_LISTS.has(k)) out[k] = v.map(convertSchema);
    else out[k] = v;
  }
  if (wrapRef) {
    const { $ref, ...rest } = out;
    return { ...rest, allOf: [{ $ref }] };
  }
  return out;
}

const resolveParam = (p) => (p.$ref ? v2.parameters[refName(p.$ref)] : p);

/** A v2 non-body parameter as a v3 one, its type moved into `schema`. */
function convertParam(p) {
  const { name, in: where, required, description: _d, schema: _s, ...typeFields } = p;
  return { name, in: where, ...(required ? { required } : {}), schema: convertSchema(typeFields) };
}

const mediaTypes = (types, keep) => (types ?? []).filter((t) => !UNSERVED_TYPES.has(t) && keep(t));

function convertOperation(method, op, pathParamNames) {
  const params = (op.parameters ?? []).map(resolveParam);
  const body = params.find((p) => p.in === 'body');
  const query = params.filter((p) => p.in !== 'body').map(convertParam);
  if (WRITE_METHODS.has(method)) {
    for (const name of WRITE_PARAMS) {
      if (!pathParamNames.has(name) && !query.some((p) => p.name === name)) {
        query.push({ name, in: 'query', schema: { type: 'string', uniqueItems: true } });
      }
    }
  }
  const out = {};
  if (op.tags) out.tags = op.tags;
  if (op.operationId) out.operationId = op.operationId;
  if (query.length > 0) out.parameters = query;
  if (body) {
    const consumes = mediaTypes(op.consumes, () => true);
    if (consumes.length === 0) throw new Error(`${op.operationId}: no request media type left`);
    const schema = convertSchema(body.schema);
    out.requestBody = { content: Object.fromEntries(consumes.map((t) => [t, { schema }])), ...(body.required ? { required: true } : {}) };
  }
  const produces = mediaTypes(op.produces, () => true);
  out.responses = Object.fromEntries(
    Object.entries(op.responses).map(([code, r]) => {
      if (!r.schema) return [code, {}];
      const schema = convertSchema(r.schema);
      return [code, { content: Object.fromEntries(produces.map((t) => [t, { schema }])) }];
    }),
  );
  for (const [k, v] of Object.entries(op)) if (k.startsWith('x-')) out[k] = v;
  return out;
}

/** A v2 schema (or parameter) without its descriptions; everything else as upstream has it. */
function stripDescriptions(s) {
  if (!isObject(s)) return s;
  const out = {};
  for (const [k, v] of Object.entries(s)) {
    if (k === 'description') continue;
    if (SCHEMA_MAPS.has(k)) out[k] = Object.fromEntries(Object.entries(v).map(([name, p]) => [name, stripDescriptions(p)]));
    else if (SCHEMA_VALUES.has(k) || k === 'schema') out[k] = stripDescriptions(v);
    else if (SCHEMA_LISTS.has(k)) out[k] = v.map(stripDescriptions);
    else out[k] = v;
  }
  return out;
}

/** A v2 operation as /openapi/v2 serves it: served media types, no prose. */
function v2Operation(method, op, pathParamNames) {
  const out = {};
  for (const [k, v] of Object.entries(op)) {
    if (k === 'description') continue;
    if (k === 'consumes' || k === 'produces') out[k] = mediaTypes(v, () => true);
    else if (k === 'parameters') out[k] = v.map((p) => (p.$ref ? p : stripDescriptions(p)));
    else if (k === 'responses') {
      out[k] = Object.fromEntries(
        Object.entries(v).map(([code, r]) => [code, { description: r.description, ...(r.schema ? { schema: stripDescriptions(r.schema) } : {}) }]),
      );
    } else out[k] = v;
  }
  if (WRITE_METHODS.has(method)) {
    const names = new Set((op.parameters ?? []).map((p) => resolveParam(p).name));
    for (const name of WRITE_PARAMS) {
      if (!pathParamNames.has(name) && !names.has(name)) (out.parameters ??= []).push({ in: 'query', name, type: 'string', uniqueItems: true });
    }
  }
  return out;
}

const paths = {};
const v2Paths = {};
for (const [path, item] of Object.entries(v2.paths)) {
  const info = classifyApiPath(path);
  if (!info) continue;
  const pathParams = (item.parameters ?? []).map(resolveParam);
  const pathParamNames = new Set(pathParams.map((p) => p.name));
  const converted = {};
  const v2Item = {};
  for (const method of METHODS) {
    const op = item[method];
    if (op && isServedOperation(scheme, info, op['x-kubernetes-action'])) {
      converted[method] = convertOperation(method, op, pathParamNames);
      v2Item[method] = v2Operation(method, op, pathParamNames);
    }
  }
  if (Object.keys(converted).length === 0) continue;
  if (pathParams.length > 0) {
    converted.parameters = pathParams.map(convertParam);
    v2Item.parameters = item.parameters.map((p) => (p.$ref ? p : stripDescriptions(p)));
  }
  paths[path] = converted;
  v2Paths[path] = v2Item;
}

// Every definition the paths reach, plus every served kind and its list.
function collectRefs(value, into) {
  if (Array.isArray(value)) for (const v of value) collectRefs(v, into);
  else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string') into.add(refName(v));
      else collectRefs(v, into);
    }
  }
}
const wanted = new Set();
collectRefs(paths, wanted);
const gvkOf = (def) => def['x-kubernetes-group-version-kind'] ?? [];
for (const r of scheme.resources()) {
  for (const kind of [r.kind, r.listKind, ...r.subresources.map((s) => s.kind.kind)]) {
    const entry = Object.entries(v2.definitions).find(([, def]) =>
      gvkOf(def).some((g) => g.group === r.group && g.version === r.version && g.kind === kind),
    );
    if (entry) wanted.add(entry[0]);
    else if (kind === r.kind) throw new Error(`no definition for ${r.group}/${r.version} ${kind}`);
  }
}
const schemas = {};
const queue = [...wanted];
while (queue.length > 0) {
  const name = queue.pop();
  if (schemas[name]) continue;
  const def = v2.definitions[name];
  if (!def) throw new Error(`unknown definition ${name}`);
  schemas[name] = convertSchema(def);
  if (V3_ONE_OF[name]) {
    const { type: _type, ...rest } = schemas[name];
    schemas[name] = { ...rest, oneOf: V3_ONE_OF[name].map((type) => ({ type })) };
  }
  const refs = new Set();
  collectRefs(schemas[name], refs);
  for (const r of refs) if (!schemas[r]) queue.push(r);
}

// No prose may remain: a `description` key is only allowed as a property name.
function assertNoDescription(value, where, inPropertyMap = false) {
  if (Array.isArray(value)) value.forEach((v, i) => assertNoDescription(v, `${where}[${i}]`));
  else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'description' && !inPropertyMap) throw new Error(`description left at ${where}`);
      assertNoDescription(v, `${where}.${k}`, SCHEMA_MAPS.has(k) && !inPropertyMap);
    }
  }
}
assertNoDescription(paths, 'paths');
assertNoDescription(schemas, 'schemas');

// The v2 form: the same definitions, and the shared parameters the paths use.
const definitions = Object.fromEntries(Object.keys(schemas).map((name) => [name, stripDescriptions(v2.definitions[name])]));
const parameterNames = new Set();
JSON.stringify(v2Paths, (k, v) => {
  if (k === '$ref' && typeof v === 'string' && v.startsWith('#/parameters/')) parameterNames.add(refName(v));
  return v;
});
const parameters = Object.fromEntries([...parameterNames].map((name) => [name, stripDescriptions(v2.parameters[name])]));
// A response's description is the status text upstream writes (Swagger 2.0 requires it); nothing else may remain.
const STATUS_TEXTS = new Set(['OK', 'Created', 'Accepted', 'Unauthorized']);
for (const item of Object.values(v2Paths)) {
  for (const [method, op] of Object.entries(item)) {
    if (method === 'parameters') continue;
    for (const [code, r] of Object.entries(op.responses)) {
      if (!STATUS_TEXTS.has(r.description)) throw new Error(`unexpected response description for ${op.operationId} ${code}`);
      const { description: _d, ...rest } = r;
      assertNoDescription(rest, `v2 ${op.operationId} ${code}`);
    }
    assertNoDescription({ ...op, responses: {} }, `v2 ${op.operationId}`);
  }
}
assertNoDescription(definitions, 'v2 definitions');
assertNoDescription(parameters, 'v2 parameters');

const sorted = (o) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
mkdirSync(outDir, { recursive: true });
const files = {
  'paths.json': sorted(paths),
  'schemas.json': sorted(schemas),
  'v2.json': { paths: sorted(v2Paths), definitions: sorted(definitions), parameters: sorted(parameters) },
};
let total = 0;
for (const [name, data] of Object.entries(files)) {
  const text = `${JSON.stringify(data)}\n`;
  writeFileSync(new URL(name, outDir), text);
  total += Buffer.byteLength(text);
  console.log(`${fileURLToPath(new URL(name, outDir))}: ${Object.keys(data).length} entries, ${Buffer.byteLength(text)} bytes`);
}
console.log(`total ${total} bytes`);
