import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatLabelSelector, formatLabels, labelSelectorText } from './labels.js';

describe('formatLabels', () => {
  it('sorts keys and joins k=v pairs', () => {
    assert.equal(formatLabels({ tier: 'web', app: 'shop', 'a.io/x': '' }), 'a.io/x=,app=shop,tier=web');
  });
  it('prints <none> for no labels', () => {
    assert.equal(formatLabels(undefined), '<none>');
    assert.equal(formatLabels({}), '<none>');
  });
});

describe('formatLabelSelector', () => {
  it('prints <none> for a null or empty selector', () => {
    assert.equal(formatLabelSelector(undefined), '<none>');
    assert.equal(formatLabelSelector({}), '<none>');
    assert.equal(formatLabelSelector({ matchLabels: {}, matchExpressions: [] }), '<none>');
  });

  it('prints matchLabels and expressions sorted by key, values sorted', () => {
    assert.equal(
      formatLabelSelector({
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'zone', operator: 'NotIn', values: ['b', 'a'] },
          { key: 'canary', operator: 'DoesNotExist' },
          { key: 'tier', operator: 'In', values: ['front'] },
          { key: 'gpu', operator: 'Exists' },
        ],
      }),
      'app=web,!canary,gpu,tier in (front),zone notin (a,b)',
    );
  });

  it('prints <error> for an invalid selector', () => {
    assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Bogus' }] }), '<error>');
    assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'In', values: [] }] }), '<error>');
    assert.equal(formatLabelSelector({ matchExpressions: [{ key: 'a', operator: 'Exists', values: ['x'] }] }), '<error>');
    assert.equal(formatLabelSelector({ matchLabels: { 'bad key': 'x' } }), '<error>');
    assert.equal(formatLabelSelector({ matchLabels: { app: '-bad-' } }), '<error>');
  });

  it('distinguishes a selector that matches nothing from one that matches everything only by the result', () => {
    assert.deepEqual(labelSelectorText(undefined), { ok: true, text: '' });
    assert.deepEqual(labelSelectorText({}), { ok: true, text: '' });
  });
});
