import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseIncludeObject } from './transform.js';

describe('parseIncludeObject', () => {
  it('defaults to Metadata and takes None, Metadata and Object', () => {
    assert.equal(parseIncludeObject(new URLSearchParams('')), 'Metadata');
    assert.equal(parseIncludeObject(new URLSearchParams('includeObject=')), 'Metadata');
    for (const v of ['None', 'Metadata', 'Object'] as const) assert.equal(parseIncludeObject(new URLSearchParams(`includeObject=${v}`)), v);
  });
  it('answers anything else with upstream’s 400', () => {
    assert.throws(
      () => parseIncludeObject(new URLSearchParams('includeObject=Bad')),
      (e: unknown) => {
        const status = (e as { status: { code: number; reason: string; message: string } }).status;
        assert.deepEqual([status.code, status.reason], [400, 'BadRequest']);
        assert.equal(status.message, "Unable to convert to Table as requested: includeObject: Invalid value: \"Bad\": must be 'Metadata', 'Object', 'None', or empty");
        return true;
      },
    );
  });
});
