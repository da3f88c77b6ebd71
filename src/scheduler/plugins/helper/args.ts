/**
 * Reading a plugin's args (pluginConfig[].args, decoded from YAML or JSON)
 * without trusting their shape: each reader throws an Error naming the
 * field when the value has the wrong type. Semantic validation (ranges,
 * names) is each plugin's, with upstream's messages.
 */

export type ArgsObject = Readonly<Record<string, unknown>>;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  return Array.isArray(value) ? 'array' : typeof value;
}

/** The args as an object ({} when absent); anything else is refused with upstream's "want args to be of type …" message. */
export function argsObject(args: unknown, typeName: string): ArgsObject {
  if (args === undefined || args === null) return {};
  if (typeof args !== 'object' || Array.isArray(args)) throw new Error(`want args to be of type ${typeName}, got ${typeOf(args)}`);
  return args as ArgsObject;
}

export function optionalObject(obj: ArgsObject, field: string, path: string): ArgsObject | undefined {
  const value = obj[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`${path}: must be an object, got ${typeOf(value)}`);
  return value as ArgsObject;
}

export function optionalArray(obj: ArgsObject, field: string, path: string): readonly unknown[] | undefined {
  const value = obj[field];
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw new Error(`${path}: must be a list, got ${typeOf(value)}`);
  return value;
}

export function optionalStringArray(obj: ArgsObject, field: string, path: string): readonly string[] {
  const list = optionalArray(obj, field, path) ?? [];
  list.forEach((v, i) => {
    if (typeof v !== 'string') throw new Error(`${path}[${i}]: must be a string, got ${typeOf(v)}`);
  });
  return list as string[];
}

export function optionalString(obj: ArgsObject, field: string, path: string): string | undefined {
  const value = obj[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new Error(`${path}: must be a string, got ${typeOf(value)}`);
  return value;
}

/** An integer (Go int32/int64 fields); absent → undefined. */
export function optionalInteger(obj: ArgsObject, field: string, path: string): number | undefined {
  const value = obj[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new Error(`${path}: must be an integer, got ${JSON.stringify(value)}`);
  return value;
}

export function asObject(value: unknown, path: string): ArgsObject {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new Error(`${path}: must be an object, got ${typeOf(value)}`);
  return value as ArgsObject;
}
