/**
 * The /openapi/v2 document of a Scheme, as a JSON object: the committed
 * Swagger 2.0 paths reduced to the operations the Scheme serves, with exactly
 * the definitions and shared parameters those paths reach, and upstream's
 * BearerToken security scheme. Keys of every map are sorted, as upstream's Go
 * encoder sorts them, so the bytes (and their ETag) are stable.
 */
import type { Scheme } from '../../api/scheme.js';
import type { Json, JsonObject, OpenApiV2Data } from './openapi-data.js';
import { servedPathItem } from './served-operation.js';

const DEFINITION_PREFIX = '#/definitions/';
const PARAMETER_PREFIX = '#/parameters/';

export interface BuildSwaggerOptions {
  /** `info.version`, e.g. `v1.33.0`. */
  version: string;
}

const isObject = (v: Json | undefined): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v);

function sortKeys<T>(record: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** Every `$ref` under `value` that starts with `prefix`, without the prefix. */
function collectRefs(value: Json, prefix: string, into: Set<string>): void {
  if (Array.isArray(value)) {
    for (const v of value) collectRefs(v, prefix, into);
  } else if (isObject(value)) {
    for (const [k, v] of Object.entries(value)) {
      if (k === '$ref' && typeof v === 'string' && v.startsWith(prefix)) into.add(v.slice(prefix.length));
      else collectRefs(v, prefix, into);
    }
  }
}

/** The entries of `table` named in `names` (and, transitively, in what they reference). */
function reachable(table: Readonly<Record<string, JsonObject>>, kind: string, names: Set<string>, prefix: string): Record<string, JsonObject> {
  const found: Record<string, JsonObject> = {};
  for (const name of names) {
    const entry = table[name];
    if (entry === undefined) throw new Error(`OpenAPI v2 data has no ${kind} ${name}: regenerate it with scripts/gen-openapi.mjs`);
    found[name] = entry;
    collectRefs(entry, prefix, names);
  }
  return sortKeys(found);
}

/** The Swagger 2.0 document of what `scheme` serves. */
export function buildSwaggerDocument(scheme: Scheme, data: OpenApiV2Data, options: BuildSwaggerOptions): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const [path, item] of Object.entries(data.paths)) {
    const served = servedPathItem(scheme, path, item);
    if (served !== undefined) paths[path] = served.item;
  }
  const parameterNames = new Set<string>();
  collectRefs(paths, PARAMETER_PREFIX, parameterNames);
  const parameters = reachable(data.parameters, 'parameter', parameterNames, PARAMETER_PREFIX);
  const definitionNames = new Set<string>();
  collectRefs(paths, DEFINITION_PREFIX, definitionNames);
  collectRefs(parameters, DEFINITION_PREFIX, definitionNames);
  return {
    swagger: '2.0',
    info: { title: 'Kubernetes', version: options.version },
    paths: sortKeys(paths),
    definitions: reachable(data.definitions, 'definition', definitionNames, DEFINITION_PREFIX),
    parameters,
    securityDefinitions: { BearerToken: { type: 'apiKey', name: 'authorization', in: 'header' } },
    security: [{ BearerToken: [] }],
  };
}
