/**
 * JSON encoding that remembers each object's text. The watch cache hands the
 * same immutable object to every list and every watcher that reads it, so a
 * list of 10,000 pods or one change sent to 1,000 watchers need not stringify
 * the same object again and again: each object is stringified once, and lists
 * and watch events are assembled from those texts. (Upstream's watch cache does
 * the same with its CachingObject.)
 *
 * The texts are kept in a WeakMap keyed by the object itself, so they live
 * exactly as long as the object; an object must not be changed after it has
 * been encoded (objects from the cache never are; the store clones before it
 * mutates).
 */

const texts = new WeakMap<object, string>();

/** The JSON text of one object, stringified the first time only. */
export function objectJson(object: object): string {
  let text = texts.get(object);
  if (text === undefined) {
    text = JSON.stringify(object);
    texts.set(object, text);
  }
  return text;
}

/**
 * JSON.stringify(value), byte for byte, with the items of a list (an object
 * whose `items` is an array of objects) taken from their remembered texts.
 */
export function encodeJson(value: unknown): string {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return JSON.stringify(value);
  const items = (value as { items?: unknown }).items;
  if (!Array.isArray(items)) return JSON.stringify(value);
  const parts: string[] = [];
  for (const [key, v] of Object.entries(value)) {
    if (key === 'items') {
      parts.push(`"items":[${items.map(itemJson).join(',')}]`);
      continue;
    }
    // JSON.stringify leaves out properties whose value has no JSON form.
    const text = JSON.stringify(v) as string | undefined;
    if (text !== undefined) parts.push(`${JSON.stringify(key)}:${text}`);
  }
  return `{${parts.join(',')}}`;
}

function itemJson(item: unknown): string {
  // Array elements with no JSON form are written as null, as JSON.stringify does.
  if (typeof item === 'object' && item !== null && !Array.isArray(item)) return objectJson(item);
  return (JSON.stringify(item) as string | undefined) ?? 'null';
}

/** One watch event's JSON line ({"type":…,"object":…}), the object's text remembered. */
export function watchEventJson(type: string, object: unknown): string {
  const text = typeof object === 'object' && object !== null && !Array.isArray(object) ? objectJson(object) : JSON.stringify(object);
  return `{"type":${JSON.stringify(type)},"object":${text}}\n`;
}
