/**
 * The text of upstream's field errors (`values[0]: Invalid value: "x": …`)
 * and of an aggregate of them, for selector messages. Values arrive already
 * rendered as Go prints them (see go-format.ts), because selector errors
 * carry Go string slices that the general field-error formatter does not
 * print the Go way.
 */
import { goQuote } from './go-format.js';

/** A field path as upstream's `*field.Path` prints it; `undefined` is a nil path. */
export type FieldPathText = string | undefined;

/**
 * The text of a path; upstream prints a nil path as `<nil>`.
 *
 * @example
 * pathText(undefined); // => '<nil>'
 */
export const pathText = (path: FieldPathText): string => path ?? '<nil>';

/**
 * A named child of a path.
 *
 * @example
 * childPath(undefined, 'values'); // => 'values'
 * childPath('spec', 'selector');  // => 'spec.selector'
 */
export const childPath = (path: FieldPathText, name: string): string => (path === undefined ? name : `${path}.${name}`);

/**
 * An index or map key of a path.
 *
 * @example
 * indexPath(indexPath('values', 0), 'app'); // => 'values[0][app]'
 */
export const indexPath = (path: FieldPathText, index: number | string): string => `${path ?? ''}[${index}]`;

/**
 * `field: Invalid value: <value>: detail`.
 *
 * @example
 * invalidValueText('values[0]', '"x"', 'must be an integer'); // => 'values[0]: Invalid value: "x": must be an integer'
 */
export function invalidValueText(path: FieldPathText, renderedValue: string, detail: string): string {
  return `${pathText(path)}: Invalid value: ${renderedValue}${detail === '' ? '' : `: ${detail}`}`;
}

/** `field: Unsupported value: <value>: supported values: "a", "b"`. */
export function unsupportedValueText(path: FieldPathText, renderedValue: string, supported: readonly string[]): string {
  const detail = supported.length === 0 ? '' : `: supported values: ${supported.map(goQuote).join(', ')}`;
  return `${pathText(path)}: Unsupported value: ${renderedValue}${detail}`;
}

/**
 * Several messages as upstream's error aggregate prints them: duplicates
 * dropped, one alone as itself, more as `[a, b]`; `undefined` for none.
 *
 * @example
 * aggregateText(['a', 'b', 'a']); // => '[a, b]'
 */
export function aggregateText(messages: readonly string[]): string | undefined {
  const unique = [...new Set(messages)];
  if (unique.length === 0) return undefined;
  return unique.length === 1 ? unique[0] : `[${unique.join(', ')}]`;
}
