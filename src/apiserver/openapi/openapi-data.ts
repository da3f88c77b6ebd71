/**
 * The committed OpenAPI v3 data (written by scripts/gen-openapi.mjs from
 * upstream's OpenAPI v2 document): every path k8ts can serve, as v3 path
 * items, and every schema they reach, as v3 `components.schemas`, all without
 * descriptions. tsc does not copy JSON into dist/, so the files are read from
 * the source tree (or from beside the module, should a build copy them).
 */
import { existsSync, readFileSync } from 'node:fs';

/** A JSON value. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A JSON object. */
export interface JsonObject {
  [key: string]: Json;
}

/** The generated data: path items by API path, schemas by definition name. */
export interface OpenApiData {
  readonly paths: Readonly<Record<string, JsonObject>>;
  readonly schemas: Readonly<Record<string, JsonObject>>;
}

const DATA_DIRS = [new URL('./data/', import.meta.url), new URL('../../../../src/apiserver/openapi/data/', import.meta.url)];

function readJson(name: string): Record<string, JsonObject> {
  const dir = DATA_DIRS.find((d) => existsSync(new URL(name, d)));
  if (dir === undefined) throw new Error(`OpenAPI data file ${name} not found (looked in ${DATA_DIRS.map((d) => d.pathname).join(', ')})`);
  const url = new URL(name, dir);
  try {
    return JSON.parse(readFileSync(url, 'utf8')) as Record<string, JsonObject>;
  } catch (e: unknown) {
    throw new Error(`reading OpenAPI data ${url.pathname}`, { cause: e });
  }
}

let cached: OpenApiData | undefined;

/** The committed OpenAPI data, read once. */
export function loadOpenApiData(): OpenApiData {
  cached ??= { paths: readJson('paths.json'), schemas: readJson('schemas.json') };
  return cached;
}
