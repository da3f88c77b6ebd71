import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { FieldPath, formatFieldError } from '../field-errors.js';
import { emptyError, inclusiveRangeError, maxLenError, regexError, tooLongBytes } from './messages.js';

describe('messages', () => {
  it('word failures as upstream', () => {
    assert.equal(inclusiveRangeError(1, 65535), 'must be between 1 and 65535, inclusive');
    assert.equal(maxLenError(63), 'must be no more than 63 characters');
    assert.equal(emptyError(), 'must be non-empty');
  });
  it('regexError lists examples with upstream punctuation', () => {
    assert.equal(regexError('m', 'f'), "m (regex used for validation is 'f')");
    assert.equal(regexError('m', 'f', 'a'), "m (e.g. 'a', regex used for validation is 'f')");
    assert.equal(regexError('m', 'f', 'a', 'b', 'c'), "m (e.g. 'a',  or 'b',  or 'c', regex used for validation is 'f')");
  });
  it("tooLongBytes reads as 1.33's field.TooLong", () => {
    const path = FieldPath.root('metadata').child('annotations');
    assert.equal(formatFieldError(tooLongBytes(path, 262144)), 'metadata.annotations: Too long: may not be more than 262144 bytes');
    assert.equal(formatFieldError(tooLongBytes('x', -1)), 'x: Too long: value is too long');
    assert.equal(tooLongBytes(path, 1).type, 'FieldValueTooLong');
  });
});
