import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { goJsonSyntaxError } from './go-json-syntax.js';

describe('goJsonSyntaxError', () => {
  it('accepts well-formed documents', () => {
    for (const ok of ['{}', ' {"a": [1, -2.5e+3, 0, true, false, null, "x\\u00e9\\n"]} ', '[]', '"s"', '0', 'null']) assert.equal(goJsonSyntaxError(ok), undefined, ok);
  });

  it("words each error as Go's scanner does", () => {
    const cases: [string, string][] = [
      ['', 'unexpected end of JSON input'],
      ['{"a":', 'unexpected end of JSON input'],
      ['"abc', 'unexpected end of JSON input'],
      ['x', "invalid character 'x' looking for beginning of value"],
      ["'a'", "invalid character '\\'' looking for beginning of value"],
      ['{a:1}', "invalid character 'a' looking for beginning of object key string"],
      ['{"a" 1}', "invalid character '1' after object key"],
      ['{"a":1 "b":2}', `invalid character '"' after object key:value pair`],
      ['{"a":x}', "invalid character 'x' looking for beginning of value"],
      ['[1 2]', "invalid character '2' after array element"],
      ['[1,]', "invalid character ']' looking for beginning of value"],
      ['{} x', "invalid character 'x' after top-level value"],
      ['01', "invalid character '1' after top-level value"],
      ['-a', "invalid character 'a' in numeric literal"],
      ['1.x', "invalid character 'x' after decimal point in numeric literal"],
      ['1e+', 'unexpected end of JSON input'],
      ['1ex', "invalid character 'x' in exponent of numeric literal"],
      ['tru!', "invalid character '!' in literal true (expecting 'e')"],
      ['nul', 'unexpected end of JSON input'],
      ['"a\nb"', "invalid character '\\n' in string literal"],
      ['"\\x"', "invalid character 'x' in string escape code"],
      ['"\\u12g4"', "invalid character 'g' in \\u hexadecimal character escape"],
    ];
    for (const [text, message] of cases) assert.equal(goJsonSyntaxError(text), message, text);
  });
});
