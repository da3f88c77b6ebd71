import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { formatFieldError } from '../field-errors.js';
import { byteLength, goQuote, goStringSlice, goSyntax, goTime, isGoPrintable } from './go-text.js';

describe('byteLength', () => {
  it("counts UTF-8 bytes, as Go's len", () => {
    assert.equal(byteLength(''), 0);
    assert.equal(byteLength('abc'), 3);
    assert.equal(byteLength('é'), 2);
    assert.equal(byteLength('😀'), 4);
  });
});

describe('goQuote', () => {
  it('quotes as strconv.Quote', () => {
    assert.equal(goQuote('plain'), '"plain"');
    assert.equal(goQuote('a"b\\c'), '"a\\"b\\\\c"');
    assert.equal(goQuote('\n\t\r\x07\b\f\v'), '"\\n\\t\\r\\a\\b\\f\\v"');
    assert.equal(goQuote('\x00\x1b\x7f'), '"\\x00\\x1b\\x7f"');
    assert.equal(goQuote('é😀'), '"é😀"');
    assert.equal(goQuote('\u00a0\u200b'), '"\\u00a0\\u200b"');
    assert.equal(goQuote('\u{e0001}'), '"\\U000e0001"');
    assert.equal(goQuote('\ud800'), '"\ufffd"');
  });
  it('isGoPrintable is unicode.IsPrint', () => {
    assert.equal(isGoPrintable('a'), true);
    assert.equal(isGoPrintable(' '), true);
    assert.equal(isGoPrintable('\u00a0'), false);
    assert.equal(isGoPrintable('\t'), false);
    assert.equal(isGoPrintable('€'), true);
  });
});

describe('goStringSlice', () => {
  it('prints %#v of a []string', () => {
    assert.equal(goStringSlice(['orphan', 'foregroundDeletion']), '[]string{"orphan", "foregroundDeletion"}');
    assert.equal(goStringSlice([]), '[]string{}');
    assert.equal(goStringSlice(undefined), '[]string(nil)');
  });
});

describe('goTime', () => {
  it('prints time.Time.String() in UTC', () => {
    assert.equal(goTime('2024-01-02T03:04:05Z'), '2024-01-02 03:04:05 +0000 UTC');
    assert.equal(goTime('2024-01-02T04:04:05+01:00'), '2024-01-02 03:04:05 +0000 UTC');
    assert.equal(goTime('2024-01-02T03:04:05.120Z'), '2024-01-02 03:04:05.12 +0000 UTC');
    assert.equal(goTime(undefined), '0001-01-01 00:00:00 +0000 UTC');
    assert.equal(goTime(null), '0001-01-01 00:00:00 +0000 UTC');
  });
});

describe('goSyntax', () => {
  it('prints unquoted in a field error', () => {
    const e = { type: 'FieldValueInvalid' as const, field: 'spec.x', value: goSyntax('intstr.IntOrString{Type:0, IntVal:1, StrVal:""}'), detail: 'bad' };
    assert.equal(formatFieldError(e), 'spec.x: Invalid value: intstr.IntOrString{Type:0, IntVal:1, StrVal:""}: bad');
  });
});
