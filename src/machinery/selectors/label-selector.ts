/**
 * Label selectors as upstream parses, prints and matches them: from the
 * `labelSelector` query parameter (`parseLabelSelector`), from an API
 * object's `metav1.LabelSelector` (`labelSelectorFromObject`), or from a
 * map of labels (`labelSelectorFromSet`).
 */
import { badRequest } from '../status.js';
import { goQuote } from './go-format.js';
import { parseLabelRequirements, sortRequirementsByKey } from './label-parser.js';
import { formatLabelRequirement, labelRequirementMatches, newLabelRequirement, type LabelOperator, type LabelRequirement, type Labels } from './label-requirement.js';

export type { LabelOperator, LabelRequirement, Labels } from './label-requirement.js';
export { newLabelRequirement } from './label-requirement.js';

export interface LabelSelector {
  /** The requirements, sorted by key; all must hold. Empty for `everything()` and `nothing()`. */
  readonly requirements: readonly LabelRequirement[];
  /** Whether labels (an object's `metadata.labels`, possibly absent) satisfy every requirement. */
  matches(labels: Labels | undefined): boolean;
  /** True when the selector does not restrict anything (`everything()`, or parsed from blank text). */
  empty(): boolean;
  /** True only for `nothing()`, the selector of an absent `metav1.LabelSelector`. */
  matchesNothing(): boolean;
  /** The single value the selector requires `key` to have (`key=v`, `key==v`, `key in (v)`), if any. */
  requiresExactMatch(key: string): string | undefined;
  /** A new selector with more requirements, re-sorted by key. */
  add(...requirements: LabelRequirement[]): LabelSelector;
  /** Upstream's canonical text: requirements by key, comma-separated, `in`/`notin` values sorted; `""` for everything and nothing. */
  toString(): string;
}

class RequirementsSelector implements LabelSelector {
  readonly requirements: readonly LabelRequirement[];

  constructor(requirements: readonly LabelRequirement[]) {
    this.requirements = Object.freeze([...requirements]);
  }

  matches(labels: Labels | undefined): boolean {
    return this.requirements.every((r) => labelRequirementMatches(r, labels));
  }

  empty(): boolean {
    return this.requirements.length === 0;
  }

  matchesNothing(): boolean {
    return false;
  }

  requiresExactMatch(key: string): string | undefined {
    const r = this.requirements.find((x) => x.key === key);
    if (r === undefined || r.values.length !== 1) return undefined;
    return r.operator === '=' || r.operator === '==' || r.operator === 'in' ? r.values[0] : undefined;
  }

  add(...requirements: LabelRequirement[]): LabelSelector {
    return new RequirementsSelector(sortRequirementsByKey([...this.requirements, ...requirements]));
  }

  toString(): string {
    return this.requirements.map(formatLabelRequirement).join(',');
  }
}

class NothingSelector implements LabelSelector {
  readonly requirements: readonly LabelRequirement[] = Object.freeze([]);

  matches(): boolean {
    return false;
  }

  empty(): boolean {
    return false;
  }

  matchesNothing(): boolean {
    return true;
  }

  requiresExactMatch(): undefined {
    return undefined;
  }

  add(): LabelSelector {
    return this;
  }

  toString(): string {
    return '';
  }
}

const EVERYTHING: LabelSelector = new RequirementsSelector([]);
const NOTHING: LabelSelector = new NothingSelector();

/**
 * The selector that matches all labels.
 *
 * @example
 * everything().matches(undefined); // => true
 */
export const everything = (): LabelSelector => EVERYTHING;

/**
 * The selector that matches no labels (upstream's for a nil `metav1.LabelSelector`).
 *
 * @example
 * nothing().matches({ app: 'web' }); // => false
 */
export const nothing = (): LabelSelector => NOTHING;

/**
 * A selector of validated requirements, sorted by key.
 *
 * @example
 * newLabelSelector([newLabelRequirement('app', '=', ['web'])]).toString(); // => 'app=web'
 */
export function newLabelSelector(requirements: readonly LabelRequirement[]): LabelSelector {
  return requirements.length === 0 ? EVERYTHING : new RequirementsSelector(sortRequirementsByKey(requirements));
}

/**
 * Parses the `labelSelector` syntax (`=`, `==`, `!=`, `in`, `notin`, `key`,
 * `!key`, `>`, `<`); throws a BadRequest StatusError with upstream's message,
 * which the API server returns as a 400.
 *
 * @example
 * const s = parseLabelSelector('tier in (web, db), !canary');
 * s.matches({ tier: 'db' });  // => true
 * s.toString();               // => '!canary,tier in (db,web)'
 * parseLabelSelector('a b');  // throws: unable to parse requirement: found 'b', expected: in, notin, =, ==, !=, gt, lt
 */
export function parseLabelSelector(text: string): LabelSelector {
  return newLabelSelector(parseLabelRequirements(text));
}

/**
 * A selector requiring exactly the given labels (upstream's
 * `SelectorFromSet`, not validated); an empty or absent set selects everything.
 *
 * @example
 * labelSelectorFromSet({ app: 'web', tier: 'db' }).toString(); // => 'app=web,tier=db'
 */
export function labelSelectorFromSet(set: Labels | undefined): LabelSelector {
  if (set === undefined) return EVERYTHING;
  const requirements = Object.entries(set).map(([key, value]): LabelRequirement => Object.freeze({ key, operator: '=', values: Object.freeze([value]) }));
  return newLabelSelector(requirements);
}

/** The API's `metav1.LabelSelectorRequirement`. */
export interface LabelSelectorRequirementObject {
  readonly key: string;
  /** `In`, `NotIn`, `Exists` or `DoesNotExist`. */
  readonly operator: string;
  readonly values?: readonly string[] | null | undefined;
}

/** The API's `metav1.LabelSelector`, as found in a Deployment's `spec.selector`. */
export interface LabelSelectorObject {
  readonly matchLabels?: Readonly<Record<string, string>> | null | undefined;
  readonly matchExpressions?: readonly LabelSelectorRequirementObject[] | null | undefined;
}

const OBJECT_OPERATORS: Readonly<Record<string, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
};

/**
 * Upstream's `metav1.LabelSelectorAsSelector`: an absent selector selects
 * nothing, an empty one everything; an invalid one throws a BadRequest
 * StatusError with upstream's message.
 *
 * @example
 * labelSelectorFromObject({ matchLabels: { app: 'web' }, matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['db'] }] })
 *   .toString(); // => 'app=web,tier notin (db)'
 * labelSelectorFromObject(undefined).matchesNothing(); // => true
 */
export function labelSelectorFromObject(selector: LabelSelectorObject | null | undefined): LabelSelector {
  if (selector === null || selector === undefined) return NOTHING;
  const matchLabels = Object.entries(selector.matchLabels ?? {});
  const matchExpressions = selector.matchExpressions ?? [];
  if (matchLabels.length + matchExpressions.length === 0) return EVERYTHING;
  const requirements: LabelRequirement[] = matchLabels.map(([key, value]) => newLabelRequirement(key, '=', [value]));
  for (const expression of matchExpressions) {
    const operator = Object.hasOwn(OBJECT_OPERATORS, expression.operator) ? OBJECT_OPERATORS[expression.operator] : undefined;
    if (operator === undefined) throw badRequest(`${goQuote(expression.operator)} is not a valid pod selector operator`);
    requirements.push(newLabelRequirement(expression.key, operator, expression.values ?? []));
  }
  return new RequirementsSelector(sortRequirementsByKey(requirements));
}
