import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { API_SERVER_V8_FLAGS, withFlags } from './apiserver-v8-flags.js';

describe('withFlags', () => {
  it('appends the flags the process was not started with', () => {
    assert.deepEqual(withFlags([], API_SERVER_V8_FLAGS), ['--max-semi-space-size=32']);
    assert.deepEqual(withFlags(['--enable-source-maps'], ['--max-semi-space-size=32']), ['--enable-source-maps', '--max-semi-space-size=32']);
  });

  it('keeps a flag the process set itself, in either spelling', () => {
    assert.deepEqual(withFlags(['--max-semi-space-size=64'], ['--max-semi-space-size=32']), ['--max-semi-space-size=64']);
    assert.deepEqual(withFlags(['--max_semi_space_size=8'], ['--max-semi-space-size=32']), ['--max_semi_space_size=8']);
    assert.deepEqual(withFlags(['--interrupt-budget=1', '--single-threaded-gc'], ['--single-threaded-gc', '--interrupt-budget=2']), [
      '--interrupt-budget=1',
      '--single-threaded-gc',
    ]);
  });
});
