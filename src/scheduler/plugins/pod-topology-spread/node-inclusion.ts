/**
 * Which nodes count for a spread constraint (nodeAffinityPolicy and
 * nodeTaintsPolicy): a pod's required node affinity (spec.nodeSelector and
 * requiredDuringScheduling terms, as upstream's nodeaffinity.RequiredNodeAffinity)
 * and its tolerations of NoSchedule/NoExecute taints.
 *
 * A minimal private matcher: src/scheduler/plugins/helper/node-selector.ts
 * (NodeAffinity's) was not on main when this was written; the two match
 * alike (terms ORed, requirements ANDed, empty or unparsable terms match
 * nothing, matchFields only on metadata.name) and can be merged.
 */
import type { NodeSelectorRequirement, NodeSelectorTerm, Taint, Toleration } from 'kubernetes-types/core/v1.js';
import { labelRequirementMatches, parseGoInt64, type LabelOperator, type LabelRequirement, type Labels } from '../../../machinery/selectors/label-requirement.js';
import type { Node, Pod } from '../../framework/types.js';

const OPERATORS: Readonly<Record<string, LabelOperator>> = { In: 'in', NotIn: 'notin', Exists: 'exists', DoesNotExist: '!', Gt: 'gt', Lt: 'lt' };

/** A parsed requirement, or undefined when it is invalid (the term then matches nothing). */
function parseLabelRequirement(r: NodeSelectorRequirement): LabelRequirement | undefined {
  const operator = Object.hasOwn(OPERATORS, r.operator) ? OPERATORS[r.operator] : undefined;
  if (operator === undefined) return undefined;
  const values = r.values ?? [];
  switch (operator) {
    case 'in':
    case 'notin':
      if (values.length === 0) return undefined;
      break;
    case 'exists':
    case '!':
      if (values.length !== 0) return undefined;
      break;
    default:
      if (values.length !== 1 || parseGoInt64(values[0]!) === undefined) return undefined;
  }
  return { key: r.key, operator, values };
}

interface ParsedTerm {
  readonly labels: readonly LabelRequirement[];
  /** metadata.name must (In) or must not (NotIn) equal the value. */
  readonly names: ReadonlyArray<{ readonly equal: boolean; readonly name: string }>;
}

function parseTerm(term: NodeSelectorTerm): ParsedTerm | undefined {
  const expressions = term.matchExpressions ?? [];
  const fields = term.matchFields ?? [];
  if (expressions.length === 0 && fields.length === 0) return undefined;
  const labels: LabelRequirement[] = [];
  for (const e of expressions) {
    const r = parseLabelRequirement(e);
    if (r === undefined) return undefined;
    labels.push(r);
  }
  const names: Array<{ equal: boolean; name: string }> = [];
  for (const f of fields) {
    if (f.key !== 'metadata.name' || (f.operator !== 'In' && f.operator !== 'NotIn') || (f.values ?? []).length !== 1) return undefined;
    names.push({ equal: f.operator === 'In', name: f.values![0]! });
  }
  return { labels, names };
}

function termMatches(term: ParsedTerm, labels: Labels | undefined, nodeName: string): boolean {
  for (const r of term.labels) if (!labelRequirementMatches(r, labels)) return false;
  if (nodeName !== '') for (const r of term.names) if ((nodeName === r.name) !== r.equal) return false;
  return true;
}

/** A pod's nodeSelector and required node affinity, parsed once. */
export class RequiredNodeAffinity {
  private constructor(
    private readonly selector: ReadonlyArray<readonly [string, string]>,
    /** undefined: no required affinity; otherwise the valid terms (none valid: nothing matches). */
    private readonly terms: readonly ParsedTerm[] | undefined,
  ) {}

  static of(pod: Pod): RequiredNodeAffinity {
    const required = pod.spec?.affinity?.nodeAffinity?.requiredDuringSchedulingIgnoredDuringExecution;
    const terms = required === undefined ? undefined : (required.nodeSelectorTerms ?? []).map(parseTerm).filter((t): t is ParsedTerm => t !== undefined);
    return new RequiredNodeAffinity(Object.entries(pod.spec?.nodeSelector ?? {}), terms);
  }

  /** True when the pod restricts nothing (every node matches). */
  get isEmpty(): boolean {
    return this.selector.length === 0 && this.terms === undefined;
  }

  matches(node: Node): boolean {
    const labels = node.metadata.labels;
    for (const [key, value] of this.selector) {
      if (labels === undefined || !Object.hasOwn(labels, key) || labels[key] !== value) return false;
    }
    if (this.terms === undefined) return true;
    const name = node.metadata.name ?? '';
    for (const t of this.terms) if (termMatches(t, labels, name)) return true;
    return false;
  }
}

/** Upstream's Toleration.ToleratesTaint. */
export function toleratesTaint(toleration: Toleration, taint: Taint): boolean {
  if ((toleration.effect ?? '') !== '' && toleration.effect !== taint.effect) return false;
  if ((toleration.key ?? '') !== '' && toleration.key !== taint.key) return false;
  switch (toleration.operator ?? '') {
    case '':
    case 'Equal':
      return (toleration.value ?? '') === (taint.value ?? '');
    case 'Exists':
      return true;
    default:
      return false;
  }
}

/** Whether the node has a NoSchedule or NoExecute taint that no toleration tolerates. */
export function hasUntoleratedDoNotScheduleTaint(node: Node, tolerations: readonly Toleration[] | undefined): boolean {
  for (const taint of node.spec?.taints ?? []) {
    if (taint.effect !== 'NoSchedule' && taint.effect !== 'NoExecute') continue;
    if (!(tolerations ?? []).some((t) => toleratesTaint(t, taint))) return true;
  }
  return false;
}
