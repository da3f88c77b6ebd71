/**
 * The committed OpenAPI data (written by scripts/gen-openapi.mjs from
 * upstream's OpenAPI v2 document): every path k8ts can serve, as v3 path
 * items, and every schema they reach, as v3 `components.schemas`; and the same
 * paths and definitions in Swagger 2.0 form for /openapi/v2; all without
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

/** The Swagger 2.0 data: path items, definitions and shared parameters, by name. */
export interface OpenApiV2Data {
  readonly paths: Readonly<Record<string, JsonObject>>;
  readonly definitions: Readonly<Record<string, JsonObject>>;
  readonly parameters: Readonly<Record<string, JsonObject>>;
}

const DATA_DIRS = [new URL('./data/', import.meta.url), new URL('../../../../src/apiserver/openapi/data/', import.meta.url)];

function readJson<T = Record<string, JsonObject>>(name: string): T {
  const dir = DATA_DIRS.find((d) => existsSync(new URL(name, d)));
  if (dir === undefined) throw new Error(`OpenAPI data file ${name} not found (looked in ${DATA_DIRS.map((d) => d.pathname).join(', ')})`);
  const url = new URL(name, dir);
  try {
    return JSON.parse(readFileSync(url, 'utf8')) as T;
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

let cachedV2: OpenApiV2Data | undefined;

/** The committed Swagger 2.0 data, read once. */
export function loadOpenApiV2Data(): OpenApiV2Data {
  cachedV2 ??= readJson<OpenApiV2Data>('v2.json');
  return cachedV2;
}
