/**
 * Whether one set of rules covers another, as upstream's rbac validation
 * Covers: each rule to check is broken into atomic rules (one verb, one group,
 * one resource, at most one name; or one verb and one URL), and each must be
 * covered by some owner rule. Escalation prevention and bootstrap policy
 * reconciliation both use it.
 */
import type { PolicyRule } from 'kubernetes-types/rbac/v1.js';

const has = (set: readonly string[] | undefined, item: string): boolean => (set ?? []).includes(item);
const hasAll = (set: readonly string[] | undefined, items: readonly string[] | undefined): boolean => (items ?? []).every((i) => has(set, i));

function resourceCoversAll(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  if (has(owner, '*') || hasAll(owner, wanted)) return true;
  for (const path of wanted ?? []) {
    if (has(owner, path)) continue;
    const slash = path.indexOf('/');
    if (slash < 0) return false;
    if (!has(owner, `*/${path.slice(slash + 1)}`)) return false;
  }
  return true;
}

const nonResourceURLCovers = (owner: string, path: string): boolean => owner === path || (owner.endsWith('*') && path.startsWith(owner.replace(/\*+$/, '')));

function nonResourceURLsCoverAll(owner: readonly string[] | undefined, wanted: readonly string[] | undefined): boolean {
  return (wanted ?? []).every((path) => (owner ?? []).some((o) => nonResourceURLCovers(o, path)));
}

export function ruleCovers(owner: PolicyRule, sub: PolicyRule): boolean {
  const verbs = has(owner.verbs, '*') || hasAll(owner.verbs, sub.verbs);
  const groups = has(owner.apiGroups, '*') || hasAll(owner.apiGroups, sub.apiGroups);
  const resources = resourceCoversAll(owner.resources, sub.resources);
  const urls = nonResourceURLsCoverAll(owner.nonResourceURLs, sub.nonResourceURLs);
  const ownerNames = owner.resourceNames ?? [];
  const subNames = sub.resourceNames ?? [];
  const names = subNames.length === 0 ? ownerNames.length === 0 : ownerNames.length === 0 || hasAll(ownerNames, subNames);
  return verbs && groups && resources && names && urls;
}

/** A rule as atomic rules, in upstream's order (group, resource, verb, name; then URL, verb). */
export function breakdownRule(rule: PolicyRule): PolicyRule[] {
  const out: PolicyRule[] = [];
  for (const group of rule.apiGroups ?? []) {
    for (const resource of rule.resources ?? []) {
      for (const verb of rule.verbs ?? []) {
        const names = rule.resourceNames ?? [];
        if (names.length === 0) out.push({ apiGroups: [group], resources: [resource], verbs: [verb] });
        else for (const name of names) out.push({ apiGroups: [group], resources: [resource], verbs: [verb], resourceNames: [name] });
      }
    }
  }
  for (const url of rule.nonResourceURLs ?? []) {
    for (const verb of rule.verbs ?? []) out.push({ nonResourceURLs: [url], verbs: [verb] });
  }
  return out;
}

/** Whether owner covers every wanted rule, and the atomic rules it does not. */
export function covers(owner: readonly PolicyRule[], wanted: readonly PolicyRule[]): { covered: boolean; missing: PolicyRule[] } {
  const missing: PolicyRule[] = [];
  for (const rule of wanted) {
    for (const atom of breakdownRule(rule)) {
      if (!owner.some((o) => ruleCovers(o, atom))) missing.push(atom);
    }
  }
  return { covered: missing.length === 0, missing };
}

/** Atomic rules merged by group, resource and name (their verbs joined), as upstream's CompactRules. */
export function compactRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const out: PolicyRule[] = [];
  const byKey = new Map<string, PolicyRule & { verbs: string[] }>();
  for (const rule of rules) {
    const simple = (rule.nonResourceURLs ?? []).length === 0 && rule.apiGroups?.length === 1 && rule.resources?.length === 1 && (rule.resourceNames ?? []).length <= 1;
    if (!simple) {
      out.push(rule);
      continue;
    }
    const key = JSON.stringify([rule.apiGroups![0], rule.resources![0], rule.resourceNames?.[0] ?? null]);
    const existing = byKey.get(key);
    if (existing !== undefined) {
      for (const v of rule.verbs ?? []) if (!existing.verbs.includes(v)) existing.verbs.push(v);
      continue;
    }
    const merged = { ...rule, verbs: [...(rule.verbs ?? [])] };
    byKey.set(key, merged);
    out.push(merged);
  }
  return out;
}

/** Go's %q of a []string: ["a" "b"]. */
export const goQuotedList = (items: readonly string[]): string => `[${items.map((i) => JSON.stringify(i)).join(' ')}]`;

/** upstream's rbac CompactString: {APIGroups:["apps"], Resources:["deployments"], Verbs:["get"]}. */
export function compactString(rule: PolicyRule): string {
  const parts: string[] = [];
  if ((rule.apiGroups ?? []).length > 0) parts.push(`APIGroups:${goQuotedList(rule.apiGroups!)}`);
  if ((rule.resources ?? []).length > 0) parts.push(`Resources:${goQuotedList(rule.resources!)}`);
  if ((rule.nonResourceURLs ?? []).length > 0) parts.push(`NonResourceURLs:${goQuotedList(rule.nonResourceURLs!)}`);
  if ((rule.resourceNames ?? []).length > 0) parts.push(`ResourceNames:${goQuotedList(rule.resourceNames!)}`);
  if ((rule.verbs ?? []).length > 0) parts.push(`Verbs:${goQuotedList(rule.verbs!)}`);
  return `{${parts.join(', ')}}`;
}
