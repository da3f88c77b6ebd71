import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBool, parseDryRun } from './query.js';

describe('parseBool', () => {
  it('reads booleans as upstream: only absence, 0 and false (any case) are false', () => {
    const q = (s: string) => new URLSearchParams(s);
    assert.equal(parseBool(q(''), 'allowWatchBookmarks'), false);
    for (const v of ['0', 'false', 'False', 'FALSE']) assert.equal(parseBool(q(`a=${v}`), 'a'), false, v);
    for (const v of ['1', 'true', 'True', 'yes', '']) assert.equal(parseBool(q(`a=${v}`), 'a'), true, v);
  });
});

describe('parseDryRun', () => {
  it('accepts All and absence, and answers anything else with 422 Invalid of the options kind', () => {
    assert.equal(parseDryRun(new URLSearchParams('dryRun=All'), 'CreateOptions'), true);
    assert.equal(parseDryRun(new URLSearchParams(''), 'CreateOptions'), false);
    assert.throws(
      () => parseDryRun(new URLSearchParams('dryRun=Bogus'), 'PatchOptions'),
      (e: unknown) => {
        const status = (e as { status: { code: number; message: string; details: unknown } }).status;
        assert.equal(status.code, 422);
        assert.equal(status.message, 'PatchOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Bogus"}: supported values: "All"');
        return true;
      },
    );
  });
});
