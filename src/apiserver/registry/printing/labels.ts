/**
 * Labels and label selectors as upstream prints them: `labels.FormatLabels`
 * (sorted `k=v` pairs) and `metav1.FormatLabelSelector` (the selector string,
 * `<none>` when it selects everything, `<error>` when it is invalid).
 */
import type { LabelSelector, LabelSelectorRequirement } from 'kubernetes-types/meta/v1.js';
import { compareStrings } from './lists.js';
import { ERROR, NONE } from './placeholders.js';

/** `k1=v1,k2=v2` with keys in byte order; `<none>` for no labels. */
export function formatLabels(labels: Readonly<Record<string, string>> | null | undefined): string {
  const text = labelSetString(labels);
  return text === '' ? NONE : text;
}

/** `k1=v1,k2=v2` with keys in byte order; empty for no labels. */
export function labelSetString(labels: Readonly<Record<string, string>> | null | undefined): string {
  return Object.keys(labels ?? {})
    .sort(compareStrings)
    .map((k) => `${k}=${labels?.[k] ?? ''}`)
    .join(',');
}

/** The outcome of turning a LabelSelector into selector text. */
export type SelectorText = { ok: true; text: string } | { ok: false; error: string };

interface Requirement {
  key: string;
  text: string;
}

const OPERATORS: Readonly<Record<string, string>> = { In: ' in ', NotIn: ' notin ', Exists: '', DoesNotExist: '' };

/**
 * The text of a LabelSelector as upstream's `LabelSelectorAsSelector(...).String()`:
 * requirements sorted by key, joined by commas (`app=web,tier in (a,b),!canary`).
 * A null selector (matches nothing) and an empty one (matches everything) are both ''.
 */
export function labelSelectorText(selector: LabelSelector | null | undefined): SelectorText {
  if (selector === undefined || selector === null) return { ok: true, text: '' };
  const requirements: Requirement[] = [];
  const errors: string[] = [];
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) {
    errors.push(...keyErrors(key), ...valueErrors(value));
    requirements.push({ key, text: `${key}=${value}` });
  }
  for (const expression of selector.matchExpressions ?? []) {
    const result = requirementText(expression);
    if (typeof result === 'string') return { ok: false, error: result };
    errors.push(...result.errors);
    requirements.push({ key: expression.key, text: result.text });
  }
  if (errors.length > 0) return { ok: false, error: errors.join(', ') };
  // Array.prototype.sort is stable; upstream sorts by key only.
  requirements.sort((a, b) => compareStrings(a.key, b.key));
  return { ok: true, text: requirements.map((r) => r.text).join(',') };
}

function requirementText(expression: LabelSelectorRequirement): string | { text: string; errors: string[] } {
  const { key, operator } = expression;
  const values = expression.values ?? [];
  const infix = OPERATORS[operator];
  if (infix === undefined) return `"${operator}" is not a valid label selector operator`;
  const errors = keyErrors(key);
  if ((operator === 'In' || operator === 'NotIn') && values.length === 0) {
    errors.push('values: Required value: for \'in\', \'notin\' operators, values set can\'t be empty');
  }
  if ((operator === 'Exists' || operator === 'DoesNotExist') && values.length !== 0) {
    errors.push('values: Forbidden: values set must be empty for exists and does not exist');
  }
  for (const v of values) errors.push(...valueErrors(v));
  if (operator === 'Exists') return { text: key, errors };
  if (operator === 'DoesNotExist') return { text: `!${key}`, errors };
  const sorted = values.length > 1 ? [...values].sort(compareStrings) : values;
  return { text: `${key}${infix}(${sorted.join(',')})`, errors };
}

/**
 * `<none>` for an empty selector, `<error>` for an invalid one, else its text:
 * upstream's `metav1.FormatLabelSelector`.
 */
export function formatLabelSelector(selector: LabelSelector | null | undefined): string {
  const result = labelSelectorText(selector);
  if (!result.ok) return ERROR;
  return result.text === '' ? NONE : result.text;
}

const NAME_PART = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const DNS_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Errors for a label key that is not a qualified name (`[prefix/]name`). */
function keyErrors(key: string): string[] {
  const parts = key.split('/');
  let name = key;
  if (parts.length === 2) {
    const [prefix = '', rest = ''] = parts;
    if (prefix.length === 0 || prefix.length > 253 || !DNS_SUBDOMAIN.test(prefix)) {
      return [`key: Invalid value: "${key}": prefix part must be a DNS subdomain`];
    }
    name = rest;
  } else if (parts.length > 2) {
    return [`key: Invalid value: "${key}": a qualified name must consist of alphanumeric characters`];
  }
  if (name.length === 0 || name.length > 63 || !NAME_PART.test(name)) {
    return [`key: Invalid value: "${key}": name part must consist of alphanumeric characters`];
  }
  return [];
}

/** Errors for a label value (at most 63 characters, alphanumeric at both ends). */
function valueErrors(value: string): string[] {
  if (value === '') return [];
  if (value.length > 63 || !NAME_PART.test(value)) {
    return [`values: Invalid value: "${value}": a valid label must be an empty string or consist of alphanumeric characters`];
  }
  return [];
}
