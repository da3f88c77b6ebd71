import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { restoreText } from './restore-text.js';
import type { RuleSet } from './rule-set.js';

function ruleSet(nat: Record<string, string[]>, filter: Record<string, string[]> = {}): RuleSet {
  return { nat: new Map(Object.entries(nat)), filter: new Map(Object.entries(filter)), servicePorts: 0, endpoints: 0, problems: [] };
}

describe('restoreText', () => {
  const base = ruleSet(
    { 'KUBE-SERVICES': ['-A KUBE-SERVICES -j KUBE-SVC-A'], 'KUBE-SVC-A': ['-A KUBE-SVC-A -j KUBE-SEP-A'], 'KUBE-SEP-A': ['-A KUBE-SEP-A -j DNAT --to-destination 10.0.0.1:80'] },
    { 'KUBE-FORWARD': ['-A KUBE-FORWARD -j ACCEPT'] },
  );

  it('writes every chain, filter first, declarations (in name order) before rules, one COMMIT per table', () => {
    assert.equal(
      restoreText(base),
      [
        '*filter',
        ':KUBE-FORWARD - [0:0]',
        '-A KUBE-FORWARD -j ACCEPT',
        'COMMIT',
        '*nat',
        ':KUBE-SEP-A - [0:0]',
        ':KUBE-SERVICES - [0:0]',
        ':KUBE-SVC-A - [0:0]',
        '-A KUBE-SERVICES -j KUBE-SVC-A',
        '-A KUBE-SVC-A -j KUBE-SEP-A',
        '-A KUBE-SEP-A -j DNAT --to-destination 10.0.0.1:80',
        'COMMIT',
        '',
      ].join('\n'),
    );
  });

  it('is empty when nothing changed since the previous rule set', () => {
    assert.equal(restoreText(base, { previous: base }), '');
  });

  it('writes only the chains that changed, and deletes the chains that are gone after the rules', () => {
    const next = ruleSet(
      { 'KUBE-SERVICES': ['-A KUBE-SERVICES -j KUBE-SVC-A'], 'KUBE-SVC-A': ['-A KUBE-SVC-A -j KUBE-SEP-B'], 'KUBE-SEP-B': ['-A KUBE-SEP-B -j DNAT --to-destination 10.0.0.2:80'] },
      { 'KUBE-FORWARD': ['-A KUBE-FORWARD -j ACCEPT'] },
    );
    assert.equal(
      restoreText(next, { previous: base }),
      [
        '*nat',
        ':KUBE-SEP-A - [0:0]',
        ':KUBE-SEP-B - [0:0]',
        ':KUBE-SVC-A - [0:0]',
        '-A KUBE-SVC-A -j KUBE-SEP-B',
        '-A KUBE-SEP-B -j DNAT --to-destination 10.0.0.2:80',
        '-X KUBE-SEP-A',
        'COMMIT',
        '',
      ].join('\n'),
    );
  });

  it('rewrites a chain whose rules are the same but in another order', () => {
    const a = ruleSet({ C: ['-A C -j X', '-A C -j Y'] });
    const b = ruleSet({ C: ['-A C -j Y', '-A C -j X'] });
    assert.match(restoreText(b, { previous: a }), /^\*nat\n:C - \[0:0\]\n-A C -j Y\n-A C -j X\nCOMMIT\n$/);
  });

  it('deletes stale chains left by someone else, and adds extra lines after the rules', () => {
    const text = restoreText(ruleSet({ 'KUBE-SERVICES': [] }), {
      staleChains: { nat: ['KUBE-SVC-OLD', 'KUBE-SERVICES'] },
      extraLines: { nat: ['-I PREROUTING -j KUBE-SERVICES'], filter: ['-I INPUT -j KUBE-NODEPORTS'] },
    });
    assert.equal(
      text,
      [
        '*filter',
        '-I INPUT -j KUBE-NODEPORTS',
        'COMMIT',
        '*nat',
        ':KUBE-SERVICES - [0:0]',
        ':KUBE-SVC-OLD - [0:0]',
        '-I PREROUTING -j KUBE-SERVICES',
        '-X KUBE-SVC-OLD',
        'COMMIT',
        '',
      ].join('\n'),
    );
  });
});
