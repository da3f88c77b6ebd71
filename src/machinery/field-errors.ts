/**
 * Field errors: what validation returns, one per bad field, with the field's
 * path (`spec.containers[0].image`). Their text is upstream's byte for byte,
 * because kubectl users know it: `spec.replicas: Invalid value: -1: must be
 * greater than or equal to 0`.
 */

import { goQuote } from './validation/go-text.js';

/** Upstream's field error types; the string is the cause's `reason` on the wire. */
export type FieldErrorType =
  | 'FieldValueNotFound'
  | 'FieldValueRequired'
  | 'FieldValueDuplicate'
  | 'FieldValueInvalid'
  | 'FieldValueNotSupported'
  | 'FieldValueForbidden'
  | 'FieldValueTooLong'
  | 'FieldValueTooMany'
  | 'InternalError'
  | 'FieldValueTypeInvalid';

const TYPE_TEXT: Record<FieldErrorType, string> = {
  FieldValueNotFound: 'Not found',
  FieldValueRequired: 'Required value',
  FieldValueDuplicate: 'Duplicate value',
  FieldValueInvalid: 'Invalid value',
  FieldValueNotSupported: 'Unsupported value',
  FieldValueForbidden: 'Forbidden',
  FieldValueTooLong: 'Too long',
  FieldValueTooMany: 'Too many',
  InternalError: 'Internal error',
  FieldValueTypeInvalid: 'Invalid value',
};

/** Marks a field error whose value should not be printed. */
export const OMIT_VALUE = Symbol('omit value');

export interface FieldError {
  readonly type: FieldErrorType;
  /** The path, e.g. `metadata.name` or `spec.containers[0].ports[1].containerPort`. */
  readonly field: string;
  readonly value?: unknown;
  readonly detail?: string;
}

/** How a step joins its parent's text: `.name` (none after an empty root), `.name` always, or `[x]`. */
type Join = 'child' | 'dotted' | 'bracket';

/**
 * A path to a field, built step by step: `root('spec').child('containers').index(0).child('image')`.
 * Validation makes a path for every field it looks at, and almost all of them
 * never name an error: the text is only joined when it is read, then kept.
 */
export class FieldPath {
  private text: string | undefined;

  private constructor(
    private readonly parent: FieldPath | undefined,
    private readonly step: string | number,
    private readonly join: Join,
  ) {}

  static root(name: string): FieldPath {
    return new FieldPath(undefined, name, 'child');
  }

  child(name: string, ...more: string[]): FieldPath {
    let path = new FieldPath(this, name, 'child');
    for (const m of more) path = new FieldPath(path, m, 'dotted');
    return path;
  }

  index(i: number): FieldPath {
    return new FieldPath(this, i, 'bracket');
  }

  /** A map key: `metadata.labels[app]`. */
  key(k: string): FieldPath {
    return new FieldPath(this, k, 'bracket');
  }

  toString(): string {
    if (this.text === undefined) {
      const parent = this.parent;
      if (parent === undefined) this.text = String(this.step);
      else {
        const base = parent.toString();
        if (this.join === 'bracket') this.text = `${base}[${this.step}]`;
        else if (this.join === 'child' && base === '') this.text = String(this.step);
        else this.text = `${base}.${this.step}`;
      }
    }
    return this.text;
  }
}

type Path = FieldPath | string;
const p = (path: Path): string => String(path);

export const required = (path: Path, detail = ''): FieldError => ({ type: 'FieldValueRequired', field: p(path), value: '', detail });
export const invalid = (path: Path, value: unknown, detail = ''): FieldError => ({ type: 'FieldValueInvalid', field: p(path), value, detail });
export const notSupported = (path: Path, value: unknown, valid: readonly string[]): FieldError => ({
  type: 'FieldValueNotSupported',
  field: p(path),
  value,
  detail: valid.length > 0 ? `supported values: ${valid.map((v) => JSON.stringify(v)).join(', ')}` : '',
});
export const forbidden = (path: Path, detail: string): FieldError => ({ type: 'FieldValueForbidden', field: p(path), value: '', detail });
export const duplicate = (path: Path, value: unknown): FieldError => ({ type: 'FieldValueDuplicate', field: p(path), value, detail: '' });
export const notFound = (path: Path, value: unknown): FieldError => ({ type: 'FieldValueNotFound', field: p(path), value, detail: '' });
/** Upstream 1.33's wording; the value itself is never printed. */
export const tooLong = (path: Path, _value: unknown, max: number): FieldError => ({
  type: 'FieldValueTooLong',
  field: p(path),
  value: '<value omitted>',
  detail: max >= 0 ? `may not be more than ${max} bytes` : 'value is too long',
});

/** A value printed as is, without quotes: what upstream prints for a Go struct or a time (`%#v`, Stringer). */
export class RawValue {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}
export const tooMany = (path: Path, actual: number, max: number): FieldError => ({
  type: 'FieldValueTooMany',
  field: p(path),
  value: actual,
  detail: `must have at most ${max} items`,
});
export const internalError = (path: Path, message: string): FieldError => ({ type: 'InternalError', field: p(path), value: '', detail: message });

/** A value as Go's %v/%q/%#v would print it in upstream's messages. */
function formatValue(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (value instanceof RawValue) return value.text;
  switch (typeof value) {
    case 'string':
      return goQuote(value);
    case 'number':
    case 'bigint':
    case 'boolean':
      return String(value);
    default:
      return JSON.stringify(value) ?? String(value);
  }
}

/** The message without the field: `Invalid value: "x": must be …` (a cause's `message`). */
export function fieldErrorBody(e: FieldError): string {
  let s: string;
  switch (e.type) {
    case 'FieldValueRequired':
    case 'FieldValueForbidden':
    case 'FieldValueTooLong':
    case 'InternalError':
      s = TYPE_TEXT[e.type];
      break;
    default:
      s = e.value === OMIT_VALUE ? TYPE_TEXT[e.type] : `${TYPE_TEXT[e.type]}: ${formatValue(e.value)}`;
  }
  if (e.detail !== undefined && e.detail !== '') s += `: ${e.detail}`;
  return s;
}

/** `field: body`, as upstream's field.Error.Error(). */
export function formatFieldError(e: FieldError): string {
  return `${e.field}: ${fieldErrorBody(e)}`;
}

/** Several errors as upstream's aggregate: one alone as itself, more as `[a, b]`. */
export function formatFieldErrors(errors: readonly FieldError[]): string {
  const texts = [...new Set(errors.map(formatFieldError))];
  return texts.length === 1 ? texts[0]! : `[${texts.join(', ')}]`;
}
