import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { compareGoStrings, goByteLength, goQuote, goStringSlice } from './go-format.js';

describe('goQuote', () => {
  it('quotes plain ASCII as is', () => {
    assert.equal(goQuote(''), '""');
    assert.equal(goQuote('app.kubernetes.io/name'), '"app.kubernetes.io/name"');
    assert.equal(goQuote("it's ok"), `"it's ok"`);
  });

  it('escapes quotes and backslashes', () => {
    assert.equal(goQuote('a"b'), '"a\\"b"');
    assert.equal(goQuote('a\\b'), '"a\\\\b"');
  });

  it("escapes control characters as Go's strconv.Quote does", () => {
    assert.equal(goQuote('\x07\b\f\n\r\t\v'), '"\\a\\b\\f\\n\\r\\t\\v"');
    assert.equal(goQuote('\x00\x01\x1f\x7f'), '"\\x00\\x01\\x1f\\x7f"');
    assert.equal(goQuote('\u0085'), '"\\u0085"');
    assert.equal(goQuote('\u00a0'), '"\\u00a0"');
    assert.equal(goQuote('\u00ad'), '"\\u00ad"');
    assert.equal(goQuote('\u{e0001}'), '"\\U000e0001"');
  });

  it('keeps printable non-ASCII characters', () => {
    assert.equal(goQuote('héllo 世界 😀'), '"héllo 世界 😀"');
  });

  it('prints a lone surrogate as the replacement character', () => {
    assert.equal(goQuote('a\ud800b'), '"a\ufffdb"');
  });
});

describe('goStringSlice', () => {
  it("prints %#v of a []string", () => {
    assert.equal(goStringSlice(['a']), '[]string{"a"}');
    assert.equal(goStringSlice(['a', 'b"c']), '[]string{"a", "b\\"c"}');
  });

  it('prints an empty list as a nil slice', () => {
    assert.equal(goStringSlice([]), '[]string(nil)');
  });
});

describe('compareGoStrings', () => {
  it('orders ASCII byte-wise (upper case before lower case)', () => {
    assert.deepEqual(['b', 'a', 'B', 'a-b', 'a.b', ''].sort(compareGoStrings), ['', 'B', 'a', 'a-b', 'a.b', 'b']);
    assert.equal(compareGoStrings('x', 'x'), 0);
  });

  it('orders by UTF-8 bytes where UTF-16 order differs', () => {
    // U+FF61 is EF BD A1 in UTF-8; U+1F600 is F0 9F 98 80: Go puts the emoji last, UTF-16 first.
    assert.ok('\u{1f600}' < '\uff61');
    assert.ok(compareGoStrings('\u{1f600}', '\uff61') > 0);
    assert.ok(compareGoStrings('é', 'z') > 0);
  });
});

describe('goByteLength', () => {
  it('counts UTF-8 bytes', () => {
    assert.equal(goByteLength(''), 0);
    assert.equal(goByteLength('abc'), 3);
    assert.equal(goByteLength('é'), 2);
    assert.equal(goByteLength('😀'), 4);
  });
});
