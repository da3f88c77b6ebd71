/**
 * Node selectors as the scheduler matches them (upstream's
 * component-helpers/scheduling/corev1/nodeaffinity): a pod's spec.nodeSelector
 * and required node affinity (NodeAffinity's Filter, PodTopologySpread's
 * nodeAffinityPolicy), preferred terms (NodeAffinity's Score), and the same
 * for a profile's addedAffinity. Everything is parsed once; matching a node
 * only walks the parsed requirements.
 *
 * Terms are ORed, the requirements of a term ANDed; an empty term matches
 * nothing; a term that does not parse matches nothing (its errors are kept
 * for callers that must refuse bad input, such as plugin args).
 */
import type { NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, PreferredSchedulingTerm } from 'kubernetes-types/core/v1.js';
import { childPath, indexPath, unsupportedValueText, invalidValueText, aggregateText, type FieldPathText } from '../../../machinery/selectors/field-error-text.js';
import { goQuote, goStringSlice } from '../../../machinery/selectors/go-format.js';
import { labelRequirementError, labelRequirementMatches, type LabelOperator, type LabelRequirement, type Labels } from '../../../machinery/selectors/label-requirement.js';
import type { Node, Pod } from '../../framework/types.js';

/** The only field a matchFields requirement may name. */
export const NODE_NAME_FIELD = 'metadata.name';

const LABEL_OPERATORS: Readonly<Record<string, LabelOperator>> = {
  In: 'in',
  NotIn: 'notin',
  Exists: 'exists',
  DoesNotExist: '!',
  Gt: 'gt',
  Lt: 'lt',
};
const SUPPORTED_LABEL_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist', 'Gt', 'Lt'];
const SUPPORTED_FIELD_OPERATORS = ['In', 'NotIn'];

/** A matchFields requirement on metadata.name: equal (In) or not equal (NotIn) to one name. */
interface NameRequirement {
  readonly equal: boolean;
  readonly name: string;
}

/** One parsed NodeSelectorTerm. */
export class ParsedNodeSelectorTerm {
  constructor(
    private readonly labelRequirements: readonly LabelRequirement[],
    /** undefined when the term has no matchFields. */
    private readonly nameRequirements: readonly NameRequirement[] | undefined,
    /** Upstream's field errors; a term with errors matches nothing. */
    readonly errors: readonly string[],
  ) {}

  /** Whether a node with these labels and this name matches the term. */
  matches(labels: Labels | undefined, nodeName: string): boolean {
    if (this.errors.length > 0) return false;
    for (const r of this.labelRequirements) if (!labelRequirementMatches(r, labels)) return false;
    // As upstream: matchFields are only checked when the node has a name.
    if (this.nameRequirements !== undefined && nodeName !== '') {
      for (const r of this.nameRequirements) if ((nodeName === r.name) !== r.equal) return false;
    }
    return true;
  }
}

function isEmptyTerm(term: NodeSelectorTerm | undefined): boolean {
  return term === undefined || ((term.matchExpressions ?? []).length === 0 && (term.matchFields ?? []).length === 0);
}

function parseLabelRequirements(expressions: readonly NodeSelectorRequirement[], path: FieldPathText, errors: string[]): LabelRequirement[] {
  const requirements: LabelRequirement[] = [];
  expressions.forEach((e, i) => {
    const p = indexPath(path, i);
    const operator = LABEL_OPERATORS[e.operator];
    if (operator === undefined) {
      errors.push(unsupportedValueText(childPath(p, 'operator'), goQuote(e.operator), SUPPORTED_LABEL_OPERATORS));
      return;
    }
    const values = e.values ?? [];
    const error = labelRequirementError(e.key, operator, values, p);
    if (error !== undefined) errors.push(error);
    else requirements.push({ key: e.key, operator, values: [...values] });
  });
  return requirements;
}

function parseNameRequirements(fields: readonly NodeSelectorRequirement[], path: FieldPathText, errors: string[]): NameRequirement[] {
  const requirements: NameRequirement[] = [];
  fields.forEach((f, i) => {
    const p = indexPath(path, i);
    if (f.key !== NODE_NAME_FIELD) {
      errors.push(invalidValueText(childPath(p, 'key'), goQuote(f.key), `must be ${NODE_NAME_FIELD}`));
      return;
    }
    if (!SUPPORTED_FIELD_OPERATORS.includes(f.operator)) {
      errors.push(unsupportedValueText(childPath(p, 'operator'), goQuote(f.operator), SUPPORTED_FIELD_OPERATORS));
      return;
    }
    const values = f.values ?? [];
    if (values.length !== 1) {
      errors.push(invalidValueText(childPath(p, 'values'), goStringSlice(values), 'must have one element'));
      return;
    }
    requirements.push({ equal: f.operator === 'In', name: values[0]! });
  });
  return requirements;
}

