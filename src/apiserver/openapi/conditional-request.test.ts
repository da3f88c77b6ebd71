import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isNotModified } from './conditional-request.js';

const etag = '"ABC"';
const modified = new Date('2026-01-02T03:04:05.678Z');

describe('isNotModified', () => {
  it('matches If-None-Match strongly, weakly, in a list, or as *', () => {
    for (const ifNoneMatch of ['"ABC"', 'W/"ABC"', '"x", "ABC"', '*']) assert.equal(isNotModified({ ifNoneMatch }, etag, modified), true, ifNoneMatch);
    assert.equal(isNotModified({ ifNoneMatch: '"ABCD"' }, etag, modified), false);
  });

  it('uses If-Modified-Since, in whole seconds, only without If-None-Match', () => {
    assert.equal(isNotModified({ ifModifiedSince: 'Fri, 02 Jan 2026 03:04:05 GMT' }, etag, modified), true);
    assert.equal(isNotModified({ ifModifiedSince: 'Fri, 02 Jan 2026 03:04:04 GMT' }, etag, modified), false);
    assert.equal(isNotModified({ ifModifiedSince: 'yesterday' }, etag, modified), false);
    assert.equal(isNotModified({ ifModifiedSince: 'Fri, 02 Jan 2026 03:04:05 GMT', ifNoneMatch: '"old"' }, etag, modified), false);
    assert.equal(isNotModified({}, etag, modified), false);
  });
});
