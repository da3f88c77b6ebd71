/**
 * Field selectors as upstream parses, prints and matches them
 * (`spec.nodeName=node-1,status.phase!=Running`), and the check of their
 * fields against what a resource supports, with upstream's 400 messages.
 */
import { badRequest } from '../status.js';
import { escapeFieldValue, unescapeFieldValue } from './field-value-escape.js';
import { compareGoStrings, goQuote } from './go-format.js';

/** Upstream's `selection.Operator` for field requirements: `==` parses as `=`. */
export type FieldOperator = '=' | '!=';

export interface FieldRequirement {
  readonly field: string;
  readonly operator: FieldOperator;
  /** The literal value, unescaped. */
  readonly value: string;
}

/** An object's selectable fields; a field that is absent has the value `""`, as upstream's `fields.Set`. */
export type Fields = Readonly<Record<string, string>>;

export interface FieldSelector {
  /** The requirements in upstream's order (sorted by their text as written); all must hold. */
  readonly requirements: readonly FieldRequirement[];
  matches(fields: Fields): boolean;
  /** True when the selector does not restrict anything. */
  empty(): boolean;
  /** The value an `=`/`==` requirement demands of `field` (upstream's `RequiresExactMatch`), for indexing by it. */
  requiredValue(field: string): string | undefined;
  /** Upstream's canonical text: `field=value` / `field!=value`, values escaped, comma-separated. */
  toString(): string;
}

class RequirementsFieldSelector implements FieldSelector {
  readonly requirements: readonly FieldRequirement[];

  constructor(requirements: readonly FieldRequirement[]) {
    this.requirements = Object.freeze(requirements.map((r) => Object.freeze({ ...r })));
  }

  matches(fields: Fields): boolean {
    return this.requirements.every((r) => {
      const actual = Object.hasOwn(fields, r.field) ? (fields[r.field] ?? '') : '';
      return r.operator === '=' ? actual === r.value : actual !== r.value;
    });
  }

  empty(): boolean {
    return this.requirements.length === 0;
  }

  requiredValue(field: string): string | undefined {
    return this.requirements.find((r) => r.operator === '=' && r.field === field)?.value;
  }

  toString(): string {
    return this.requirements.map((r) => `${r.field}${r.operator}${escapeFieldValue(r.value)}`).join(',');
  }
}

const EVERYTHING: FieldSelector = new RequirementsFieldSelector([]);

/**
 * The field selector that matches everything.
 *
 * @example
 * everythingFields().empty(); // => true
 */
export const everythingFields = (): FieldSelector => EVERYTHING;

/**
 * A selector of the given requirements, in the given order; a requirement
 * with both field and value empty is dropped, as upstream drops it.
 *
 * @example
 * newFieldSelector([{ field: 'status.phase', operator: '!=', value: 'Running' }]).toString(); // => 'status.phase!=Running'
 */
export function newFieldSelector(requirements: readonly FieldRequirement[]): FieldSelector {
  const kept = requirements.filter((r) => r.field !== '' || r.value !== '');
  return kept.length === 0 ? EVERYTHING : new RequirementsFieldSelector(kept);
}

/**
 * One `field=value` requirement (upstream's `OneTermEqualSelector`).
 *
 * @example
 * oneTermEqualSelector('metadata.name', 'web').toString(); // => 'metadata.name=web'
 */
export function oneTermEqualSelector(field: string, value: string): FieldSelector {
  return new RequirementsFieldSelector([{ field, operator: '=', value }]);
}

/**
 * A selector requiring exactly the given fields (upstream's `SelectorFromSet`,
 * in field order); an absent set selects everything.
 *
 * @example
 * fieldSelectorFromSet({ 'spec.nodeName': 'n1' }).requiredValue('spec.nodeName'); // => 'n1'
 */
export function fieldSelectorFromSet(set: Fields | undefined): FieldSelector {
  if (set === undefined) return EVERYTHING;
  const fields = Object.keys(set).sort(compareGoStrings);
  return new RequirementsFieldSelector(fields.map((field) => ({ field, operator: '=', value: set[field] ?? '' })));
}

