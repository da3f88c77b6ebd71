import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { everything, labelSelectorFromObject, nothing, parseLabelSelector } from '../../../machinery/selectors/label-selector.js';
import { compileLabelSelector } from './label-matcher.js';

describe('compileLabelSelector', () => {
  const samples: Array<Record<string, string> | undefined> = [undefined, {}, { app: 'web' }, { app: 'web', tier: 'db' }, { app: 'db' }, { constructor: 'x' }, { n: '5' }];
  const selectors = [
    everything(),
    nothing(),
    labelSelectorFromObject({ matchLabels: { app: 'web' } }),
    labelSelectorFromObject({ matchLabels: { app: 'web', tier: 'db' } }),
    labelSelectorFromObject({ matchLabels: { constructor: 'x' } }),
    labelSelectorFromObject({ matchExpressions: [{ key: 'constructor', operator: 'In', values: ['x'] }] }),
    parseLabelSelector('app in (web,db),!canary'),
    parseLabelSelector('n>3'),
    parseLabelSelector('app!=web'),
  ];
  it('answers exactly as the selector does', () => {
    for (const selector of selectors) {
      const matcher = compileLabelSelector(selector);
      for (const labels of samples) assert.equal(matcher(labels), selector.matches(labels), `${selector.toString()} on ${JSON.stringify(labels)}`);
    }
  });
});
