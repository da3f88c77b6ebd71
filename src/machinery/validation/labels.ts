/**
 * Labels, annotations and label selectors, validated as upstream does
 * (k8s.io/apimachinery pkg/apis/meta/v1/validation and pkg/api/validation).
 * Errors name the map (`metadata.labels`), not the key, as upstream's do.
 */

import { forbidden, invalid, required, type FieldError, type FieldPath } from '../field-errors.js';
import { byteLength } from './go-text.js';
import { tooLongBytes } from './messages.js';
import { isQualifiedName, isValidLabelValue } from './names.js';
import { ValidStrings } from './valid-strings.js';

/** The most bytes all annotation keys and values of one object may hold together (256 KiB). */
export const TOTAL_ANNOTATION_SIZE_LIMIT_B = 256 * 1024;

/** A string map as it arrives in JSON: absent, null, or keys to strings. */
export type StringMap = Readonly<Record<string, string>> | null | undefined;

/** A label key (also a selector key or condition type): a qualified name. */
export function validateLabelName(key: string, path: FieldPath): FieldError[] {
  return isQualifiedName(key).map((m) => invalid(path, key, m));
}

/**
 * A label key without a prefix, or a non-empty label value, that is plainly
 * valid: 1 to 63 ASCII characters of `[-A-Za-z0-9_.]`, alphanumeric at both
 * ends (QUALIFIED_NAME_RE and LABEL_VALUE_RE within their length limit).
 */
const PLAIN_LABEL_PART = /^[A-Za-z0-9](?:[-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;
const PLAIN_LABEL_PARTS = new ValidStrings((s) => PLAIN_LABEL_PART.test(s));

/** Every key a qualified name, every value a valid label value. */
export function validateLabels(labels: StringMap, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  if (labels === null || labels === undefined) return errs;
  for (const key of Object.keys(labels)) {
    const value = labels[key]!;
    // The common case, decided without building the (empty) lists of messages.
    if (PLAIN_LABEL_PARTS.test(key) && typeof value === 'string' && (value === '' || PLAIN_LABEL_PARTS.test(value))) continue;
    errs.push(...validateLabelName(key, path));
    errs.push(...isValidLabelValue(value).map((m) => invalid(path, value, m)));
  }
  return errs;
}

/** The bytes annotations take against TOTAL_ANNOTATION_SIZE_LIMIT_B: every key and value. */
export function annotationsSize(annotations: StringMap): number {
  let total = 0;
  for (const [key, value] of Object.entries(annotations ?? {})) total += byteLength(key) + byteLength(value);
  return total;
}

/**
 * Every key a qualified name in any case (`Example.com/Key` is allowed), and
 * all keys and values together at most 256 KiB:
 * `metadata.annotations: Too long: may not be more than 262144 bytes`.
 */
export function validateAnnotations(annotations: StringMap, path: FieldPath): FieldError[] {
  const errs: FieldError[] = [];
  for (const key of Object.keys(annotations ?? {})) {
    errs.push(...isQualifiedName(key.toLowerCase()).map((m) => invalid(path, key, m)));
  }
  if (annotationsSize(annotations) > TOTAL_ANNOTATION_SIZE_LIMIT_B) {
    errs.push(tooLongBytes(path, TOTAL_ANNOTATION_SIZE_LIMIT_B));
  }
  return errs;
}

/** One `matchExpressions` entry of a label selector. */
export interface LabelSelectorRequirement {
  readonly key: string;
  readonly operator: string;
  readonly values?: readonly string[] | null | undefined;
}

/** A metav1 label selector. */
export interface LabelSelector {
  readonly matchLabels?: StringMap;
  readonly matchExpressions?: readonly LabelSelectorRequirement[] | null | undefined;
}

/** Upstream's LabelSelectorValidationOptions. */
export interface LabelSelectorValidationOptions {
  /** Accept invalid label values in expressions: only to keep an old object's persisted values valid. */
  readonly allowInvalidLabelValueInSelector?: boolean;
  /** Accept operators no one can interpret (access reviews, which check more broadly). */
  readonly allowUnknownOperatorInRequirement?: boolean;
}

/** Whether any expression value of the selector is not a valid label value. */
export function labelSelectorHasInvalidLabelValue(selector: LabelSelector | null | undefined): boolean {
  return (selector?.matchExpressions ?? []).some((e) => (e.values ?? []).some((v) => isValidLabelValue(v).length > 0));
}

/** One requirement: a known operator with values as it needs them, a valid key, valid values. */
export function validateLabelSelectorRequirement(
  requirement: LabelSelectorRequirement,
  options: LabelSelectorValidationOptions,
  path: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) {
        errs.push(required(path.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      }
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) {
        errs.push(forbidden(path.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
      break;
    default:
      if (options.allowUnknownOperatorInRequirement !== true) {
        errs.push(invalid(path.child('operator'), requirement.operator, 'not a valid selector operator'));
      }
  }
  errs.push(...validateLabelName(requirement.key, path.child('key')));
  if (options.allowInvalidLabelValueInSelector !== true) {
    values.forEach((value, i) => {
      errs.push(...isValidLabelValue(value).map((m) => invalid(path.child('values').index(i), value, m)));
    });
  }
  return errs;
}

/** A label selector: its matchLabels as labels, each expression as a requirement. An absent selector is valid. */
export function validateLabelSelector(
  selector: LabelSelector | null | undefined,
  options: LabelSelectorValidationOptions,
  path: FieldPath,
): FieldError[] {
  if (selector === null || selector === undefined) return [];
  const errs = validateLabels(selector.matchLabels, path.child('matchLabels'));
  (selector.matchExpressions ?? []).forEach((e, i) => {
    errs.push(...validateLabelSelectorRequirement(e, options, path.child('matchExpressions').index(i)));
  });
  return errs;
}

/** One requirement of a field selector (as in access reviews): a key, and values as the operator needs them. */
export function validateFieldSelectorRequirement(
  requirement: LabelSelectorRequirement,
  options: { readonly allowUnknownOperatorInRequirement?: boolean },
  path: FieldPath,
): FieldError[] {
  const errs: FieldError[] = [];
  if (requirement.key.length === 0) errs.push(required(path.child('key'), 'must be specified'));
  const values = requirement.values ?? [];
  switch (requirement.operator) {
    case 'In':
    case 'NotIn':
      if (values.length === 0) {
        errs.push(required(path.child('values'), "must be specified when `operator` is 'In' or 'NotIn'"));
      }
      break;
    case 'Exists':
    case 'DoesNotExist':
      if (values.length > 0) {
        errs.push(forbidden(path.child('values'), "may not be specified when `operator` is 'Exists' or 'DoesNotExist'"));
      }
      break;
    default:
      if (options.allowUnknownOperatorInRequirement !== true) {
        errs.push(invalid(path.child('operator'), requirement.operator, 'not a valid selector operator'));
      }
  }
  return errs;
}
