import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { TerminalSizeParser } from './serve.js';
import { encodeStatus, exitCodeStatus, internalErrorStatus, successStatus } from './status.js';

describe('remotecommand status', () => {
  it('writes v4 Statuses as JSON in Go\'s field order', () => {
    assert.equal(encodeStatus(successStatus(), 4)?.toString(), '{"metadata":{},"status":"Success"}');
    assert.equal(
      encodeStatus(exitCodeStatus(3, ['sh', '-c', 'exit 3']), 5)?.toString(),
      '{"metadata":{},"status":"Failure","message":"command terminated with non-zero exit code: error executing command [sh -c exit 3], exit code 3","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}',
    );
    assert.equal(
      encodeStatus(internalErrorStatus('boom'), 4)?.toString(),
      '{"metadata":{},"status":"Failure","message":"Internal error occurred: boom","reason":"InternalError","details":{"causes":[{"message":"boom"}]},"code":500}',
    );
  });

  it('writes only failures, as text, before v4', () => {
    assert.equal(encodeStatus(successStatus(), 3), undefined);
    assert.equal(encodeStatus(internalErrorStatus('boom'), 1)?.toString(), 'Internal error occurred: boom');
  });

  it('reads terminal sizes sent one after another, in pieces', () => {
    const parser = new TerminalSizeParser();
    assert.deepEqual(parser.push('{"Width":80,"Hei'), []);
    assert.deepEqual(parser.push('ght":24}\n{"Width":100,"Height":40}{"x":1}'), [
      { width: 80, height: 24 },
      { width: 100, height: 40 },
    ]);
  });
});
