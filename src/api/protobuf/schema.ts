/**
 * The protobuf message definitions of every k8s.io/api kind and of the
 * apimachinery types they are built from, as scripts/gen-protobuf.mjs wrote
 * them into data/messages.json from upstream's generated.proto files and Go
 * types. tsc does not copy JSON into dist/, so the file is read from the
 * source tree (or from beside the module, should a build copy it).
 */
import { existsSync, readFileSync } from 'node:fs';

export interface FieldSpec {
  /** The JSON name (the protobuf name where the field has none, e.g. RawExtension.raw). */
  readonly json: string;
  readonly number: number;
  /** Its position in MessageSpec.fields. */
  readonly index: number;
  /** Whether `type` is a scalar (else a message full name). */
  readonly scalar: boolean;
  /** A scalar type name or a message full name; for maps, the value type. */
  readonly type: string;
  /** Only for maps: the key's scalar type. */
  readonly mapKey: string | undefined;
  readonly repeated: boolean;
  /** A Go pointer: present even when zero, null when absent. */
  readonly pointer: boolean;
  readonly omitempty: boolean;
  readonly omitzero: boolean;
  /** An embedded Go struct whose fields JSON writes into the parent object. */
  readonly inline: boolean;
}

export interface MessageSpec {
  readonly name: string;
  /** In Go struct order, which is the order encoding/json writes them in. */
  readonly fields: readonly FieldSpec[];
  /** By field number: the order Go's marshaller writes them in. */
  readonly encodeOrder: readonly FieldSpec[];
  readonly byNumber: ReadonlyMap<number, FieldSpec>;
  /** A wrapper around a Go named slice (`+protobuf.nullable=true`): JSON is a bare array of its items. */
  readonly list: boolean;
}

interface RawData {
  source: Record<string, string>;
  packages: Record<string, { group: string | null; version: string }>;
  lists: string[];
  messages: Record<string, [string, number, string, string][]>;
}

export interface ProtobufSchema {
  message(name: string): MessageSpec | undefined;
  /** Proto package name of a served group/version ("" for the core group). */
  packagesFor(group: string, version: string): readonly string[];
}

const DATA_DIRS = [new URL('./data/', import.meta.url), new URL('../../../../src/api/protobuf/data/', import.meta.url)];

function readData(): RawData {
  const dir = DATA_DIRS.find((d) => existsSync(new URL('messages.json', d)));
  if (dir === undefined) throw new Error(`protobuf data messages.json not found (looked in ${DATA_DIRS.map((d) => d.pathname).join(', ')})`);
  const url = new URL('messages.json', dir);
  try {
    return JSON.parse(readFileSync(url, 'utf8')) as RawData;
  } catch (e: unknown) {
    throw new Error(`reading protobuf data ${url.pathname}`, { cause: e });
  }
}

function toField([json, number, type, flags]: [string, number, string, string], index: number): FieldSpec {
  const map = /^map<([^,]+),(.+)>$/.exec(type);
  const valueType = map === null ? type : map[2]!;
  return {
    json,
    number,
    index,
    scalar: !valueType.includes('.'),
    type: valueType,
    mapKey: map === null ? undefined : map[1]!,
    repeated: flags.includes('r'),
    pointer: flags.includes('p'),
    omitempty: flags.includes('o'),
    omitzero: flags.includes('z'),
    inline: flags.includes('i'),
  };
}

function buildSchema(data: RawData): ProtobufSchema {
  const lists = new Set(data.lists);
  const cache = new Map<string, MessageSpec>();
  const byGroupVersion = new Map<string, string[]>();
  for (const [pkg, { group, version }] of Object.entries(data.packages)) {
    if (group === null) continue;
    const key = `${group}/${version}`;
    byGroupVersion.set(key, [...(byGroupVersion.get(key) ?? []), pkg]);
  }
  return {
    message(name) {
      let spec = cache.get(name);
      if (spec === undefined) {
        const raw = data.messages[name];
        if (raw === undefined) return undefined;
        const fields = raw.map(toField);
        const encodeOrder = [...fields].sort((a, b) => a.number - b.number);
        spec = { name, fields, encodeOrder, byNumber: new Map(fields.map((f) => [f.number, f])), list: lists.has(name) };
        cache.set(name, spec);
      }
      return spec;
    },
    packagesFor(group, version) {
      return byGroupVersion.get(`${group}/${version}`) ?? [];
    },
  };
}

let schema: ProtobufSchema | undefined;

/** The committed protobuf schema, read once. */
export function protobufSchema(): ProtobufSchema {
  schema ??= buildSchema(readData());
  return schema;
}
