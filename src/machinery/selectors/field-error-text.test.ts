import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aggregateText, childPath, indexPath, invalidValueText, pathText, unsupportedValueText } from './field-error-text.js';

describe('field paths', () => {
  it('prints a nil path as <nil>', () => {
    assert.equal(pathText(undefined), '<nil>');
    assert.equal(pathText('spec'), 'spec');
  });

  it('builds children and subscripts as upstream prints them', () => {
    assert.equal(childPath(undefined, 'key'), 'key');
    assert.equal(childPath('spec.selector', 'values'), 'spec.selector.values');
    assert.equal(indexPath('values', 0), 'values[0]');
    assert.equal(indexPath(indexPath('values', 1), 'app'), 'values[1][app]');
    assert.equal(indexPath(undefined, 0), '[0]');
  });
});

describe('field error text', () => {
  it('prints Invalid value with and without detail', () => {
    assert.equal(invalidValueText('values[0]', '"x"', 'must be an integer'), 'values[0]: Invalid value: "x": must be an integer');
    assert.equal(invalidValueText(undefined, '"x"', 'bad'), '<nil>: Invalid value: "x": bad');
    assert.equal(invalidValueText('f', '"x"', ''), 'f: Invalid value: "x"');
  });

  it('prints Unsupported value with the quoted list', () => {
    assert.equal(unsupportedValueText('operator', '"x"', ['in', 'notin']), 'operator: Unsupported value: "x": supported values: "in", "notin"');
    assert.equal(unsupportedValueText('operator', '"x"', []), 'operator: Unsupported value: "x"');
  });
});

describe('aggregateText', () => {
  it('is undefined for no messages, the message for one, a bracketed list for more', () => {
    assert.equal(aggregateText([]), undefined);
    assert.equal(aggregateText(['a']), 'a');
    assert.equal(aggregateText(['a', 'b']), '[a, b]');
  });

  it('drops duplicates, keeping first positions', () => {
    assert.equal(aggregateText(['a', 'a']), 'a');
    assert.equal(aggregateText(['b', 'a', 'b', 'c']), '[b, a, c]');
  });
});
