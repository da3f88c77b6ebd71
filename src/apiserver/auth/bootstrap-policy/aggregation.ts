/**
 * ClusterRole aggregation, kept by the API server itself: the rules of a
 * ClusterRole with an aggregationRule are the rules of every other
 * ClusterRole its selectors match, in name order, each rule once (as
 * upstream's clusterrole-aggregation controller computes them). It runs after
 * every change of ClusterRoles the policy source sees, so a new role labelled
 * rbac.authorization.k8s.io/aggregate-to-view=true widens view at once.
 */
import type { ClusterRole, PolicyRule } from 'kubernetes-types/rbac/v1.js';
import type { KubeObject } from '../../../machinery/meta.js';
import { labelSelectorFromObject } from '../../../machinery/selectors/label-selector.js';
import type { GenericStore } from '../../registry/generic/store.js';

/** The rules an aggregated role should have, given every ClusterRole (sorted by name). */
export function aggregatedRules(role: ClusterRole, all: readonly ClusterRole[]): PolicyRule[] | undefined {
  const selectors = role.aggregationRule?.clusterRoleSelectors;
  if (selectors === undefined) return undefined;
  const matchers = selectors.map((s) => labelSelectorFromObject(s));
  const rules: PolicyRule[] = [];
  const seen = new Set<string>();
  for (const other of all) {
    if (other.metadata?.name === role.metadata?.name) continue;
    const labels = other.metadata?.labels ?? {};
    if (!matchers.some((m) => !m.matchesNothing() && m.matches(labels))) continue;
    for (const rule of other.rules ?? []) {
      const key = JSON.stringify(rule);
      if (seen.has(key)) continue;
      seen.add(key);
      rules.push(rule);
    }
  }
  return rules;
}

export interface AggregatorOptions {
  readonly store: GenericStore;
  readonly clusterRoles: () => ClusterRole[];
  readonly onError?: (message: string, error: unknown) => void;
}

/** Returns `sync`: call it after a change; runs are serialised and coalesced. */
export function newClusterRoleAggregator(options: AggregatorOptions): { sync(): void; idle(): Promise<void> } {
  let running: Promise<void> | undefined;
  let again = false;
  const pass = async (): Promise<void> => {
    const all = options.clusterRoles();
    for (const role of all) {
      const wanted = aggregatedRules(role, all);
      if (wanted === undefined || JSON.stringify(wanted) === JSON.stringify(role.rules ?? [])) continue;
      try {
        await options.store.update(undefined, role.metadata?.name ?? '', (current) => {
          if (current === undefined) throw new Error('gone');
          return { ...current, rules: wanted } as KubeObject;
        });
      } catch (e: unknown) {
        options.onError?.(`aggregating ClusterRole ${role.metadata?.name ?? ''}`, e);
      }
    }
  };
  const sync = (): void => {
    if (running !== undefined) {
      again = true;
      return;
    }
    running = (async () => {
      do {
        again = false;
        await pass();
      } while (again);
    })().finally(() => {
      running = undefined;
    });
  };
  return { sync, idle: async () => void (await running) };
}
