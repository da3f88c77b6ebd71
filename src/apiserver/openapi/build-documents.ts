/**
 * The /openapi/v3 documents of a Scheme, as JSON objects: the committed paths
 * grouped by document (`api/v1`, `apis/apps/v1`, `apis/apps`, `api`, `apis`,
 * `version`), keeping only the operations the Scheme serves, each document
 * with exactly the schemas its paths reach. Keys are sorted, as upstream's Go
 * encoder sorts map keys, so the bytes (and their hash) are stable.
 */
import type { Scheme } from '../../api/scheme.js';
import type { Json, JsonObject, OpenApiData } from './openapi-data.js';
import { servedPathItem } from './served-operation.js';

const SCHEMA_PREFIX = '#/components/schemas/';

export interface BuildDocumentsOptions {
  /** `info.version` of every document, e.g. `v1.33.0`. */
  version: string;
}

const isObject = (v: Json | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
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
