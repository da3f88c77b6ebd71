/**
 * A label selector compiled into a plain predicate for the hot loops that
 * match every pod of the cluster once per cycle: equality requirements (the
 * common `matchLabels`) become direct property comparisons; anything else
 * falls back to the selector's own requirement matching.
 */
import { labelRequirementMatches, type Labels } from '../../../machinery/selectors/label-requirement.js';
import type { LabelSelector } from '../../../machinery/selectors/label-selector.js';

export type LabelsMatcher = (labels: Labels | undefined) => boolean;

const matchNothing: LabelsMatcher = () => false;
const matchEverything: LabelsMatcher = () => true;

function isEquality(operator: string, values: readonly string[]): boolean {
  return (operator === '=' || operator === '==' || operator === 'in') && values.length === 1;
}

/** A predicate that answers exactly as `selector.matches`. */
export function compileLabelSelector(selector: LabelSelector): LabelsMatcher {
  if (selector.matchesNothing()) return matchNothing;
  const requirements = selector.requirements;
  if (requirements.length === 0) return matchEverything;
  if (requirements.every((r) => isEquality(r.operator, r.values))) {
    const keys = requirements.map((r) => r.key);
    const values = requirements.map((r) => r.values[0]!);
    if (keys.length === 1) {
      const key = keys[0]!;
      const value = values[0]!;
      // Comparing with a string: an inherited property (a function) can never be equal.
      return (labels) => labels !== undefined && labels[key] === value;
    }
    return (labels) => {
      if (labels === undefined) return false;
      for (let i = 0; i < keys.length; i++) if (labels[keys[i]!] !== values[i]) return false;
      return true;
    };
  }
  return (labels) => {
    for (const r of requirements) if (!labelRequirementMatches(r, labels)) return false;
    return true;
  };
}
