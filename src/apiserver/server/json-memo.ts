/**
 * JSON encoding that remembers each object's bytes. The watch cache hands the
 * same immutable object to every list and every watcher that reads it, so a
 * list of 10,000 pods or one change sent to 1,000 watchers need not stringify
 * the same object again and again: each object is encoded once, to UTF-8, and
 * lists and watch events are assembled from those bytes with one copy.
 * (Upstream's watch cache does the same with its CachingObject.) Assembling
 * bytes, not strings, matters: joining 10,000 strings and then converting the
 * result to UTF-8 costs more than stringifying the whole list afresh.
 *
 * The bytes are kept in a WeakMap keyed by the object itself, so they live
 * exactly as long as the object; an object must not be changed after it has
 * been encoded (objects from the cache never are; the store clones before it
 * mutates).
 */

const encoded = new WeakMap<object, Buffer>();

/** The JSON bytes of one object, encoded the first time only. */
export function objectJsonBytes(object: object): Buffer {
  let bytes = encoded.get(object);
  if (bytes === undefined) {
    bytes = Buffer.from(JSON.stringify(object), 'utf8');
    encoded.set(object, bytes);
  }
  return bytes;
}

/**
 * `bytes` are JSON.stringify(object), worked out by the caller (a create
 * derives them from the stored JSON): a later encoding of the object takes
 * them. The object must not change afterwards, like every object encoded here.
 */
export function rememberJsonBytes(object: object, bytes: Buffer): void {
  encoded.set(object, bytes);
}

const COMMA = Buffer.from(',');
const NULL = Buffer.from('null');

/**
 * The bytes of JSON.stringify(value), with the items of a list (an object
 * whose `items` is an array) taken from their remembered bytes.
 */
export function encodeJsonBytes(value: unknown): Buffer {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return Buffer.from(JSON.stringify(value) ?? '', 'utf8');
  const known = encoded.get(value);
  if (known !== undefined) return known;
  const items = (value as { items?: unknown }).items;
  if (!Array.isArray(items)) return Buffer.from(JSON.stringify(value), 'utf8');
  const parts: Buffer[] = [];
  let text = '{';
  let first = true;
  for (const [key, v] of Object.entries(value)) {
    const separator = first ? '' : ',';
    if (key === 'items') {
      parts.push(Buffer.from(`${text}${separator}"items":[`, 'utf8'));
      items.forEach((item, i) => {
        if (i > 0) parts.push(COMMA);
        parts.push(itemBytes(item));
      });
      text = ']';
      first = false;
      continue;
    }
    // JSON.stringify leaves out properties whose value has no JSON form.
    const json = JSON.stringify(v) as string | undefined;
    if (json === undefined) continue;
    text += `${separator}${JSON.stringify(key)}:${json}`;
    first = false;
  }
  parts.push(Buffer.from(`${text}}`, 'utf8'));
  return Buffer.concat(parts);
}

function itemBytes(item: unknown): Buffer {
  if (typeof item === 'object' && item !== null && !Array.isArray(item)) return objectJsonBytes(item);
  // Array elements with no JSON form are written as null, as JSON.stringify does.
  const json = JSON.stringify(item) as string | undefined;
  return json === undefined ? NULL : Buffer.from(json, 'utf8');
}

/**
 * The last watch event line made for each object: one change goes to every
 * watcher of it as the same line, so the line is assembled once, not once per
 * watcher (1,000 watchers would otherwise copy the object's bytes 1,000 times).
 */
const eventLines = new WeakMap<object, { readonly type: string; readonly line: Buffer }>();
const LINE_END = Buffer.from('}\n', 'utf8');

/** One watch event's JSON line ({"type":…,"object":…}), the object's bytes remembered. */
export function watchEventJsonBytes(type: string, object: unknown): Buffer {
  if (typeof object !== 'object' || object === null || Array.isArray(object)) {
    return Buffer.from(`{"type":${JSON.stringify(type)},"object":${JSON.stringify(object) ?? 'null'}}\n`, 'utf8');
  }
  const known = eventLines.get(object);
  if (known !== undefined && known.type === type) return known.line;
  const head = Buffer.from(`{"type":${JSON.stringify(type)},"object":`, 'utf8');
  const body = objectJsonBytes(object);
  const line = Buffer.concat([head, body, LINE_END]);
  eventLines.set(object, { type, line });
  // The object's bytes are a part of its line: keep one copy of them, not two.
  encoded.set(object, line.subarray(head.length, head.length + body.length));
  return line;
}
