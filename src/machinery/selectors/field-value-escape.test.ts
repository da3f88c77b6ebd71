import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { StatusError } from '../status.js';
import { escapeFieldValue, unescapeFieldValue } from './field-value-escape.js';

function assertBadRequest(fn: () => unknown, message: string): void {
  assert.throws(fn, (e: unknown) => {
    assert.ok(e instanceof StatusError);
    assert.equal(e.code, 400);
    assert.equal(e.reason, 'BadRequest');
    assert.equal(e.message, message);
    assert.equal(e.status.message, message);
    return true;
  });
}

describe('escapeFieldValue', () => {
  it('leaves plain values alone', () => {
    assert.equal(escapeFieldValue(''), '');
    assert.equal(escapeFieldValue('node-1'), 'node-1');
    assert.equal(escapeFieldValue('a b!c'), 'a b!c');
  });

  it('escapes backslash, comma and equals', () => {
    assert.equal(escapeFieldValue('\\'), '\\\\');
    assert.equal(escapeFieldValue(','), '\\,');
    assert.equal(escapeFieldValue('='), '\\=');
    assert.equal(escapeFieldValue('a,b=c\\d'), 'a\\,b\\=c\\\\d');
    assert.equal(escapeFieldValue('\\,'), '\\\\\\,');
  });
});

describe('unescapeFieldValue', () => {
  it('returns values without specials unchanged', () => {
    assert.equal(unescapeFieldValue(''), '');
    assert.equal(unescapeFieldValue('node-1'), 'node-1');
  });

  it('unescapes the three escape sequences', () => {
    assert.equal(unescapeFieldValue('\\\\'), '\\');
    assert.equal(unescapeFieldValue('\\,'), ',');
    assert.equal(unescapeFieldValue('\\='), '=');
    assert.equal(unescapeFieldValue('a\\,b\\=c\\\\d'), 'a,b=c\\d');
  });

  it('round-trips any value through escape and unescape', () => {
    for (const value of ['', 'a', '\\', ',', '=', '\\\\,,==', 'a=b,c\\d', 'x\\=y', 'é,😀=\\', ' , ']) {
      assert.equal(unescapeFieldValue(escapeFieldValue(value)), value, JSON.stringify(value));
    }
  });

  it('rejects an unknown escape sequence', () => {
    assertBadRequest(() => unescapeFieldValue('a\\b'), 'invalid field selector: invalid escape sequence: \\b');
    assertBadRequest(() => unescapeFieldValue('\\n'), 'invalid field selector: invalid escape sequence: \\n');
    assertBadRequest(() => unescapeFieldValue('\\😀'), 'invalid field selector: invalid escape sequence: \\😀');
  });

  it('rejects a trailing backslash', () => {
    assertBadRequest(() => unescapeFieldValue('a\\'), 'invalid field selector: invalid escape sequence: \\');
    assertBadRequest(() => unescapeFieldValue('\\\\\\'), 'invalid field selector: invalid escape sequence: \\');
  });

  it('rejects a bare comma or equals, naming its code point as upstream does', () => {
    assertBadRequest(() => unescapeFieldValue('a=b'), 'invalid field selector: unescaped character in value: 61');
    assertBadRequest(() => unescapeFieldValue('a,b'), 'invalid field selector: unescaped character in value: 44');
  });
});
