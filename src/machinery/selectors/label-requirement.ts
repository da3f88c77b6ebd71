/**
 * One requirement of a label selector (`app in (a,b)`, `!canary`, `tier=db`):
 * upstream's `labels.Requirement`, with its validation, matching and
 * canonical text.
 */
import { badRequest } from '../status.js';
import { aggregateText, childPath, indexPath, invalidValueText, unsupportedValueText, type FieldPathText } from './field-error-text.js';
import { compareGoStrings, goQuote, goStringSlice } from './go-format.js';
import { labelKeyProblems, labelValueProblems } from './label-syntax.js';

/** Upstream's `selection.Operator` strings, byte for byte. */
export type LabelOperator = 'in' | 'notin' | '=' | '==' | '!=' | 'gt' | 'lt' | 'exists' | '!';

/** The operators in upstream's order, as its messages list them. */
export const LABEL_OPERATORS: readonly LabelOperator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt', 'exists', '!'];
/** The operators that take values, as the parser's "expected:" message lists them. */
export const BINARY_LABEL_OPERATORS: readonly LabelOperator[] = ['in', 'notin', '=', '==', '!=', 'gt', 'lt'];

/** Labels as objects carry them; a missing map has no labels. */
export type Labels = Readonly<Record<string, string>>;

export interface LabelRequirement {
  readonly key: string;
  readonly operator: LabelOperator;
  /** The values as given (the parser gives them sorted and without duplicates). */
  readonly values: readonly string[];
}

export interface RequirementOptions {
  /** The field path upstream's messages start from; absent is a nil path (upstream's default). */
  readonly path?: string;
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** Go's `strconv.ParseInt(s, 10, 64)`: an optional sign and decimal digits within int64; `undefined` otherwise. */
export function parseGoInt64(s: string): bigint | undefined {
  if (!/^[+-]?[0-9]+$/.test(s)) return undefined;
  const n = BigInt(s.startsWith('+') ? s.slice(1) : s);
  return n < INT64_MIN || n > INT64_MAX ? undefined : n;
}

/**
 * Upstream's messages for a requirement that `newLabelRequirement` would
 * reject, aggregated; `undefined` when it is valid.
 */
export function labelRequirementError(key: string, operator: string, values: readonly string[], path?: FieldPathText): string | undefined {
  const errors: string[] = [];
  const keyProblems = labelKeyProblems(key);
  if (keyProblems.length > 0) errors.push(invalidValueText(childPath(path, 'key'), goQuote(key), keyProblems.join('; ')));
  const valuesPath = childPath(path, 'values');
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) errors.push(invalidValueText(valuesPath, goStringSlice(values), "for 'in', 'notin' operators, values set can't be empty"));
      break;
    case '=':
    case '==':
    case '!=':
      if (values.length !== 1) errors.push(invalidValueText(valuesPath, goStringSlice(values), 'exact-match compatibility requires one single value'));
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) errors.push(invalidValueText(valuesPath, goStringSlice(values), 'values set must be empty for exists and does not exist'));
      break;
    case 'gt':
    case 'lt':
      if (values.length !== 1) errors.push(invalidValueText(valuesPath, goStringSlice(values), "for 'Gt', 'Lt' operators, exactly one value is required"));
      values.forEach((v, i) => {
        if (parseGoInt64(v) === undefined) errors.push(invalidValueText(indexPath(valuesPath, i), goQuote(v), "for 'Gt', 'Lt' operators, the value must be an integer"));
      });
      break;
    default:
      errors.push(unsupportedValueText(childPath(path, 'operator'), goQuote(operator), LABEL_OPERATORS));
  }
  values.forEach((v, i) => {
    const problems = labelValueProblems(v);
    if (problems.length > 0) errors.push(invalidValueText(indexPath(indexPath(valuesPath, i), key), goQuote(v), problems.join('; ')));
  });
  return aggregateText(errors);
}

/**
 * A validated requirement (upstream's `labels.NewRequirement`); throws a
 * BadRequest StatusError with upstream's message when it is invalid.
 *
 * @example
 * newLabelRequirement('tier', 'in', ['web', 'db']);
 * newLabelRequirement('tier', 'in', []); // throws: values: Invalid value: []string(nil): for 'in', 'notin' operators, values set can't be empty
 */
export function newLabelRequirement(key: string, operator: LabelOperator, values: readonly string[], options: RequirementOptions = {}): LabelRequirement {
  const error = labelRequirementError(key, operator, values, options.path);
  if (error !== undefined) throw badRequest(error);
  return Object.freeze({ key, operator, values: Object.freeze([...values]) });
}

function lookup(labels: Labels | undefined, key: string): string | undefined {
  return labels !== undefined && Object.hasOwn(labels, key) ? labels[key] : undefined;
}

/**
 * Whether labels satisfy a requirement, as upstream decides: `notin` and
 * `!=` match a missing key; `gt`/`lt` need an integer label value.
 *
 * @example
 * labelRequirementMatches({ key: 'x', operator: 'gt', values: ['1'] }, { x: '2' }); // => true
 */
export function labelRequirementMatches(r: LabelRequirement, labels: Labels | undefined): boolean {
  const value = lookup(labels, r.key);
  switch (r.operator) {
    case 'in':
    case '=':
    case '==':
      return value !== undefined && r.values.includes(value);
    case 'notin':
    case '!=':
      return value === undefined || !r.values.includes(value);
    case 'exists':
      return value !== undefined;
    case '!':
      return value === undefined;
    case 'gt':
    case 'lt': {
      if (value === undefined || r.values.length !== 1) return false;
      const have = parseGoInt64(value);
      const want = parseGoInt64(r.values[0] ?? '');
      if (have === undefined || want === undefined) return false;
      return r.operator === 'gt' ? have > want : have < want;
    }
  }
}

const sortedValues = (values: readonly string[]): string[] => [...values].sort(compareGoStrings);

/**
 * A requirement's canonical text, as upstream prints it (`in`/`notin`
 * values sorted).
 *
 * @example
 * formatLabelRequirement({ key: 'x', operator: 'in', values: ['b', 'a'] }); // => 'x in (a,b)'
 * formatLabelRequirement({ key: 'x', operator: '!', values: [] });          // => '!x'
 */
export function formatLabelRequirement(r: LabelRequirement): string {
  const joined = r.values.length === 1 ? (r.values[0] ?? '') : sortedValues(r.values).join(',');
  switch (r.operator) {
    case '!':
      return `!${r.key}`;
    case 'exists':
      return r.key;
    case 'in':
      return `${r.key} in (${joined})`;
    case 'notin':
      return `${r.key} notin (${joined})`;
    case 'gt':
      return `${r.key}>${joined}`;
    case 'lt':
      return `${r.key}<${joined}`;
    default:
      return `${r.key}${r.operator}${joined}`;
  }
}
