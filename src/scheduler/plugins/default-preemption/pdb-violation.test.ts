import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodDisruptionBudget } from '../../framework/preemption/evaluator.js';
import { PodInfo } from '../../framework/types.js';
import { filterPodsWithPDBViolation } from './pdb-violation.js';
import { makePod } from './testing/fake-handle.js';

function pdb(name: string, options: { namespace?: string; matchLabels?: Record<string, string> | null; allowed: number; disrupted?: string[] }): PodDisruptionBudget {
  return {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: { name, namespace: options.namespace ?? 'default' },
    spec: options.matchLabels === null ? {} : { selector: { matchLabels: options.matchLabels ?? { app: 'web' } } },
    status: {
      disruptionsAllowed: options.allowed,
      currentHealthy: 0,
      desiredHealthy: 0,
      expectedPods: 0,
      ...(options.disrupted !== undefined ? { disruptedPods: Object.fromEntries(options.disrupted.map((n) => [n, '2026-01-01T00:00:00Z'])) } : {}),
    },
  };
}

const names = (infos: readonly PodInfo[]): string[] => infos.map((i) => i.pod.metadata.name ?? '');
const web = (name: string, namespace = 'default'): PodInfo => new PodInfo(makePod(name, { labels: { app: 'web' }, namespace }));

describe('filterPodsWithPDBViolation', () => {
  it('spends a budget pod by pod, in order: the pods beyond disruptionsAllowed violate it', () => {
    const { violating, nonViolating } = filterPodsWithPDBViolation([web('a'), web('b'), web('c')], [pdb('p', { allowed: 1 })]);
    assert.deepEqual(names(nonViolating), ['a']);
    assert.deepEqual(names(violating), ['b', 'c']);
  });

  it('ignores budgets of other namespaces, unmatched labels, pods without labels and empty selectors', () => {
    const unlabeled = new PodInfo(makePod('bare'));
    const { violating, nonViolating } = filterPodsWithPDBViolation(
      [web('a', 'other'), unlabeled, new PodInfo(makePod('db', { labels: { app: 'db' } }))],
      [pdb('p', { allowed: 0 }), pdb('empty', { allowed: 0, matchLabels: null }), pdb('everything', { allowed: 0, matchLabels: {} })],
    );
    assert.deepEqual(names(violating), []);
    assert.deepEqual(names(nonViolating), ['a', 'bare', 'db']);
  });

  it('does not charge a pod already in disruptedPods', () => {
    const { violating, nonViolating } = filterPodsWithPDBViolation([web('a'), web('b')], [pdb('p', { allowed: 0, disrupted: ['a'] })]);
    assert.deepEqual(names(nonViolating), ['a']);
    assert.deepEqual(names(violating), ['b']);
  });
});
