import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PodAffinityTerm } from 'kubernetes-types/core/v1.js';
import { affinityTermMatches, PodInfo } from '../../framework/types.js';
import { compileIncomingTerm } from './filtering.js';
import { makePod } from './testing/fake-handle.js';

describe('compileIncomingTerm', () => {
  const terms: PodAffinityTerm[] = [
    { topologyKey: 'k', labelSelector: { matchLabels: { app: 'web' } } },
    { topologyKey: 'k', labelSelector: { matchLabels: { app: 'web' } }, namespaces: ['other'] },
    { topologyKey: 'k', labelSelector: { matchExpressions: [{ key: 'app', operator: 'NotIn', values: ['db'] }] }, namespaceSelector: {} },
    { topologyKey: 'k', labelSelector: {}, namespaceSelector: { matchExpressions: [{ key: 'env', operator: 'DoesNotExist' }] } },
    { topologyKey: 'k' },
  ];
  const pods = [
    makePod({ labels: { app: 'web' } }),
    makePod({ namespace: 'other', labels: { app: 'web' } }),
    makePod({ namespace: 'third', labels: { app: 'db' } }),
    makePod({ namespace: 'third' }),
  ];
  it('answers as affinityTermMatches without namespace labels', () => {
    const info = new PodInfo(makePod({ spec: { affinity: { podAffinity: { requiredDuringSchedulingIgnoredDuringExecution: terms } } } }));
    for (const term of info.requiredAffinityTerms) {
      const matcher = compileIncomingTerm(term);
      for (const pod of pods) assert.equal(matcher(pod), affinityTermMatches(term, pod, undefined), `${JSON.stringify([...term.namespaces])} ${term.selector.toString()} on ${pod.metadata.namespace}`);
    }
  });
});
