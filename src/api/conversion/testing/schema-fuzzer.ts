/**
 * Random objects shaped by an OpenAPI v3 schema (the `components.schemas` map
 * of k8ts's generated data): every property present or absent at random,
 * strings, integers, times (Time and MicroTime by their definition names),
 * lists, maps, and free-form JSON where the schema leaves a value open. Used
 * by the conversion round-trip tests, in the spirit of upstream's fuzzer.
 */
import type { Prng } from './prng.js';

/** A JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

type Schema = Readonly<Record<string, unknown>>;

export interface FuzzOptions {
  /** Probability that an optional property is present (default 0.6). */
  readonly fieldChance?: number;
  /** Nesting depth after which objects, lists and maps come out empty (default 6). */
  readonly maxDepth?: number;
}

const isSchema = (v: unknown): v is Schema => typeof v === 'object' && v !== null && !Array.isArray(v);
const REF_PREFIX = '#/components/schemas/';
const WORDS = ['web', 'pod', 'kubelet', 'node-1', 'a.b/c', 'Ünïcode', '', 'x y', 'quote"d', '0', 'spec.containers{app}'];

export class SchemaFuzzer {
  private readonly fieldChance: number;
  private readonly maxDepth: number;

  constructor(
    private readonly schemas: Readonly<Record<string, unknown>>,
    private readonly prng: Prng,
    options: FuzzOptions = {},
  ) {
    this.fieldChance = options.fieldChance ?? 0.6;
    this.maxDepth = options.maxDepth ?? 6;
  }

  /** A random value of the named definition (`io.k8s.api.core.v1.Event`). */
  of(definition: string): JsonValue {
    return this.value(this.definition(definition), definition, 0);
  }

  private definition(name: string): Schema {
    const schema = this.schemas[name];
    if (!isSchema(schema)) throw new Error(`no schema named ${name}`);
    return schema;
  }

  private value(schema: Schema, name: string, depth: number): JsonValue {
    const ref = schema.$ref;
    if (typeof ref === 'string') {
      if (!ref.startsWith(REF_PREFIX)) throw new Error(`unsupported $ref ${ref}`);
      const target = ref.slice(REF_PREFIX.length);
      return this.value(this.definition(target), target, depth);
    }
    if (Array.isArray(schema.allOf) && schema.allOf.length > 0 && isSchema(schema.allOf[0])) return this.value(schema.allOf[0], name, depth);
    if (Array.isArray(schema.oneOf) && schema.oneOf.length > 0) {
      const choice = this.prng.pick(schema.oneOf);
      if (isSchema(choice)) return this.value(choice, name, depth);
    }
    switch (schema.type) {
      case 'string':
        return schema.format === 'date-time' ? this.time(name.endsWith('MicroTime')) : schema.format === 'byte' ? this.bytes() : this.prng.pick(WORDS);
      case 'integer':
        return this.prng.int(schema.format === 'int32' ? 2 ** 31 : 2 ** 53) - (this.prng.chance(0.2) ? 1000 : 0);
      case 'number':
        return this.prng.int(100000) / 100;
      case 'boolean':
        return this.prng.chance(0.5);
      case 'array':
        return depth >= this.maxDepth || !isSchema(schema.items)
          ? []
          : Array.from({ length: this.prng.int(3) + 1 }, () => this.value(schema.items as Schema, '', depth + 1));
      case 'object':
      case undefined:
        return this.object(schema, depth);
      default:
        throw new Error(`unsupported schema type ${String(schema.type)}`);
    }
  }

  private object(schema: Schema, depth: number): JsonValue {
    const out: { [key: string]: JsonValue } = {};
    const properties = isSchema(schema.properties) ? schema.properties : undefined;
    if (properties !== undefined) {
      const required = new Set(Array.isArray(schema.required) ? schema.required : []);
      for (const [key, sub] of Object.entries(properties)) {
        if (key === 'apiVersion' || key === 'kind' || !isSchema(sub)) continue;
        if (!required.has(key) && (depth >= this.maxDepth || !this.prng.chance(this.fieldChance))) continue;
        out[key] = this.value(sub, '', depth + 1);
      }
      return out;
    }
    if (depth >= this.maxDepth) return out;
    const additional = schema.additionalProperties;
    const count = this.prng.int(3);
    for (let i = 0; i < count; i++) {
      out[`${this.prng.pick(WORDS)}-${i}`] = isSchema(additional) ? this.value(additional, '', depth + 1) : this.freeForm(depth + 1);
    }
    return out;
  }

  private freeForm(depth: number): JsonValue {
    const kind = depth >= this.maxDepth ? this.prng.int(3) : this.prng.int(5);
    if (kind === 0) return this.prng.pick(WORDS);
    if (kind === 1) return this.prng.int(1000);
    if (kind === 2) return this.prng.chance(0.5);
    if (kind === 3) return [this.freeForm(depth + 1)];
    return { [this.prng.pick(WORDS)]: this.freeForm(depth + 1) };
  }

  private time(micro: boolean): string {
    const ms = Date.UTC(2000, 0, 1) + this.prng.int(30 * 365 * 24 * 3600) * 1000;
    const base = new Date(ms).toISOString().slice(0, 19);
    return micro ? `${base}.${String(this.prng.int(1_000_000)).padStart(6, '0')}Z` : `${base}Z`;
  }

  private bytes(): string {
    return Buffer.from(Array.from({ length: this.prng.int(8) }, () => this.prng.int(256))).toString('base64');
  }
}
