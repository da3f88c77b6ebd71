/**
 * Values as upstream's field errors print them (`%#v` of Go values), for the
 * messages kubectl users know: a label map prints as
 * `map[string]string{"app":"web"}` (keys sorted), an absent one as
 * `map[string]string(nil)`.
 */
import { RawValue } from '../../../machinery/field-errors.js';
import { compareGoStrings, goQuote } from '../../../machinery/selectors/go-format.js';

/** A `map[string]string` as `%#v` prints it, keys in Go's sorted order. */
export function goStringMap(map: Readonly<Record<string, string>> | null | undefined): RawValue {
  if (map === null || map === undefined) return new RawValue('map[string]string(nil)');
  const keys = Object.keys(map).sort(compareGoStrings);
  return new RawValue(`map[string]string{${keys.map((k) => `${goQuote(k)}:${goQuote(map[k] ?? '')}`).join(', ')}}`);
}

/** A pointer that is nil prints as `null`; anything else as itself. */
export function orNull(value: unknown): unknown {
  return value === undefined ? null : value;
}
