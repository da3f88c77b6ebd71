import assert from 'node:assert/strict';
import { describe, it } from 'node:test';

import { ValidStrings } from './valid-strings.js';

describe('ValidStrings', () => {
  it('asks the check once for a valid string, every time for an invalid one', () => {
    const asked: string[] = [];
    const valid = new ValidStrings((s) => {
      asked.push(s);
      return s.startsWith('ok');
    });
    assert.equal(valid.test('ok-1'), true);
    assert.equal(valid.test('ok-1'), true);
    assert.equal(valid.test('bad'), false);
    assert.equal(valid.test('bad'), false);
    assert.deepEqual(asked, ['ok-1', 'bad', 'bad']);
  });
  it('forgets everything when full, and answers the same after', () => {
    let calls = 0;
    const valid = new ValidStrings(() => {
      calls++;
      return true;
    }, 2);
    valid.test('a');
    valid.test('b');
    valid.test('c'); // full: cleared, then c kept
    valid.test('c');
    assert.equal(calls, 3);
    assert.equal(valid.test('a'), true);
    assert.equal(calls, 4);
  });
});
