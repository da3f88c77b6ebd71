import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseBool, parseDryRun, parseInt64 } from './query.js';

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

describe('parseInt64', () => {
  it('reads as Go’s strconv.ParseInt of the trimmed value: negatives kept, blank absent, the rest a 400 with Go’s text', () => {
    const q = (text: string) => new URLSearchParams(text);
    assert.equal(parseInt64(q('limit=-1'), 'limit'), -1);
    assert.equal(parseInt64(q('limit=%2B5'), 'limit'), 5);
    assert.equal(parseInt64(q('limit=%20'), 'limit'), undefined);
    assert.equal(parseInt64(q(''), 'limit'), undefined);
    assert.throws(() => parseInt64(q('limit=abc'), 'limit'), (e: unknown) => (e as Error).message === 'strconv.ParseInt: parsing "abc": invalid syntax' && (e as { code: number }).code === 400);
    assert.throws(() => parseInt64(q('limit=99999999999999999999'), 'limit'), /value out of range/);
  });
});
