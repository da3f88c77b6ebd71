import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { lexLabelSelector, type LabelTokenKind } from './label-lexer.js';

const kinds = (text: string): LabelTokenKind[] => lexLabelSelector(text).map((t) => t.kind);
const literals = (text: string): string[] => lexLabelSelector(text).map((t) => t.literal);

describe('lexLabelSelector', () => {
  it('lexes each token alone', () => {
    const cases: Array<[string, LabelTokenKind]> = [
      ['', 'end'],
      [',', 'comma'],
      ['notin', 'notIn'],
      ['in', 'in'],
      ['=', 'equals'],
      ['==', 'doubleEquals'],
      ['>', 'greaterThan'],
      ['<', 'lessThan'],
      ['!', 'doesNotExist'],
      ['!=', 'notEquals'],
      ['(', 'openPar'],
      [')', 'closePar'],
      ['~', 'identifier'],
      ['||', 'identifier'],
      ['IN', 'identifier'],
      ['inx', 'identifier'],
    ];
    for (const [text, kind] of cases) {
      const [first] = lexLabelSelector(text);
      assert.equal(first?.kind, kind, text);
      assert.equal(first?.literal, text, text);
    }
  });

  it('always ends with one end token', () => {
    assert.deepEqual(lexLabelSelector(''), [{ kind: 'end', literal: '' }]);
    assert.deepEqual(kinds('a'), ['identifier', 'end']);
  });

  it('lexes sequences as upstream does', () => {
    assert.deepEqual(kinds('key in ( value )'), ['identifier', 'in', 'openPar', 'identifier', 'closePar', 'end']);
    assert.deepEqual(kinds('key notin ( value1, value2 )'), ['identifier', 'notIn', 'openPar', 'identifier', 'comma', 'identifier', 'closePar', 'end']);
    assert.deepEqual(kinds('!key'), ['doesNotExist', 'identifier', 'end']);
    assert.deepEqual(kinds('x in (),y'), ['identifier', 'in', 'openPar', 'closePar', 'comma', 'identifier', 'end']);
    assert.deepEqual(kinds('== != (), = notin'), ['doubleEquals', 'notEquals', 'openPar', 'closePar', 'comma', 'equals', 'notIn', 'end']);
    assert.deepEqual(kinds('key>2'), ['identifier', 'greaterThan', 'identifier', 'end']);
    assert.deepEqual(kinds('key<1'), ['identifier', 'lessThan', 'identifier', 'end']);
  });

  it('takes the longest operator a run of special characters starts with', () => {
    assert.deepEqual(literals('a===b'), ['a', '==', '=', 'b', '']);
    assert.deepEqual(literals('a!==b'), ['a', '!=', '=', 'b', '']);
    assert.deepEqual(literals('a=!b'), ['a', '=', '!', 'b', '']);
    assert.deepEqual(literals('a<=b'), ['a', '<', '=', 'b', '']);
    assert.deepEqual(literals('!!a'), ['!', '!', 'a', '']);
    assert.deepEqual(literals('((a))'), ['(', '(', 'a', ')', ')', '']);
    assert.deepEqual(literals(',,'), [',', ',', '']);
  });

  it('separates tokens by space, tab, CR and LF only', () => {
    assert.deepEqual(literals(' \t\r\na \t\r\n'), ['a', '']);
    assert.deepEqual(literals('a\fb'), ['a\fb', '']);
    assert.deepEqual(literals('a\u00a0b'), ['a\u00a0b', '']);
    assert.deepEqual(literals('foo  in\t (abc)'), ['foo', 'in', '(', 'abc', ')', '']);
  });

  it('keeps non-ASCII characters inside identifiers', () => {
    assert.deepEqual(literals('é=ü'), ['é', '=', 'ü', '']);
  });

  it('treats a NUL character as Go treats byte 0', () => {
    // Between tokens it ends the input; inside a token it ends the token and is consumed.
    assert.deepEqual(literals('a, \0b'), ['a', ',', '']);
    assert.deepEqual(literals('a\0b'), ['a', 'b', '']);
    assert.deepEqual(literals('a=\0b'), ['a', '=', 'b', '']);
  });
});
