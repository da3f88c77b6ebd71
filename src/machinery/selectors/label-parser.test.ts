import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../status.js';
import { parseLabelRequirements, sortRequirementsByKey } from './label-parser.js';
import type { LabelRequirement } from './label-requirement.js';

describe('parseLabelRequirements', () => {
  it("follows upstream's grammar example", () => {
    assert.deepEqual(parseLabelRequirements('x in (foo,,baz),y,z notin ()'), [
      { key: 'x', operator: 'in', values: ['', 'baz', 'foo'] },
      { key: 'y', operator: 'exists', values: [] },
      { key: 'z', operator: 'notin', values: [''] },
    ]);
  });

  it('returns no requirements for blank text', () => {
    assert.deepEqual(parseLabelRequirements(''), []);
    assert.deepEqual(parseLabelRequirements('  '), []);
  });

  it('reads operators after a key with no spaces', () => {
    assert.deepEqual(
      parseLabelRequirements('a=1,b==2,c!=3,d>4,e<5,f').map((r) => r.operator),
      ['=', '==', '!=', 'gt', 'lt', 'exists'],
    );
  });

  it('throws BadRequest StatusErrors', () => {
    assert.throws(
      () => parseLabelRequirements('x in'),
      (e: unknown) => e instanceof StatusError && e.code === 400 && e.message === "unable to parse requirement: found '' expected: '('",
    );
  });
});

describe('sortRequirementsByKey', () => {
  it('sorts by key byte-wise and keeps the order of equal keys', () => {
    const r = (key: string, operator: LabelRequirement['operator']): LabelRequirement => ({ key, operator, values: operator === 'exists' || operator === '!' ? [] : ['v'] });
    const sorted = sortRequirementsByKey([r('b', '='), r('a', '!='), r('B', 'exists'), r('a', '=')]);
    assert.deepEqual(sorted.map((x) => `${x.key}${x.operator}`), ['Bexists', 'a!=', 'a=', 'b=']);
  });

  it('does not change its input', () => {
    const input: LabelRequirement[] = [{ key: 'b', operator: 'exists', values: [] }, { key: 'a', operator: 'exists', values: [] }];
    sortRequirementsByKey(input);
    assert.equal(input[0]?.key, 'b');
  });
});
