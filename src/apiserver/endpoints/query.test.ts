import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBool } from './query.js';

describe('parseBool', () => {
  it('reads booleans as upstream: only absence, 0 and false (any case) are false', () => {
    const q = (s: string) => new URLSearchParams(s);
    assert.equal(parseBool(q(''), 'allowWatchBookmarks'), false);
    for (const v of ['0', 'false', 'False', 'FALSE']) assert.equal(parseBool(q(`a=${v}`), 'a'), false, v);
    for (const v of ['1', 'true', 'True', 'yes', '']) assert.equal(parseBool(q(`a=${v}`), 'a'), true, v);
  });
});