/** The comma-separated terms; an escaped comma (`\,`) stays inside its term, backslash kept. */
function splitTerms(text: string): string[] {
  if (text === '') return [];
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (inSlash) inSlash = false;
    else if (ch === '\\') inSlash = true;
    else if (ch === ',') {
      terms.push(text.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(text.slice(start));
  return terms;
}

const TERM_OPERATORS = ['!=', '==', '='] as const;

/** Splits a term at the first operator; the field part knows no escaping. */
function splitTerm(term: string): { field: string; operator: FieldOperator; rawValue: string } | undefined {
  for (let i = 0; i < term.length; i++) {
    for (const op of TERM_OPERATORS) {
      if (term.startsWith(op, i)) return { field: term.slice(0, i), operator: op === '!=' ? '!=' : '=', rawValue: term.slice(i + op.length) };
    }
  }
  return undefined;
}

/**
 * Parses the `fieldSelector` syntax: comma-separated `field=value`,
 * `field==value` or `field!=value`, values escaped with `\` (`\,` `\=` `\\`).
 * Throws a BadRequest StatusError with upstream's message, which the API
 * server returns as a 400.
 *
 * @example
 * const s = parseFieldSelector('status.phase!=Running,spec.nodeName==n1');
 * s.toString();                       // => 'spec.nodeName=n1,status.phase!=Running'
 * s.requiredValue('spec.nodeName');   // => 'n1'
 * parseFieldSelector('spec.nodeName'); // throws: invalid selector: 'spec.nodeName'; can't understand 'spec.nodeName'
 */
export function parseFieldSelector(text: string): FieldSelector {
  const terms = splitTerms(text).sort(compareGoStrings);
  const requirements: FieldRequirement[] = [];
  for (const term of terms) {
    if (term === '') continue;
    const parts = splitTerm(term);
    if (parts === undefined) throw badRequest(`invalid selector: '${text}'; can't understand '${term}'`);
    requirements.push({ field: parts.field, operator: parts.operator, value: unescapeFieldValue(parts.rawValue) });
  }
  return newFieldSelector(requirements);
}

/** The fields every resource can be selected by, under upstream's default conversion. */
export const DEFAULT_SELECTABLE_FIELDS: readonly string[] = Object.freeze(['metadata.name', 'metadata.namespace']);

export interface FieldLabelOptions {
  /** Old names rewritten to current ones before the check, e.g. pods' `{ 'spec.host': 'spec.nodeName' }`. */
  readonly aliases?: Readonly<Record<string, string>>;
}

function convertFields(selector: FieldSelector, convert: (field: string) => string): FieldSelector {
  return newFieldSelector(selector.requirements.map((r) => ({ ...r, field: convert(r.field) })));
}

/**
 * Checks each field of a selector against those a resource registers (upstream's
 * per-kind field label conversion, e.g. pods' `spec.nodeName`,
 * `status.phase`, …), in the selector's order; the first unsupported one
 * throws a BadRequest StatusError `field label not supported: <field>`.
 * Returns the selector with aliases rewritten, to match objects with.
 *
 * @example
 * checkFieldSelectorFields(parseFieldSelector('spec.host=n1'), ['metadata.name', 'spec.nodeName'], { aliases: { 'spec.host': 'spec.nodeName' } })
 *   .toString(); // => 'spec.nodeName=n1'
 * checkFieldSelectorFields(parseFieldSelector('status.hostIP=1.2.3.4'), ['spec.nodeName']);
 * // throws: field label not supported: status.hostIP
 */
export function checkFieldSelectorFields(selector: FieldSelector, supported: readonly string[], options: FieldLabelOptions = {}): FieldSelector {
  const aliases = options.aliases ?? {};
  return convertFields(selector, (field) => {
    if (Object.hasOwn(aliases, field)) return aliases[field] ?? field;
    if (supported.includes(field)) return field;
    throw badRequest(`field label not supported: ${field}`);
  });
}

/**
 * The check for a resource that registers no field labels of its own
 * (configmaps, deployments, custom resources without selectable fields, …):
 * upstream's default conversion allows `metadata.name` and
 * `metadata.namespace` and answers anything else with its own message.
 *
 * @example
 * checkDefaultFieldSelectorFields(parseFieldSelector('foo.bar=baz'));
 * // throws: "foo.bar" is not a known field selector: only "metadata.name", "metadata.namespace"
 */
export function checkDefaultFieldSelectorFields(selector: FieldSelector): FieldSelector {
  return convertFields(selector, (field) => {
    if (DEFAULT_SELECTABLE_FIELDS.includes(field)) return field;
    throw badRequest(`${goQuote(field)} is not a known field selector: only ${DEFAULT_SELECTABLE_FIELDS.map(goQuote).join(', ')}`);
  });
}
