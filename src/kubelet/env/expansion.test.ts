import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { expand, lookupIn } from './expansion.js';

describe('$(VAR) expansion', () => {
  const lookup = lookupIn(new Map([['A', 'x'], ['EMPTY', '']]), new Map([['A', 'shadowed'], ['B', 'y']]));
  const cases: [string, string][] = [
    ['$(A)', 'x'],
    ['$(B)', 'y'],
    ['pre-$(A)-$(B)-post', 'pre-x-y-post'],
    ['$(EMPTY)|', '|'],
    ['$(UNKNOWN)', '$(UNKNOWN)'],
    ['$$(A)', '$(A)'],
    ['$$$(A)', '$x'],
    ['$$', '$'],
    ['a$', 'a$'],
    ['$(A', '$(A'],
    ['$(A$(B)', '$(A$(B)'],
    ['$A', '$A'],
    ['$()', '$()'],
    ['100$ and $(A)', '100$ and x'],
    ['é$(A)ü', 'éxü'],
  ];
  for (const [input, want] of cases) it(`${input} → ${want}`, () => assert.equal(expand(input, lookup), want));
});
