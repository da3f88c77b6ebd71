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

interface SelectorLike {
  readonly matchLabels?: Readonly<Record<string, string>> | null | undefined;
  readonly matchExpressions?: readonly { key: string; operator: string; values?: readonly string[] | null | undefined }[] | null | undefined;
}

function goMapText(map: Readonly<Record<string, string>> | null | undefined): string {
  return goStringMap(map).text;
}

function goStrings(values: readonly string[] | null | undefined): string {
  return values === null || values === undefined ? '[]string(nil)' : `[]string{${values.map(goQuote).join(', ')}}`;
}

/**
 * A metav1.LabelSelector as `%#v` prints it, as in the well-known
 * `spec.selector: Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"app":"web"},
 * MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable`.
 */
export function goLabelSelector(selector: SelectorLike | null | undefined): RawValue | null {
  if (selector === null || selector === undefined) return null;
  const expressions = selector.matchExpressions;
  const exprText =
    expressions === null || expressions === undefined
      ? '[]v1.LabelSelectorRequirement(nil)'
      : `[]v1.LabelSelectorRequirement{${expressions
          .map((e) => `v1.LabelSelectorRequirement{Key:${goQuote(e.key)}, Operator:${goQuote(e.operator)}, Values:${goStrings(e.values)}}`)
          .join(', ')}}`;
  return new RawValue(`v1.LabelSelector{MatchLabels:${goMapText(selector.matchLabels)}, MatchExpressions:${exprText}}`);
}