/** Parse one term; `path` prefixes the field errors (e.g. `nodeSelectorTerms[0]`). */
export function parseNodeSelectorTerm(term: NodeSelectorTerm, path?: FieldPathText): ParsedNodeSelectorTerm {
  const errors: string[] = [];
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  const labels = expressions.length > 0 ? parseLabelRequirements(expressions, childPath(path, 'matchExpressions'), errors) : [];
  const names = fields.length > 0 ? parseNameRequirements(fields, childPath(path, 'matchFields'), errors) : undefined;
  return new ParsedNodeSelectorTerm(labels, names, errors);
}

/** A parsed v1.NodeSelector (upstream's LazyErrorNodeSelector): terms that do not parse never match. */
export class ParsedNodeSelector {
  constructor(
    private readonly terms: readonly ParsedNodeSelectorTerm[],
    /** Every term's field errors. */
    readonly errors: readonly string[],
  ) {}

  matches(node: Node | undefined): boolean {
    if (node === undefined) return false;
    const labels = node.metadata.labels;
    const name = node.metadata.name ?? '';
    for (const t of this.terms) if (t.matches(labels, name)) return true;
    return false;
  }

  /** The errors as one message (upstream's aggregate), or undefined. */
  errorMessage(): string | undefined {
    return aggregateText(this.errors);
  }
}

/** Parse a NodeSelector; `path` prefixes the field errors (e.g. `addedAffinity.requiredDuringSchedulingIgnoredDuringExecution`). */
export function parseNodeSelector(selector: NodeSelector, path?: FieldPathText): ParsedNodeSelector {
  const terms: ParsedNodeSelectorTerm[] = [];
  const errors: string[] = [];
  (selector.nodeSelectorTerms ?? []).forEach((term, i) => {
    if (isEmptyTerm(term)) return; // an empty term selects nothing
    const parsed = parseNodeSelectorTerm(term, indexPath(childPath(path, 'nodeSelectorTerms'), i));
    terms.push(parsed);
    errors.push(...parsed.errors);
  });
  return new ParsedNodeSelector(terms, errors);
}

/** Parsed preferred terms (upstream's PreferredSchedulingTerms): a node's score is the sum of the weights of the terms it matches. */
export class ParsedPreferredTerms {
  constructor(
    private readonly terms: ReadonlyArray<{ readonly weight: number; readonly term: ParsedNodeSelectorTerm }>,
    readonly errors: readonly string[],
  ) {}

  get size(): number {
    return this.terms.length;
  }

  score(node: Node): number {
    const labels = node.metadata.labels;
    const name = node.metadata.name ?? '';
    let sum = 0;
    for (const t of this.terms) if (t.term.matches(labels, name)) sum += t.weight;
    return sum;
  }

  errorMessage(): string | undefined {
    return aggregateText(this.errors);
  }
}

/** Parse preferred terms; terms of weight 0 and empty terms are dropped, as upstream does. */
export function parsePreferredTerms(terms: readonly PreferredSchedulingTerm[], path?: FieldPathText): ParsedPreferredTerms {
  const parsed: Array<{ weight: number; term: ParsedNodeSelectorTerm }> = [];
  const errors: string[] = [];
  terms.forEach((t, i) => {
    if (t.weight === 0 || isEmptyTerm(t.preference)) return;
    const term = parseNodeSelectorTerm(t.preference, childPath(indexPath(path, i), 'preference'));
    parsed.push({ weight: t.weight, term });
    errors.push(...term.errors);
  });
  return new ParsedPreferredTerms(parsed, errors);
}

/**
 * A pod's spec.nodeSelector and required node affinity together (upstream's
 * RequiredNodeAffinity): a node must match both. Parse once per pod
 * (`requiredNodeAffinity(pod)`), then call `matches(node)` per node.
 */
export class RequiredNodeAffinity {
  private readonly selectorEntries: ReadonlyArray<readonly [string, string]>;

  constructor(
    nodeSelector: Readonly<Record<string, string>> | undefined,
    /** undefined when the pod has no required node affinity. */
    readonly affinity: ParsedNodeSelector | undefined,
  ) {
    this.selectorEntries = nodeSelector === undefined ? [] : Object.entries(nodeSelector);
  }

  /** Whether the node satisfies the pod's nodeSelector and required affinity (terms that do not parse never match). */
  matches(node: Node | undefined): boolean {
    if (node === undefined) return false;
    const labels = node.metadata.labels;
    for (const [key, value] of this.selectorEntries) {
      if (labels === undefined || !Object.hasOwn(labels, key) || labels[key] !== value) return false;
    }
    return this.affinity === undefined || this.affinity.matches(node);
  }
}

export function requiredNodeAffinity(pod: Pod): RequiredNodeAffinity {
  const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
  return new RequiredNodeAffinity(pod.spec?.nodeSelector, required === undefined ? undefined : parseNodeSelector(required));
}
