/**
 * The /openapi/v3 documents of a Scheme, as JSON objects: the committed paths
 * grouped by document (`api/v1`, `apis/apps/v1`, `apis/apps`, `api`, `apis`,
 * `version`), keeping only the operations the Scheme serves, each document
 * with exactly the schemas its paths reach. Keys are sorted, as upstream's Go
 * encoder sorts map keys, so the bytes (and their hash) are stable.
 */
import type { Scheme } from '../../api/scheme.js';
import { classifyApiPath } from './api-path.js';
import type { Json, JsonObject, OpenApiData } from './openapi-data.js';
import { isServedOperation } from './served-operation.js';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch'] as const;
const SCHEMA_PREFIX = '#/components/schemas/';

export interface BuildDocumentsOptions {
  /** `info.version` of every document, e.g. `v1.33.0`. */
  version: string;
}

const isObject = (v: Json | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** The path item reduced to the served operations, or undefined if none is. */
function servedPathItem(scheme: Scheme, path: string, item: JsonObject): { document: string; item: JsonObject } | undefined {
  const info = classifyApiPath(path);
  if (info === undefined) return undefined;
  const out: JsonObject = {};
  for (const method of METHODS) {
    const op = item[method];
    if (!isObject(op)) continue;
    const action = op['x-kubernetes-action'];
    if (isServedOperation(scheme, info, typeof action === 'string' ? action : undefined)) out[method] = op;
  }
  if (Object.keys(out).length === 0) return undefined;
  const parameters = item['parameters'];
  if (parameters !== undefined) out['parameters'] = parameters;
  return { document: info.document, item: out };
}

function collectRefs(value: Json, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const v of value) collectRefs(v, into);
  } else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(SCHEMA_PREFIX)) into.add(v.slice(SCHEMA_PREFIX.length));
      else collectRefs(v, into);
    }
  }
}

/** Every schema reachable from `roots`, by name. */
function reachableSchemas(data: OpenApiData, roots: Json): Record<string, JsonObject> {
  const found: Record<string, JsonObject> = {};
  const queue = new Set<string>();
  collectRefs(roots, queue);
  for (const name of queue) {
    const schema = data.schemas[name];
    if (schema === undefined) throw new Error(`OpenAPI data has no schema ${name}: regenerate it with scripts/gen-openapi.mjs`);
    found[name] = schema;
    collectRefs(schema, queue);
  }
  return sortKeys(found);
}

/** The documents the Scheme serves, by document name, in name order. */
export function buildOpenApiV3Documents(scheme: Scheme, data: OpenApiData, options: BuildDocumentsOptions): Map<string, JsonObject> {
  const pathsByDocument = new Map<string, Record<string, JsonObject>>();
  for (const [path, item] of Object.entries(data.paths)) {
    const served = servedPathItem(scheme, path, item);
    if (served === undefined) continue;
    const paths = pathsByDocument.get(served.document) ?? {};
    paths[path] = served.item;
    pathsByDocument.set(served.document, paths);
  }
  const documents = new Map<string, JsonObject>();
  for (const name of [...pathsByDocument.keys()].sort()) {
    const paths = sortKeys(pathsByDocument.get(name) ?? {});
    documents.set(name, {
      openapi: '3.0.0',
      info: { title: 'Kubernetes', version: options.version },
      paths,
      components: {
        schemas: reachableSchemas(data, paths),
        securitySchemes: { BearerToken: { type: 'apiKey', name: 'authorization', in: 'header' } },
      },
    });
  }
  return documents;
}
